import { UserError, checkLimit } from '../errors.js'
import { identifierWords } from '../codegraph/search-text.js'
import { DOC_KINDS, type DocKind } from '../embed/docs.js'
import { embed, embeddingModelFingerprint, embeddingText } from '../embed/model.js'
import { SQUASH_PR } from '../history/refs.js'
import { CODE_QUERIES as Q } from '../graph/queries.js'
import { IndexReader, withReader } from './index-reader.js'
import type { IndexInfo } from './types.js'
import type { GraphStore } from '../graph/store.js'

/**
 * `search` (issue 12): symbols, commits, pull requests and issues found by meaning and by words.
 * Two ranked lists over the same documents (src/embed/docs.ts) — BM25 through Kuzu's full-text
 * index, nearest neighbours through its vector index — fused by reciprocal rank fusion.
 */

export const SEARCH_MODES = ['hybrid', 'bm25', 'vector'] as const
export type SearchMode = (typeof SEARCH_MODES)[number]
export const SEARCH_KINDS = [...DOC_KINDS, 'all'] as const
export type SearchKind = DocKind | 'all'

/** Reciprocal rank fusion's constant (Cormack et al. 2009): a hit's score is Σ 1 / (60 + rank). */
export const RRF_K = 60

export interface SearchHit {
  kind: DocKind
  /** Symbol id, commit sha, or PR / issue number. */
  ref: string
  title: string
  /** The symbol's file and first line ('' and 0 for the other kinds). */
  path: string
  line: number
  /** Fused score (RRF; in bm25 or vector mode that list's own). Comparable within one answer. */
  score: number
  why: {
    /** Rank in the BM25 list (1 = best) and its score; null: not among its candidates. */
    bm25_rank: number | null
    bm25_score: number | null
    /** Rank among the nearest vectors and the cosine similarity; null: not among them. */
    vector_rank: number | null
    cosine: number | null
    /** The question's words the document contains (stemmed alike: "caching" matches "cache"). */
    words: string[]
  }
}

export interface SearchResult {
  query: string
  kind: SearchKind
  /** The mode asked for, and the one answered (hybrid falls back to bm25 when the index has no vectors). */
  mode: SearchMode
  answered: SearchMode
  /** The model that embedded the index (null: built without --embeddings). */
  model: string | null
  /** Why the answer is full-text only, when it is. */
  note: string | null
  index: IndexInfo
  hits: SearchHit[]
  /** Hits returned, and candidates beyond them. */
  total: number
  truncated: number
}

interface DocCandidate {
  row: number
  kind: DocKind
  ref: string
  title: string
  path: string
  line: number
  /** Read for the hits answered only (the full-text list brings its own). */
  text?: string
}

/** Texts up to this many are read one by one (by key); more at once, by a scan of every text. */
const TEXTS_BY_KEY = 50

/** Candidates each list contributes per hit asked for: the kind filter and the fusion act on them. */
const OVERFETCH = 3
const MIN_CANDIDATES = 50
/** The vector index cannot filter by kind: it is asked for this many times more when a kind is chosen. */
const KIND_OVERFETCH = 4

/** A word without its English ending: two words of 4 letters or more with one stem are the same word. */
const stem = (w: string) => w.replace(/(?:ing|ed|es|s|er|ion|ions|ly)$/, '').replace(/e$/, '')
const STEMMED = 4

/** Words too common to explain a match (Kuzu's full-text index leaves them out too). */
const STOPWORDS = new Set('a an and are as at be but by for from has have how if in into is it its not of on or so such that the their then there these they this to was were what when where which who why will with'.split(' '))

/** A question's distinct words, split as documents are (`parseUrl` → parse, url), without stop words. */
export function questionWords(text: string): string[] {
  const words = identifierWords(text)
  return words ? [...new Set(words.split(' '))].filter((w) => !STOPWORDS.has(w)) : []
}

/** The question's words `text` holds, up to an English ending. */
export function matchedWords(question: string[], text: string): string[] {
  const words = new Set(identifierWords(text).split(' '))
  const stems = new Set<string>()
  for (const w of words) if (w.length >= STEMMED) stems.add(stem(w))
  return question.filter((q) => words.has(q) || (q.length >= STEMMED && stems.has(stem(q))))
}

