import { createHash } from 'node:crypto'
import type { ActivityRow, CoChangeRow, GraphData } from '../graph/types.js'
import { activityAt, emptyActivityTable, type ActivityTable, type StoredAnalytics } from './cache.js'
import { fileCoChange, symbolCoChange } from './cochange.js'
import { updatedColumnAnalytics } from './column-update.js'
import { columnAnalyticsWithState, type AnalyticsColumns, type AnalyticsState } from './columns.js'
import { detectCommunities } from './communities.js'
import { hotspotScores } from './risk.js'
import { activityStats, headPathsByChange } from './stats.js'
import { type ActivityStats, type AnalyticsConfig, type AnalyticsInput, type AnalyticsOutput, type CoChange } from './types.js'

/**
 * What Louvain sees, as one hash: equal keys give equal communities (it is deterministic). The
 * structure's part (imports and calls) is hashed apart (structureKey), so that an update whose
 * code graph has the same edges as the previous one's takes that hash as it was stored. Of the
 * co-change pairs, what the communities read (communities.ts: the pair, its shared changesets and
 * degree), not support or confidence: support's denominator moves with every counted commit, and
 * hashing it had an update rerun Louvain (~0.45 s on git/git) for an edit of a symbol with no pair.
 */
function communityKey(input: Pick<AnalyticsInput, 'files' | 'symbols'>, symbolCo: CoChange[], config: AnalyticsConfig, structure: string): string {
  // each list's length, then its items' fields each ended by a NUL (no path or id holds one): one
  // reading of the stream, and half the time of a JSON of nested arrays (~60 ms on rails' 50,000 symbols)
  return createHash('sha1')
    .update(`${JSON.stringify(config)}\n${input.files.length}\n`)
    .update(input.files.map((f) => `${f.path}\0`).join(''))
    .update(`\n${input.symbols.length}\n`)
    .update(input.symbols.map((s) => `${s.id}\0${s.parent ?? ''}\0`).join(''))
    .update(`\n${structure}\n${symbolCo.length}\n`)
    .update(symbolCo.map((p) => `${p.a}\0${p.b}\0${p.shared}\0${p.degree}\0`).join(''))
    .digest('hex')
}

/**
 * The imports and calls as Louvain reads them, as one hash: the pairs they link (calls at their
 * best confidence), so moving a call to another line changes nothing. The pairs are hashed as
 * sorted `from\0to` lines; ids hold no \0, so that order is (from, to)'s, and ranks of the sorted
 * names give it with a numeric sort instead of a string sort of ~25,000 lines (vuejs/core).
 */
export function structureKey(input: Pick<AnalyticsInput, 'imports' | 'calls'>): string {
  const calls = input.calls ?? []
  const imports = input.imports ?? []
  const rank = new Map<string, number>()
  for (const e of calls) rank.set(e.from, 0).set(e.to, 0)
  for (const e of imports) rank.set(e.from, 0).set(e.to, 0)
  const names = [...rank.keys()].sort()
  names.forEach((name, i) => rank.set(name, i))
  const n = names.length
  const pairKey = (from: string, to: string) => rank.get(from)! * n + rank.get(to)!
  const best = new Map<number, number>()
  for (const { from, to, confidence } of calls) {
    const key = pairKey(from, to)
    const seen = best.get(key)
    best.set(key, seen === undefined ? Math.max(0, confidence) : Math.max(seen, confidence))
  }
  const sorted = (keys: Iterable<number>) => Float64Array.from(keys).sort()
  const pair = (key: number) => `${names[Math.floor(key / n)]}\0${names[key % n]}`
  const importKeys = sorted(new Set(imports.map(({ from, to }) => pairKey(from, to))))
  const callKeys = sorted(best.keys())
  return createHash('sha1')
    .update(`\n${Array.from(importKeys, pair).join('\n')}\n`)
    .update(Array.from(callKeys, (key) => `${pair(key)}\0${best.get(key)}`).join('\n'))
    .digest('hex')
}

/**
 * Every analytic of the index. `previous` (an update) lends its communities when Louvain's input
 * has not changed: the other results are cheap, Louvain is not.
 */
export function computeAnalytics(input: AnalyticsInput, config: AnalyticsConfig, previous?: StoredAnalytics): AnalyticsOutput & { communityKey: string; structureKey: string } {
  // the rename walk, once for both
  const paths = headPathsByChange(input.changes, input.renames, input.files)
  const { fileStats, symbolStats } = activityStats(input, config, paths)
  return withCommunities({ fileStats, symbolStats, fileCoChange: fileCoChange(input, config, paths), symbolCoChange: symbolCoChange(input, config) }, input, config, previous)
}

/**
 * computeAnalytics of a history held as columns (columns.ts): what analyze computes, in a build and
 * an update alike, and the state the next update starts from. `counted` (an update's history, the
 * previous pass's state and the symbols whose histories it replaced) lets it count again only what
 * the update changed (column-update.ts); `incremental` says whether it did.
 */
export function computeColumnAnalytics(
  columns: AnalyticsColumns,
  input: Omit<AnalyticsInput, 'changes' | 'renames' | 'ownership'>,
  config: AnalyticsConfig,
  previous?: StoredAnalytics,
  structure?: string,
  counted?: { state: AnalyticsState; replaced: Iterable<string> },
): AnalyticsOutput & { communityKey: string; structureKey: string; state: AnalyticsState; incremental: boolean } {
  const updated = counted && previous ? updatedColumnAnalytics(columns, input, config, { state: counted.state, fileCoChanged: previous.fileCoChanged, symbolCoChanged: previous.symbolCoChanged }, counted.replaced) : undefined
  const { result, state } = updated ?? columnAnalyticsWithState(columns, input, config)
  return { ...withCommunities(result, input, config, previous, structure), state, incremental: updated !== undefined }
}

