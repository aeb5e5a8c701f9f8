/**
 * Forge enrichment's pure parts: the forge rows over the messages' rows (a full build) and the
 * delta that brings an index from one cache to another, which must agree; the cache's log and
 * checkpoint; the API JSON normalised (HTML comments out, secrets scrubbed); where the API is.
 */
import { appendFileSync, mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { applyForge, deriveForge, descriptionReason, forgeData, forgeDelta, reviewText, type ForgeApplied, type ForgeData, type OfflineView } from '../../src/forge/apply.js'
import { ForgeCacheWriter, ForgeItems, forgeFingerprint, loadForgeItems, newForgeState, NO_FORGE, readForgeState, type ForgePull, type ForgeRecord } from '../../src/forge/cache.js'
import { cleanBody, githubTarget, links, normalizeComment, normalizeIssue, normalizePull } from '../../src/forge/github.js'
import { closingReferences } from '../../src/history/refs.js'
import type { GraphData } from '../../src/graph/types.js'
import { NO_FORGE_ISSUE, NO_FORGE_PR } from '../../src/graph/types.js'

const sha = (c: string) => c.repeat(40)

function pull(n: number, extra: Partial<ForgePull> = {}): ForgePull {
  return { k: 'pr', n, title: `PR ${n} title`, body: '', labels: [], state: 'merged', author: 'ada', merged_at: '2024-06-01T00:00:00Z', merge_sha: null, updated_at: '2024-06-01T00:00:00Z', ...extra }
}

function data(records: ForgeRecord[], fingerprint = 'f:1'): ForgeData {
  const items = new ForgeItems()
  for (const r of records) items.add(r)
  return forgeData(fingerprint, items)
}

/** The messages' tables of a small history: a squash commit naming PR 2, one naming nothing, one naming issue 8. */
function tables(): Pick<GraphData, 'commits' | 'pullRequests' | 'issues' | 'partOf' | 'closes'> {
  const commit = (s: string) => ({ sha: s }) as GraphData['commits'][number]
  return {
    commits: [commit(sha('a')), commit(sha('b')), commit(sha('c'))],
    pullRequests: [{ number: 2, title: 'Trim (message)', url: '', source: 'github', ...NO_FORGE_PR }],
    issues: [{ number: 8, title: '', url: '', source: 'message', ...NO_FORGE_ISSUE }],
    partOf: [{ sha: sha('a'), number: 2 }],
    closes: [{ pr: 2, issue: 8 }],
  }
}

describe('closing references and the reason a description gives', () => {
  test('closing keywords of this repository only', () => {
    expect(closingReferences('Fixes #12, closes #3 and #4. Resolved: #5. See #6; fixes other/repo#7; refs #8')).toEqual([3, 4, 5, 12])
    expect(closingReferences('no reference here')).toEqual([])
  })

  test('template headings, task lists, tables, code and HTML are not the reason', () => {
    const body = '## Description\n\n<details>\n\nThe cache grew without bound under load, so entries now expire after an hour.\n\n- [x] tests\n\n| a | b |\n\n```\ncode here is long enough\n```'
    expect(descriptionReason(body)).toBe('The cache grew without bound under load, so entries now expire after an hour.')
    expect(descriptionReason('Fixes #12')).toBeNull()
    expect(descriptionReason('')).toBeNull()
  })

  test('review comments as one line each, bounded', () => {
    const c = (id: number) => ({ k: 'rc' as const, id, pr: 1, path: 'src/a.ts', line: id, author: 'eve', body: `look\nhere ${id}`, created_at: '', updated_at: '' })
    expect(reviewText([c(1), c(2)])).toBe('src/a.ts:1 eve: look here 1\nsrc/a.ts:2 eve: look here 2')
    expect(reviewText(Array.from({ length: 50 }, (_, i) => c(i))).split('\n')).toHaveLength(20)
  })
})

describe('the forge rows over the messages\' rows', () => {
  test('a full build: enriched rows, a merge commit mapped to its PR, the description\'s closing issues', () => {
    const t = tables()
    const applied = applyForge(t, data([
      pull(2, { title: 'Trim whitespace', body: 'Fixes #8 and fixes #9', labels: ['bug', 'parser'], merge_sha: sha('a') }),
      pull(5, { title: 'Normalize', merge_sha: sha('b') }),
      // merged as a commit the messages already put in PR 2: the message wins
      pull(6, { merge_sha: sha('a') }),
      { k: 'issue', n: 9, title: 'Issue nine', body: 'it breaks', labels: [], state: 'closed', author: 'bob', updated_at: '' },
    ]))
    expect(t.pullRequests).toEqual([
      { number: 2, title: 'Trim whitespace', url: '', source: 'api', body: 'Fixes #8 and fixes #9', labels: 'bug, parser', state: 'merged', author: 'ada', merged_at: '2024-06-01T00:00:00Z', reviews: '' },
      { number: 5, title: 'Normalize', url: '', source: 'api', body: '', labels: '', state: 'merged', author: 'ada', merged_at: '2024-06-01T00:00:00Z', reviews: '' },
    ])
    expect(t.partOf).toEqual([{ sha: sha('a'), number: 2 }, { sha: sha('b'), number: 5 }])
    // #8: the messages' row (no record); #9: added by the description, with its record
    expect(t.issues.map((i) => [i.number, i.title, i.source])).toEqual([[8, '', 'message'], [9, 'Issue nine', 'api']])
    // the message already closes #8: only 2 → 9 is the description's
    expect(t.closes).toEqual([{ pr: 2, issue: 8 }, { pr: 2, issue: 9 }])
    expect(applied).toMatchObject({ fingerprint: 'f:1', mapped: [[sha('b'), 5]], added_prs: [5], added_issues: [9], closes: ['2:9'], message_closes: ['2:8'] })
  })

  test('no cache: the messages\' rows stand, and the record says so', () => {
    const t = tables()
    const before = JSON.stringify(t)
    const applied = applyForge(t, null)
    expect(JSON.stringify(t)).toBe(before)
    expect(applied).toEqual({ fingerprint: NO_FORGE, mapped: [], added_prs: [], added_issues: [], prs: {}, issues: {}, closes: [], message_closes: ['2:8'] })
  })
})

describe('the delta from one cache to another', () => {
  const view: OfflineView = { prs: new Set([2]), issues: new Set([8]), unclaimed: [sha('b'), sha('c')], messageCloses: new Set(['2:8']) }
  const index = (applied: ForgeApplied, extra: Partial<{ prsOf: Map<string, number[]> }> = {}) => ({
    prsOf: extra.prsOf ?? new Map([[sha('a'), [2]], [sha('b'), applied.mapped.some(([s]) => s === sha('b')) ? [5] : []], [sha('c'), []]]),
    issueRefs: new Set([8]),
    freshCloses: [],
  })

  test('a cache that grew: the new and changed rows and edges, nothing else', () => {
    const one = data([pull(2, { title: 'Trim' })], 'f:1')
    const old = deriveForge(view, one).applied
    const two = data([pull(2, { title: 'Trim whitespace', body: 'Closes #9' }), pull(5, { merge_sha: sha('b') })], 'f:2')
    const d = forgeDelta(old, index(old), two)!
    expect(d.applied).toEqual(deriveForge(view, two).applied)
    expect([...d.prs.keys()]).toEqual([2, 5])
    expect([...d.newPrs]).toEqual([5])
    expect([...d.newIssues]).toEqual([9])
    expect([...d.issues.keys()]).toEqual([9])
    expect(d.partOf).toEqual([{ sha: sha('b'), number: 5 }])
    expect(d.closes).toEqual([{ pr: 2, issue: 9 }])
    // the same cache again: nothing to do
    const same = forgeDelta(d.applied, index(d.applied), two)!
    expect([same.prs.size, same.issues.size, same.partOf.length, same.closes.length]).toEqual([0, 0, 0, 0])
  })

  test('a cache that took something back is a rebuild', () => {
    const full = data([pull(2, { body: 'Closes #9' }), pull(5, { merge_sha: sha('b') })])
    const old = deriveForge(view, full).applied
    expect(forgeDelta(old, index(old), null)).toBeNull()
    expect(forgeDelta(old, index(old), data([pull(5, { merge_sha: sha('b') })]))).toBeNull()
    expect(forgeDelta(old, index(old), data([pull(2), pull(5, { merge_sha: sha('b') })]))).toBeNull()
  })
})

describe('the forge cache', () => {
  const dir = () => mkdtempSync(path.join(tmpdir(), 'gitwhy-forge-'))

  test('records are appended, checkpointed and read back; a half page past the checkpoint is cut; light never replaces full', () => {
    const root = dir()
    const w = new ForgeCacheWriter(root, newForgeState('https://api.github.com', 'o/r'))
    expect(forgeFingerprint(w.state)).toBe(NO_FORGE)
    expect(w.add([pull(1), pull(2)])).toHaveLength(2)
    expect(w.add([pull(1)])).toHaveLength(0)
    expect(w.add([{ k: 'prl', n: 1, merged_at: null, merge_sha: null, updated_at: '' }])).toHaveLength(0)
    w.checkpoint()
    const print = forgeFingerprint(w.state)
    expect(print).toMatch(/^[0-9a-f]{12}:1$/)
    // a killed run's half-written page
    const log = path.join(root, 'forge', 'items.jsonl')
    const size = statSync(log).size
    appendFileSync(log, '{"k":"pr","n":3,"ti')
    const loaded = loadForgeItems(root)!
    expect([...loaded.items.pulls.keys()]).toEqual([1, 2])
    const again = new ForgeCacheWriter(root, readForgeState(root)!)
    expect(statSync(log).size).toBe(size)
    expect(again.items.counts()).toEqual({ pull_requests: 2, issues: 0, review_comments: 0, merged_only: 0 })
  })

  test('compaction rewrites the log without replaced records and keeps the fingerprint', () => {
    const root = dir()
    const w = new ForgeCacheWriter(root, newForgeState('https://api.github.com', 'o/r'))
    for (let i = 0; i < 5; i++) w.add([pull(1, { title: `v${i}` }), pull(2, { title: `w${i}` })])
    w.checkpoint()
    const print = forgeFingerprint(w.state)
    w.compact()
    expect(forgeFingerprint(readForgeState(root))).toBe(print)
    const loaded = loadForgeItems(root)!
    expect((loaded.items.pulls.get(1) as ForgePull).title).toBe('v4')
    expect(readFileSync(path.join(root, 'forge', loaded.state.log.file), 'utf8').trim().split('\n')).toHaveLength(2)
  })
})

describe('the API\'s JSON as the cache keeps it', () => {
  const SECRET = 'ghp_' + 'Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8'

  test('a pull request: template comments out, secrets scrubbed, merged state and merge commit', () => {
    const p = normalizePull({ number: 4, title: 'Fix\nit', body: `<!-- fill this in -->\r\nDone. token=${SECRET}`, state: 'closed', user: { login: 'ada' }, labels: [{ name: 'bug' }, 'x'], merged_at: '2024-01-01T00:00:00Z', merge_commit_sha: sha('d'), updated_at: '2024-01-02T00:00:00Z' })
    expect(p).toEqual({ k: 'pr', n: 4, title: 'Fix it', body: 'Done. token=[redacted]', labels: ['bug', 'x'], state: 'merged', author: 'ada', merged_at: '2024-01-01T00:00:00Z', merge_sha: sha('d'), updated_at: '2024-01-02T00:00:00Z' })
    // an unmerged PR's merge_commit_sha is a test merge: never mapped
    expect(normalizePull({ number: 5, state: 'open', merge_commit_sha: sha('e') }).merge_sha).toBeNull()
    expect(cleanBody('a'.repeat(9000)).length).toBe(8000)
  })

  test('an issue, one that is a pull request, a review comment', () => {
    expect(normalizeIssue({ number: 8, title: 'Crash', body: null, state: 'closed', labels: [] })).toMatchObject({ k: 'issue', n: 8, title: 'Crash', body: '', state: 'closed' })
    expect(normalizeIssue({ number: 9, title: 'PR', state: 'closed', pull_request: { merged_at: '2024-01-01T00:00:00Z' } })).toMatchObject({ k: 'pr', n: 9, state: 'merged', merge_sha: null })
    expect(normalizeComment({ id: 1, path: 'src/a.ts', line: 3, body: 'why?', user: { login: 'eve' }, pull_request_url: 'https://api.github.com/repos/o/r/pulls/12' })).toMatchObject({ k: 'rc', id: 1, pr: 12, path: 'src/a.ts', line: 3, author: 'eve', body: 'why?' })
    expect(normalizeComment({ id: 2, path: 'a', pull_request_url: 'nonsense' })).toBeNull()
  })

  test('Link headers and where the API is', () => {
    expect(links('<https://api.github.com/repositories/1/pulls?page=2>; rel="next", <https://api.github.com/repositories/1/pulls?page=7>; rel="last"')).toEqual({ next: true, lastPage: 7 })
    expect(links(undefined)).toEqual({ next: false, lastPage: null })
    expect(githubTarget({ web: 'https://github.com/acme/widget', forge: 'github' }, null, {})).toEqual({ api: 'https://api.github.com', owner: 'acme', name: 'widget', web: 'https://github.com/acme/widget', host: 'github.com' })
    expect(githubTarget({ web: 'https://github.example.com/acme/widget', forge: 'github' }, null, {})?.api).toBe('https://github.example.com/api/v3')
    expect(githubTarget({ web: 'https://github.com/acme/widget', forge: 'github' }, 'https://config.example/api/', {})?.api).toBe('https://config.example/api')
    expect(githubTarget({ web: 'https://github.com/acme/widget', forge: 'github' }, 'https://config.example/api', { GITWHY_GITHUB_API_URL: 'http://127.0.0.1:1/' })?.api).toBe('http://127.0.0.1:1')
    expect(githubTarget({ web: 'https://gitlab.com/acme/widget', forge: 'gitlab' }, null, {})).toBeNull()
    expect(githubTarget(null, null, {})).toBeNull()
  })
})
