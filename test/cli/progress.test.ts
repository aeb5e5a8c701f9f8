/**
 * `gitwhy analyze` in a real terminal (a pseudo-terminal from util-linux `script`): one live line
 * redrawn in place and one line per finished phase, not a bar per graph table that never fills.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { createRepo } from '../helpers/repo.js'
import { BIN } from './cli.js'

const hasScript = spawnSync('script', ['--version']).status === 0

describe.skipIf(!hasScript)('analyze progress in a terminal', () => {
  test('one live line, one line per finished phase, no per-table bars', () => {
    const repo = createRepo()
    const out = mkdtempSync(join(tmpdir(), 'gitwhy-tty-'))
    try {
      for (let i = 0; i < 30; i++) repo.write(`src/m${i % 7}.ts`, `export function f${i}() {\n  return ${i}\n}\n`).commit(`change ${i}`)
      const log = join(out, 'typescript')
      execFileSync('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} analyze`, log], { cwd: repo.dir, env: { ...repo.env(), COLUMNS: '120' }, stdio: 'ignore' })
      const tty = readFileSync(log, 'utf8')
      // progress was drawn for a terminal: in place, with the clear-line sequence
      expect(tty).toContain('\r\x1b[Kanalyze ')
      expect(tty).not.toMatch(/\[[#-]{10,}\]/)
      const finished = tty.split('\n').map((l) => l.replace(/^[\s\S]*\r\x1b\[K/, '').trim()).filter((l) => l.startsWith('gitwhy: '))
      const phases = finished.map((l) => l.split(/\s+/)[1])
      // each phase once; the whole graph load is one of them
      expect(new Set(phases).size).toBe(phases.length)
      expect(phases).toEqual(expect.arrayContaining(['history', 'parse', 'hunk', 'graph', 'manifest']))
      expect(finished).toContainEqual(expect.stringMatching(/^gitwhy: history\s+30 commits in \d/))
      expect(finished).toContainEqual(expect.stringMatching(/^gitwhy: graph load\s+\d+ steps in \d/))
      expect(tty).toMatch(/indexed .* \(full\)/)
    } finally {
      repo.cleanup()
      rmSync(out, { recursive: true, force: true })
    }
  })
})
