/**
 * `gitwhy enrich` (issue 15) against a fake GitHub REST API on 127.0.0.1 that answers with the
 * API's own shapes (test/helpers/fake-github.mjs): the enriched titles and descriptions reach
 * evidence, why and search; a squash commit whose message names no PR gets its PR from the merge
 * commit; a second run costs only 304s; the delta that brings an index to a new cache equals a full
 * build with it (after a refresh and after an update with new commits); an interrupted run goes on
 * without fetching a page again; rate limits are waited out until their reset; a 502 is retried;
 * offline, without a token or without a GitHub origin nothing changes and the exit code is 0.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { cypher } from '../../src/services/cypher.js'
import { enrich, type EnrichOptions } from '../../src/services/enrich.js'
import { evidence } from '../../src/services/evidence.js'
import { history } from '../../src/services/history.js'
import { search } from '../../src/services/search.js'
import { runCli, runJson } from '../cli/cli.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { issueJson, pullJson, reviewCommentJson, startFakeGitHub } from '../helpers/fake-github.mjs'

const OWNER = 'acme'
const NAME = 'widget'
const o = { owner: OWNER, repo: NAME }
const SECRET = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2'
const at = (day: number, hour = 0) => new Date(Date.UTC(2024, 5, day, hour)).toISOString().replace('.000Z', 'Z')

type Fake = Awaited<ReturnType<typeof startFakeGitHub>>

const parse = (body: string) => `export function parse(input: string): string {\n${body}\n}\n`

/** The history: a squash commit naming its PR, a PR merge, a squash commit naming none, issue references. */
function scenario(): { repo: TestRepo; sha: Record<string, string> } {
  const repo = createRepo()
  repo.git('remote', 'add', 'origin', `git@github.com:${OWNER}/${NAME}.git`)
  const sha: Record<string, string> = {}
  repo.write('src/parse.ts', parse('  return input'))
  repo.write('docs/guide.md', '# Guide\n')
  sha.add = repo.commit('Add the parser')
  repo.write('src/parse.ts', parse('  return input.trim()'))
  sha.trim = repo.commit('Trim the input (#2)')
  repo.branch('topic').checkout('topic')
  repo.write('src/parse.ts', parse('  const text = input.trim()\n  return text.toLowerCase()'))
  sha.lower = repo.commit('Lower-case the parsed text')
  repo.checkout('main')
  sha.merge = repo.merge('topic', { message: 'Merge pull request #4 from acme/topic\n\nLower-case parsed text', noFF: true })
  repo.write('src/parse.ts', parse('  const text = input.trim()\n  return text.toLowerCase().normalize()'))
  sha.normalize = repo.commit('normalize')
  repo.write('src/guard.ts', 'export function guard(input: string): boolean {\n  return input.length > 0\n}\n')
  sha.guard = repo.commit('Guard empty input, fixes #8 and see #9')
  repo.write('src/guard.ts', 'export function guard(input: string): boolean {\n  return input.length > 0 && input.length < 1000\n}\n')
  sha.limit = repo.commit('cap the input')
  repo.write('docs/guide.md', '# Guide\nSee #12.\n')
  sha.docs = repo.commit('Docs: see #12')
  return { repo, sha }
}

