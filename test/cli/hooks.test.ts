/**
 * `gitwhy hooks install | uninstall | status` end to end, with real git firing real hooks: the
 * built CLI installs them into throwaway repositories, git commits / merges / checks out, and the
 * background runner (`gitwhy hooks run`, started by the hook) brings `.gitwhy/meta.json` up to
 * the new HEAD while the git command itself has long returned.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { BUNDLED_MODEL_ID } from '../../src/embed/model.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { BIN, expectShape, expectUserError, runCli, runJson, sleep, t, type CliOptions } from './cli.js'

const HOOKS = ['post-commit', 'post-merge', 'post-rewrite', 'post-checkout']

const CHANGE_DOC = t.obj({
  hooks_dir: t.str(),
  hooks: t.arr(
    t.obj(
      {
        name: t.lit(...HOOKS),
        path: t.str(),
        status: t.lit('created', 'appended', 'updated', 'unchanged', 'removed', 'absent', 'refused'),
        message: t.str(),
      },
      ['message'],
    ),
  ),
})

const STATUS_DOC = t.obj({
  repo: t.str(),
  hooks_dir: t.str(),
  hooks: t.arr(t.obj({ name: t.lit(...HOOKS), path: t.str(), status: t.lit('installed', 'outdated', 'not_installed', 'foreign') })),
  indexed: t.bool(),
  background: t.obj({ running: t.bool(), pid: t.or(t.int(), t.nul()), pending: t.bool(), log: t.or(t.str(), t.nul()) }),
})

const repos: TestRepo[] = []
const temps: string[] = []

afterEach(async () => {
  // let every background runner finish before its repository disappears
  for (const repo of repos) await settle(repo)
  for (const repo of repos.splice(0)) repo.cleanup()
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true })
})

function tempDir(prefix: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  temps.push(d)
  return d
}

/** A committed repository; analyzed unless `analyzed: false`. */
async function setup({ analyzed = true, analyzeArgs = [] as string[] } = {}): Promise<{ repo: TestRepo; opts: CliOptions }> {
  const repo = createRepo()
  repos.push(repo)
  repo.write('src/a.ts', 'export function a(): number {\n  return 1\n}\n').write('README.md', '# demo\n')
  repo.commit('Initial commit')
  const opts = { cwd: repo.dir, env: repo.env() }
  if (analyzed) await runJson(['analyze', '--repo', repo.dir, ...analyzeArgs], opts)
  return { repo, opts }
}

const gitwhyFile = (repo: TestRepo, name: string) => join(repo.dir, '.gitwhy', name)

function indexedHead(repo: TestRepo): string | null {
  try {
    return JSON.parse(readFileSync(gitwhyFile(repo, 'meta.json'), 'utf8')).head
  } catch {
    return null
  }
}

function hooksLog(repo: TestRepo): string {
  return existsSync(gitwhyFile(repo, 'hooks.log')) ? readFileSync(gitwhyFile(repo, 'hooks.log'), 'utf8') : ''
}

/** Poll until the index is at `sha` (the background runner got there). */
async function waitForIndexedHead(repo: TestRepo, sha: string, timeoutMs = 90_000): Promise<number> {
  const t0 = performance.now()
  while (indexedHead(repo) !== sha) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`the index did not reach ${sha} in ${timeoutMs} ms (at ${indexedHead(repo)})\nhooks.log:\n${hooksLog(repo)}`)
    await sleep(100)
  }
  return performance.now() - t0
}

/** Wait until no runner holds the lock and nothing is pending, for a whole second. */
async function settle(repo: TestRepo, timeoutMs = 90_000): Promise<void> {
  const t0 = performance.now()
  let quietSince = performance.now()
  while (performance.now() - quietSince < 1000) {
    if (existsSync(gitwhyFile(repo, 'hooks-runner.lock')) || existsSync(gitwhyFile(repo, 'analyze.pending'))) quietSince = performance.now()
    if (performance.now() - t0 > timeoutMs) throw new Error(`background runners did not finish in ${timeoutMs} ms\n${hooksLog(repo)}`)
    await sleep(100)
  }
}

/** Commit with the hooks live (TestRepo.commit waits for git's stdout and stderr to close). */
function timedCommit(repo: TestRepo, file: string, content: string, message: string): { sha: string; ms: number } {
  const t0 = performance.now()
  repo.write(file, content)
  const sha = repo.commit(message)
  return { sha, ms: performance.now() - t0 }
}

