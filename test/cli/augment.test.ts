/**
 * `gitwhy augment` and `gitwhy hook claude`, end to end: the built CLI on a repository where the
 * right answer is known (and checked against `git log -L` / `git log --follow`): the last change,
 * its PR from a "Merge pull request #12 from …" merge, the commit counts in total and in the last
 * 90 days; the hook's exact output shape; and every case where the hook must say nothing.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, runGit, DEFAULT_AUTHOR, type TestRepo } from '../helpers/repo.js'
import { BIN, COMMIT, INDEX_INFO, expectShape, expectUserError, runCli, runJson, t, type CliOptions } from './cli.js'

const DAY = 86_400
const NOW = Math.floor(Date.now() / 1000)

const ROUTER_V1 = `export function createRouter(routes: string[]) {
  const table = new Map<string, number>()
  routes.forEach((r, i) => table.set(r, i))
  return table
}

export function helper(x: number): number {
  return x + 1
}
`
/** "Router: accept options": createRouter's body changes. */
const ROUTER_V2 = ROUTER_V1.replace('export function createRouter(routes: string[]) {', 'export function createRouter(routes: string[], options: { strict?: boolean } = {}) {')
/** On the PR branch: createRouter handles an empty list. */
const ROUTER_V3 = ROUTER_V2.replace('  const table = new Map<string, number>()\n', '  const table = new Map<string, number>()\n  if (routes.length === 0) return table\n')
/** After the merge, only helper changes. */
const ROUTER_V4 = ROUTER_V3.replace('  return x + 1', '  return x + 2')

const OTHER = `export function createRouterCache(size: number) {
  return new Array(size)
}
`

const PR = t.obj({ number: t.int(), title: t.str(), url: t.or(t.str(), t.nul()) })

/** The `augment --json` document. */
export const AUGMENT_DOC = t.obj({
  query: t.obj({ pattern: t.str(), mode: t.lit('regex', 'glob') }),
  index: INDEX_INFO,
  matches: t.arr(
    t.obj({
      kind: t.lit('symbol', 'file'),
      path: t.str(),
      symbol: t.or(t.nul(), t.obj({ name: t.str(), qualified_name: t.str(), kind: t.str(), line_start: t.int(), line_end: t.int() })),
      last_change: t.or(t.nul(), t.obj({ commit: COMMIT, pull_request: t.or(t.nul(), PR) })),
      why: t.or(t.str(), t.nul()),
      commits: t.obj({ total: t.int(), last_90_days: t.int() }),
      truncated: t.bool(),
    }),
  ),
  total: t.int(),
})

/** The hook's stdout, exactly: nothing else may be in it. */
const HOOK_OUTPUT = t.obj({ hookSpecificOutput: t.obj({ hookEventName: t.lit('PreToolUse'), additionalContext: t.str() }) })

interface HookRun {
  code: number | null
  stdout: string
  stderr: string
  ms: number
}

/** Run `bin/run.js hook claude` the way Claude Code does: the event on stdin (null: keep stdin open). */
function runHook(input: string | object | null, opts: CliOptions): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const child = spawn(process.execPath, [BIN, 'hook', 'claude'], { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, ms: Date.now() - started })
    })
    child.stdin.on('error', () => {})
    if (input !== null) child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input))
  })
}

