import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import type { ActivityRow, CoChangeRow, GraphData } from '../graph/types.js'
import { resolveImport } from '../parse/imports.js'
import { loadLanguageRegistry } from '../parse/registry.js'
import { symbolIds, type IndexedFile } from '../services/index-layout.js'
import type { CommitCategory } from '../services/types.js'
import { fileCoChange, symbolCoChange } from './cochange.js'
import { detectCommunities } from './communities.js'
import { hotspots } from './risk.js'
import { activityStats, headPathsByChange, type ChangeWithSymbolLines } from './stats.js'
import { DEFAULT_ANALYTICS_CONFIG, type ActivityStats, type AnalyticsConfig, type AnalyticsInput, type AnalyticsOutput, type Change, type CoChange } from './types.js'

/**
 * The analytics part of an index. What they are computed from (every commit's changeset, the
 * renames, each file's line ownership at HEAD) is kept beside the graph in `analytics.json`, so an
 * update recomputes them exactly as a full build would, without re-reading the history.
 */
export const ANALYTICS_FILE = 'analytics.json'

export interface AnalyticsCache {
  changes: ChangeWithSymbolLines[]
  renames: AnalyticsInput['renames']
  ownership: AnalyticsInput['ownership']
}

export function saveAnalyticsCache(dir: string, cache: AnalyticsCache): void {
  writeFileSync(path.join(dir, ANALYTICS_FILE), JSON.stringify(cache))
}

export function loadAnalyticsCache(dir: string): AnalyticsCache {
  return JSON.parse(readFileSync(path.join(dir, ANALYTICS_FILE), 'utf8')) as AnalyticsCache
}

/** Every commit's changeset from the graph's rows, newest first (the rows' order). */
export function changesFromRows(rows: Pick<GraphData, 'commits' | 'touched' | 'changed'>): ChangeWithSymbolLines[] {
  const files = new Map<string, Change['files']>()
  for (const t of rows.touched) {
    let list = files.get(t.sha)
    if (!list) files.set(t.sha, (list = []))
    list.push({ path: t.path, additions: t.additions, deletions: t.deletions })
  }
  const symbols = new Map<string, string[]>()
  const symbolLines = new Map<string, Record<string, number>>()
  for (const c of rows.changed) addSymbol(symbols, symbolLines, c)
  return rows.commits.map((c) => ({
    sha: c.sha,
    time: Math.floor(Date.parse(c.committer_date) / 1000),
    author: c.author_email,
    category: c.category as CommitCategory,
    subject: c.subject,
    files: files.get(c.sha) ?? [],
    symbols: symbols.get(c.sha) ?? [],
    symbolLines: symbolLines.get(c.sha) ?? {},
  }))
}

function addSymbol(symbols: Map<string, string[]>, lines: Map<string, Record<string, number>>, c: GraphData['changed'][number]): void {
  let list = symbols.get(c.sha)
  if (!list) symbols.set(c.sha, (list = []))
  list.push(c.symbol)
  let counts = lines.get(c.sha)
  if (!counts) lines.set(c.sha, (counts = {}))
  counts[c.symbol] = c.added + c.removed
}

/**
 * The cached changes with the symbol line histories of some files replaced (an update re-walks
 * the files its commits touched): `gone` symbols are dropped everywhere, `changed` rows added.
 */
export function replaceSymbolHistories(changes: ChangeWithSymbolLines[], gone: ReadonlySet<string>, changed: GraphData['changed']): ChangeWithSymbolLines[] {
  const out = changes.map((c) => {
    const symbolLines: Record<string, number> = {}
    for (const [id, n] of Object.entries(c.symbolLines ?? {})) if (!gone.has(id)) symbolLines[id] = n
    return { ...c, symbols: c.symbols.filter((id) => !gone.has(id)), symbolLines }
  })
  const bySha = new Map(out.map((c) => [c.sha, c]))
  for (const ch of changed) {
    const c = bySha.get(ch.sha)
    if (!c) continue
    c.symbols.push(ch.symbol)
    c.symbolLines![ch.symbol] = ch.added + ch.removed
  }
  return out
}

