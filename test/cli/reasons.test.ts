/**
 * The reasons in the answer (issue 9, items 8 and 9), end to end with the built CLI: the body's
 * explaining paragraph on each commit, PR and issue links from the `origin` remote (following a
 * changed remote), `evidence --patch` against `git log -L`, and `pickaxe` against `git log -S`,
 * `-G` and `--grep` on a history with renames and merges.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { COMMIT, EVIDENCE_DOC, INDEX_INFO, expectShape, runCli, runJson, t, type CliOptions } from './cli.js'

let repo: TestRepo
let opts: CliOptions

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `line ${i + 1} ${tag}`)

beforeAll(async () => {
  repo = createRepo()
  const a = lines(12, 'v1')
  repo.write('src/retry.ts', a.join('\n') + '\n').write('README.md', 'readme\n')
  repo.commit('Initial import')
  a[4] = 'const retryDelay = 250 // a child is queued before its parent'
  repo.write('src/retry.ts', a.join('\n') + '\n')
  repo.commit(
    'Wait before retrying (#7)\n\nA child component is added to the queue before its parent,\nso the parent must flush first.\n\nSecond paragraph is not shown.\n\nSigned-off-by: Ada Tester <ada@example.test>\nCo-authored-by: Bob <bob@example.test>',
  )
  // a side branch renames the file and changes the range; main changes another file meanwhile
  repo.branch('feature').checkout('feature')
  repo.move('src/retry.ts', 'src/backoff.ts')
  repo.commit('Rename retry to backoff')
  a[5] = 'const retryDelayMax = retryDelay * 8'
  a[6] = 'retryDelay retryDelay'
  repo.write('src/backoff.ts', a.join('\n') + '\n')
  repo.commit('Cap the backoff (#8)\n\n* Cap the backoff\n\n* fix typo\n\n---------\n\nCo-authored-by: Bob <bob@example.test>')
  repo.checkout('main')
  repo.write('README.md', 'readme: retryDelay is 250 ms\n')
  repo.commit('Document the delay\n\nFixes #3')
  repo.merge('feature', { message: 'Merge pull request #9 from acme/feature\n\nBackoff' })
  a[6] = 'retryDelay'
  a[8] = 'sleep(retryDelay)'
  repo.write('src/backoff.ts', a.join('\n') + '\n')
  repo.commit('Use the delay once, closes #4\n\nThe second use slept twice.')
  repo.git('remote', 'add', 'origin', 'git@github.com:acme/widgets.git')
  opts = { cwd: repo.dir, env: repo.env() }
  await runJson(['analyze'], opts)
}, 120_000)
afterAll(() => repo?.cleanup())

const shas = (out: string) => out.split('\n').filter(Boolean).sort()

describe('bodies: the paragraph that explains', () => {
  test('evidence, history and augment carry the first paragraph, without trailers or squash boilerplate', async () => {
    const { json } = await runJson(['evidence', 'src/backoff.ts', '--limit', '0'], opts)
    const bySubject = new Map(json.evidence.map((e: any) => [e.commit.subject, e.commit]))
    expect((bySubject.get('Wait before retrying (#7)') as any).why).toBe('A child component is added to the queue before its parent, so the parent must flush first.')
    expect((bySubject.get('Use the delay once, closes #4') as any).why).toBe('The second use slept twice.')
    // the squash list and the Co-authored-by trailer are no reason
    expect(bySubject.get('Cap the backoff (#8)')).not.toHaveProperty('why')
    const hist = await runJson(['history', 'README.md'], opts)
    expect(hist.json.evidence.find((e: any) => e.commit.subject === 'Document the delay').commit).not.toHaveProperty('why')
    const text = await runCli(['evidence', 'src/backoff.ts'], opts)
    expect(text.stdout).toContain('      A child component is added to the queue before its parent, so the parent must flush first.')
    expect(text.stdout).not.toContain('Second paragraph')
    const aug = await runCli(['augment', 'backoff'], opts)
    expect(aug.stdout).toContain('    The second use slept twice.')
  })
})

describe('links from the origin remote', () => {
  test('PR and issue URLs follow the remote, and a changed remote at the next analyze', async () => {
    const pr = (json: any, n: number) => json.evidence.flatMap((e: any) => e.pull_requests).find((p: any) => p.number === n)
    const issue = (json: any, n: number) => json.evidence.flatMap((e: any) => e.issues).find((i: any) => i.number === n)
    let { json } = await runJson(['evidence', 'src/backoff.ts', '--limit', '0'], opts)
    expect(pr(json, 7).url).toBe('https://github.com/acme/widgets/pull/7')
    expect(issue(json, 4).url).toBe('https://github.com/acme/widgets/issues/4')
    repo.git('remote', 'set-url', 'origin', 'https://deploy:s3cret@gitlab.example.com/group/sub/widgets.git')
    const noop = await runJson(['analyze'], opts)
    expect(noop.json.mode).toBe('noop')
    ;({ json } = await runJson(['evidence', 'src/backoff.ts', '--limit', '0'], opts))
    expect(pr(json, 7).url).toBe('https://gitlab.example.com/group/sub/widgets/-/merge_requests/7')
    expect(issue(json, 4).url).toBe('https://gitlab.example.com/group/sub/widgets/-/issues/4')
    expect(JSON.stringify(json)).not.toContain('s3cret')
    repo.git('remote', 'remove', 'origin')
    await runJson(['analyze'], opts)
    ;({ json } = await runJson(['evidence', 'src/backoff.ts', '--limit', '0'], opts))
    expect(pr(json, 7).url).toBeNull()
    repo.git('remote', 'add', 'origin', 'git@github.com:acme/widgets.git')
    await runJson(['analyze'], opts)
  })
})

/** `git log -L` output as sha -> the `-`/`+` lines of its diff (context and headers left out). */
function lineLogHunks(out: string): Map<string, string[]> {
  const map = new Map<string, string[]>()
  let current: string[] | null = null
  for (const line of out.split('\n')) {
    const m = /^commit ([0-9a-f]{40})$/.exec(line)
    if (m) map.set(m[1], (current = []))
    else if (current && /^[-+]/.test(line) && !/^(---|\+\+\+) /.test(line)) current.push(line)
  }
  return map
}