/** GitHub's side of it, with unrelated PRs and issues around (two pages of pulls, several of issues). */
function forgeData(sha: Record<string, string>) {
  const pulls = [
    pullJson({ ...o, number: 2, title: 'Trim whitespace around parser input', body: '<!-- Describe your change -->\n## Summary\n\nLeading spaces made every lookup of a pasted name miss, so the parser trims what it reads.\n\n- [x] tests', merged_at: at(2), merge_commit_sha: sha.trim, created_at: at(1), updated_at: at(2), labels: ['bug', 'parser'], login: 'ada' }),
    pullJson({ ...o, number: 4, title: 'Lower-case parsed text for case-insensitive lookups', body: 'Names are compared case-insensitively everywhere else.', merged_at: at(3), merge_commit_sha: sha.merge, created_at: at(2), updated_at: at(3), login: 'bob' }),
    pullJson({ ...o, number: 5, title: 'Normalize unicode before comparing names', body: `Composed and decomposed accents compared unequal in the cache keys.\n\nFixes #6\n\ntoken for the CI: ${SECRET}`, merged_at: at(4), merge_commit_sha: sha.normalize, created_at: at(3), updated_at: at(4), labels: ['unicode'], login: 'cyd' }),
    pullJson({ ...o, number: 7, title: 'Cap input length', body: 'Huge inputs made the parser allocate without bound.', merged_at: at(5), merge_commit_sha: sha.limit, created_at: at(4), updated_at: at(5), login: 'dee' }),
    pullJson({ ...o, number: 11, title: 'An open idea', body: 'Not merged.', created_at: at(5), updated_at: at(6) }),
  ]
  // unrelated merged PRs (their merge commits are not in this history): short records only
  for (let n = 100; n < 260; n++) pulls.push(pullJson({ ...o, number: n, title: `Unrelated ${n}`, body: 'elsewhere', merged_at: at(1, n % 24), merge_commit_sha: n.toString(16).padStart(40, 'a'), created_at: at(1), updated_at: at(1, n % 24) }))
  const issues = [
    issueJson({ ...o, number: 6, title: 'Accented names do not match', body: 'Typing é finds nothing.', state: 'closed', created_at: at(1), updated_at: at(4), labels: ['bug'] }),
    issueJson({ ...o, number: 8, title: 'Empty input crashes the parser', body: 'An empty string throws.', state: 'closed', created_at: at(1), updated_at: at(4) }),
    issueJson({ ...o, number: 9, title: 'Parser input limits', body: 'How long may an input be?', created_at: at(1), updated_at: at(4) }),
  ]
  for (let n = 300; n < 340; n++) issues.push(issueJson({ ...o, number: n, title: `Other issue ${n}`, body: 'unrelated', created_at: at(1), updated_at: at(1, n % 24) }))
  const comments = [
    reviewCommentJson({ ...o, id: 9001, pr: 5, path: 'src/parse.ts', line: 3, body: 'NFC or NFKC here?', created_at: at(3, 5), updated_at: at(3, 5), login: 'eve' }),
    reviewCommentJson({ ...o, id: 9002, pr: 5, path: 'vendor/unknown.js', line: 1, body: 'not an indexed file', created_at: at(3, 6), updated_at: at(3, 6) }),
    reviewCommentJson({ ...o, id: 9003, pr: 120, path: 'src/parse.ts', line: 1, body: 'a PR this history does not have', created_at: at(3, 7), updated_at: at(3, 7) }),
  ]
  // #12 was deleted: the single-item request answers 410
  return { pulls, issues, comments, gone: [12] }
}

function options(repo: TestRepo, fake: Fake, extra: Partial<EnrichOptions> = {}): EnrichOptions {
  return { repo: repo.dir, env: { PATH: '/nonexistent', GITHUB_TOKEN: fake.token, GITWHY_GITHUB_API_URL: fake.url }, retryBaseMs: 20, ...extra }
}

/** A port nothing listens on (taken and let go). */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net')
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** PATH without a `gh` that could answer `gh auth token` on a developer's machine; no token in the environment. */
function noTokenEnv(repo: TestRepo, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d && !existsSync(path.join(d, 'gh')))
  return repo.env({ PATH: dirs.join(path.delimiter), GITHUB_TOKEN: '', GH_TOKEN: '', ...extra })
}

