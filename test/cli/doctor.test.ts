/**
 * `gitwhy doctor` against the built CLI: every check passes on an indexed repository (including
 * a real stdio handshake with the built server), and each broken part fails its own check with a
 * fix and exit code 1.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { t as S, expectShape, runCli, runJson, type CliOptions } from './cli.js'

const CHECK = S.obj({ id: S.str(), status: S.lit('ok', 'warn', 'fail', 'skip'), message: S.str(), fix: S.or(S.str(), S.nul()) })
const DOCTOR = S.obj({ repo: S.or(S.str(), S.nul()), ok: S.bool(), checks: S.arr(CHECK) })

describe('gitwhy doctor', () => {
  let repo: TestRepo
  let opts: CliOptions

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/a.ts', 'export function a(): number {\n  return 1\n}\n').commit('Add a')
    opts = { cwd: repo.dir, env: repo.env() }
  })
  afterAll(() => repo?.cleanup())

  /** doctor exits 1 when a check fails and still prints its one JSON document */
  const doctorJson = async () => {
    const result = await runCli(['doctor', '--repo', repo.dir, '--json'], opts)
    return { json: JSON.parse(result.stdout), result }
  }
  const checks = (json: any) => Object.fromEntries(json.checks.map((c: any) => [c.id, c]))

  test('no index yet: the index check fails with the command that fixes it', async () => {
    const { json, result } = await doctorJson()
    expect(result.code).toBe(1)
    expect(json.ok).toBe(false)
    expect(checks(json).index).toMatchObject({ status: 'fail', fix: `run \`gitwhy analyze ${repo.dir}\`` })
    expect(checks(json).node.status).toBe('ok')
  })

  test('indexed and fresh: every check passes, the stdio handshake included; --json shape pinned', async () => {
    await runJson(['analyze', '--repo', repo.dir], opts)
    const { json, result } = await doctorJson()
    expect(result.code).toBe(0)
    expectShape(json, DOCTOR, 'doctor --json')
    expect(json.checks.map((c: any) => [c.id, c.status])).toEqual([
      ['node', 'ok'],
      ['index', 'ok'],
      ['database', 'ok'],
      ['forge', 'skip'],
      ['tools', 'ok'],
      ['stdio', 'ok'],
      ['clients', 'warn'],
    ])
    expect(checks(json).stdio.message).toMatch(/answered initialize in \d+ ms and ping/)
    expect(checks(json).clients.message).toBe('no MCP client found on this machine')
    const human = await runCli(['doctor', '--repo', repo.dir], opts)
    expect(human.stdout).toMatch(/^ok {4}node/m)
    expect(human.stdout).toContain('all checks passed')
  })

  test('client registrations: one made by setup passes, one pointing at a missing gitwhy fails with the fix', async () => {
    const home = repo.env().HOME!
    mkdirSync(join(home, '.cursor'), { recursive: true })
    mkdirSync(join(home, '.gemini'), { recursive: true })
    let { json } = await doctorJson()
    expect(checks(json).clients).toMatchObject({ status: 'warn', message: 'gitwhy is not registered with Cursor, Gemini CLI' })
    await runJson(['setup', '--client', 'cursor', '--client', 'gemini'], opts)
    ;({ json } = await doctorJson())
    expect(checks(json)['client:cursor'].status).toBe('ok')
    expect(checks(json)['client:gemini'].status).toBe('ok')
    // gitwhy moved away: the registration now launches a run.js that does not exist
    const file = join(home, '.cursor', 'mcp.json')
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"[^"]*bin\/run\.js"/, '"/nowhere/gitwhy/bin/run.js"'))
    const { json: broken, result } = await doctorJson()
    expect(result.code).toBe(1)
    expect(checks(broken)['client:cursor']).toMatchObject({ status: 'fail', fix: 'run `gitwhy setup` to point it at this gitwhy' })
    expect(checks(broken)['client:cursor'].message).toContain('/nowhere/gitwhy/bin/run.js')
    await runJson(['setup', '--remove'], opts)
  })

  test("Claude Code's hook: missing is a warning with the fix; installed, it is run as Claude Code runs it and answers", async () => {
    const home = repo.env().HOME!
    repo.write('src/retry.ts', 'export function retry(): number {\n  return 3\n}\n').commit('Add retry')
    await runJson(['analyze', '--repo', repo.dir], opts)
    mkdirSync(join(home, '.claude'), { recursive: true })
    await runJson(['setup', '--client', 'claude-code', '--no-hook'], opts)
    let { json } = await doctorJson()
    expect(checks(json).hook).toMatchObject({ status: 'warn', fix: 'run `gitwhy setup --client claude-code` (it adds the hook)' })
    await runJson(['setup', '--client', 'claude-code'], opts)
    ;({ json } = await doctorJson())
    expect(checks(json).hook.status, checks(json).hook.message).toBe('ok')
    expect(checks(json).hook.message).toMatch(/answered a search for retry\.ts in \d+ ms/)
    // a deadline nothing can meet: the check says the hook is silent, and why
    const silent = await runCli(['doctor', '--repo', repo.dir, '--json'], { ...opts, env: { ...opts.env, GITWHY_HOOK_DEADLINE_MS: '1' } })
    const hook = checks(JSON.parse(silent.stdout)).hook
    expect(hook.status).toBe('warn')
    expect(hook.message).toMatch(/gave no answer[\s\S]*deadline passed/)
    await runJson(['setup', '--remove'], opts)
  })

  test('a new commit: the index check warns (stale) and says how to stay fresh, exit 0', async () => {
    repo.write('src/a.ts', 'export function a(): number {\n  return 2\n}\n').commit('Return 2')
    const { json, result } = await doctorJson()
    expect(result.code).toBe(0)
    expect(checks(json).index).toMatchObject({ status: 'warn', message: 'index is 1 commit behind HEAD' })
    expect(checks(json).index.fix).toMatch(/gitwhy analyze.*hooks install/)
  })

  test('a damaged database fails the index check (its size and hash are recorded) with a rebuild fix', async () => {
    await runJson(['analyze', '--repo', repo.dir], opts)
    const meta = JSON.parse((await import('node:fs')).readFileSync(join(repo.dir, '.gitwhy', 'meta.json'), 'utf8'))
    const db = join(repo.dir, '.gitwhy', meta.indexDir, 'graph.kuzu')
    rmSync(db, { force: true })
    writeFileSync(db, 'not a database')
    const { json, result } = await doctorJson()
    expect(result.code).toBe(1)
    expect(checks(json).index).toMatchObject({ status: 'fail' })
    expect(checks(json).index.message).toMatch(/the index is damaged: graph.kuzu/)
    expect(checks(json).index.fix).toMatch(/analyze .*--force/)
  })
})