describe('evidence --patch', () => {
  test.each([
    ['src/backoff.ts', 5, 7],
    ['src/backoff.ts', 1, 12],
    ['src/backoff.ts', 9, 9],
  ])('%s:%i-%i: each commit has the hunk lines git log -L shows', async (path, start, end) => {
    const git = lineLogHunks(repo.git('log', '--format=commit %H', `-L${start},${end}:${path}`))
    const { json } = await runJson(['evidence', `${path}:${start}-${end}`, '--patch', '--limit', '0'], opts)
    expectShape(json, EVIDENCE_DOC, 'evidence --patch --json')
    const ours = new Map<string, string[]>(json.evidence.map((e: any) => [e.commit.sha, e.patch.flatMap((f: any) => f.hunks.flatMap((h: any) => h.lines))]))
    // merges: git log -L prints a combined diff; compared on the non-merge commits
    const merges = new Set(shas(repo.git('rev-list', '--merges', 'HEAD')))
    for (const sha of merges) {
      git.delete(sha)
      ours.delete(sha)
    }
    expect(ours).toEqual(git)
    const text = await runCli(['evidence', `${path}:${start}-${end}`, '--patch'], opts)
    expect(text.stdout).toMatch(/src\/(backoff|retry)\.ts @@ -\d+(,\d+)? \+\d+(,\d+)? @@/)
  })
})

