/**
 * The recorder as a process: `gitwhy trajectory start|stop|status` (one per repository, a lock),
 * a killed recorder restarting cleanly, `gitwhy watch` in the foreground, and the MCP server
 * starting, querying and stopping the recorder for an agent that has no terminal.
 */
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { readJournal } from '../../src/trajectory/journal.js'
import { isAlive } from '../../src/services/workspace.js'
import { runCli, runJson } from '../cli/cli.js'
import { connectStdio, text } from '../mcp/client.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { waitFor } from '../helpers/wait.js'

let repos: TestRepo[] = []

afterEach(async () => {
  for (const repo of repos) {
    await runCli(['trajectory', 'stop', '--repo', repo.dir], { cwd: repo.dir, env: repo.env() })
    repo.cleanup()
  }
  repos = []
})

function smallRepo(): TestRepo {
  const repo = createRepo()
  repo.write('src/a.ts', 'export function a(): number {\n  return 1\n}\n')
  repo.commit('Add a')
  repos.push(repo)
  return repo
}

const opts = (repo: TestRepo) => ({ cwd: repo.dir, env: repo.env() })
const autos = (repo: TestRepo) => readJournal(repo.dir).filter((r) => r.kind === 'auto')

describe('the recorder process', () => {
  test('start, a second start finds it running, edits are recorded, stop ends it and frees the lock', async () => {
    const repo = smallRepo()
    const started = (await runJson(['trajectory', 'start', '--debounce', '100'], opts(repo))).json
    expect(started).toMatchObject({ running: true, started: true, debounce_ms: 100 })
    const pid = started.pid as number
    expect(isAlive(pid)).toBe(true)
    expect((await runJson(['trajectory', 'start'], opts(repo))).json).toMatchObject({ started: false, pid })
    writeFileSync(repo.path('src/a.ts'), 'export function a(): number {\n  return 2\n}\n')
    const snap = await waitFor('a snapshot', () => autos(repo)[0])
    expect(snap.symbols.map((s) => s.id)).toEqual(['src/a.ts#a'])
    const status = (await runJson(['trajectory', 'status'], opts(repo))).json
    expect(status).toMatchObject({ running: true, pid, snapshots: 2, last_snapshot: { id: snap.id } })
    // the documented JSON shapes (README, "Edit trajectory"), key for key
    expect(Object.keys(status).sort()).toEqual(['debounce_ms', 'idle_gap_ms', 'intent', 'last_snapshot', 'log', 'pid', 'repo', 'running', 'sessions', 'shadow_bytes', 'snapshots', 'started_at'])
    const t = (await runJson(['trajectory', 'src/a.ts'], opts(repo))).json
    expect(Object.keys(t).sort()).toEqual(['repo', 'since_consolidate', 'snapshots', 'target', 'total'])
    expect(Object.keys(t.snapshots[0]).sort()).toEqual(['files', 'id', 'intent', 'kind', 'reverted_by', 'reverts', 'session', 'summary', 'symbols', 'time'])
    expect(Object.keys(t.snapshots[0].files[0]).sort()).toEqual(['added', 'after', 'before', 'path', 'ranges', 'removed', 'status'])
    expect(Object.keys(t.snapshots[0].symbols[0]).sort()).toEqual(['added', 'after', 'before', 'id', 'kind', 'path', 'qualified_name', 'removed'])
    const summary = (await runJson(['trajectory', 'summary'], opts(repo))).json
    expect(Object.keys(summary).sort()).toEqual(['checkpoints', 'files', 'first', 'intents', 'last', 'net', 'repo', 'reverts', 'session', 'snapshots', 'symbols'])
    expect((await runJson(['trajectory', 'stop'], opts(repo))).json).toMatchObject({ stopped: true, running: false })
    expect(isAlive(pid)).toBe(false)
    expect((await runJson(['trajectory', 'stop'], opts(repo))).json).toMatchObject({ stopped: false })
  }, 60_000)

  test('a killed recorder leaves a stale lock: status says not running, and start takes over, catches up and keeps the intent', async () => {
    const repo = smallRepo()
    const pid = (await runJson(['trajectory', 'start', '--debounce', '100'], opts(repo))).json.pid as number
    await runJson(['intent', 'keep a across restarts'], opts(repo))
    process.kill(pid, 'SIGKILL')
    await waitFor('the recorder to die', () => !isAlive(pid))
    expect((await runJson(['trajectory', 'status'], opts(repo))).json).toMatchObject({ running: false, pid: null })
    // edited while nothing records: the restarted recorder catches up with one snapshot
    writeFileSync(repo.path('src/a.ts'), 'export function a(): number {\n  return 3\n}\n')
    const again = (await runJson(['trajectory', 'start', '--debounce', '100'], opts(repo))).json
    expect(again).toMatchObject({ started: true, running: true })
    expect(again.pid).not.toBe(pid)
    expect(autos(repo).map((r) => [r.files.map((f) => f.path), r.intent])).toEqual([[['src/a.ts'], 'keep a across restarts']])
    writeFileSync(repo.path('src/b.ts'), 'export const b = 1\n')
    await waitFor('the next snapshot', () => autos(repo)[1])
  }, 60_000)

  test('the MCP server records the repository it runs in, not the only indexed one elsewhere', async () => {
    const indexed = smallRepo()
    await runJson(['analyze', '--quiet'], opts(indexed))
    // same home (and registry), never analyzed
    const here = indexed.clone()
    const { client } = await connectStdio({ cwd: here.dir, env: here.env(), tools: 'trajectory' })
    try {
      const r = (await client.callTool({ name: 'trajectory_recorder', arguments: { action: 'status' } })) as { structuredContent: Record<string, any> }
      expect(realpathSync(r.structuredContent.repo)).toBe(realpathSync(here.dir))
    } finally {
      await client.close()
      here.cleanup()
    }
  })

  test('watch in the foreground: bad flags exit 1 at once; --duration stops it with one JSON document', async () => {
    const repo = smallRepo()
    for (const argv of [['--debounce', '-1'], ['--debounce', '10'], ['--idle-gap', '0'], ['--duration', '0'], ['--duration', '99999999999']]) {
      const r = await runCli(['watch', ...argv], { ...opts(repo), timeoutMs: 20_000 })
      expect(r.code, `watch ${argv.join(' ')}: ${r.stderr}`).toBe(1)
      expect(r.stderr).toMatch(/fix:/)
    }
    const r = await runJson(['watch', '--duration', '300'], opts(repo))
    expect(r.json).toMatchObject({ repo: repo.dir, snapshots: [{ summary: 'baseline: 1 files' }] })
    // while a recorder runs, a second one is refused
    await runJson(['trajectory', 'start'], opts(repo))
    const second = await runCli(['watch', '--duration', '300'], opts(repo))
    expect(second.code).toBe(1)
    expect(second.stderr).toMatch(/already runs/)
  }, 60_000)

  test('the MCP server starts the recorder, sets the intent, answers the trajectory, consolidates and stops it', { timeout: 60_000 }, async () => {
    const repo = smallRepo()
    const { client } = await connectStdio({ cwd: repo.dir, env: repo.env(), tools: 'trajectory' })
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const r = await client.callTool({ name, arguments: args })
        expect(r.isError, `${name}: ${text(r)}`).toBeFalsy()
        return r as { structuredContent: Record<string, any> }
      }
      expect((await call('trajectory_recorder', { action: 'status' })).structuredContent.running).toBe(false)
      const started = await call('trajectory_recorder', { action: 'start', debounce_ms: 100 })
      expect(started.structuredContent).toMatchObject({ running: true, started: true })
      await call('set_intent', { intent: 'make a return 4' })
      writeFileSync(repo.path('src/a.ts'), 'export function a(): number {\n  return 4\n}\n')
      // what the recorder said, when no snapshot comes
      const snap = await waitFor('a snapshot', () => autos(repo)[0]).catch((error: Error) => {
        const log = join(repo.dir, '.gitwhy', 'trajectory', 'recorder.log')
        throw new Error(`${error.message}; recorder.log: ${existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '(none)'}`)
      })
      const t = await call('trajectory', { target: 'src/a.ts:a' })
      expect(t.structuredContent.snapshots.map((s: any) => [s.id, s.intent])).toEqual([[snap.id, 'make a return 4']])
      const one = await call('snapshot', { id: snap.id.slice(0, 8) })
      expect(one.structuredContent.diff).toContain('+  return 4')
      const summary = await call('session_summary', {})
      expect(summary.structuredContent).toMatchObject({ intents: ['make a return 4'], net: { files: 1, added: 1, removed: 1 } })
      await call('consolidate', { summary: 'a returns 4' })
      expect((await call('global_trajectory', { since_consolidate: true })).structuredContent.total).toBe(0)
      const bad = await client.callTool({ name: 'snapshot', arguments: { id: 'ffffffff' } })
      expect(bad.isError).toBe(true)
      expect(text(bad)).toMatch(/To fix:/)
      expect((await call('trajectory_recorder', { action: 'stop' })).structuredContent).toMatchObject({ running: false, stopped: true })
    } finally {
      await client.close()
    }
  })
})
