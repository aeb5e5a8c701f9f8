/**
 * `gitwhy why` (issue 12) on a repository built to show it: code whose commit explains itself is
 * answered with that commit cited and enough confidence; code made of "wip" and "fix" commits is
 * "not enough evidence" with the evidence listed instead; a question in words is located through
 * full-text search (no embeddings) to the symbol it is about; a revert is told; squash and merge
 * subjects carrying #N become PR and issue citations; secrets in messages never reach the answer.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { MIN_CONFIDENCE, why, type WhyResult } from '../../src/services/why.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const TOKEN = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'

const cited = (r: WhyResult) => r.citations.filter((c) => c.kind === 'commit').map((c) => c.sha)
const sentenceRefs = (r: WhyResult) => r.answer.sentences.flatMap((s) => s.citations)

describe('why', () => {
  let repo: TestRepo
  const sha: Record<string, string> = {}

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/router.ts', 'export function match(path: string): boolean {\n  return new RegExp(path).test(path)\n}\n')
    sha.router = repo.commit('Add the router')
    repo.write(
      'src/router.ts',
      'const seen = new Map<string, RegExp>()\n\nexport function match(path: string): boolean {\n  let re = seen.get(path)\n  if (!re) seen.set(path, (re = new RegExp(path)))\n  return re.test(path)\n}\n',
    )
    sha.memo = repo.commit('Memoize compiled route patterns\n\nThe router compiled every pattern on each request, which dominated the profile of apps with large route tables.')
    repo.write('src/scratch.ts', 'export function scratch(): number {\n  return 1\n}\n')
    repo.commit('wip')
    repo.write('src/scratch.ts', 'export function scratch(): number {\n  return 2\n}\n')
    repo.commit('fix')
    repo.write('src/scratch.ts', 'export function scratch(): number {\n  return 3 // tuned\n}\n')
    repo.commit('wip')
    repo.write('src/limits.ts', 'export const UPLOAD_LIMIT = 10\n')
    repo.commit('Add an upload limit')
    repo.write('src/limits.ts', 'export const UPLOAD_LIMIT = 50\n')
    sha.raise = repo.commit('Raise the upload limit to fifty megabytes\n\nCustomers with long video files could not upload them.')
    sha.revert = repo.revert(sha.raise)
    repo.write('src/retry.ts', 'export async function withBackoff(fn: () => Promise<void>): Promise<void> {\n  for (let i = 0; i < 5; i++) {\n    try {\n      return await fn()\n    } catch {\n      await new Promise((r) => setTimeout(r, 2 ** i * 100))\n    }\n  }\n}\n')
    sha.squash = repo.commit(`Retry flaky uploads with exponential backoff (#12)\n\nUploads from mobile networks failed on the first dropped packet.\nDeploy with GITHUB_TOKEN=${TOKEN}\n\nFixes #34`)
    // a test that names the question's words more often than the code it tests
    repo.write('test/retry.test.ts', '/** Backoff retries the upload: the upload retry backoff. */\nexport function backoffRetriesTheUpload(): void {\n  // backoff, retry, upload\n}\n')
    repo.commit('Cover backoff retry of the upload')
    await analyze({ repo: repo.dir })
  }, 120_000)

  afterAll(() => repo?.cleanup())

  test('a target whose commit explains itself: the answer cites it, with its body, and is confident', async () => {
    const r = await why({ repo: repo.dir, text: 'match' })
    expect(r.question).toBeNull()
    expect(r.target).toMatchObject({ path: 'src/router.ts', symbol: { qualified_name: 'match' } })
    expect(cited(r)[0]).toBe(sha.memo)
    expect(r.confidence).toBeGreaterThanOrEqual(MIN_CONFIDENCE)
    expect(r.enough_evidence).toBe(true)
    expect(r.answer.text).toContain('Memoize compiled route patterns')
    expect(r.answer.text).toContain('dominated the profile')
    expect(sentenceRefs(r)).toContain(sha.memo.slice(0, 7))
    // every sentence cites, and every citation is in the citation list
    for (const s of r.answer.sentences) expect(s.citations.length).toBeGreaterThan(0)
    const refs = new Set(r.citations.map((c) => c.ref))
    for (const ref of sentenceRefs(r)) expect(refs.has(ref)).toBe(true)
    // the same answer by path:range and by path
    const byRange = await why({ repo: repo.dir, text: 'src/router.ts:3-7' })
    expect(byRange.target).toMatchObject({ line_start: 3, line_end: 7 })
    expect(cited(byRange)[0]).toBe(sha.memo)
    // and by PATH:Name, the resolver's symbol form, and by the symbol's id (an ambiguous name's remedy)
    expect((await why({ repo: repo.dir, text: 'src/router.ts:match' })).target).toEqual(r.target)
    expect((await why({ repo: repo.dir, text: 'src/router.ts#match' })).target).toEqual(r.target)
  })

  test('code made of "wip" and "fix": not enough evidence, below 0.4, with the evidence listed instead of a guess', async () => {
    const r = await why({ repo: repo.dir, text: 'src/scratch.ts' })
    expect(r.confidence).toBeLessThan(MIN_CONFIDENCE)
    expect(r.enough_evidence).toBe(false)
    expect(r.answer.text).toMatch(/^Not enough evidence/)
    expect(r.evidence.map((e) => e.commit.subject).sort()).toEqual(['fix', 'wip', 'wip'])
    expect(r.confidence_factors.message).toBe(0)
  })

  test('a question in words is located through bm25 (no embeddings) to the symbol it is about', async () => {
    const r = await why({ repo: repo.dir, text: 'why does backoff retry the upload?' })
    expect(r.search).toMatchObject({ mode: 'hybrid', answered: 'bm25' })
    expect(r.target).toMatchObject({ path: 'src/retry.ts', symbol: { qualified_name: 'withBackoff' } })
    expect(cited(r)[0]).toBe(sha.squash)
    expect(r.located.length).toBeGreaterThan(0)
    expect(r.confidence).toBeGreaterThanOrEqual(MIN_CONFIDENCE)
    const bm25 = await why({ repo: repo.dir, text: 'why does backoff retry the upload?', mode: 'bm25' })
    expect(cited(bm25)[0]).toBe(sha.squash)
  })

  test('a question is located to the code before a test that matches it better, unless it asks about tests', async () => {
    const r = await why({ repo: repo.dir, text: 'why does backoff retry the upload?', mode: 'bm25' })
    // search ranks the test first: it names the question's words more often
    expect(r.located.find((h) => h.kind === 'symbol')).toMatchObject({ path: 'test/retry.test.ts' })
    expect(r.target).toMatchObject({ path: 'src/retry.ts', symbol: { qualified_name: 'withBackoff' } })
    const t = await why({ repo: repo.dir, text: 'why does the test check that backoff retries the upload?', mode: 'bm25' })
    expect(t.target).toMatchObject({ path: 'test/retry.test.ts', symbol: { qualified_name: 'backoffRetriesTheUpload' } })
  })

  test('squash subjects with (#N) and "Fixes #N" become PR and issue citations; secrets never reach the answer', async () => {
    const r = await why({ repo: repo.dir, text: 'src/retry.ts' })
    expect(r.citations.slice(0, 3)).toMatchObject([
      { kind: 'commit', sha: sha.squash },
      { kind: 'pr', ref: 'PR #12', number: 12 },
      { kind: 'issue', ref: '#34', number: 34 },
    ])
    expect(sentenceRefs(r)).toEqual(expect.arrayContaining([sha.squash.slice(0, 7), '#34']))
    expect(JSON.stringify(r)).not.toContain(TOKEN)
  })

  test('a revert is told, with the commit it undoes', async () => {
    const r = await why({ repo: repo.dir, text: 'src/limits.ts' })
    const revert = r.answer.sentences.find((s) => s.text.startsWith('It was reverted'))
    expect(revert?.citations).toEqual([sha.revert.slice(0, 7)])
    expect(revert?.text).toContain(`undoes ${sha.raise.slice(0, 7)}`)
    expect(cited(r)).toEqual(expect.arrayContaining([sha.revert, sha.raise]))
  })

  test('a path that names nothing is an error; one unknown word is a question', async () => {
    await expect(why({ repo: repo.dir, text: 'src/nope.ts' })).rejects.toMatchObject({ code: 'unknown_path' })
    const r = await why({ repo: repo.dir, text: 'memoize' })
    expect(r.question).toBe('memoize')
    expect(cited(r)[0]).toBe(sha.memo)
  })
})

