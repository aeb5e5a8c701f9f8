/**
 * ftsTerms against Kuzu's own full-text index: what it drops Kuzu drops, and an index built from
 * its output answers every question with the same rows and the same BM25 scores as one built
 * from the text itself.
 */
import { join } from 'node:path'
import kuzu from 'kuzu'
import type { QueryResult } from 'kuzu'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { identifierWords } from '../../src/codegraph/search-text.js'
import { FTS_STOP_WORDS, ftsTerms } from '../../src/codegraph/fts-terms.js'
import { rng } from '../helpers/scenarios.js'
import { tempDir } from './fixtures.js'

let dir: { path: string; cleanup: () => void }
beforeAll(() => { dir = tempDir('gitwhy-fts-') })
afterAll(() => dir.cleanup())

async function rows(conn: kuzu.Connection, statement: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>[]> {
  // CREATE_FTS_INDEX runs several statements, which Kuzu cannot prepare
  const result = (Object.keys(params).length === 0 ? await conn.query(statement) : await conn.execute(await conn.prepare(statement), params as Record<string, kuzu.KuzuValue>)) as QueryResult
  try {
    return await result.getAll()
  } finally {
    result.close()
  }
}

/** A fresh database holding one table T(id, s) with `texts` and a full-text index over s, built after the rows as analyze builds its own. */
async function indexed(name: string, texts: readonly string[]): Promise<{ conn: kuzu.Connection; close: () => Promise<void> }> {
  const db = new kuzu.Database(join(dir.path, name), 64 * 1024 * 1024)
  const conn = new kuzu.Connection(db)
  await rows(conn, 'CREATE NODE TABLE T(id INT64, s STRING, PRIMARY KEY (id))')
  await rows(conn, 'UNWIND $rows AS r CREATE (:T {id: r.id, s: r.s})', { rows: texts.map((s, id) => ({ id, s })) })
  await rows(conn, "CALL CREATE_FTS_INDEX('T', 't_search', ['s'])")
  return { conn, close: async () => { await conn.close(); await db.close() } }
}

const ask = (conn: kuzu.Connection, q: string) =>
  rows(conn, "CALL QUERY_FTS_INDEX('T', 't_search', $q, conjunctive := false) RETURN node.id AS id, score ORDER BY id", { q })

// words, stop words (Kuzu's, some capitalised), numbers, punctuation, identifiers, other scripts, a tab, a backslash
const VOCABULARY = [
  'cache', 'router', 'compiled', 'paths', 'merge', 'branch', 'flush', 'queue', 'parent', 'retrying', 'Scheduler', 'HTTPServer', 'parseUrl',
  'the', 'The', 'and', 'value', 'changes', 'new', 'Use', 'it', 'p', 'x', 'com',
  'v2', '404', 'utf8', 'p4', '2.39', 'foo.bar', 'a-b', 'x_y', '(#12)', "it's", "don't", '$scope', '#include', 'C:\\path', 'fix:', '--force',
  'Ärger', 'naïve', 'İstanbul', 'ΣΊΣΥΦΟΣ', '日本語', 'tab\there', 'KELVIN\u212a',
]

describe('ftsTerms', () => {
  it('drops digits, punctuation, empty tokens and stop words, and lower-cases ASCII only', () => {
    expect(ftsTerms('The cache of v2 (#12) paths, it’s Fixed')).toBe('cache paths it’s fixed')
    expect(ftsTerms("don't x_y foo.bar")).toBe('don foo bar')
    expect(ftsTerms('Ärger\tNOW  ÉTÉ')).toBe('Ärger\tnow ÉtÉ')
    expect(ftsTerms('the and 42')).toBe('')
  })

  it('drops only words Kuzu leaves out of its index', async () => {
    // one row of a word alone, and one row of the word beside each stop word: a stop word Kuzu
    // keeps would make its row longer, and its BM25 score for the word lower
    const words = [...FTS_STOP_WORDS]
    const { conn, close } = await indexed('stop', ['zebra', ...words.map((w) => `zebra ${w}`), 'zebra quagga'])
    try {
      const scores = new Map((await ask(conn, 'zebra')).map((r) => [Number(r.id), Number(r.score)]))
      expect(scores.size).toBe(words.length + 2)
      const alone = scores.get(0)!
      const kept = words.filter((_, i) => scores.get(i + 1) !== alone)
      expect(kept).toEqual([])
      // the control row, with a word Kuzu keeps, scores lower: the comparison can tell
      expect(scores.get(words.length + 1)!).toBeLessThan(alone)
    } finally {
      await close()
    }
  })

  it('gives an index that answers as one built from the text itself, for raw text and for identifier words', async () => {
    const next = rng(12)
    const texts = Array.from({ length: 400 }, () => {
      const n = 1 + Math.floor(next() * 24)
      const words = Array.from({ length: n }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)])
      // every row keeps a term: a row Kuzu's build finds no term in is left out of its statistics,
      // which is why the index stores NO_WORDS for one (schema.ts)
      return [...words, 'anchor'].join(next() < 0.3 ? '  ' : ' ')
    })
    for (const [label, prepare] of [['raw', (t: string) => t], ['identifier words', identifierWords]] as const) {
      const stored = texts.map(prepare)
      const a = await indexed(`${label}-as-is`, stored)
      const b = await indexed(`${label}-terms`, stored.map(ftsTerms))
      try {
        const questions = [...VOCABULARY, 'cache router', 'Compiled PATHS flush', 'retrying the parent queue', 'istanbul ärger', 'anchor']
        for (const q of questions) {
          const want = await ask(a.conn, q)
          expect(await ask(b.conn, q), `${label}: ${q}`).toEqual(want)
        }
        // the questions found something: an index left empty would pass the comparison too
        expect((await ask(a.conn, 'cache')).length).toBeGreaterThan(10)
      } finally {
        await a.close()
        await b.close()
      }
    }
  })
})
