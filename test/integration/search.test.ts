/**
 * `gitwhy search` (issue 12) on a repository built to show it: a paraphrase that shares no word
 * with the commit that answers it is found by meaning (vector, hybrid) but not by words (bm25);
 * secrets in messages never reach the index; an update embeds only the texts it has not seen and
 * ends with the vectors a fresh build has; another model rebuilds every vector; without
 * --embeddings (the default: they are opt-in) search is full-text only and says how to turn them on.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BUNDLED_MODEL_DIR, BUNDLED_MODEL_ID, MODEL_ENV, embed, resetEmbeddingModel } from '../../src/embed/model.js'
import { analyze } from '../../src/services/analyze.js'
import { cypher } from '../../src/services/cypher.js'
import { IndexReader } from '../../src/services/index-reader.js'
import { docTexts as readDocTexts, matchedWords, questionWords, search } from '../../src/services/search.js'
import { VECTOR_INDEX_ROWS_ENV } from '../../src/graph/schema.js'
import { readMeta } from '../../src/services/workspace.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const DAY = 24 * 3600
const T0 = 1_700_000_000
const TOKEN = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'
const TARGET = 'Show a friendly message when the disk is full'
/** Shares no word (nor stem) with TARGET. */
const PARAPHRASE = 'tell users clearly that no storage space remains'

async function docVectors(repo: string): Promise<Map<string, { text: string; vector: number[] }>> {
  const r = await cypher({ repo, statement: 'MATCH (d:Doc), (v:DocVector) WHERE v.row = d.row RETURN d.id AS id, d.text AS text, v.embedding AS vector', maxRows: 0 })
  return new Map(r.rows.map((row) => [String(row.id), { text: String(row.text), vector: row.vector as number[] }]))
}

async function docTexts(repo: string): Promise<Map<string, string>> {
  const r = await cypher({ repo, statement: 'MATCH (d:Doc) RETURN d.id AS id, d.text AS text, d.hash AS hash', maxRows: 0 })
  return new Map(r.rows.map((row) => [String(row.id), `${row.hash} ${row.text}`]))
}

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0) / Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0))