describe('why, with pull request merges', () => {
  test('a PR’s merge commit is left out when the PR’s own commit is in the evidence', async () => {
    const repo = createRepo()
    try {
      const v0 = 'export function size(): number {\n  const base = 1\n\n  return base\n}\n'
      repo.write('src/pool.ts', v0)
      repo.commit('Add the pool')
      repo.branch('feature').checkout('feature')
      repo.write('src/pool.ts', v0.replace('  return base\n', '  // the gateway allows four connections per client\n  return base * 4\n'))
      const own = repo.commit('Grow the pool to four connections\n\nThe gateway allows four connections per client.')
      repo.checkout('main')
      // main changed the function too: the merge's lines differ from both parents', so line history shows it
      repo.write('src/pool.ts', v0.replace('const base = 1', 'const base = 1 // one connection to start'))
      repo.commit('Say where the pool starts')
      const merge = repo.merge('feature', { message: 'Merge pull request #7 from ada/feature\n\nGrow the pool to four connections' })
      await analyze({ repo: repo.dir })
      const r = await why({ repo: repo.dir, text: 'src/pool.ts' })
      const shas = r.evidence.map((e) => e.commit.sha)
      expect(repo.git('log', '--format=%H', '-L', '1,7:src/pool.ts').split('\n')).toContain(merge)
      expect(shas).toContain(own)
      expect(shas).not.toContain(merge)
      expect(r.evidence.find((e) => e.commit.sha === own)!.pull_requests.map((p) => p.number)).toEqual([7])
    } finally {
      repo.cleanup()
    }
  }, 120_000)
})
