import { UserError, checkLimit } from '../errors.js'
import { identifierWords } from '../codegraph/search-text.js'
import { CODE_QUERIES as Q } from '../graph/queries.js'
import { IndexReader, withReader } from './index-reader.js'
import type { IndexInfo } from './types.js'

/**
 * `query` (issue 11): code found by words. BM25 through Kuzu's full-text index over each symbol's
 * names split into words, signature, doc comment and path (src/codegraph/search-text.ts), the
 * question split the same way; hits grouped by the community they belong to. The semantic half
 * (embeddings) arrives through the same service.
 */

export interface QueryHit {
  id: string
  qualified_name: string
  kind: string
  path: string
  start_line: number
  signature: string
  exported: boolean
  /** BM25 score (higher is better; comparable within one answer only). */
  score: number
}

/**
 * A group of hits: today a community (or none); execution flows become a second kind of group
 * when the flows module lands (`kind: 'flow'`).
 */
export interface QueryGroup {
  kind: 'community'
  id: string | null
  label: string | null
  /** The best score in the group: groups are ordered by it. */
  score: number
  hits: QueryHit[]
}

export interface QueryResult {
  query: string
  /** The words searched for (identifiers split like the index's). */
  words: string
  index: IndexInfo
  groups: QueryGroup[]
  /** Hits returned (at most `limit`), and candidates the index found beyond them. */
  total: number
  truncated: number
}

/** Candidates asked of the index per hit returned: kind filtering (module symbols) happens after its top-k. */
const OVERFETCH = 3

export async function query(options: { repo?: string; reader?: IndexReader; text: string; limit?: number }): Promise<QueryResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 20
    checkLimit(limit)
    const words = identifierWords(options.text)
    if (!words) throw new UserError('nothing to search for', 'pass words, e.g. `gitwhy query "parse url"`', 'bad_option')
    const g = await reader.graph()
    const top = limit === 0 ? 100_000 : Math.max(limit * OVERFETCH, 50)
    const rows = await g.query<QueryHit & { community: string | null; community_label: string | null }>(Q.search, { q: words, top })
    const kept = limit === 0 ? rows : rows.slice(0, limit)
    const groups = new Map<string, QueryGroup>()
    for (const r of kept) {
      const key = r.community ?? ''
      const group = groups.get(key) ?? { kind: 'community' as const, id: r.community, label: r.community_label, score: 0, hits: [] }
      groups.set(key, group)
      const score = Math.round(Number(r.score) * 1000) / 1000
      group.score = Math.max(group.score, score)
      group.hits.push({ id: r.id, qualified_name: r.qualified_name, kind: r.kind, path: r.path, start_line: Number(r.start_line), signature: r.signature, exported: r.exported, score })
    }
    return {
      query: options.text,
      words,
      index: await reader.indexInfo(),
      groups: [...groups.values()].sort((a, b) => b.score - a.score || ((a.id ?? '') < (b.id ?? '') ? -1 : 1)),
      total: kept.length,
      truncated: rows.length - kept.length,
    }
  })
}

/** The text answer of `query`. */
export function queryLines(r: QueryResult): string[] {
  if (r.total === 0) return [`no code matches ${JSON.stringify(r.query)} (searched: ${r.words})`]
  const out = [`${r.total} match${r.total === 1 ? '' : 'es'} for ${JSON.stringify(r.query)}${r.truncated ? ' (more with a higher limit)' : ''}`]
  for (const gr of r.groups) {
    out.push(gr.id ? `community ${gr.id} ${gr.label ?? ''}`.trimEnd() + ':' : 'no community:')
    for (const h of gr.hits) out.push(`  ${h.qualified_name} · ${h.kind} · ${h.path}:${h.start_line} · ${h.score}${h.signature ? `  ${h.signature.slice(0, 120)}` : ''}`)
  }
  return out
}