export async function search(options: { repo?: string; reader?: IndexReader; text: string; kind?: SearchKind; mode?: SearchMode; limit?: number }): Promise<SearchResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 10
    checkLimit(limit)
    const kind = options.kind ?? 'all'
    const mode = options.mode ?? 'hybrid'
    if (!SEARCH_KINDS.includes(kind)) throw new UserError(`unknown kind ${kind}`, `pass --kind ${SEARCH_KINDS.join('|')}`, 'bad_option')
    if (!SEARCH_MODES.includes(mode)) throw new UserError(`unknown mode ${mode}`, `pass --mode ${SEARCH_MODES.join('|')}`, 'bad_option')
    const words = identifierWords(options.text)
    if (!words) throw new UserError('nothing to search for', 'pass words, e.g. `gitwhy search "why are routes cached"`', 'bad_option')
    const question = questionWords(options.text)

    const recorded = reader.meta.options.embeddings ?? null
    let note: string | null = null
    if (mode !== 'bm25') {
      if (!recorded) note = 'the index has no embeddings (they are opt-in): full-text only; run `gitwhy analyze --embeddings` for meaning search'
      else if (embeddingModelFingerprint().hash !== recorded.hash) note = `the embedding model now configured is not the one that built the index (${recorded.id}): full-text only; run \`gitwhy analyze --embeddings\` to re-embed`
      if (note && mode === 'vector') throw new UserError(note.replace(': full-text only', ''), 'run `gitwhy analyze --embeddings`, or search with --mode bm25', 'no_embeddings')
    }
    const answered: SearchMode = note ? 'bm25' : mode
    const g = await reader.graph()
    const top = limit === 0 ? 10_000 : Math.max(limit * OVERFETCH, MIN_CANDIDATES)
    const filter = kind === 'all' ? '' : kind
    // the two lists are asked at once: the full-text query runs while the question is embedded
    const [bm25, near] = await Promise.all([
      answered === 'vector' ? [] : g.query<DocCandidate & { score: number }>(Q.docSearch, { q: words, top, kind: filter }),
      answered === 'bm25'
        ? []
        : embed([embeddingText(options.text)]).then(([v]) => reader.nearestDocs(v, kind === 'all' ? top : top * KIND_OVERFETCH)),
    ])
    const docs = new Map<number, DocCandidate>(bm25.map((d) => [Number(d.row), d]))
    const rows = near.map((r) => Number(r.row)).filter((r) => !docs.has(r))
    if (rows.length > 0) for (const d of await g.query<DocCandidate>(Q.docsByRow, { rows })) docs.set(Number(d.row), d)
    // the vector index cannot filter: the kind is applied to its candidates (ranks count the kept ones)
    const nearest = near.filter((r) => kind === 'all' || docs.get(Number(r.row))?.kind === kind).sort((a, b) => a.distance - b.distance || a.row - b.row)
    const byScore = [...bm25].sort((a, b) => b.score - a.score || a.row - b.row)

    const hits = new Map<number, SearchHit>()
    const rowOf = new Map<SearchHit, number>()
    const hitOf = (row: number): SearchHit => {
      let h = hits.get(row)
      if (!h) {
        const d = docs.get(row)!
        h = { kind: d.kind, ref: d.ref, title: d.title, path: d.path, line: Number(d.line), score: 0, why: { bm25_rank: null, bm25_score: null, vector_rank: null, cosine: null, words: [] } }
        hits.set(row, h)
        rowOf.set(h, row)
      }
      return h
    }
    const round = (x: number) => Math.round(x * 10_000) / 10_000
    byScore.forEach((d, i) => {
      const h = hitOf(Number(d.row))
      h.why.bm25_rank = i + 1
      h.why.bm25_score = round(Number(d.score))
      h.score += answered === 'bm25' ? Number(d.score) : 1 / (RRF_K + i + 1)
    })
    nearest.forEach((d, i) => {
      const h = hitOf(Number(d.row))
      h.why.vector_rank = i + 1
      h.why.cosine = round(1 - Number(d.distance))
      h.score += answered === 'vector' ? 1 - Number(d.distance) : 1 / (RRF_K + i + 1)
    })
    const ranked = onePerChange(
      [...hits.values()].sort((a, b) => b.score - a.score || (a.why.bm25_rank ?? Infinity) - (b.why.bm25_rank ?? Infinity) || (a.why.vector_rank ?? Infinity) - (b.why.vector_rank ?? Infinity) || (a.ref < b.ref ? -1 : 1)),
    )
    const kept = limit === 0 ? ranked : ranked.slice(0, limit)
    const texts = await docTexts(g, kept.map((h) => docs.get(rowOf.get(h)!)!))
    for (const h of kept) {
      h.score = round(h.score)
      h.why.words = matchedWords(question, texts.get(rowOf.get(h)!) ?? '')
    }
    return {
      query: options.text,
      kind,
      mode,
      answered,
      model: recorded?.id ?? null,
      note,
      index: await reader.indexInfo(),
      hits: kept,
      total: kept.length,
      truncated: ranked.length - kept.length,
    }
  })
}