describe('gitwhy augment and gitwhy hook claude', () => {
  let repo: TestRepo
  let opts: CliOptions
  let hookOpts: CliOptions
  const sha: Record<string, string> = {}
  const at = (daysAgo: number) => ({ date: NOW - daysAgo * DAY })

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/route.ts', ROUTER_V1).write('src/other.ts', OTHER).write('docs/guide.md', '# Routing\n')
    sha.create = repo.commit('Add router', at(400))
    repo.move('src/route.ts', 'src/router.ts')
    sha.rename = repo.commit('Rename route.ts to router.ts', at(300))
    repo.write('src/router.ts', ROUTER_V2)
    sha.options = repo.commit('Router: accept options', at(200))
    repo.branch('router-fix').checkout('router-fix')
    repo.write('src/router.ts', ROUTER_V3)
    sha.fix = repo.commit('Handle empty routes', at(30))
    repo.checkout('main')
    // a GitHub merge, dated like the commits around it
    const stamp = `@${NOW - 20 * DAY} +0000`
    const mergeEnv = repo.env({ GIT_AUTHOR_NAME: DEFAULT_AUTHOR.name, GIT_AUTHOR_EMAIL: DEFAULT_AUTHOR.email, GIT_COMMITTER_NAME: DEFAULT_AUTHOR.name, GIT_COMMITTER_EMAIL: DEFAULT_AUTHOR.email, GIT_AUTHOR_DATE: stamp, GIT_COMMITTER_DATE: stamp })
    runGit(repo.dir, mergeEnv, ['merge', '-q', '--no-ff', '-m', 'Merge pull request #12 from team/router-fix\n\nFix router edge case', 'router-fix'])
    sha.merge = repo.head()
    repo.write('src/router.ts', ROUTER_V4)
    sha.tidy = repo.commit('Tidy helper', at(10))
    opts = { cwd: repo.dir, env: repo.env() }
    // the answers must not depend on how loaded the machine is; the default deadline has its own test
    hookOpts = { cwd: repo.dir, env: repo.env({ GITWHY_HOOK_DEADLINE_MS: '20000' }) }
    await runJson(['analyze', '--repo', repo.dir], opts)
  })
  afterAll(() => repo?.cleanup())

  const cli = (...args: string[]) => runJson(['augment', ...args, '--repo', repo.dir], opts)
  /** Committer dates of `git log` output, and how many fall in the last 90 days. */
  const counted = (shas: string[]) => ({ total: shas.length, last_90_days: shas.filter((s) => Number(repo.git('log', '-1', '--format=%ct', s).trim()) > NOW - 90 * DAY).length })
  const gitList = (...args: string[]) => repo.git('log', '--format=%H', ...args).trim().split('\n').filter(Boolean)
  const grep = (pattern: string, extra: object = {}) => ({ session_id: 's', cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: 'Grep', tool_input: { pattern, output_mode: 'files_with_matches', ...extra }, tool_use_id: 't' })

  test('the known answer agrees with plain git', () => {
    const lines = ROUTER_V4.split('\n')
    const end = lines.indexOf('}') + 1
    expect(gitList('-s', `-L1,${end}:src/router.ts`)).toEqual([sha.fix, sha.options, sha.create])
    expect(gitList('--follow', '--', 'src/router.ts')).toEqual([sha.tidy, sha.fix, sha.options, sha.rename, sha.create])
  })

  test('augment SYMBOL --json: the symbol line history, its last change and the PR it came in through', async () => {
    const { json } = await cli('createRouter')
    expectShape(json, AUGMENT_DOC, 'augment --json')
    expect(json.query).toEqual({ pattern: 'createRouter', mode: 'regex' })
    expect(json.index).toEqual({ head: sha.tidy, stale: false, commits_behind: 0 })
    expect(json.total).toBe(2)
    const [router, cache] = json.matches
    const end = ROUTER_V4.split('\n').indexOf('}') + 1
    expect(router).toMatchObject({
      kind: 'symbol',
      path: 'src/router.ts',
      symbol: { name: 'createRouter', qualified_name: 'createRouter', kind: 'function', line_start: 1, line_end: end },
      why: 'Fix router edge case',
      commits: counted([sha.fix, sha.options, sha.create]),
      truncated: false,
    })
    expect(router.commits).toEqual({ total: 3, last_90_days: 1 })
    expect(router.last_change.commit).toMatchObject({ sha: sha.fix, short: sha.fix.slice(0, 7), subject: 'Handle empty routes', author: 'Ada Tester', date: new Date((NOW - 30 * DAY) * 1000).toISOString().replace(/\.\d+Z$/, '.000Z') })
    expect(router.last_change.pull_request).toEqual({ number: 12, title: 'Fix router edge case', url: null })
    // a name match that is not the whole name ranks below
    expect(cache).toMatchObject({ kind: 'symbol', path: 'src/other.ts', symbol: { name: 'createRouterCache' }, why: 'Add router', commits: { total: 1, last_90_days: 0 } })
    expect(cache.last_change.pull_request).toBeNull()

    const limited = (await cli('createRouter', '--limit', '1')).json
    expect(limited.matches).toHaveLength(1)
    expect(limited.total).toBe(2)
  })

  test('augment FILE-NAME --json: a path match carries the file history (git log --follow)', async () => {
    const { json } = await cli('router')
    expectShape(json, AUGMENT_DOC, 'augment --json')
    expect(json.matches).toHaveLength(1)
    expect(json.matches[0]).toMatchObject({ kind: 'file', path: 'src/router.ts', symbol: null, why: 'Tidy helper', truncated: false })
    expect(json.matches[0].commits).toEqual(counted(gitList('--follow', '--', 'src/router.ts')))
    expect(json.matches[0].commits).toEqual({ total: 5, last_90_days: 2 })
    expect(json.matches[0].last_change).toMatchObject({ commit: { sha: sha.tidy }, pull_request: null })
  })

  test('augment GLOB --json: files matching a path glob', async () => {
    const { json } = await cli('src/**/*.ts')
    expectShape(json, AUGMENT_DOC, 'augment GLOB --json')
    expect(json.query).toEqual({ pattern: 'src/**/*.ts', mode: 'glob' })
    expect(json.matches.map((m: any) => [m.kind, m.path]).sort()).toEqual([['file', 'src/other.ts'], ['file', 'src/router.ts']])
    const forced = (await cli('src/router.ts', '--glob')).json
    expect(forced.query.mode).toBe('glob')
    expect(forced.matches.map((m: any) => m.path)).toEqual(['src/router.ts'])
  })

  test('augment without --json: a few lines per match', async () => {
    const r = await runCli(['augment', 'createRouter', '--repo', repo.dir], opts)
    expect(r.code, r.stderr).toBe(0)
    const end = ROUTER_V4.split('\n').indexOf('}') + 1
    const date = new Date((NOW - 30 * DAY) * 1000).toISOString().slice(0, 10)
    expect(r.stdout).toBe(
      [
        `gitwhy: history of what \`createRouter\` matches (2 matches; index at ${sha.tidy.slice(0, 7)}):`,
        `- function createRouter  src/router.ts:1-${end}`,
        `  last changed ${date} by Ada Tester in ${sha.fix.slice(0, 7)} (PR #12): Fix router edge case`,
        '  3 commits, 1 in the last 90 days',
        '- function createRouterCache  src/other.ts:1-3',
        `  last changed ${new Date((NOW - 400 * DAY) * 1000).toISOString().slice(0, 10)} by Ada Tester in ${sha.create.slice(0, 7)}: Add router`,
        '  1 commit, 0 in the last 90 days',
        '',
      ].join('\n'),
    )
    const none = await runCli(['augment', 'zzzNothingLikeThis', '--repo', repo.dir], opts)
    expect(none.code).toBe(0)
    expect(none.stdout).toContain('no indexed symbol or file matches')
  })

  test('augment: user errors (bad --limit, no index)', async () => {
    await expectUserError(['augment', 'createRouter', '--limit', '-1', '--repo', repo.dir], 'bad_option', opts)
    const bare = createRepo()
    try {
      bare.write('a.ts', 'export const a = 1\n').commit('a')
      await expectUserError(['augment', 'createRouter', '--repo', bare.dir], 'no_index', { cwd: bare.dir, env: bare.env() })
    } finally {
      bare.cleanup()
    }
  })

  test('hook claude: a Grep event is answered with exactly {"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":…}}', async () => {
    const r = await runHook(grep('createRouter'), hookOpts)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    expect(r.stdout.endsWith('\n')).toBe(true)
    expect(r.stdout.trimEnd().includes('\n')).toBe(false)
    const doc = JSON.parse(r.stdout)
    expectShape(doc, HOOK_OUTPUT, 'hook output')
    const text: string = doc.hookSpecificOutput.additionalContext
    const end = ROUTER_V4.split('\n').indexOf('}') + 1
    expect(text).toContain(`- function createRouter  src/router.ts:1-${end}\n`)
    expect(text).toContain(`in ${sha.fix.slice(0, 7)} (PR #12): Fix router edge case\n  3 commits, 1 in the last 90 days`)
    expect(text).not.toContain('HEAD has moved')
  })

  test('hook claude: Glob, Bash rg/grep, a Grep limited to a path, a cwd below the root', async () => {
    const glob = await runHook({ cwd: repo.dir, tool_name: 'Glob', tool_input: { pattern: '**/router*.ts' } }, hookOpts)
    expect(JSON.parse(glob.stdout).hookSpecificOutput.additionalContext).toContain('- file src/router.ts\n  last changed')

    const rg = await runHook({ cwd: repo.dir, tool_name: 'Bash', tool_input: { command: 'rg -n "createRouter" src | head -20' } }, hookOpts)
    expect(JSON.parse(rg.stdout).hookSpecificOutput.additionalContext).toContain('(PR #12): Fix router edge case')

    const grepCmd = await runHook({ cwd: join(repo.dir, 'src'), tool_name: 'Bash', tool_input: { command: "grep -rn 'createRouterCache' ." } }, { ...hookOpts, cwd: join(repo.dir, 'src') })
    const text = JSON.parse(grepCmd.stdout).hookSpecificOutput.additionalContext
    expect(text).toContain('- function createRouterCache  src/other.ts:1-3')
    expect(text).not.toContain('src/router.ts')

    // limited to docs/: nothing there defines createRouter
    const elsewhere = await runHook(grep('createRouter', { path: join(repo.dir, 'docs') }), hookOpts)
    expect(elsewhere).toMatchObject({ code: 0, stdout: '' })
  })

  test('hook claude: silent (exit 0, no output) for other tools, short patterns, no match, bad input, no repository, no index', async () => {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'gitwhy-norepo-')))
    const bare = createRepo()
    bare.write('src/router.ts', ROUTER_V1).commit('a')
    try {
      // with the long deadline: the silence is the hook's decision, not the clock's
      const cases: Array<[string, string | object, CliOptions]> = [
        ['Read', { cwd: repo.dir, tool_name: 'Read', tool_input: { file_path: join(repo.dir, 'src/router.ts') } }, hookOpts],
        ['Bash, not a search', { cwd: repo.dir, tool_name: 'Bash', tool_input: { command: 'npm test' } }, hookOpts],
        ['a pattern of 2 characters', grep('cr'), hookOpts],
        ['only regex syntax', grep('\\w+\\s*\\('), hookOpts],
        ['no match', grep('zzzNothingLikeThis'), hookOpts],
        ['malformed JSON', '{"tool_name":"Grep","tool_input":{"pattern":"createRouter"', hookOpts],
        ['empty stdin', '', hookOpts],
        ['not JSON at all', 'createRouter', hookOpts],
        ['cwd outside any git repository', { ...grep('createRouter'), cwd: outside }, { ...hookOpts, cwd: outside }],
        ['a repository without a gitwhy index', { ...grep('createRouter'), cwd: bare.dir }, { cwd: bare.dir, env: bare.env({ GITWHY_HOOK_DEADLINE_MS: '20000' }) }],
      ]
      for (const [name, input, o] of cases) {
        const r = await runHook(input, o)
        expect({ name, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ name, code: 0, stdout: '', stderr: '' })
      }
    } finally {
      bare.cleanup()
      rmSync(outside, { recursive: true, force: true })
    }
  })

  test('hook claude: a stdin that never closes ends silently at the deadline', async () => {
    const r = await runHook(null, opts)
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' })
    expect(r.ms).toBeLessThan(5_000)
  })

  test('hook claude: an answer not ready by the deadline is not given', async () => {
    const r = await runHook(grep('createRouter'), { cwd: repo.dir, env: repo.env({ GITWHY_HOOK_DEADLINE_MS: '1' }) })
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' })
  })

  test('hook claude is listed by --help (it runs through oclif only there)', async () => {
    const r = await runCli(['hook', 'claude', '--help'], opts)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('PreToolUse')
  })

  test('hook claude: once HEAD moves past the index, the answer says so', async () => {
    repo.write('src/other.ts', OTHER.replace('size', 'n')).commit('Rename parameter', at(1))
    const r = await runHook(grep('createRouter'), { ...hookOpts, env: { ...hookOpts.env, GITWHY_HOOK_DEBUG: '1' } })
    expect(r.stdout, `the hook stayed silent; stderr: ${r.stderr}`).not.toBe('')
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain('HEAD has moved since')
  })
})