describe('pickaxe', () => {
  const ours = async (...args: string[]) => ((await runJson(['pickaxe', ...args, '--limit', '0'], opts)).json.commits as any[]).map((c) => c.commit.sha).sort()
  // git limits rename detection to the pathspec, so with a file path it sees the commit that
  // renamed the file in from outside as adding all of it; the index keeps the rename (documented)
  const renamedIn = () => new Set(shas(repo.git('log', '--format=%H', '--grep=^Rename retry to backoff$')))
  test.each([['retryDelay'], ['retryDelay retryDelay'], ['250'], ['line 9']])('pickaxe %j equals git log -S', async (s) => {
    expect(await ours(s)).toEqual(shas(repo.git('log', `-S${s}`, '--format=%H')))
    expect(await ours(s, 'src')).toEqual(shas(repo.git('log', `-S${s}`, '--format=%H', '--', 'src')))
    const pure = renamedIn()
    expect(pure.size).toBe(1)
    expect(await ours(s, 'src/backoff.ts')).toEqual(shas(repo.git('log', `-S${s}`, '--format=%H', '--', 'src/backoff.ts')).filter((sha) => !pure.has(sha)))
  })
  test.each([['retryDelay'], ['^retryDelay$'], ['sleep\\(\\w+\\)']])('pickaxe --regex %j equals git log -G', async (re) => {
    expect(await ours(re, '--regex')).toEqual(shas(repo.git('log', `-G${re}`, '--format=%H')))
    expect(await ours(re, 'src', '--regex')).toEqual(shas(repo.git('log', `-G${re}`, '--format=%H', '--', 'src')))
  })
  test.each([['backoff'], ['Fixes #']])('pickaxe --message %j equals git log -F --grep', async (s) => {
    expect(await ours(s, '--message')).toEqual(shas(repo.git('log', '-F', `--grep=${s}`, '--format=%H')))
  })
  test('the files that matched, and a hostile regex answers quickly', async () => {
    const { json } = await runJson(['pickaxe', 'retryDelay'], opts)
    const PR = t.obj({ number: t.int(), title: t.str(), url: t.or(t.str(), t.nul()) })
    const ISSUE = t.obj({ number: t.int(), title: t.str(), url: t.or(t.str(), t.nul()), closes: t.bool() })
    expectShape(json, t.obj({
      query: t.obj({ pattern: t.str(), mode: t.lit('string', 'regex', 'message'), regex: t.bool(), path: t.or(t.str(), t.nul()) }),
      index: INDEX_INFO,
      commits: t.arr(t.obj({ commit: COMMIT, source: t.lit('pickaxe'), pull_requests: t.arr(PR), issues: t.arr(ISSUE), files: t.arr(t.str()) })),
      total: t.int(),
      truncated: t.bool(),
    }), 'pickaxe --json')
    const doc = json.commits.find((c: any) => c.commit.subject === 'Document the delay')
    expect(doc.files).toEqual(['README.md'])
    const started = Date.now()
    await runJson(['pickaxe', '(a+)+$', '--regex'], opts)
    expect(Date.now() - started).toBeLessThan(15_000)
  })
})

describe('MCP: pickaxe and evidence_for patch', () => {
  test('the tools answer as the CLI does', async () => {
    const { connectStdio, structured, text } = await import('../mcp/client.js')
    const { client } = await connectStdio({ cwd: repo.dir, env: repo.env() })
    try {
      const r = await client.callTool({ name: 'pickaxe', arguments: { pattern: 'retryDelay' } })
      expect(r.isError).toBeFalsy()
      expect(structured(r).commits.map((c: any) => c.commit.sha).sort()).toEqual(shas(repo.git('log', '-SretryDelay', '--format=%H')))
      expect(text(r)).toContain('Document the delay')
      const e = await client.callTool({ name: 'evidence_for', arguments: { path: 'src/backoff.ts', line_start: 9, line_end: 9, patch: true } })
      expect(structured(e).evidence[0].patch[0].hunks[0].lines).toContain('+sleep(retryDelay)')
      expect(structured(e).evidence[0].commit.why).toBe('The second use slept twice.')
    } finally {
      await client.close()
    }
  })
})