/** The documents' texts by row: the full-text list's are at hand, the others are read (one by one up to `byKey`). */
export async function docTexts(g: GraphStore, docs: Array<{ row: number; text?: string }>, byKey = TEXTS_BY_KEY): Promise<Map<number, string>> {
  const out = new Map<number, string>()
  const missing: number[] = []
  for (const d of docs) {
    if (d.text !== undefined) out.set(Number(d.row), d.text)
    else missing.push(Number(d.row))
  }
  if (missing.length > byKey) for (const d of await g.query<{ row: number; text: string }>(Q.docTexts, { rows: missing })) out.set(Number(d.row), d.text)
  else await Promise.all(missing.map(async (row) => out.set(row, (await g.query<{ text: string }>(Q.docText, { row }))[0]?.text ?? '')))
  return out
}

/** A title this long names one change: a commit with the PR's title is the PR's even without its `(#N)`. */
const NAMING_WORDS = 4

/**
 * A pull request and its commit (a squash merge's, whose subject is the PR's title and `(#N)`; or,
 * for a merge commit's PR, the commit whose subject is the title, when it is 4 words or more) say
 * the same thing, and are one model input, so one vector too: one hit, the commit's, at the better
 * place of the two. On honojs/hono, "etag weak comparison" listed two such pairs in its top five.
 */
export function onePerChange(ranked: SearchHit[]): SearchHit[] {
  const bySubject = new Map<string, SearchHit>()
  for (const h of ranked) {
    const subject = h.kind === 'commit' ? h.title.replace(SQUASH_PR, '').trim() : ''
    if (subject && !bySubject.has(subject)) bySubject.set(subject, h)
  }
  const out: SearchHit[] = []
  const placed = new Set<SearchHit>()
  for (const h of ranked) {
    const commit = h.kind === 'pr' ? bySubject.get(h.title.trim()) : undefined
    const number = commit ? SQUASH_PR.exec(commit.title)?.[1] : undefined
    const same = commit && (number !== undefined ? number === h.ref : h.title.trim().split(/\s+/).length >= NAMING_WORDS)
    const shown = same ? commit : h
    if (placed.has(shown)) continue
    shown.score = Math.max(shown.score, h.score)
    placed.add(shown)
    out.push(shown)
  }
  return out
}

/** One line per hit, with why it matched. */
export function searchLines(r: SearchResult): string[] {
  const out: string[] = []
  if (r.note) out.push(`note: ${r.note}`)
  if (r.total === 0) return [...out, `nothing found for ${JSON.stringify(r.query)}`]
  out.push(`${r.total} hit${r.total === 1 ? '' : 's'} for ${JSON.stringify(r.query)} (${r.answered}${r.truncated ? '; more with a higher --limit' : ''})`)
  for (const h of r.hits) {
    const what = h.kind === 'commit' ? `commit ${h.ref.slice(0, 7)}` : h.kind === 'symbol' ? `symbol ${h.path}:${h.line}` : `${h.kind === 'pr' ? 'PR' : 'issue'} #${h.ref}`
    const why = [
      h.why.bm25_rank !== null ? `bm25 #${h.why.bm25_rank}` : null,
      h.why.vector_rank !== null ? `vector #${h.why.vector_rank} cos ${h.why.cosine?.toFixed(2)}` : null,
      h.why.words.length > 0 ? `words: ${h.why.words.join(', ')}` : null,
    ].filter(Boolean)
    out.push(`  ${what}  ${h.title.slice(0, 100)}  (${why.join('; ')})`)
  }
  return out
}
