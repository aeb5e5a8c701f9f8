/**
 * The extractive answerer's sentences (src/services/why.ts) from evidence made here: what it may
 * claim about who wrote the lines, which changes it tells as the code's own, and how it tells
 * reverts.
 */
import { describe, expect, test } from 'vitest'
import { extractiveAnswerer, type WhyEvidence, type WhyFacts } from '../../src/services/why.js'

let n = 0
function ev(subject: string, date: string, over: Partial<WhyEvidence> = {}, commit: Partial<WhyEvidence['commit']> = {}): WhyEvidence {
  const sha = (++n).toString(16).padStart(40, 'a')
  return {
    commit: { sha, short: sha.slice(0, 7), author: 'Ann', email: 'ann@example.com', date, subject, category: 'normal', why: `Because the long reason for ${subject} is written here.`, ...commit },
    pull_requests: [],
    issues: [],
    source: 'blame',
    score: 1,
    reasons: [],
    ...over,
  }
}

const facts = (evidence: WhyEvidence[], over: Partial<WhyFacts> = {}): WhyFacts => ({
  label: 'function parse (src/a.ts:1-20)',
  evidence,
  changesWith: [],
  confidence: 0.8,
  enough: true,
  lines: 20,
  onTarget: new Set(evidence.map((e) => e.commit.sha)),
  ...over,
})

const first = async (f: WhyFacts) => (await extractiveAnswerer.answer(f)).sentences[0].text

describe('the extractive answer', () => {
  test('says "most of its lines" only of an owner of more than half, else how many it owns', async () => {
    const most = ev('Parse headers lazily for speed', '2024-01-01', { lines: 12 })
    expect(await first(facts([most, ev('Tidy up the parser loop', '2023-01-01', { lines: 8 })]))).toContain('has most of its lines (12 of 20) from "Parse headers lazily for speed"')
    const largest = ev('Parse headers lazily for speed', '2024-01-01', { lines: 7 })
    expect(await first(facts([largest, ev('Tidy up the parser loop', '2023-01-01', { lines: 6 })]))).toContain('has 7 of its 20 lines, more than any other commit, from')
    // ranked first for its message, not for its lines: no "more than any other"
    const explained = ev('Parse headers lazily for speed', '2024-01-01', { lines: 7 })
    expect(await first(facts([explained, ev('Tidy up the parser loop', '2023-01-01', { lines: 10 })]))).toContain('has 7 of its 20 lines from')
    // a question's located code (no target given): no count to claim
    expect(await first(facts([ev('Parse headers lazily for speed', '2024-01-01', { lines: 7 })], { lines: null }))).toContain('has lines from')
  })

  test('tells the code’s own other changes in date order, and a change elsewhere as such', async () => {
    const best = ev('Parse headers lazily for speed', '2024-01-01', { lines: 12 })
    const later = ev('Cache parsed headers per request', '2025-06-01', { source: 'history' })
    const earlier = ev('Split the header parser out of the client', '2022-03-01', { source: 'history' })
    const other = ev('Complete subcommands when a flag is set', '2024-05-01', { source: 'history' })
    const found = ev('Speed up header parsing in the proxy', '2024-02-01', { source: 'search' })
    const f = facts([best, other, found, later, earlier], { onTarget: new Set([best, later, earlier].map((e) => e.commit.sha)) })
    const texts = (await extractiveAnswerer.answer(f)).sentences.map((s) => s.text)
    const told = texts.filter((t) => /^(Earlier|Later), /.test(t))
    expect(told).toEqual([expect.stringContaining('"Split the header parser out of the client"'), expect.stringContaining('"Cache parsed headers per request"')])
    expect(told[0]).toMatch(/^Earlier/)
    expect(told[1]).toMatch(/^Later/)
    expect(texts).toContain(`Outside this code, the question also matches "Complete subcommands when a flag is set" [${other.commit.short}].`)
    expect(texts.join(' ')).not.toContain('Speed up header parsing')
  })

  test('tells reverts in one sentence', async () => {
    const best = ev('Parse headers lazily for speed', '2024-01-01', { lines: 12 })
    const one = ev('Revert "Parse in one pass"', '2024-02-01', { source: 'history' }, { category: 'revert', reverts: 'b'.repeat(40) })
    const two = ev('Revert "Drop the header cache"', '2024-03-01', { source: 'history' }, { category: 'revert' })
    const once = (await extractiveAnswerer.answer(facts([best, one]))).sentences.map((s) => s.text)
    expect(once).toContain(`It was reverted once: "Revert "Parse in one pass"" [${one.commit.short}] (it undoes bbbbbbb).`)
    const twice = (await extractiveAnswerer.answer(facts([best, one, two]))).sentences.filter((s) => s.text.includes('reverted'))
    expect(twice).toHaveLength(1)
    expect(twice[0].text).toMatch(/^It was reverted 2 times: /)
    expect(twice[0].citations).toEqual([one.commit.short, two.commit.short])
  })
})