/** Lines owned at HEAD per author, from one file's blame (commit index per line; ~index past the cut). */
export function ownershipFromBlame(blame: ArrayLike<number>, lines: number, shas: readonly string[], emailOf: (sha: string) => string | undefined): Array<[string, number]> {
  const counts = new Map<string, number>()
  for (let l = 0; l < Math.min(lines, blame.length); l++) {
    const v = blame[l]
    const c = v < 0 ? ~v : v
    const email = c >= 0 && c < shas.length ? emailOf(shas[c]) : undefined
    if (email !== undefined) counts.set(email, (counts.get(email) ?? 0) + 1)
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
}

export function analyticsInput(cache: AnalyticsCache, files: IndexedFile[], headTime: number): AnalyticsInput {
  const symbols: AnalyticsInput['symbols'] = []
  for (const f of files) {
    const ids = symbolIds(f)
    f.symbols.forEach((s, i) => symbols.push({ id: ids[i], path: f.path, qualified_name: s.qualifiedName, parent: s.parentIndex === null ? null : ids[s.parentIndex] }))
  }
  return { headTime, changes: cache.changes, renames: cache.renames, files: files.map((f) => ({ path: f.path, language: f.language })), symbols, ownership: cache.ownership, imports: resolveImports(files) }
}

/** The files' import specifiers resolved to indexed files (sorted, without duplicates). */
export function resolveImports(files: IndexedFile[]): Array<{ from: string; to: string }> {
  const registry = loadLanguageRegistry()
  const known = new Set(files.map((f) => f.path))
  const out = new Map<string, { from: string; to: string }>()
  for (const f of files) {
    const rule = f.language && f.imports ? registry.get(f.language)?.imports : null
    if (!rule) continue
    for (const spec of f.imports!) {
      const to = resolveImport(rule.resolver, f.path, spec, known)
      if (to) out.set(`${f.path}\0${to}`, { from: f.path, to })
    }
  }
  return [...out.values()].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : 0))
}

/** What Louvain sees, as one string: equal keys give equal communities (it is deterministic). */
function communityKey(input: AnalyticsInput, symbolCo: CoChange[], config: AnalyticsConfig): string {
  return createHash('sha1')
    .update(JSON.stringify([config, input.files.map((f) => f.path), input.symbols.map((s) => [s.id, s.parent]), symbolCo, input.imports ?? []]))
    .digest('hex')
}

/**
 * Every analytic of the index. `previous` (an update) lends its communities when Louvain's input
 * has not changed: the other results are cheap, Louvain is not.
 */
export function computeAnalytics(input: AnalyticsInput, config: AnalyticsConfig, previous?: StoredAnalytics): AnalyticsOutput & { communityKey: string } {
  // the rename walk, once for both
  const paths = headPathsByChange(input.changes, input.renames, input.files)
  const { fileStats, symbolStats } = activityStats(input, config, paths)
  const fileCo = fileCoChange(input, config, paths)
  const symbolCo = symbolCoChange(input, config)
  const key = communityKey(input, symbolCo, config)
  const { communities, memberOf } =
    previous?.communityKey === key
      ? { communities: previous.communities, memberOf: new Map(previous.memberOf.map((m) => [m.symbol, m.community])) }
      : detectCommunities({ symbols: input.symbols, files: input.files, symbolCoChange: symbolCo, imports: input.imports }, config)
  return { fileStats, symbolStats, fileCoChange: fileCo, symbolCoChange: symbolCo, communities, memberOf, communityKey: key }
}

/**
 * The analytics as stored in the graph, kept beside it in `analytics-out.json`: an update writes
 * only the rows that differ from these.
 */
export interface StoredAnalytics {
  files: Record<string, ActivityRow>
  symbols: Record<string, ActivityRow>
  fileCoChanged: CoChangeRow[]
  symbolCoChanged: CoChangeRow[]
  communities: GraphData['communities']
  memberOf: GraphData['memberOf']
  communityKey: string
}

export const ANALYTICS_OUT_FILE = 'analytics-out.json'

