/**
 * The writer lock and the hook runner's lock: one holder at a time, even when several processes
 * ask at once, and a holder that is gone (or a lock left empty by a crash) is taken over.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, expect, test } from 'vitest'
import { lockHolder, tryLock } from '../../src/services/workspace.js'

let dir = ''
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** A child process that takes the lock `rounds` times, logging when it holds it. */
function contender(file: string, log: string, rounds: number): Promise<number> {
  // the built module: the child is a plain node process
  const workspace = pathToFileURL(join(process.cwd(), 'dist/services/workspace.js')).href
  const script = `
    const { tryLock } = await import(${JSON.stringify(workspace)})
    const { appendFileSync } = await import('node:fs')
    let held = 0
    for (let tries = 0; held < ${rounds} && tries < 100000; tries++) {
      const release = tryLock(${JSON.stringify(file)})
      if (!release) { await new Promise((r) => setTimeout(r, 1)); continue }
      appendFileSync(${JSON.stringify(log)}, 'in ' + process.pid + '\\n')
      const until = Date.now() + 3
      while (Date.now() < until) {}
      appendFileSync(${JSON.stringify(log)}, 'out ' + process.pid + '\\n')
      release()
      held++
    }
  `
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'inherit'] })
    child.on('error', reject)
    child.on('exit', (code) => resolve(code ?? -1))
  })
}

test('processes asking at once: never two holders, and each gets its turns', async () => {
  dir = mkdtempSync(join(tmpdir(), 'gitwhy-lock-'))
  const file = join(dir, 'analyze.lock')
  const log = join(dir, 'log')
  writeFileSync(log, '')
  const codes = await Promise.all(Array.from({ length: 6 }, () => contender(file, log, 15)))
  expect(codes).toEqual([0, 0, 0, 0, 0, 0])
  const lines = readFileSync(log, 'utf8').trim().split('\n')
  expect(lines).toHaveLength(6 * 15 * 2)
  for (let i = 0; i < lines.length; i += 2) {
    const [inWord, pid] = lines[i].split(' ')
    expect([inWord, lines[i + 1]], `line ${i}: two holders at once`).toEqual(['in', `out ${pid}`])
  }
  expect(existsSync(file)).toBe(false)
  expect(readdirSync(dir).sort()).toEqual(['log'])
}, 60_000)

test('a lock whose holder is gone, or left empty or garbled by a crash, is taken over', () => {
  dir = mkdtempSync(join(tmpdir(), 'gitwhy-lock-'))
  const file = join(dir, 'analyze.lock')
  for (const stale of [JSON.stringify({ pid: 2 ** 22 + 7, start: '1', boot: null }), '', 'not a lock']) {
    writeFileSync(file, stale)
    expect(lockHolder(file)).toBeNull()
    const release = tryLock(file)
    expect(release).not.toBeNull()
    expect(lockHolder(file)).toBe(process.pid)
    release!()
    expect(existsSync(file)).toBe(false)
  }
  expect(readdirSync(dir)).toEqual([])
})

test('a live holder keeps its lock', () => {
  dir = mkdtempSync(join(tmpdir(), 'gitwhy-lock-'))
  const file = join(dir, 'analyze.lock')
  // pid 1 is alive and is not this process
  writeFileSync(file, JSON.stringify({ pid: 1, start: null, boot: null }))
  expect(tryLock(file)).toBeNull()
  expect(JSON.parse(readFileSync(file, 'utf8')).pid).toBe(1)
  expect(readdirSync(dir)).toEqual(['analyze.lock'])
})