function withCommunities(
  out: Pick<AnalyticsOutput, 'fileStats' | 'symbolStats' | 'fileCoChange' | 'symbolCoChange'>,
  input: Pick<AnalyticsInput, 'files' | 'symbols' | 'imports' | 'calls'>,
  config: AnalyticsConfig,
  previous?: StoredAnalytics,
  structure: string = structureKey(input),
): AnalyticsOutput & { communityKey: string; structureKey: string } {
  const symbolCo = out.symbolCoChange
  const key = communityKey(input, symbolCo, config, structure)
  const { communities, memberOf } =
    previous?.communityKey === key
      ? { communities: previous.communities, memberOf: new Map(previous.memberOf.map((m) => [m.symbol, m.community])) }
      : detectCommunities({ symbols: input.symbols, files: input.files, symbolCoChange: symbolCo, imports: input.imports, calls: input.calls }, config)
  return { ...out, communities, memberOf, communityKey: key, structureKey: structure }
}

/** Memoised: the rows repeat the times of the same commits (11,000 conversions, ~7,000 times, on vuejs/core). */
const isoOf = new Map<number, string>()
const iso = (t: number | null): string | null => {
  if (t === null) return null
  let s = isoOf.get(t)
  if (s === undefined) {
    s = new Date(t * 1000).toISOString()
    if (isoOf.size > 100_000) isoOf.clear()
    isoOf.set(t, s)
  }
  return s
}

/** The activity columns of every present file and every symbol, hotspot ranks and co-change partners included. */
export function activityRows(out: AnalyticsOutput): { files: Map<string, ActivityRow>; symbols: Map<string, ActivityRow> } {
  const rows = (table: ActivityTable) => new Map(table.key.map((key, i) => [key, activityAt(table, i)]))
  const tables = activityTables(out)
  return { files: rows(tables.files), symbols: rows(tables.symbols) }
}

/** activityRows as columns (the keys in the stats' order): what analytics-out.json holds, without an object per row. */
export function activityTables(out: AnalyticsOutput): { files: ActivityTable; symbols: ActivityTable } {
  const table = (stats: Map<string, ActivityStats>, pairs: CoChange[]): ActivityTable => {
    const partners = new Map<string, number>()
    for (const p of pairs) for (const k of [p.a, p.b]) partners.set(k, (partners.get(k) ?? 0) + 1)
    const ranks = hotspotScores(stats)
    const t = emptyActivityTable()
    let i = 0
    for (const [key, s] of stats) {
      t.key.push(key)
      t.revisions.push(s.revisions)
      t.recent_revisions.push(s.recent_revisions)
      t.churn.push(s.churn)
      t.authors.push(s.authors)
      t.first_change.push(iso(s.first_change))
      t.last_change.push(iso(s.last_change))
      t.hotspot.push(ranks.score[i])
      t.hotspot_percentile.push(ranks.percentile[i++])
      t.cochange_partners.push(partners.get(key) ?? 0)
    }
    return t
  }
  return { files: table(out.fileStats, out.fileCoChange), symbols: table(out.symbolStats, out.symbolCoChange) }
}

const coChangeRow = (c: CoChange): CoChangeRow => ({ a: c.a, b: c.b, shared: c.shared, degree: c.degree, confidence: c.confidence_ab, reverse_confidence: c.confidence_ba })

/**
 * The changesets co-change counted (support's denominator), of files and of symbols: the graph
 * keeps no support (shared / changesets changes on every pair with each commit, and an update would
 * rewrite them all), `related` divides. Read back from a pair: support = shared / changesets.
 */
export function coChangeChangesets(out: Pick<AnalyticsOutput, 'fileCoChange' | 'symbolCoChange'>): { files: number; symbols: number } {
  const of = (pairs: CoChange[]) => (pairs.length > 0 ? Math.round(pairs[0].shared / pairs[0].support) : 0)
  return { files: of(out.fileCoChange), symbols: of(out.symbolCoChange) }
}

/** The graph rows of the analytics (activity columns are set on the File and Symbol rows by the caller). */
export function analyticsRows(out: AnalyticsOutput, ownership: AnalyticsInput['ownership']): Pick<GraphData, 'fileCoChanged' | 'symbolCoChanged' | 'communities' | 'memberOf' | 'ownedBy'> {
  return {
    fileCoChanged: out.fileCoChange.map(coChangeRow),
    symbolCoChanged: out.symbolCoChange.map(coChangeRow),
    communities: out.communities.map((c) => ({ ...c })),
    memberOf: [...out.memberOf].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([symbol, community]) => ({ symbol, community })),
    ownedBy: ownedByRows(ownership),
  }
}

/** The OWNED_BY rows of these files' line ownership (by path). */
export function ownedByRows(ownership: AnalyticsInput['ownership']): GraphData['ownedBy'] {
  const ownedBy: GraphData['ownedBy'] = []
  for (const p of Object.keys(ownership).sort()) {
    const owners = ownership[p]
    const total = owners.reduce((n, [, l]) => n + l, 0)
    for (const [email, lines] of owners) ownedBy.push({ path: p, email, lines, share: total ? lines / total : 0 })
  }
  return ownedBy
}