export function saveStoredAnalytics(dir: string, stored: StoredAnalytics): void {
  writeFileSync(path.join(dir, ANALYTICS_OUT_FILE), JSON.stringify(stored))
}

export function loadStoredAnalytics(dir: string): StoredAnalytics {
  return JSON.parse(readFileSync(path.join(dir, ANALYTICS_OUT_FILE), 'utf8')) as StoredAnalytics
}

const iso = (t: number | null) => (t === null ? null : new Date(t * 1000).toISOString())

/** The activity columns of every present file and every symbol, hotspot ranks and co-change partners included. */
export function activityRows(out: AnalyticsOutput): { files: Map<string, ActivityRow>; symbols: Map<string, ActivityRow> } {
  const rows = (stats: Map<string, ActivityStats>, pairs: CoChange[]) => {
    const partners = new Map<string, number>()
    for (const p of pairs) for (const k of [p.a, p.b]) partners.set(k, (partners.get(k) ?? 0) + 1)
    const ranked = new Map(hotspots(stats).map((h) => [h.key, h]))
    const out = new Map<string, ActivityRow>()
    for (const [key, s] of stats) {
      const h = ranked.get(key)
      out.set(key, {
        revisions: s.revisions,
        recent_revisions: s.recent_revisions,
        churn: s.churn,
        authors: s.authors,
        first_change: iso(s.first_change),
        last_change: iso(s.last_change),
        hotspot: h?.score ?? 0,
        hotspot_percentile: h?.percentile ?? 0,
        cochange_partners: partners.get(key) ?? 0,
      })
    }
    return out
  }
  return { files: rows(out.fileStats, out.fileCoChange), symbols: rows(out.symbolStats, out.symbolCoChange) }
}

const coChangeRow = (c: CoChange): CoChangeRow => ({ a: c.a, b: c.b, shared: c.shared, degree: c.degree, confidence: c.confidence_ab, reverse_confidence: c.confidence_ba, support: c.support })

/** The graph rows of the analytics (activity columns are set on the File and Symbol rows by the caller). */
export function analyticsRows(out: AnalyticsOutput, ownership: AnalyticsInput['ownership']): Pick<GraphData, 'fileCoChanged' | 'symbolCoChanged' | 'communities' | 'memberOf' | 'ownedBy'> {
  const ownedBy: GraphData['ownedBy'] = []
  for (const p of Object.keys(ownership).sort()) {
    const owners = ownership[p]
    const total = owners.reduce((n, [, l]) => n + l, 0)
    for (const [email, lines] of owners) ownedBy.push({ path: p, email, lines, share: total ? lines / total : 0 })
  }
  return {
    fileCoChanged: out.fileCoChange.map(coChangeRow),
    symbolCoChanged: out.symbolCoChange.map(coChangeRow),
    communities: out.communities.map((c) => ({ ...c })),
    memberOf: [...out.memberOf].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([symbol, community]) => ({ symbol, community })),
    ownedBy,
  }
}

/**
 * The analytics settings: the defaults, overridden by the `analytics` object of
 * `.gitwhy/config.json` when there is one. Recorded in meta.json: a change rebuilds the index.
 */
export function readAnalyticsConfig(gitwhyDir: string): AnalyticsConfig {
  const file = path.join(gitwhyDir, 'config.json')
  if (!existsSync(file)) return { ...DEFAULT_ANALYTICS_CONFIG }
  let parsed: { analytics?: Record<string, unknown> }
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as typeof parsed
  } catch (error) {
    throw new UserError(`${file} is not valid JSON (${(error as Error).message})`, 'fix or delete the file; see "Analytics settings" in the README', 'bad_config')
  }
  const config = { ...DEFAULT_ANALYTICS_CONFIG }
  for (const [key, value] of Object.entries(parsed.analytics ?? {})) {
    if (!(key in config)) throw new UserError(`${file}: unknown analytics setting "${key}"`, `use one of: ${Object.keys(config).join(', ')}`, 'bad_config')
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new UserError(`${file}: analytics.${key} must be a number ≥ 0, got ${JSON.stringify(value)}`, 'fix the value', 'bad_config')
    config[key as keyof AnalyticsConfig] = value
  }
  return config
}