describe('search', () => {
  let repo: TestRepo
  let target: string

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/router.ts', 'export function match(path: string): boolean {\n  return new RegExp(path).test(path)\n}\n')
    repo.commit('Add the router', { date: T0 })
    repo.write('LICENSE', 'Copyright 2024\n')
    repo.commit('Update the copyright year in the license', { date: T0 + DAY })
    repo.write('src/client.ts', 'export async function fetchWithRetry(url: string): Promise<Response> {\n  return fetch(url)\n}\n')
    repo.commit('Retry failed HTTP requests with exponential backoff', { date: T0 + 2 * DAY })
    repo.write('src/router.ts', 'const seen = new Map<string, RegExp>()\n\nexport function match(path: string): boolean {\n  let re = seen.get(path)\n  if (!re) seen.set(path, (re = new RegExp(path)))\n  return re.test(path)\n}\n')
    repo.commit('Memoize compiled route patterns\n\nThe router compiled every pattern on each request.', { date: T0 + 3 * DAY })
    repo.write('src/save.ts', 'export function save(data: string): void {\n  try {\n    write(data)\n  } catch {\n    console.error("The disk is full")\n  }\n}\n')
    target = repo.commit(TARGET, { date: T0 + 3 * DAY + 3600 })
    repo.write('deploy.sh', 'echo deploy\n')
    repo.commit(`Add the deploy script\n\nUse GITHUB_TOKEN=${TOKEN} and https://deployer:hunter2secret@example.test/hook`, { date: T0 + 4 * DAY })
    repo.write('CONTRIBUTING.md', 'Be kind.\n')
    repo.commit('Fix a typo in the contributing guide', { date: T0 + 5 * DAY })
    await analyze({ repo: repo.dir, embeddings: true })
  }, 120_000)

  afterAll(() => {
    delete process.env[MODEL_ENV]
    resetEmbeddingModel()
    repo?.cleanup()
  })

  test('a paraphrase that shares no word with the commit finds it by vector and hybrid, not by bm25', async () => {
    const rank = (hits: Array<{ kind: string; ref: string }>) => hits.findIndex((h) => h.kind === 'commit' && h.ref === target)
    const vector = await search({ repo: repo.dir, text: PARAPHRASE, mode: 'vector', kind: 'commit' })
    expect(rank(vector.hits)).toBe(0)
    expect(vector.hits[0].why).toMatchObject({ vector_rank: 1, bm25_rank: null, words: [] })
    expect(vector.hits[0].why.cosine).toBeGreaterThan(0.3)
    const bm25 = await search({ repo: repo.dir, text: PARAPHRASE, mode: 'bm25', limit: 0 })
    expect(rank(bm25.hits)).toBe(-1)
    const hybrid = await search({ repo: repo.dir, text: PARAPHRASE, limit: 3 })
    expect(hybrid.answered).toBe('hybrid')
    expect(rank(hybrid.hits)).toBeGreaterThanOrEqual(0)
    // words find it too, and then both lists say so
    const words = await search({ repo: repo.dir, text: 'friendly messages', kind: 'commit' })
    expect(words.hits[0]).toMatchObject({ ref: target, why: { bm25_rank: 1, words: ['friendly', 'messages'] } })
    expect(words.hits[0].why.vector_rank).not.toBeNull()
  })

  test("each hit's words are the question's words its document holds, read one by one or all at once", async () => {
    const question = 'the router compiled every pattern on each request'
    const byRef = await cypher({ repo: repo.dir, statement: 'MATCH (d:Doc) RETURN d.row AS row, d.kind AS kind, d.ref AS ref, d.text AS text', maxRows: 0 })
    const textOf = (kind: string, ref: string) => String(byRef.rows.find((r) => r.kind === kind && r.ref === ref)!.text)
    // vector mode reads every text (the full-text list brings none); hybrid reads the others
    for (const mode of ['vector', 'hybrid'] as const) {
      const r = await search({ repo: repo.dir, text: question, mode, limit: 0 })
      expect(r.hits.length).toBeGreaterThan(5)
      for (const h of r.hits) expect(h.why.words, `${mode} ${h.kind} ${h.ref}`).toEqual(matchedWords(questionWords(question), textOf(h.kind, h.ref)))
      expect(r.hits.some((h) => h.why.words.length >= 3)).toBe(true)
    }
    // the two ways of reading texts agree
    const reader = await IndexReader.open(repo.dir)
    try {
      const rows = byRef.rows.map((r) => ({ row: Number(r.row) }))
      const g = await reader.graph()
      const one = await readDocTexts(g, rows, Infinity)
      expect(one).toEqual(await readDocTexts(g, rows, 0))
      expect([...one.values()].sort()).toEqual(byRef.rows.map((r) => String(r.text)).sort())
    } finally {
      await reader.close()
    }
  })

  test('symbols are summarised with the subjects of the commits that wrote them', async () => {
    const r = await search({ repo: repo.dir, text: 'memoize', kind: 'symbol', mode: 'bm25' })
    expect(r.hits.map((h) => h.title)).toContain('match')
    expect(r.hits.find((h) => h.title === 'match')).toMatchObject({ path: 'src/router.ts', line: 3 })
  })

  test('secrets in commit messages are redacted before they are stored', async () => {
    const texts = [...(await docTexts(repo.dir)).values()].join('\n')
    expect(texts).not.toContain(TOKEN)
    expect(texts).not.toContain('hunter2secret')
    expect(texts).toContain('GITHUB_TOKEN=[redacted]')
    expect(texts).toContain('https://deployer:[redacted]@example.test/hook')
  })

  test('an update embeds only the texts it has not seen and equals a fresh build', async () => {
    const before = new Set([...(await docTexts(repo.dir)).values()].map((t) => t.split(' ')[0]))
    repo.write('src/client.ts', 'export async function fetchWithRetry(url: string): Promise<Response> {\n  return fetch(url, { keepalive: true })\n}\n\nexport function timeoutFor(attempt: number): number {\n  return 2 ** attempt * 100\n}\n')
    // a test file's symbol is found by its words, and has no vector
    repo.write('src/client.test.ts', 'export function retriesUntilTheServerAnswers(): void {\n  fetchWithRetry("http://example.test")\n}\n')
    repo.commit('Keep connections alive between attempts', { date: T0 + 6 * DAY })
    const update = await analyze({ repo: repo.dir, embeddings: true })
    expect(update.mode).toBe('incremental')
    const after = await docVectors(repo.dir)
    const hashes = new Map([...(await docTexts(repo.dir)).entries()].map(([id, t]) => [id, t.split(' ')[0]]))
    const fresh = new Set([...hashes.values()].filter((h) => h && !before.has(h)))
    // the new commit, and the two symbols of the file it changed (their summaries name it now);
    // not the test file's symbol: its document has no hash (nothing embedded) and no vector
    expect(fresh.size).toBe(3)
    const testSymbol = 'symbol:src/client.test.ts#retriesUntilTheServerAnswers'
    expect(hashes.get(testSymbol)).toBe('')
    expect(after.has(testSymbol)).toBe(false)
    const byWords = await search({ repo: repo.dir, text: 'retries until the server answers', kind: 'symbol', mode: 'bm25' })
    expect(byWords.hits[0]).toMatchObject({ ref: 'src/client.test.ts#retriesUntilTheServerAnswers', why: { bm25_rank: 1 } })
    const hybrid = await search({ repo: repo.dir, text: 'retries until the server answers', kind: 'symbol', limit: 0 })
    expect(hybrid.hits.find((h) => h.ref === 'src/client.test.ts#retriesUntilTheServerAnswers')).toMatchObject({ why: { bm25_rank: 1, vector_rank: null, cosine: null } })
    expect(update.embeddings).toEqual({ model: BUNDLED_MODEL_ID, embedded: fresh.size })
    // the documents the delta inserted are in the full-text index, with their own words only
    const words = async (text: string) => (await search({ repo: repo.dir, text, mode: 'bm25', limit: 0 })).hits.map((h) => `${h.kind} ${h.ref} ${h.score}`)
    const questions = ['keep connections alive', 'timeout attempt', 'memoize route patterns', 'exponential backoff']
    const updated = await Promise.all(questions.map(words))
    expect(updated[0][0]).toMatch(/^commit /)
    expect(updated[0].length).toBeLessThan(hashes.size / 2)

    const rebuilt = await analyze({ repo: repo.dir, force: true, embeddings: true })
    expect(await Promise.all(questions.map(words))).toEqual(updated)
    expect(rebuilt.embeddings.embedded).toBe(new Set([...hashes.values()].filter(Boolean)).size)
    expect(hashes.size - (await docVectors(repo.dir)).size).toBe(1)
    const full = await docVectors(repo.dir)
    expect([...after.keys()].sort()).toEqual([...full.keys()].sort())
    for (const [id, doc] of full) {
      expect(after.get(id)!.text, id).toBe(doc.text)
      expect(cosine(after.get(id)!.vector, doc.vector), id).toBeGreaterThan(0.99999)
    }
  }, 120_000)

  test('few vectors are searched without a vector index, exactly; the update that brings them to VECTOR_INDEX_ROWS builds it, and the answers stay', async () => {
    const indexes = async () => (await cypher({ repo: repo.dir, statement: 'CALL SHOW_INDEXES() RETURN index_name AS name' })).rows.map((r) => r.name).sort()
    const questions = [PARAPHRASE, 'keep the connection open', 'cache regular expressions', 'remove secrets from the deploy script']
    const answers = async () => Promise.all(questions.map(async (text) => (await search({ repo: repo.dir, text, mode: 'vector', limit: 0 })).hits.map((h) => ({ id: `${h.kind}:${h.ref}`, cosine: h.why.cosine! }))))
    // a handful of vectors: below VECTOR_INDEX_ROWS, no index
    expect(await indexes()).toEqual(['doc_search', 'symbol_search'])
    const vectors = (await docVectors(repo.dir)).size
    const scanned = await answers()
    // exact: every document, nearest first
    for (const hits of scanned) {
      expect(hits).toHaveLength(vectors)
      expect(hits.map((h) => h.cosine)).toEqual([...hits.map((h) => h.cosine)].sort((a, b) => b - a))
    }
    // a scan keeps more than it was asked for: a later call for the same vector is its first rows
    const reader = IndexReader.openRoot(repo.dir)
    try {
      const [q] = await embed([PARAPHRASE])
      const few = await reader.nearestDocs(q, 2)
      const all = await reader.nearestDocs(q, 10_000)
      expect(all).toHaveLength(vectors)
      expect(few).toEqual(all.slice(0, 2))
      expect(await reader.nearestDocs(q, 3)).toEqual(all.slice(0, 3))
    } finally {
      await reader.close()
    }
    process.env[VECTOR_INDEX_ROWS_ENV] = String(vectors + 1)
    try {
      repo.write('src/save.ts', 'export function save(data: string): void {\n  write(data)\n}\n')
      repo.commit('Let the caller handle a full disk', { date: T0 + 7 * DAY })
      expect((await analyze({ repo: repo.dir, embeddings: true })).mode).toBe('incremental')
      expect(await indexes()).toEqual(['doc_search', 'doc_vector', 'symbol_search'])
      const indexed = await answers()
      // the same index rebuilt with the threshold out of reach: no vector index, the same answers
      process.env[VECTOR_INDEX_ROWS_ENV] = '1000000'
      expect((await analyze({ repo: repo.dir, force: true, embeddings: true })).mode).toBe('full')
      expect(await indexes()).toEqual(['doc_search', 'symbol_search'])
      const rescanned = await answers()
      expect(rescanned.map((hits) => hits.map((h) => h.id))).toEqual(indexed.map((hits) => hits.map((h) => h.id)))
      rescanned.forEach((hits, q) => hits.forEach((h, i) => expect(h.cosine, `${questions[q]} ${h.id}`).toBeCloseTo(indexed[q][i].cosine, 5)))
    } finally {
      delete process.env[VECTOR_INDEX_ROWS_ENV]
    }
  }, 120_000)

  test('another embedding model rebuilds every vector, and search refuses to mix models', async () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'gitwhy-model-')), 'use-lite-copy')
    cpSync(BUNDLED_MODEL_DIR, copy, { recursive: true })
    const config = JSON.parse(readFileSync(join(copy, 'config.json'), 'utf8'))
    writeFileSync(join(copy, 'config.json'), JSON.stringify({ ...config, gitwhy: { ...config.gitwhy, id: 'other-model' } }))
    process.env[MODEL_ENV] = copy
    resetEmbeddingModel()
    try {
      const docs = (await docTexts(repo.dir)).size
      const r = await analyze({ repo: repo.dir, embeddings: true })
      expect(r.mode).toBe('full')
      expect(r.embeddings.model).toBe('other-model')
      expect(r.embeddings.embedded).toBeGreaterThan(docs * 0.9)
      expect(readMeta(repo.dir)!.options.embeddings).toMatchObject({ id: 'other-model' })
    } finally {
      delete process.env[MODEL_ENV]
      resetEmbeddingModel()
    }
    // the index was built by other-model, the bundled one is configured now
    const mixed = await search({ repo: repo.dir, text: PARAPHRASE })
    expect(mixed).toMatchObject({ answered: 'bm25', model: 'other-model' })
    expect(mixed.note).toContain('not the one that built the index')
  }, 120_000)

  test('without embeddings (--no-embeddings; the default for a new index): search is full-text only and says how to add vectors', async () => {
    // the index was built with embeddings above: --no-embeddings rebuilds it without vectors
    const r = await analyze({ repo: repo.dir, embeddings: false })
    expect(r).toMatchObject({ mode: 'full', embeddings: { model: null, embedded: 0 } })
    expect(readMeta(repo.dir)!.options.embeddings).toBeNull()
    expect((await docVectors(repo.dir)).size).toBe(0)
    // left out, the flag keeps what the index was built with: nothing to do
    expect(await analyze({ repo: repo.dir })).toMatchObject({ mode: 'noop', embeddings: { model: null, embedded: 0 } })
    const hybrid = await search({ repo: repo.dir, text: 'memoize route patterns' })
    expect(hybrid).toMatchObject({ mode: 'hybrid', answered: 'bm25', model: null })
    expect(hybrid.note).toContain('gitwhy analyze --embeddings')
    expect(hybrid.hits[0].title).toBe('Memoize compiled route patterns')
    await expect(search({ repo: repo.dir, text: PARAPHRASE, mode: 'vector' })).rejects.toMatchObject({ code: 'no_embeddings' })
  }, 120_000)
})