/** Everything the forge puts into an index, as comparable text. */
async function forgeSnapshot(repo: TestRepo) {
  const q = async (statement: string) => (await cypher({ repo: repo.dir, statement, maxRows: 100_000 })).rows.map((r) => JSON.stringify(r)).sort()
  return {
    prs: await q('MATCH (p:PullRequest) RETURN p.number, p.title, p.source, p.body, p.labels, p.state, p.author, p.merged_at, p.reviews'),
    issues: await q('MATCH (i:Issue) RETURN i.number, i.title, i.source, i.body, i.labels, i.state, i.author'),
    partOf: await q('MATCH (c:Commit)-[:PART_OF]->(p:PullRequest) RETURN c.sha, p.number'),
    closes: await q('MATCH (p:PullRequest)-[:CLOSES]->(i:Issue) RETURN p.number, i.number'),
    references: await q('MATCH (c:Commit)-[r:REFERENCES]->(i:Issue) RETURN c.sha, i.number, r.closes'),
    docs: await q("MATCH (d:Doc) WHERE d.kind IN ['pr', 'issue', 'commit'] RETURN d.id, d.title, d.text, d.search"),
    // the commit catalog: what evidence and history answer from
    catalog: JSON.stringify((await history({ repo: repo.dir, path: '.', limit: 0 })).evidence),
  }
}

