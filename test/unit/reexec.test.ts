/**
 * A build runs again in a child process with MALLOC_ARENA_MAX set (runtime/reexec.ts): the child
 * gets the variable, its parent's pid and the same arguments, its exit code is the caller's, and nothing is re-run
 * when the variable is already set (the child itself, or a user who chose a value).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { MALLOC_ARENAS, rerunWithMallocArenas } from '../../src/runtime/reexec.js'

const dir = mkdtempSync(path.join(tmpdir(), 'gitwhy-reexec-'))
const script = path.join(dir, 'child.mjs')
const out = path.join(dir, 'out.json')
// what the child saw, then exit 7
writeFileSync(script, `import { writeFileSync } from 'node:fs'\nwriteFileSync(${JSON.stringify(out)}, JSON.stringify({ arenas: process.env.MALLOC_ARENA_MAX, parent: process.env.GITWHY_RERUN_PARENT, argv: process.argv.slice(2) }))\nprocess.exit(7)\n`)

describe.runIf(process.platform === 'linux')('rerunWithMallocArenas', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('runs the script again with the variable and the arguments, and gives its exit code', async () => {
    const saved = process.env.MALLOC_ARENA_MAX
    delete process.env.MALLOC_ARENA_MAX
    try {
      expect(await rerunWithMallocArenas(['analyze', '--force'], script)).toBe(7)
    } finally {
      if (saved !== undefined) process.env.MALLOC_ARENA_MAX = saved
    }
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ arenas: MALLOC_ARENAS, parent: String(process.pid), argv: ['analyze', '--force'] })
  })

  test('does nothing when the variable is set already', async () => {
    const saved = process.env.MALLOC_ARENA_MAX
    process.env.MALLOC_ARENA_MAX = '4'
    try {
      expect(await rerunWithMallocArenas(['analyze'], script)).toBeNull()
    } finally {
      if (saved === undefined) delete process.env.MALLOC_ARENA_MAX
      else process.env.MALLOC_ARENA_MAX = saved
    }
  })
})