describe('one "now": the indexed HEAD', () => {
  test("augment counts the last 90 days before HEAD's committer date, not the wall clock", async () => {
    const headTime = Number(repo.git('log', '-1', '--format=%ct').trim())
    // the builder's clock is years in the past: by the wall clock nothing is recent
    expect(Date.now() / 1000 - headTime).toBeGreaterThan(365 * 86_400)
    const { json } = await runJson(['augment', 'backoff.ts'], opts)
    const file = json.matches.find((m: any) => m.kind === 'file' && m.path === 'src/backoff.ts')
    const log = repo.git('log', '--follow', '--format=%ct', '--', 'src/backoff.ts').split('\n').filter(Boolean).map(Number)
    expect(file.commits).toEqual({ total: log.length, last_90_days: log.filter((t) => t > headTime - 90 * 86_400).length })
    expect(file.commits.last_90_days).toBeGreaterThan(0)
  })
  test('catchup says when the whole index is older than the window', async () => {
    const { catchup } = await import('../../src/services/catchup.js')
    const r = await catchup({ repo: repo.dir, since: '30 days ago' })
    expect(r.total).toBe(0)
    expect(r.newest_indexed).toBe(new Date(Number(repo.git('log', '-1', '--format=%ct').trim()) * 1000).toISOString())
    expect(r.note).toMatch(/^the newest indexed commit \([0-9a-f]{7}, \d{4}-\d\d-\d\d\) is \d+ days older than/)
    const all = await catchup({ repo: repo.dir, since: '2000-01-01' })
    expect(all.note).toBeNull()
  })
})

describe('one resolver: Class.method where a file name could be', () => {
  let r2: TestRepo
  let o2: CliOptions
  beforeAll(async () => {
    r2 = createRepo()
    r2.write('src/effect.py', 'class ReactiveEffect:\n    def run(self):\n        return 1\n\n    def stop(self):\n        return 2\n')
    r2.commit('Add effects')
    r2.write('src/effect.py', 'class ReactiveEffect:\n    def run(self):\n        return 10\n\n    def stop(self):\n        return 2\n')
    r2.commit('Tune run')
    o2 = { cwd: r2.dir, env: r2.env() }
    await runJson(['analyze'], o2)
  }, 60_000)
  afterAll(() => r2?.cleanup())

  test.each([['risk'], ['ownership'], ['related']])('%s ReactiveEffect.run resolves the method, and a missing file is still named', async (cmd) => {
    const { json } = await runJson([cmd, 'ReactiveEffect.run'], o2)
    expect(JSON.stringify(json)).toContain('ReactiveEffect.run')
    const missing = await runCli([cmd, 'nosuch.py', '--json'], o2)
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout).error.code).toBe('unknown_path')
  })
})

describe('after an incremental analyze', () => {
  test('the patch store grows with the new commits: pickaxe and --patch still equal git', async () => {
    repo.write('src/backoff.ts', repo.git('show', 'HEAD:src/backoff.ts').replace('sleep(retryDelay)', 'sleep(retryDelay * 2)'))
    repo.commit('Double the sleep\n\nThe server needs more time.')
    const { json } = await runJson(['analyze'], opts)
    expect(json.mode).toBe('incremental')
    const ours = (await runJson(['pickaxe', 'retryDelay', '--limit', '0'], opts)).json.commits.map((c: any) => c.commit.sha).sort()
    expect(ours).toEqual(shas(repo.git('log', '-SretryDelay', '--format=%H')))
    const ev = await runJson(['evidence', 'src/backoff.ts:9', '--patch'], opts)
    expect(ev.json.evidence[0].commit.why).toBe('The server needs more time.')
    expect(ev.json.evidence[0].patch[0].hunks[0].lines).toEqual(['-sleep(retryDelay)', '+sleep(retryDelay * 2)'])
  })
})
