/**
 * Answer feedback (issue 15), in process: every why answer carries an answer_id and is recorded
 * under it; an up vote ranks the commit its claim cited higher in a later answer about overlapping
 * code, a down vote lower in a later answer about the same code, each saying so in the evidence's
 * reasons; the re-rank itself, the relevance of a vote, and the answer log's trimming are pure and
 * tested on literals.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { answerId } from '../../src/services/answer-id.js'
import { answerRecord, answerScope, feedbackCounts, feedbackRelevance, findAnswer, giveFeedback, recordAnswer, rerankByFeedback, trimAnswers, type FeedbackRecord } from '../../src/services/feedback.js'
import { why, type WhyResult } from '../../src/services/why.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const lines = (prefix: string, n: number, from = 1) => Array.from({ length: n }, (_, i) => `export const ${prefix}${from + i} = ${from + i} // ${prefix} line ${from + i}`)
const file = (xs: string[]) => `${xs.join('\n')}\n`
const ranks = (r: WhyResult) => r.evidence.map((e) => e.commit.sha)

describe('answer feedback re-ranks later answers', () => {
  let repo: TestRepo
  const sha: Record<string, string> = {}

  beforeAll(async () => {
    repo = createRepo()
    // parser.ts: a "wip" wrote all ten lines; an explained commit rewrote the first four
    repo.write('src/parser.ts', file(lines('p', 10)))
    sha.wip = repo.commit('wip')
    repo.write('src/parser.ts', file([...lines('q', 4), ...lines('p', 6, 5)]))
    sha.empty = repo.commit('Handle empty input in the parser\n\nEmpty strings crashed the tokenizer when a client started with no configuration.')
    // retry.ts: an explained commit wrote it; another explained one rewrote four lines
    repo.write('src/retry.ts', file(lines('r', 10)))
    sha.loop = repo.commit('Add the retry loop\n\nRequests to the flaky API failed on the first dropped packet of a mobile network.')
    repo.write('src/retry.ts', file([...lines('r', 2), ...lines('s', 4, 3), ...lines('r', 4, 7)]))
    sha.tune = repo.commit('Tune the retry delays for mobile clients\n\nThe first retries came too fast for a radio that was still waking up.')
    await analyze({ repo: repo.dir })
  }, 120_000)

  afterAll(() => repo?.cleanup())

  test('every answer carries an id, the same for the same question over the same evidence, recorded with what it rested on', async () => {
    const a = await why({ repo: repo.dir, text: 'src/parser.ts:1-4' })
    const b = await why({ repo: repo.dir, text: 'src/parser.ts:1-4', limit: 1 })
    expect(a.answer_id).toMatch(/^w-[0-9a-f]{12}$/)
    expect(b.answer_id).toBe(a.answer_id)
    expect(a.answer_id).toBe(answerId('why', 'src/parser.ts:1-4', [sha.empty, sha.wip]))
    expect(findAnswer(repo.dir, a.answer_id)).toMatchObject({ kind: 'why', target: 'src/parser.ts:1-4', path: 'src/parser.ts', lines: [1, 4], question: null, cited: [sha.empty] })
    expect(findAnswer(repo.dir, a.answer_id)!.evidence).toEqual(expect.arrayContaining([sha.empty, sha.wip]))
    // another target, another id; not recorded on request
    const other = await why({ repo: repo.dir, text: 'src/parser.ts', record: false })
    expect(other.answer_id).not.toBe(a.answer_id)
    expect(findAnswer(repo.dir, other.answer_id)).toBeNull()
  })

  test('up: the commit an up-voted answer cited ranks higher in a later answer about overlapping code', async () => {
    const before = await why({ repo: repo.dir, text: 'src/parser.ts' })
    expect(ranks(before).slice(0, 2)).toEqual([sha.wip, sha.empty])
    const voted = await why({ repo: repo.dir, text: 'src/parser.ts:1-4' })
    expect(ranks(voted)[0]).toBe(sha.empty)
    const r = await giveFeedback({ repo: repo.dir, id: voted.answer_id, vote: 'up', note: 'the empty-input fix is the reason' })
    expect(r).toMatchObject({ answer_id: voted.answer_id, vote: 'up', note: 'the empty-input fix is the reason', answer: { kind: 'why', target: 'src/parser.ts:1-4', cited: [sha.empty] }, votes: { up: 1, down: 0 } })
    const after = await why({ repo: repo.dir, text: 'src/parser.ts' })
    expect(ranks(after).slice(0, 2)).toEqual([sha.empty, sha.wip])
    expect(after.evidence[0].reasons).toContain(`up-voted in answer ${voted.answer_id} (an overlapping target)`)
    // the id stays: the evidence is the same, only its order moved
    expect(after.answer_id).toBe(before.answer_id)
    // the answer now claims the up-voted commit
    expect(after.answer.sentences[0].citations).toEqual([sha.empty.slice(0, 7)])
  })

  test('down: the commit a down-voted answer cited ranks lower in a later answer about the same code', async () => {
    const first = await why({ repo: repo.dir, text: 'src/retry.ts' })
    expect(ranks(first).slice(0, 2)).toEqual([sha.loop, sha.tune])
    await giveFeedback({ repo: repo.dir, id: first.answer_id, vote: 'down' })
    const later = await why({ repo: repo.dir, text: 'src/retry.ts' })
    expect(ranks(later).slice(0, 2)).toEqual([sha.tune, sha.loop])
    const loop = later.evidence.find((e) => e.commit.sha === sha.loop)!
    expect(loop.reasons).toContain(`down-voted in answer ${first.answer_id} (the same target)`)
    expect(loop.score).toBeLessThan(later.evidence[0].score)
    // unrelated code is not moved
    const elsewhere = await why({ repo: repo.dir, text: 'src/parser.ts:5-10' })
    expect(elsewhere.evidence.flatMap((e) => e.reasons).filter((x) => /voted/.test(x))).toEqual([])
    expect(feedbackCounts(repo.dir)).toMatchObject({ up: 1, down: 1, voted_answers: 2 })
  })

  test('an unknown or malformed id, or a vote that is neither up nor down, is a user error', async () => {
    await expect(giveFeedback({ repo: repo.dir, id: 'w-000000000000', vote: 'up' })).rejects.toMatchObject({ name: 'UserError', code: 'unknown_answer' })
    await expect(giveFeedback({ repo: repo.dir, id: 'not an id', vote: 'up' })).rejects.toMatchObject({ code: 'bad_answer_id' })
    const a = await why({ repo: repo.dir, text: 'src/retry.ts:1-2' })
    await expect(giveFeedback({ repo: repo.dir, id: a.answer_id, vote: 'sideways' })).rejects.toMatchObject({ code: 'bad_option' })
  })

  test('a vote outlives its answer\'s line in the answer log (trimmed), and analyze --force', async () => {
    const a = await why({ repo: repo.dir, text: 'src/retry.ts:7-10' })
    await giveFeedback({ repo: repo.dir, id: a.answer_id, vote: 'up' })
    writeFileSync(join(repo.dir, '.gitwhy', 'answers.jsonl'), '')
    expect(findAnswer(repo.dir, a.answer_id)).toBeNull()
    // known by its earlier vote
    expect((await giveFeedback({ repo: repo.dir, id: a.answer_id, vote: 'up' })).votes).toEqual({ up: 2, down: 0 })
    await analyze({ repo: repo.dir, force: true })
    expect(existsSync(join(repo.dir, '.gitwhy', 'feedback.jsonl'))).toBe(true)
    expect(feedbackCounts(repo.dir).up).toBe(3)
  }, 120_000)
})

describe('the pure parts', () => {
  const scope = (target: string, path: string | null, lines: [number, number] | null, question: string | null = null) => ({ target, path, lines, question })
  const vote = (v: 'up' | 'down', s: ReturnType<typeof scope>, cited: string[], id = 'w-aaaaaaaaaaaa'): FeedbackRecord => ({ id, kind: 'why', vote: v, note: null, cited, at: '', ...s })
  const item = (sha: string, score: number) => ({ commit: { sha }, score, reasons: [] as string[] })

  test('relevance: the same target, an overlapping range, a similar question; nothing else', () => {
    expect(feedbackRelevance(scope('a.ts:1-4', 'a.ts', [1, 4]), scope('a.ts:1-4', 'a.ts', [1, 4]))).toEqual({ weight: 1, how: 'the same target' })
    expect(feedbackRelevance(scope('a.ts:1-4', 'a.ts', [1, 4]), scope('a.ts:1-10', 'a.ts', [1, 10]))).toEqual({ weight: 1, how: 'an overlapping target' })
    expect(feedbackRelevance(scope('a.ts:1-4', 'a.ts', [1, 4]), scope('a.ts:4-10', 'a.ts', [4, 10]))).toEqual({ weight: 0.5, how: 'an overlapping target' })
    expect(feedbackRelevance(scope('a.ts:1-4', 'a.ts', [1, 4]), scope('a.ts:5-10', 'a.ts', [5, 10]))).toBeNull()
    expect(feedbackRelevance(scope('a.ts:1-4', 'a.ts', [1, 4]), scope('b.ts:1-4', 'b.ts', [1, 4]))).toBeNull()
    const q = (text: string) => answerScope(null, text)
    expect(feedbackRelevance(q('why does the router cache compiled paths?'), q('why does the  router cache compiled paths'))).toEqual({ weight: 1, how: 'the same target' })
    expect(feedbackRelevance(q('why does the router cache compiled paths'), q('why are compiled paths cached by the router'))?.how).toBe('a similar question')
    expect(feedbackRelevance(q('why does the router cache compiled paths'), q('how is the upload limit chosen'))).toBeNull()
    // a question located to code overlaps a later answer about that code
    expect(feedbackRelevance(answerScope({ path: 'a.ts', line_start: 3, line_end: 8 }, 'why retry'), answerScope({ path: 'a.ts', line_start: 1, line_end: 20 }, null))?.how).toBe('an overlapping target')
  })

  test('re-rank: up doubles, down halves, per unit of relevance and at most two units; the reasons say so; no votes, no change', () => {
    const target = scope('a.ts:1-10', 'a.ts', [1, 10])
    const same = vote('up', target, ['b'], 'w-000000000001')
    const items = [item('a', 1.5), item('b', 1), item('c', 0.5)]
    expect(rerankByFeedback(items, target, []).map((x) => x.commit.sha)).toEqual(['a', 'b', 'c'])
    const up = rerankByFeedback(items, target, [same])
    expect(up.map((x) => x.commit.sha)).toEqual(['b', 'a', 'c'])
    expect(up[0]).toEqual({ commit: { sha: 'b' }, score: 2, reasons: ['up-voted in answer w-000000000001 (the same target)'] })
    // five up votes count as two units: × 4, not × 32
    const many = rerankByFeedback([item('b', 1)], target, Array.from({ length: 5 }, () => same))
    expect(many[0].score).toBe(4)
    // half an overlap: × 2^0.5
    const down = rerankByFeedback([item('a', 1)], target, [vote('down', scope('a.ts:10-20', 'a.ts', [10, 20]), ['a'])])
    expect(down[0].score).toBeCloseTo(2 ** -0.5, 6)
    // an unrelated vote moves nothing
    expect(rerankByFeedback([item('a', 1)], target, [vote('down', scope('b.ts:1-2', 'b.ts', [1, 2]), ['a'])])[0]).toEqual({ commit: { sha: 'a' }, score: 1, reasons: [] })
  })

  test('the answer log is trimmed to its newest answers, one line per id; a cut line is skipped', async () => {
    const rec = (id: string, n: number) => JSON.stringify({ ...answerRecord('why', scope(`a.ts:${n}-${n}`, 'a.ts', [n, n]), [`${n}`.padStart(40, '0')], []), id })
    const kept = trimAnswers([rec('w-000000000001', 1), rec('w-000000000002', 2), '{"cut', rec('w-000000000001', 3), ''], 10_000)
    expect(kept.map((l) => JSON.parse(l).id)).toEqual(['w-000000000002', 'w-000000000001'])
    expect(JSON.parse(kept[1]).target).toBe('a.ts:3-3')
    // over the limit: the newest that fit in half of it
    const big = Array.from({ length: 100 }, (_, i) => rec(`w-${String(i).padStart(12, '0')}`, i))
    const size = Buffer.byteLength(big[99]) + 1
    const trimmed = trimAnswers(big, size * 20)
    expect(trimmed).toHaveLength(10)
    expect(JSON.parse(trimmed.at(-1)!).id).toBe('w-000000000099')

    // recordAnswer trims the file when an append takes it past the limit
    const dir = mkdtempSync(join(tmpdir(), 'gitwhy-answers-'))
    try {
      for (let i = 0; i < 60; i++) await recordAnswer(dir, answerRecord('why', scope(`a.ts:${i}-${i}`, 'a.ts', [i, i]), [String(i)], []), size * 20)
      const text = readFileSync(join(dir, '.gitwhy', 'answers.jsonl'), 'utf8')
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(size * 20)
      const ids = text.trim().split('\n').map((l) => JSON.parse(l).target)
      expect(ids.at(-1)).toBe('a.ts:59-59')
      expect(existsSync(join(dir, '.gitwhy', 'answers.lock'))).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