/**
 * The analyze starts and ends in hooks.log, checked for overlap: at no point are two analyzes (of
 * any runner process) between their start and their end.
 */
function analyzeIntervals(log: string): { starts: number; maxConcurrent: number } {
  const open = new Set<string>()
  let starts = 0
  let maxConcurrent = 0
  for (const line of log.split('\n')) {
    const m = /\[pid (\d+)\] [\w-]+: analyze (start|done|failed|waiting)/.exec(line)
    if (!m) continue
    if (m[2] === 'start') {
      open.add(m[1])
      starts++
      maxConcurrent = Math.max(maxConcurrent, open.size)
    } else open.delete(m[1])
  }
  return { starts, maxConcurrent }
}

const hookFile = (dir: string, name: string) => join(dir, name)

describe('gitwhy hooks', () => {
  test('install → commit: git returns at once, the index catches up in the background (incremental)', async () => {
    const { repo, opts } = await setup()
    const before = repo.head()
    const { json } = await runJson(['hooks', 'install', '--repo', repo.dir], opts)
    expectShape(json, CHANGE_DOC, 'hooks install --json')
    expect(json.hooks_dir).toBe(join(repo.dir, '.git', 'hooks'))
    expect(json.hooks.map((h: any) => [h.name, h.status])).toEqual(HOOKS.map((h) => [h, 'created']))
    for (const h of HOOKS) {
      const file = join(repo.dir, '.git', 'hooks', h)
      expect(statSync(file).mode & 0o777).toBe(0o755)
      expect(readFileSync(file, 'utf8')).toMatch(/^#!\/bin\/sh\n\n# >>> gitwhy >>>\n[\s\S]*\n# <<< gitwhy <<<\n$/)
    }

    const { sha, ms } = timedCommit(repo, 'src/a.ts', 'export function a(): number {\n  return 2\n}\n', 'Return two')
    // git did not wait for the analyze: the index is still at the old HEAD when the commit returns
    expect(indexedHead(repo)).toBe(before)
    expect(ms).toBeLessThan(1500)
    const caughtUp = await waitForIndexedHead(repo, sha)
    console.log(`hooks: git commit returned in ${ms.toFixed(0)} ms; the index reached the new HEAD ${caughtUp.toFixed(0)} ms later`)
    await settle(repo)
    expect(hooksLog(repo)).toMatch(new RegExp(`post-commit: analyze done: incremental at ${sha} \\(1 new commits\\)`))

    // the index answers for the new commit
    const evidence = (await runJson(['evidence', 'src/a.ts:2', '--repo', repo.dir], opts)).json
    expect(evidence.index).toMatchObject({ head: sha, stale: false })
    expect(evidence.evidence[0].commit.sha).toBe(sha)
  })

  test('the background analyze keeps the options the index was built with: opt-in embeddings stay', async () => {
    const { repo, opts } = await setup({ analyzeArgs: ['--embeddings'] })
    const model = JSON.parse(readFileSync(gitwhyFile(repo, 'meta.json'), 'utf8')).options.embeddings
    expect(model).toMatchObject({ id: BUNDLED_MODEL_ID })
    await runJson(['hooks', 'install', '--repo', repo.dir], opts)
    const { sha } = timedCommit(repo, 'src/a.ts', 'export function a(): number {\n  return 2\n}\n', 'Return two')
    await waitForIndexedHead(repo, sha)
    await settle(repo)
    // an update, not a rebuild that drops the vectors
    expect(hooksLog(repo)).toMatch(new RegExp(`post-commit: analyze done: incremental at ${sha}`))
    expect(JSON.parse(readFileSync(gitwhyFile(repo, 'meta.json'), 'utf8')).options.embeddings).toEqual(model)
  })

  test('several commits in quick succession: never two analyzes at once, the index ends at the last commit', async () => {
    const { repo, opts } = await setup()
    await runJson(['hooks', 'install', '--repo', repo.dir], opts)
    let last = ''
    const times: number[] = []
    for (let i = 0; i < 6; i++) {
      const c = timedCommit(repo, `src/f${i}.ts`, `export const v${i} = ${i}\n`, `Add f${i}`)
      last = c.sha
      times.push(c.ms)
    }
    await waitForIndexedHead(repo, last)
    await settle(repo)
    expect(indexedHead(repo)).toBe(last)
    const log = hooksLog(repo)
    const { starts, maxConcurrent } = analyzeIntervals(log)
    console.log(`hooks: 6 commits (${times.map((t) => t.toFixed(0)).join(', ')} ms each) → ${starts} analyzes; ${(log.match(/queued/g) ?? []).length} hooks queued behind a running one`)
    expect(maxConcurrent, log).toBe(1)
    expect(starts, log).toBeGreaterThanOrEqual(1)
    expect(starts, log).toBeLessThanOrEqual(6)
    expect(log).not.toMatch(/analyze failed/)
    expect(existsSync(gitwhyFile(repo, 'hooks-runner.lock'))).toBe(false)
    expect(existsSync(gitwhyFile(repo, 'analyze.lock'))).toBe(false)
    const status = (await runJson(['status', '--repo', repo.dir], opts)).json
    expect(status.index).toMatchObject({ head: last, stale: false, commits_behind: 0 })
  })

  test('a rebase starts no runner per picked commit; post-rewrite (rebase, amend) brings the index to the result', async () => {
    const { repo, opts } = await setup()
    for (let i = 0; i < 5; i++) {
      repo.write(`src/r${i}.ts`, `export const r${i} = ${i}\n`)
      repo.commit(`Add r${i}`)
    }
    await runJson(['analyze', '--repo', repo.dir], opts)
    await runJson(['hooks', 'install', '--repo', repo.dir], opts)
    const before = repo.head()
    repo.git('rebase', '-q', '--force-rebase', 'HEAD~5')
    const rebased = repo.head()
    expect(rebased).not.toBe(before)
    await waitForIndexedHead(repo, rebased)
    await settle(repo)
    const log = hooksLog(repo)
    const runners = new Set([...log.matchAll(/\[pid (\d+)\]/g)].map((m) => m[1]))
    // the checkout that starts the rebase and its post-rewrite; none of the five post-commits
    expect(log, log).not.toMatch(/post-commit/)
    expect(runners.size, log).toBeLessThanOrEqual(2)
    expect(log).toMatch(/post-rewrite/)

    const amended = repo.amend('Add r4, amended')
    await waitForIndexedHead(repo, amended)
    expect(analyzeIntervals(hooksLog(repo)).maxConcurrent).toBe(1)
  })

  test('a foreign hook keeps working (and its exit status), and uninstall restores it byte for byte', async () => {
    const { repo, opts } = await setup()
    const out = tempDir('gitwhy-hook-out-')
    const hooksDir = join(repo.dir, '.git', 'hooks')
    // no trailing newline, bash, mode 0750: all three must survive install + uninstall
    const postCommit = `#!/usr/bin/env bash\n# the team's hook\necho "committed $(git rev-parse HEAD)" >> '${out}/log'`
    writeFileSync(hookFile(hooksDir, 'post-commit'), postCommit)
    chmodSync(hookFile(hooksDir, 'post-commit'), 0o750)
    // post-checkout's exit status becomes git checkout's: a failing last command must still fail it
    const postCheckout = `#!/bin/sh\necho "checkout $3" >> '${out}/log'\nfalse\n`
    writeFileSync(hookFile(hooksDir, 'post-checkout'), postCheckout, { mode: 0o755 })
    expect(repo.gitMay([1], 'checkout', '-q', '-b', 'probe').status).toBe(1)
    repo.gitMay([1], 'checkout', '-q', 'main')

    const { json } = await runJson(['hooks', 'install', '--repo', repo.dir], opts)
    expect(Object.fromEntries(json.hooks.map((h: any) => [h.name, h.status]))).toEqual({ 'post-commit': 'appended', 'post-merge': 'created', 'post-rewrite': 'created', 'post-checkout': 'appended' })
    const installed = readFileSync(hookFile(hooksDir, 'post-commit'), 'utf8')
    expect(installed.startsWith(postCommit + '\n# >>> gitwhy >>>\n')).toBe(true)
    expect(statSync(hookFile(hooksDir, 'post-commit')).mode & 0o777).toBe(0o750)

    const { sha } = timedCommit(repo, 'src/a.ts', 'export function a(): number {\n  return 3\n}\n', 'Three')
    await waitForIndexedHead(repo, sha)
    expect(readFileSync(join(out, 'log'), 'utf8')).toContain(`committed ${sha}`)
    // a branch checkout: the foreign hook runs, its failure is still git's exit status, and the index follows
    expect(repo.gitMay([1], 'checkout', '-q', '-b', 'side', 'HEAD~1').status).toBe(1)
    const sideHead = repo.head()
    await waitForIndexedHead(repo, sideHead)
    expect(readFileSync(join(out, 'log'), 'utf8')).toContain('checkout 1')
    await settle(repo)

    const un = (await runJson(['hooks', 'uninstall', '--repo', repo.dir], opts)).json
    expectShape(un, CHANGE_DOC, 'hooks uninstall --json')
    expect(un.hooks.map((h: any) => h.status)).toEqual(['removed', 'removed', 'removed', 'removed'])
    expect(readFileSync(hookFile(hooksDir, 'post-commit'), 'utf8')).toBe(postCommit)
    expect(statSync(hookFile(hooksDir, 'post-commit')).mode & 0o777).toBe(0o750)
    expect(readFileSync(hookFile(hooksDir, 'post-checkout'), 'utf8')).toBe(postCheckout)
    expect(existsSync(hookFile(hooksDir, 'post-merge'))).toBe(false)
    expect(existsSync(hookFile(hooksDir, 'post-rewrite'))).toBe(false)
    // git's sample hooks were never touched
    expect(readdirSync(hooksDir).filter((n) => n.endsWith('.sample')).length).toBeGreaterThan(0)

    // a second uninstall finds nothing of gitwhy's
    const again = (await runJson(['hooks', 'uninstall', '--repo', repo.dir], opts)).json
    expect(again.hooks.map((h: any) => h.status)).toEqual(['absent', 'absent', 'absent', 'absent'])
    expect(readFileSync(hookFile(hooksDir, 'post-commit'), 'utf8')).toBe(postCommit)
  })

  test('a binary or non-shell hook is refused with a fix; the others are installed; uninstall leaves them alone', async () => {
    const { repo, opts } = await setup()
    const hooksDir = join(repo.dir, '.git', 'hooks')
    const python = '#!/usr/bin/env python3\nprint("merged")\n'
    const binary = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00])
    writeFileSync(hookFile(hooksDir, 'post-merge'), python, { mode: 0o755 })
    writeFileSync(hookFile(hooksDir, 'post-rewrite'), binary, { mode: 0o755 })

    const { json, result } = await runJson(['hooks', 'install', '--repo', repo.dir], opts)
    const by = Object.fromEntries(json.hooks.map((h: any) => [h.name, h]))
    expect(by['post-commit'].status).toBe('created')
    expect(by['post-checkout'].status).toBe('created')
    expect(by['post-merge'].status).toBe('refused')
    expect(by['post-merge'].message).toMatch(/not a shell script.*python3.*fix: run `.*hooks run --hook post-merge/)
    expect(by['post-rewrite'].status).toBe('refused')
    expect(by['post-rewrite'].message).toMatch(/binary file.*fix:/)
    expect(result.stderr).toBe('')

    const plain = await runCli(['hooks', 'install', '--repo', repo.dir], opts)
    expect(plain.code).toBe(0)
    expect(plain.stdout).toMatch(/post-commit +unchanged/)
    expect(plain.stderr).toMatch(/warning: post-merge not installed: .*python3.*fix: /)
    expect(plain.stderr).toMatch(/warning: post-rewrite not installed: .*binary file/)

    const status = (await runJson(['hooks', 'status', '--repo', repo.dir], opts)).json
    expect(status.hooks.map((h: any) => h.status)).toEqual(['installed', 'foreign', 'foreign', 'installed'])

    await runJson(['hooks', 'uninstall', '--repo', repo.dir], opts)
    expect(readFileSync(hookFile(hooksDir, 'post-merge'), 'utf8')).toBe(python)
    expect(readFileSync(hookFile(hooksDir, 'post-rewrite')).equals(binary)).toBe(true)
    expect(existsSync(hookFile(hooksDir, 'post-commit'))).toBe(false)
  })

  test('core.hooksPath is respected: hooks go where git runs them, .git/hooks stays untouched', async () => {
    const { repo, opts } = await setup()
    repo.git('config', 'core.hooksPath', 'tools/githooks')
    const before = readdirSync(join(repo.dir, '.git', 'hooks')).sort()
    const { json } = await runJson(['hooks', 'install', '--repo', repo.dir], opts)
    expect(json.hooks_dir).toBe(join(repo.dir, 'tools', 'githooks'))
    expect(json.hooks.every((h: any) => h.status === 'created' && h.path === join(repo.dir, 'tools', 'githooks', h.name))).toBe(true)
    // the directory is in the work tree: the note says to keep the block out of commits
    expect(json.hooks[0].message).toMatch(/tools\/githooks\/post-commit is in the work tree/)
    expect(readdirSync(join(repo.dir, '.git', 'hooks')).sort()).toEqual(before)

    const { sha } = timedCommit(repo, 'src/b.ts', 'export const b = 1\n', 'Add b')
    await waitForIndexedHead(repo, sha)
    const status = (await runJson(['hooks', 'status', '--repo', repo.dir], opts)).json
    expect(status.hooks_dir).toBe(join(repo.dir, 'tools', 'githooks'))
    expect(status.hooks.every((h: any) => h.status === 'installed')).toBe(true)
  })

  test('husky 9 (core.hooksPath .husky/_): the block goes into the .husky/ scripts its wrappers run', async () => {
    const { repo, opts } = await setup()
    const out = tempDir('gitwhy-husky-out-')
    // husky 9's layout: generated wrappers in .husky/_ source _/h, which runs .husky/<hook> with sh -e and exits
    mkdirSync(join(repo.dir, '.husky', '_'), { recursive: true })
    writeFileSync(join(repo.dir, '.husky', '_', 'h'), '#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\nexit $?\n')
    for (const h of HOOKS) writeFileSync(join(repo.dir, '.husky', '_', h), '#!/usr/bin/env sh\n. "$(dirname "$0")/h"', { mode: 0o755 })
    const userScript = `echo husky-post-commit >> '${out}/log'\n`
    writeFileSync(join(repo.dir, '.husky', 'post-commit'), userScript)
    repo.git('config', 'core.hooksPath', '.husky/_')

    const { json } = await runJson(['hooks', 'install', '--repo', repo.dir], opts)
    expect(json.hooks_dir).toBe(join(repo.dir, '.husky', '_'))
    expect(json.hooks.map((h: any) => [h.path, h.status])).toEqual(HOOKS.map((h) => [join(repo.dir, '.husky', h), h === 'post-commit' ? 'appended' : 'created']))
    const { sha } = timedCommit(repo, 'src/c.ts', 'export const c = 1\n', 'Add c')
    await waitForIndexedHead(repo, sha)
    expect(readFileSync(join(out, 'log'), 'utf8')).toBe('husky-post-commit\n')
    await settle(repo)
    await runJson(['hooks', 'uninstall', '--repo', repo.dir], opts)
    expect(readFileSync(join(repo.dir, '.husky', 'post-commit'), 'utf8')).toBe(userScript)
    expect(readdirSync(join(repo.dir, '.husky')).sort()).toEqual(['_', 'post-commit'])
  })

  test('install is idempotent, replaces an outdated block in place, and uninstall removes only ours', async () => {
    const { repo, opts } = await setup()
    const hooksDir = join(repo.dir, '.git', 'hooks')
    const merge = '#!/bin/sh\necho merged\n'
    writeFileSync(hookFile(hooksDir, 'post-merge'), merge, { mode: 0o755 })
    await runJson(['hooks', 'install', '--repo', repo.dir], opts)
    const snapshot = () => Object.fromEntries(HOOKS.map((h) => [h, readFileSync(hookFile(hooksDir, h), 'utf8')]))
    const first = snapshot()

    const second = (await runJson(['hooks', 'install', '--repo', repo.dir], opts)).json
    expect(second.hooks.map((h: any) => h.status)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged'])
    expect(snapshot()).toEqual(first)

    // an old install: another node, a package that moved away. The hook is then a no-op that exits 0.
    const stale = first['post-commit'].replaceAll(process.execPath, '/opt/old/node').replaceAll(BIN, '/gone/gitwhy/bin/run.js')
    expect(stale).not.toBe(first['post-commit'])
    writeFileSync(hookFile(hooksDir, 'post-commit'), stale)
    // the user added a line of their own after the block
    writeFileSync(hookFile(hooksDir, 'post-rewrite'), first['post-rewrite'] + 'echo mine\n')
    const before = repo.head()
    const { sha } = timedCommit(repo, 'src/d.ts', 'export const d = 1\n', 'Add d')
    await sleep(2500)
    expect(indexedHead(repo)).toBe(before)
    expect(hooksLog(repo)).toBe('')
    const status = (await runJson(['hooks', 'status', '--repo', repo.dir], opts)).json
    expectShape(status, STATUS_DOC, 'hooks status --json')
    expect(status.hooks.map((h: any) => h.status)).toEqual(['outdated', 'installed', 'installed', 'installed'])

    const third = (await runJson(['hooks', 'install', '--repo', repo.dir], opts)).json
    expect(third.hooks.map((h: any) => h.status)).toEqual(['updated', 'unchanged', 'unchanged', 'unchanged'])
    expect(readFileSync(hookFile(hooksDir, 'post-commit'), 'utf8')).toBe(first['post-commit'])

    await runJson(['hooks', 'uninstall', '--repo', repo.dir], opts)
    expect(readFileSync(hookFile(hooksDir, 'post-merge'), 'utf8')).toBe(merge)
    expect(existsSync(hookFile(hooksDir, 'post-commit'))).toBe(false)
    expect(existsSync(hookFile(hooksDir, 'post-checkout'))).toBe(false)
    // a created file the user added to stays, with only their line left
    expect(readFileSync(hookFile(hooksDir, 'post-rewrite'), 'utf8')).toBe('#!/bin/sh\necho mine\n')
    expect(sha).toBe(repo.head())
  })

  test('status --json: the documented shape; running and pending come from the runner lock and mark', async () => {
    const { repo, opts } = await setup()
    const s0 = (await runJson(['hooks', 'status', '--repo', repo.dir], opts)).json
    expectShape(s0, STATUS_DOC, 'hooks status --json')
    expect(s0).toEqual({
      repo: repo.dir,
      hooks_dir: join(repo.dir, '.git', 'hooks'),
      hooks: HOOKS.map((name) => ({ name, path: join(repo.dir, '.git', 'hooks', name), status: 'not_installed' })),
      indexed: true,
      background: { running: false, pid: null, pending: false, log: null },
    })
    // a live process holding the runner lock, a request waiting
    writeFileSync(gitwhyFile(repo, 'hooks-runner.lock'), String(process.pid))
    writeFileSync(gitwhyFile(repo, 'analyze.pending'), 'post-commit 1\n')
    const s1 = (await runJson(['hooks', 'status', '--repo', repo.dir], opts)).json
    expect(s1.background).toEqual({ running: true, pid: process.pid, pending: true, log: null })
    const human = await runCli(['hooks', 'status', '--repo', repo.dir], opts)
    expect(human.stdout).toContain(`background analyze: running (pid ${process.pid}), another one pending`)
    rmSync(gitwhyFile(repo, 'hooks-runner.lock'))
    rmSync(gitwhyFile(repo, 'analyze.pending'))

    // outside a repository: the usual user error; the runner the hooks call is not in the help
    const outside = tempDir('gitwhy-not-a-repo-')
    for (const sub of ['install', 'uninstall', 'status']) await expectUserError(['hooks', sub, '--repo', outside], 'not_a_repo', opts)
    const help = await runCli(['hooks', '--help'], opts)
    expect(help.stdout).toMatch(/hooks install[\s\S]*hooks status[\s\S]*hooks uninstall/)
    expect(help.stdout).not.toMatch(/hooks run/)
  })

  test('post-checkout: a file checkout starts nothing; without an index the hooks do nothing at all', async () => {
    const { repo, opts } = await setup()
    await runJson(['hooks', 'install', '--repo', repo.dir], opts)
    writeFileSync(repo.path('src/a.ts'), 'changed\n')
    repo.git('checkout', '--', 'src/a.ts')
    repo.git('checkout', '-q', 'HEAD', '--', 'README.md')
    await sleep(2500)
    expect(hooksLog(repo)).toBe('')

    const { repo: bare, opts: bareOpts } = await setup({ analyzed: false })
    const install = await runCli(['hooks', 'install', '--repo', bare.dir], bareOpts)
    expect(install.code).toBe(0)
    expect(install.stderr).toMatch(/no index yet: run `gitwhy analyze` once/)
    timedCommit(bare, 'src/e.ts', 'export const e = 1\n', 'Add e')
    await sleep(2500)
    expect(existsSync(join(bare.dir, '.gitwhy')), 'a hook in an unindexed repository wrote .gitwhy/').toBe(false)
  })
})