describe('gitwhy enrich against a fake GitHub', () => {
  let repo: TestRepo
  let sha: Record<string, string>
  let fake: Fake

  beforeAll(async () => {
    ;({ repo, sha } = scenario())
    fake = await startFakeGitHub({ ...o, ...forgeData(sha) })
    await analyze({ repo: repo.dir })
  })
  afterAll(async () => {
    await fake?.close()
    repo?.cleanup()
  })

  test('a first run lists pulls, issues and review comments by page, asks singly only for what they lack, and fills the index', async () => {
    const before = fake.requests.length
    const r = await enrich(options(repo, fake))
    expect(r.status).toBe('enriched')
    expect(r.notice).toBeNull()
    expect(r.index?.mode).toBe('incremental')
    const asked = fake.since(before).map((q) => `${q.path}?page=${q.query.page ?? ''} ${q.status}`)
    // 165 pulls: 2 pages; 43 issues + 165 PRs in the issues listing: 3 pages; 3 comments: 1 page; #12 singly (410)
    expect(asked).toEqual([
      `/repos/${OWNER}/${NAME}/pulls?page=1 200`,
      `/repos/${OWNER}/${NAME}/pulls?page=2 200`,
      `/repos/${OWNER}/${NAME}/issues?page=1 200`,
      `/repos/${OWNER}/${NAME}/issues?page=2 200`,
      `/repos/${OWNER}/${NAME}/issues?page=3 200`,
      `/repos/${OWNER}/${NAME}/pulls/comments?page=1 200`,
      `/repos/${OWNER}/${NAME}/issues/12?page= 410`,
    ])
    expect(r.requests).toMatchObject({ total: 7, not_modified: 0, single_items: 1 })
    // the PRs the history names or merged (2, 4, 5, 7), the issues it names or PR 5 closes (6, 8, 9), one comment on an indexed file
    expect(r.cache).toMatchObject({ pull_requests: 4, issues: 3, review_comments: 1, merged_only: 160, complete: true })
    const meta = JSON.parse(readFileSync(path.join(repo.dir, '.gitwhy', 'meta.json'), 'utf8'))
    expect(meta.forge).toMatchObject({ pull_requests: 4, issues: 3 })
  })

  test('evidence --json and why --json show the forge titles and the descriptions; the squash commit without a number gets its PR', async () => {
    const env = repo.env()
    const { json: ev } = await runJson(['evidence', 'src/parse.ts', '--json', '--repo', repo.dir], { env })
    const bySha = new Map(ev.evidence.map((e: any) => [e.commit.sha, e]))
    const trim: any = bySha.get(sha.trim)
    expect(trim.pull_requests).toEqual([{ number: 2, title: 'Trim whitespace around parser input', url: `https://github.com/${OWNER}/${NAME}/pull/2`, why: 'Leading spaces made every lookup of a pasted name miss, so the parser trims what it reads.' }])
    const normalize: any = bySha.get(sha.normalize)
    expect(normalize.commit.subject).toBe('normalize')
    expect(normalize.pull_requests).toEqual([expect.objectContaining({ number: 5, title: 'Normalize unicode before comparing names', why: 'Composed and decomposed accents compared unequal in the cache keys.' })])
    // the PR merge's branch commit belongs to PR 4, which now carries the forge's title
    expect((bySha.get(sha.lower) as any).pull_requests).toEqual([expect.objectContaining({ number: 4, title: 'Lower-case parsed text for case-insensitive lookups' })])

    const { json: w } = await runJson(['why', 'src/parse.ts:3', '--json', '--repo', repo.dir], { env })
    expect(w.evidence[0].commit.sha).toBe(sha.normalize)
    expect(w.answer.text).toContain('Composed and decomposed accents compared unequal in the cache keys. [PR #5]')
    expect(w.citations).toContainEqual({ ref: 'PR #5', kind: 'pr', number: 5, subject: 'Normalize unicode before comparing names' })
    // the description counts as the stated reason: the message quality of "normalize" is that of an explained commit
    expect(w.confidence_factors.message).toBeGreaterThanOrEqual(0.8)

    const { json: g } = await runJson(['evidence', 'src/guard.ts', '--json', '--repo', repo.dir], { env })
    const guard = g.evidence.find((e: any) => e.commit.sha === sha.guard)
    expect(guard.issues).toEqual([
      { number: 8, title: 'Empty input crashes the parser', url: `https://github.com/${OWNER}/${NAME}/issues/8`, closes: true, why: 'An empty string throws.' },
      { number: 9, title: 'Parser input limits', url: `https://github.com/${OWNER}/${NAME}/issues/9`, closes: false, why: 'How long may an input be?' },
    ])
  })

  test('the graph: PR and issue columns, the description\'s CLOSES edge, review comments on indexed files only, secrets scrubbed; search finds a description', async () => {
    const snap = await forgeSnapshot(repo)
    const pr5 = JSON.parse(snap.prs.find((p) => p.includes('"p.number":5'))!)
    expect(pr5).toMatchObject({ 'p.title': 'Normalize unicode before comparing names', 'p.source': 'api', 'p.labels': 'unicode', 'p.state': 'merged', 'p.author': 'cyd', 'p.merged_at': '2024-06-04T00:00:00.000Z', 'p.reviews': 'src/parse.ts:3 eve: NFC or NFKC here?' })
    expect(pr5['p.body']).toContain('token for the CI: [redacted]')
    const all = JSON.stringify(snap)
    expect(all).not.toContain(SECRET)
    expect(snap.closes).toContain(JSON.stringify({ 'p.number': 5, 'i.number': 6 }))
    expect(snap.issues).toContain(JSON.stringify({ 'i.number': 6, 'i.title': 'Accented names do not match', 'i.source': 'api', 'i.body': 'Typing é finds nothing.', 'i.labels': 'bug', 'i.state': 'closed', 'i.author': 'octocat' }))
    // #12 is deleted on the forge: the messages' row stays
    expect(snap.issues).toContain(JSON.stringify({ 'i.number': 12, 'i.title': '', 'i.source': 'message', 'i.body': '', 'i.labels': '', 'i.state': '', 'i.author': '' }))
    expect(snap.partOf).toContain(JSON.stringify({ 'c.sha': sha.normalize, 'p.number': 5 }))
    expect(snap.partOf).toContain(JSON.stringify({ 'c.sha': sha.limit, 'p.number': 7 }))
    const hits = await search({ repo: repo.dir, text: 'decomposed accents', mode: 'bm25', limit: 3 })
    expect(hits.hits[0]).toMatchObject({ kind: 'pr', ref: '5', title: 'Normalize unicode before comparing names' })
  })

  test('a second run asks each listing\'s first page with its ETag: three 304s, nothing changes, the index is untouched', async () => {
    const meta = readFileSync(path.join(repo.dir, '.gitwhy', 'meta.json'), 'utf8')
    const before = fake.requests.length
    const r = await enrich(options(repo, fake))
    expect(r.status).toBe('unchanged')
    expect(fake.since(before).map((q) => [q.query.page, q.status, q.etag])).toEqual([
      ['1', 304, true],
      ['1', 304, true],
      ['1', 304, true],
    ])
    expect(r.index).toBeNull()
    expect(readFileSync(path.join(repo.dir, '.gitwhy', 'meta.json'), 'utf8')).toBe(meta)
  })

  test('an index brought to a new cache by the delta equals a full build with it (refresh, then update with new commits)', async () => {
    // the forge changes: a new label and description, PR 7 closes #9 now, a review comment
    const p7 = fake.state.pulls.find((p: any) => p.number === 7)
    Object.assign(p7, { body: 'Huge inputs made the parser allocate without bound. Closes #9', updated_at: at(20), labels: [{ name: 'limits' }] })
    fake.state.comments.push(reviewCommentJson({ ...o, id: 9004, pr: 7, path: 'src/guard.ts', line: 2, body: 'why 1000?', created_at: at(20, 1), updated_at: at(20, 1) }))
    const r = await enrich(options(repo, fake))
    expect(r.status).toBe('enriched')
    expect(r.index?.mode).toBe('incremental')
    const refreshed = await forgeSnapshot(repo)
    expect(refreshed.closes).toContain(JSON.stringify({ 'p.number': 7, 'i.number': 9 }))
    await analyze({ repo: repo.dir, force: true })
    expect(await forgeSnapshot(repo)).toEqual(refreshed)

    // new commits: a squash merge the forge knows only after the next enrich, and one naming issue #6
    repo.write('src/guard.ts', 'export function guard(input: string): boolean {\n  return input.length > 0 && input.length < 4096\n}\n')
    const raise = repo.commit('raise the cap')
    repo.write('src/parse.ts', parse('  const text = input.trim()\n  return text.toLowerCase().normalize("NFC")'))
    repo.commit('Pick NFC, see #6')
    fake.state.pulls.push(pullJson({ ...o, number: 21, title: 'Raise the input cap to 4 KiB', body: 'Real names in some scripts exceed a thousand bytes.', merged_at: at(22), merge_commit_sha: raise, created_at: at(21), updated_at: at(22) }))
    const update = await enrich(options(repo, fake))
    expect(update.index?.mode).toBe('incremental')
    const updated = await forgeSnapshot(repo)
    expect(updated.partOf).toContain(JSON.stringify({ 'c.sha': raise, 'p.number': 21 }))
    // enrich looked at the commits the index did not have yet: PR 21 is kept whole, not as a bare merge commit
    expect(updated.prs.some((p) => p.includes('"p.number":21') && p.includes('Raise the input cap to 4 KiB'))).toBe(true)
    await analyze({ repo: repo.dir, force: true })
    expect(await forgeSnapshot(repo)).toEqual(updated)

    // the cache survives `analyze --force`, and a deleted cache is a rebuild back to the messages' rows
    const { rmSync } = await import('node:fs')
    rmSync(path.join(repo.dir, '.gitwhy', 'forge'), { recursive: true })
    const back = await analyze({ repo: repo.dir })
    expect(back.mode).toBe('full')
    const plain = await forgeSnapshot(repo)
    expect(plain.prs.every((p) => !p.includes('"api"'))).toBe(true)
    expect(plain.partOf).not.toContain(JSON.stringify({ 'c.sha': raise, 'p.number': 21 }))
  })

  test('an enriched index copied with its forge cache verifies against git; copied without it, it is rebuilt', async () => {
    await enrich(options(repo, fake))
    const { cpSync, rmSync } = await import('node:fs')
    for (const keep of [true, false]) {
      const clone = repo.clone()
      cpSync(path.join(repo.dir, '.gitwhy'), path.join(clone.dir, '.gitwhy'), { recursive: true })
      if (!keep) rmSync(path.join(clone.dir, '.gitwhy', 'forge'), { recursive: true })
      const warnings: string[] = []
      const r = await analyze({ repo: clone.dir, onWarning: (m) => warnings.push(m) })
      if (keep) {
        expect(warnings.join('\n')).toMatch(/verified the index .* in \d+ ms/)
        expect(r.mode).toBe('noop')
        const ev = await evidence({ repo: clone.dir, path: 'src/parse.ts' })
        expect(ev.evidence.find((e) => e.commit.sha === sha.normalize)?.pull_requests[0]).toMatchObject({ number: 5, title: 'Normalize unicode before comparing names' })
      } else {
        expect(warnings.join('\n')).toMatch(/does not match this repository's history .*: rebuilding it/)
        expect(r.mode).toBe('full')
      }
    }
  })

  test('status reports the enrichment; doctor says a token is there without printing it', async () => {
    await enrich(options(repo, fake))
    const env = repo.env({ GITHUB_TOKEN: fake.token, GITWHY_GITHUB_API_URL: fake.url })
    const { json: st } = await runJson(['status', '--json', '--repo', repo.dir], { env })
    expect(st.enrichment).toMatchObject({ forge: 'github', repo: `${OWNER}/${NAME}`, api: fake.url, complete: true, in_index: true })
    expect(st.enrichment.pull_requests).toBeGreaterThanOrEqual(5)
    const text = await runCli(['status', '--repo', repo.dir], { env })
    expect(text.stdout).toMatch(/enrichment: \d+ PRs · \d+ issues · \d+ review comments? from acme\/widget, last complete .*; in the index: \d+ PR rows, \d+ issue rows/)
    const { json: doc, result } = await runJson(['doctor', '--json', '--repo', repo.dir], { env, timeoutMs: 60_000 })
    const forge = doc.checks.find((c: any) => c.id === 'forge')
    expect(forge).toMatchObject({ status: 'ok', message: `a GitHub token is available (GITHUB_TOKEN) for ${OWNER}/${NAME} at ${fake.url}` })
    expect(result.stdout + result.stderr).not.toContain(fake.token)
    const none = await runJson(['doctor', '--json', '--repo', repo.dir], { env: noTokenEnv(repo, { GITWHY_GITHUB_API_URL: fake.url }), timeoutMs: 60_000 })
    expect(none.json.checks.find((c: any) => c.id === 'forge')).toMatchObject({ status: 'warn', fix: 'set GITHUB_TOKEN or GH_TOKEN, or log in with `gh auth login`' })
  })
})

describe('gitwhy enrich: interrupted, limited, offline', () => {
  let repo: TestRepo
  let sha: Record<string, string>
  let fake: Fake

  beforeAll(async () => {
    ;({ repo, sha } = scenario())
    fake = await startFakeGitHub({ ...o, ...forgeData(sha) })
    await analyze({ repo: repo.dir })
  })
  afterAll(async () => {
    await fake?.close()
    repo?.cleanup()
  })

  test('offline, no token, another forge, a bad flag: a one-line notice (or exit 1 for the flag), nothing changes', async () => {
    const meta = readFileSync(path.join(repo.dir, '.gitwhy', 'meta.json'), 'utf8')
    const run = (env: Record<string, string>, ...args: string[]) => runCli(['enrich', '--repo', repo.dir, ...args], { env: noTokenEnv(repo, env) })
    const closed = await closedPort()
    const offline = await run({ GITHUB_TOKEN: 'x', GITWHY_GITHUB_API_URL: `http://127.0.0.1:${closed}` })
    expect(offline.code, offline.stderr).toBe(0)
    expect(offline.stdout).toBe(`enrich skipped: http://127.0.0.1:${closed} did not answer (ECONNREFUSED) (offline?)\n`)
    const noToken = await run({ GITWHY_GITHUB_API_URL: fake.url })
    expect(noToken.code).toBe(0)
    expect(noToken.stdout).toBe('enrich skipped: no GitHub token (set GITHUB_TOKEN or GH_TOKEN, or log in with `gh auth login`)\n')
    const badToken = await runJson(['enrich', '--json', '--repo', repo.dir], { env: noTokenEnv(repo, { GITHUB_TOKEN: 'wrong', GITWHY_GITHUB_API_URL: fake.url }) })
    expect(badToken.result.code).toBe(0)
    expect(badToken.json).toMatchObject({ status: 'skipped', index: null })
    expect(badToken.json.notice).toMatch(/refused the token \(401\)/)
    repo.git('remote', 'set-url', 'origin', `https://gitlab.com/${OWNER}/${NAME}.git`)
    const gitlab = await run({ GITHUB_TOKEN: 'x' })
    expect(gitlab.stdout).toBe(`enrich skipped: origin is on gitlab (https://gitlab.com/${OWNER}/${NAME}); enrichment reads GitHub only\n`)
    repo.git('remote', 'set-url', 'origin', `git@github.com:${OWNER}/${NAME}.git`)
    for (const bad of [['--limit', '-1'], ['--since', 'the day before'], ['--limit', 'x']]) {
      const r = await run({ GITHUB_TOKEN: fake.token, GITWHY_GITHUB_API_URL: fake.url }, ...bad)
      expect(r.code, `${bad.join(' ')}: ${r.stderr}`).toBe(1)
    }
    expect(readFileSync(path.join(repo.dir, '.gitwhy', 'meta.json'), 'utf8')).toBe(meta)
  })

  test('stopped by --limit and by a dropped connection, then resumed: no page is fetched twice; a 502 is retried; a rate limit is waited out until its reset', async () => {
    const from = fake.requests.length
    // two requests: the first page of pulls and its second; the run stops, checkpointed
    const first = await enrich(options(repo, fake, { limit: 2 }))
    expect(first.status).toBe('partial')
    expect(first.notice).toMatch(/stopped after 2 requests \(--limit 2\)/)
    expect(first.cache?.complete).toBe(false)
    // what was fetched is in the index already
    expect(first.index?.mode).toBe('incremental')
    // the connection drops on the issues' second page: stopped, kept
    fake.faults.push({ match: (r: any) => r.path.endsWith('/issues') && r.query.page === '2', respond: 'hang-up' })
    const second = await enrich(options(repo, fake))
    expect(second.status).toBe('partial')
    expect(second.notice).toMatch(/stopped: .* did not answer/)
    // then a 502 (retried) and a rate limit whose reset is a second ahead (waited out)
    fake.faults.push({ match: (r: any) => r.path.endsWith('/issues') && r.query.page === '3', respond: '502' })
    const reset = Math.floor(Date.now() / 1000) + 2
    fake.faults.push({ match: (r: any) => r.path.endsWith('/pulls/comments'), respond: 'rate-limit', reset })
    const notes: string[] = []
    const third = await enrich(options(repo, fake, { onNote: (m) => notes.push(m) }))
    expect(third.status).toBe('enriched')
    expect(third.requests.rate_limit_waits).toBe(1)
    expect(notes.join('\n')).toMatch(/GitHub rate limit reached: waiting \d s/)
    const asked = fake.since(from)
    const limited = asked.findIndex((q) => q.status === 403)
    expect(asked[limited + 1].path).toBe(asked[limited].path)
    expect(asked[limited + 1].at).toBeGreaterThanOrEqual(reset * 1000)
    expect(asked.filter((q) => q.status === 502)).toHaveLength(1)
    // every page answered 200 once: resuming fetched nothing again
    const fetched = asked.filter((q) => q.status === 200).map((q) => `${q.path}?${q.query.page ?? ''}`)
    expect(fetched.length).toBe(new Set(fetched).size)
    expect(fetched).toEqual([
      `/repos/${OWNER}/${NAME}/pulls?1`,
      `/repos/${OWNER}/${NAME}/pulls?2`,
      `/repos/${OWNER}/${NAME}/issues?1`,
      `/repos/${OWNER}/${NAME}/issues?2`,
      `/repos/${OWNER}/${NAME}/issues?3`,
      `/repos/${OWNER}/${NAME}/pulls/comments?1`,
    ])
    const ev = await evidence({ repo: repo.dir, path: 'src/parse.ts' })
    expect(ev.evidence.find((e) => e.commit.sha === sha.normalize)?.pull_requests[0]).toMatchObject({ number: 5, title: 'Normalize unicode before comparing names' })
  }, 60_000)
})
