import { indexClock } from '../history/commit-catalog.js'
import { UserError, checkLimit } from '../errors.js'
import { DAY, DOMINANT_SHARE, isGhost, ownershipOf } from '../analytics/stats.js'
import { ANALYTICS_QUERIES as Q } from '../graph/queries.js'
import { COCHANGE_FILE } from './index-layout.js'
import { readIndexJson } from './index-integrity.js'
import { IndexReader, withReader } from './index-reader.js'
import { directoryRefused, resolveTarget, type Target } from './resolve.js'
import type { CommitRef, IndexInfo } from './types.js'

/**
 * The history-analytics answers (hotspots, ownership, ghosts, related, communities), read from the
 * activity columns and analytics tables analyze stored. Risk and context-for-pr build on these.
 */

export interface ActivityItem {
  key: string
  path: string
  qualified_name?: string
  kind?: string
  start_line?: number
  score: number
  /** Share of all ranked items with a lower score (0..1). */
  percentile: number
  revisions: number
  recent_revisions: number
  churn: number
  authors: number
  last_change: string | null
}

export interface HotspotsResult {
  index: IndexInfo
  as_of: string
  formula: string
  files: ActivityItem[]
  symbols: ActivityItem[]
}

export interface Owner {
  name: string
  /** The identity's canonical email; `emails` has every email it committed with. */
  email: string
  emails: string[]
  lines: number
  share: number
  last_active: string | null
}

export interface OwnershipResult {
  target: Target
  index: IndexInfo
  lines: number
  owners: Owner[]
  /** Fewest authors owning more than half of the lines. */
  bus_factor: number
}

export interface Ghost {
  path: string
  lines: number
  owner: { name: string; email: string; share: number; last_active: string }
  inactive_days: number
}

export interface GhostsResult {
  index: IndexInfo
  as_of: string
  days: number
  ghosts: Ghost[]
}

export interface RelatedItem {
  key: string
  path: string
  qualified_name?: string
  shared: number
  degree: number
  /** shared / revisions of the target: how often a change to the target came with this one. */
  confidence: number
  /** shared / revisions of this partner: how often a change to it came with the target. */
  reverse_confidence: number
  /** shared / the changesets co-change counted (of files or of symbols). */
  support: number
  /** Newest first, under the filters of the counts: no merge, bot or formatting commit, none over maxChangesetSize files. */
  examples: CommitRef[]
}

export interface RelatedResult {
  target: Target
  index: IndexInfo
  related: RelatedItem[]
}

export interface CommunitySummary {
  id: string
  label: string
  size: number
  cohesion: number
  revisions: number
  recent_revisions: number
  last_change: string | null
}

export interface CommunitiesResult {
  index: IndexInfo
  communities: CommunitySummary[]
  total: number
}

export interface CommunityResult {
  index: IndexInfo
  community: CommunitySummary
  members: Array<{ id: string; qualified_name: string; kind: string; path: string; start_line: number; revisions: number; recent_revisions: number }>
  owners: Array<{ name: string; email: string; lines: number; share: number }>
}


/** "Now" for the analytics: the indexed HEAD's committer date (epoch seconds). */
export async function asOf(reader: IndexReader): Promise<number> {
  return indexClock(reader)
}

const cap = <T>(items: T[], limit: number): T[] => (limit === 0 ? items : items.slice(0, limit))

export const HOTSPOT_FORMULA = 'score = recent_revisions × ln(1 + revisions); ties by revisions (merges, bots and formatting commits not counted)'

/**
 * Hotspots, source files (those a grammar parses) unless `allFiles`: lockfiles, CI configs and
 * package manifests change often but are rarely what an agent or a reviewer is looking for. Test
 * files (and their symbols) only with `includeTests`: a test changes with every fix of what it
 * tests, so it outranks the code it tests.
 */
export async function hotspots(options: { repo?: string; reader?: IndexReader; path?: string; limit?: number; level?: 'file' | 'symbol' | 'both'; allFiles?: boolean; includeTests?: boolean }): Promise<HotspotsResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 20
    checkLimit(limit)
    let prefix = ''
    if (options.path) {
      const t = resolveTarget(reader, options.path)
      if (t.kind === 'symbol') throw new UserError(`${options.path} is a symbol`, 'pass a file or directory with --path', 'bad_option')
      prefix = t.path
    }
    const level = options.level ?? 'both'
    const g = await reader.graph()
    // a file path matches itself; a directory (ending in /) everything under it; none: everything
    const params = { path: prefix.endsWith('/') ? '\0' : prefix, prefix: prefix === '' || prefix.endsWith('/') ? prefix : '\0', limit: limit === 0 ? 1_000_000_000 : limit, includeTests: options.includeTests === true }
    const files = level === 'symbol' ? [] : await g.query<ActivityItem>(Q.fileActivity, { ...params, allFiles: options.allFiles === true })
    const symbols = level === 'file' ? [] : withoutHolders(await g.query<ActivityItem>(Q.symbolActivity, { ...params, limit: limit === 0 ? params.limit : beforeHolders(limit) }), (s) => s.revisions, limit)
    return { index: await reader.indexInfo(), as_of: new Date((await asOf(reader)) * 1000).toISOString(), formula: HOTSPOT_FORMULA, files, symbols }
  })
}

/**
 * Each author's newest commit (`last`, shown as "last commit") and newest non-bot commit (`work`:
 * what the ghost rule judges, null for a bot), ISO dates, as the graph's commits give them
 * (max committer_date over AUTHORED_BY), read from the commit catalog without opening it.
 */
export async function lastActive(reader: IndexReader, emails: string[]): Promise<Map<string, { last: string; work: string | null }>> {
  if (emails.length === 0) return new Map()
  const authors = reader.commits().authors()
  const iso = (t: number) => new Date(t * 1000).toISOString()
  const out = new Map<string, { last: string; work: string | null }>()
  for (const email of emails) {
    const a = authors.get(email)
    if (a) out.set(email, { last: iso(a.last), work: a.work === null ? null : iso(a.work) })
  }
  return out
}

/** An owner's lines count half as much for each year since their last commit (the people to ask). */
const ASK_HALF_LIFE_DAYS = 365

/**
 * Owners in the order to ask them: by their lines, each halved for every year since the owner's
 * last commit (`active`, as lastActive gives it) as of `now` (ms since the epoch). On spf13/cobra
 * the owners of command.go's lines by count were people whose last commits were in 2017-2018, and
 * the maintainer who commits today was not among the first three.
 */
export function askOrder<T extends { email: string; lines: number }>(owners: readonly T[], active: ReadonlyMap<string, { last: string }>, now: number): Array<T & { last_active: string | null }> {
  const weighed = owners.map((o) => {
    const last = active.get(o.email)?.last ?? null
    const years = last === null ? 0 : Math.max(0, now - Date.parse(last)) / (ASK_HALF_LIFE_DAYS * 86_400_000)
    return { owner: { ...o, last_active: last }, weight: o.lines * 0.5 ** years }
  })
  weighed.sort((a, b) => b.weight - a.weight || b.owner.lines - a.owner.lines || (a.owner.email < b.owner.email ? -1 : a.owner.email > b.owner.email ? 1 : 0))
  return weighed.map((w) => w.owner)
}

/**
 * Each author's name as the graph's Author row holds it: its identity's (every commit of an
 * identity carries it). Commits without an email keep their own names; their row has the one of
 * the newest such commit in topological order (the order analyze meets them in).
 */
export function authorNames(reader: IndexReader, emails: Iterable<string>): Map<string, string> {
  const authors = reader.commits().authors()
  const out = new Map<string, string>()
  for (const email of emails) {
    const a = authors.get(email)
    if (!a) continue
    if (!a.names || new Set(a.names.map(([, n]) => n)).size === 1) {
      out.set(email, a.name)
      continue
    }
    const nameOf = new Map(a.names)
    const shas = reader.pathIndex().dag.shas
    for (let age = shas.length - 1; age >= 0; age--) {
      const name = nameOf.get(shas[age])
      if (name !== undefined) {
        out.set(email, name)
        break
      }
    }
  }
  return out
}

/** An ISO date as epoch seconds (undefined stays undefined). */
export const epoch = (iso: string | null | undefined): number | undefined => (iso ? Date.parse(iso) / 1000 : undefined)

export async function ownership(options: { repo?: string; reader?: IndexReader; target: string; limit?: number }): Promise<OwnershipResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 20
    checkLimit(limit)
    const target = resolveTarget(reader, options.target)
    const g = await reader.graph()
    const rows =
      target.kind === 'symbol'
        ? await g.query<{ email: string; name: string; emails: string; lines: number }>(Q.symbolOwners, { id: target.id })
        : await g.query<{ email: string; name: string; emails: string; lines: number }>(Q.fileOwners, { path: target.kind === 'file' ? target.path : '\0', prefix: target.kind === 'directory' ? target.path : '\0' })
    const o = ownershipOf(rows.map((r) => [r.email, r.lines]))
    const names = new Map(rows.map((r) => [r.email, r.name]))
    const emails = new Map(rows.map((r) => [r.email, r.emails]))
    const active = await lastActive(reader, o.owners.slice(0, limit || undefined).map((x) => x.email))
    const owners = cap(o.owners, limit).map((x) => ({ name: names.get(x.email) ?? x.email, email: x.email, emails: (emails.get(x.email) || x.email).split(' '), lines: x.lines, share: x.share, last_active: active.get(x.email)?.last ?? null }))
    return { target, index: await reader.indexInfo(), lines: rows.reduce((n, r) => n + r.lines, 0), owners, bus_factor: o.bus_factor }
  })
}

/** Files whose dominant owner (≥ 80 % of the lines) has not committed for more than `days` before the indexed HEAD. */
export async function ghosts(options: { repo?: string; reader?: IndexReader; days?: number; path?: string; limit?: number }): Promise<GhostsResult> {
  return withReader(options, async (reader) => {
    const days = options.days ?? reader.meta.options.analytics.ghostDays
    if (!Number.isFinite(days) || days < 0) throw new UserError(`--days must be a number ≥ 0, got ${days}`, 'pass e.g. --days 180', 'bad_option')
    const limit = options.limit ?? 50
    checkLimit(limit)
    const prefix = options.path ? resolveTarget(reader, options.path) : null
    if (prefix?.kind === 'symbol') throw new UserError(`${options.path} is a symbol`, 'pass a file or directory with --path', 'bad_option')
    const now = await asOf(reader)
    const rows = (await (await reader.graph()).query<{ path: string; lines: number; email: string; name: string; share: number }>(Q.dominantOwners, { share: DOMINANT_SHARE })).filter(
      (r) => !prefix || (prefix.kind === 'file' ? r.path === prefix.path : r.path.startsWith(prefix.path)),
    )
    const active = await lastActive(reader, [...new Set(rows.map((r) => r.email))])
    const out: Ghost[] = []
    for (const r of rows) {
      const work = active.get(r.email)?.work ?? null
      if (!work || !isGhost(r.share, epoch(work), now, days)) continue
      out.push({ path: r.path, lines: r.lines, owner: { name: r.name, email: r.email, share: r.share, last_active: work }, inactive_days: Math.floor((now - epoch(work)!) / DAY) })
    }
    // longest inactive first, as docs/analytics.md says
    out.sort((a, b) => b.inactive_days - a.inactive_days || (a.path < b.path ? -1 : 1))
    return { index: await reader.indexInfo(), as_of: new Date(now * 1000).toISOString(), days, ghosts: cap(out, limit) }
  })
}

/**
 * What usually changes with a file or symbol: co-change partners (kept by the thresholds of
 * cochange.ts) ranked by shared revisions, i.e. by the target's confidence shared / revisions of the
 * target, then by the partner's own confidence; with the commits that show it.
 */
export async function related(options: { repo?: string; reader?: IndexReader; target: string; limit?: number; examples?: number }): Promise<RelatedResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 10
    checkLimit(limit)
    const target = resolveTarget(reader, options.target)
    if (target.kind === 'directory') throw directoryRefused(target, 'related')
    const g = await reader.graph()
    const key = target.kind === 'file' ? target.path : target.id
    type Row = Omit<RelatedItem, 'examples' | 'path' | 'support'> & { path?: string }
    const fetched = await g.query<Row>(target.kind === 'file' ? Q.fileCoChanged : Q.symbolCoChanged, { key, limit: limit === 0 ? 1_000_000 : target.kind === 'file' ? limit : beforeHolders(limit) })
    const rows = target.kind === 'file' ? fetched : withoutHolders(fetched, (r) => r.shared, limit)
    // support's denominator is beside the graph, not on each edge (coChangeChangesets)
    const changesets = rows.length ? (readIndexJson<{ files: number; symbols: number }>(reader.dir, COCHANGE_FILE)?.[target.kind === 'file' ? 'files' : 'symbols'] ?? 0) : 0
    // the example commits of every partner in one query, newest first
    const pairs = rows.length ? await g.query<{ key: string; sha: string }>(target.kind === 'file' ? Q.filePairCommits : Q.symbolPairCommits, { a: key, bs: rows.map((r) => r.key), maxFiles: reader.meta.options.analytics.maxChangesetSize }) : []
    const examples = new Map<string, CommitRef[]>()
    for (const p of pairs) {
      const list = examples.get(p.key) ?? []
      const commit = reader.commits().get(p.sha)?.commit
      if (commit && list.length < (options.examples ?? 3)) list.push(commit)
      examples.set(p.key, list)
    }
    const related: RelatedItem[] = rows.map((r) => ({ ...r, support: changesets ? r.shared / changesets : 0, path: r.path ?? r.key, examples: examples.get(r.key) ?? [] }))
    return { target, index: await reader.indexInfo(), related }
  })
}

/** A holder goes when a member it holds has at least this share of its count. */
const HOLDER_SHARE = 0.95

/**
 * Symbols less those that hold another listed symbol of their file (by qualified name) with (all
 * but) as large a count: every change to a method is one to its class and to the modules around
 * it, so such a holder says nothing its member does not. Ruby wraps each file in its namespace
 * modules: on rails/rails, `related` for one method listed `ActiveRecord`,
 * `ActiveRecord.ConnectionAdapters` and `ActiveRecord.ConnectionAdapters.ConnectionPool` of one
 * file with 7 shared changes each, and the top symbol hotspots were `ActiveRecord` and
 * `ActiveRecord.QueryMethods` of query_methods.rb (733 and 730 revisions). A holder that changed
 * more often than its listed members stays. The first `limit` of the rest (0: all).
 */
function withoutHolders<T extends { path?: string; qualified_name?: string }>(rows: T[], count: (row: T) => number, limit: number): T[] {
  const byPath = new Map<string | undefined, T[]>()
  for (const r of rows) {
    const list = byPath.get(r.path)
    if (list) list.push(r)
    else byPath.set(r.path, [r])
  }
  const holds = (r: T) => byPath.get(r.path)!.some((m) => m.qualified_name?.startsWith(`${r.qualified_name}.`) && count(m) >= HOLDER_SHARE * count(r))
  return cap(rows.filter((r) => !r.qualified_name || !holds(r)), limit)
}

/** Rows to ask for so that `limit` remain once withoutHolders has taken the holders out. */
const beforeHolders = (limit: number): number => limit * 4 + 8

async function communitySummaries(reader: IndexReader): Promise<CommunitySummary[]> {
  const g = await reader.graph()
  const [list, activity] = await Promise.all([
    g.query<{ id: string; label: string; size: number; cohesion: number }>(Q.communities),
    g.query<{ id: string; revisions: number; recent_revisions: number; last_change: string | null }>(Q.communityActivity),
  ])
  const act = new Map(activity.map((a) => [a.id, a]))
  return list.map((c) => ({ ...c, revisions: act.get(c.id)?.revisions ?? 0, recent_revisions: act.get(c.id)?.recent_revisions ?? 0, last_change: act.get(c.id)?.last_change ?? null }))
}

export async function communities(options: { repo?: string; reader?: IndexReader; limit?: number }): Promise<CommunitiesResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 20
    checkLimit(limit)
    const all = await communitySummaries(reader)
    return { index: await reader.indexInfo(), communities: cap(all, limit), total: all.length }
  })
}

/** One community by id (`c3`) or label, with its members, owners and activity. */
export async function community(options: { repo?: string; reader?: IndexReader; name: string; limit?: number }): Promise<CommunityResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 50
    checkLimit(limit)
    const all = await communitySummaries(reader)
    const wanted = options.name.trim().toLowerCase()
    const found = all.find((c) => c.id === wanted) ?? all.find((c) => c.label.toLowerCase() === wanted) ?? all.find((c) => c.label.toLowerCase().includes(wanted))
    if (!found) {
      throw new UserError(
        `no community named ${options.name}`,
        all.length ? `use an id or label from \`gitwhy communities\`, e.g. ${all.slice(0, 3).map((c) => `${c.id} (${c.label})`).join(', ')}` : 'this index has no communities (too little co-change history)',
        'unknown_community',
      )
    }
    const g = await reader.graph()
    const [members, owners] = await Promise.all([
      g.query<CommunityResult['members'][number]>(Q.communityMembers, { id: found.id, limit: limit === 0 ? 1_000_000 : limit }),
      g.query<{ email: string; name: string; lines: number }>(Q.communityOwners, { id: found.id }),
    ])
    // shares of all the community's lines; the ten largest owners are listed
    const total = owners.reduce((n, o) => n + o.lines, 0)
    return { index: await reader.indexInfo(), community: found, members, owners: owners.slice(0, 10).map((o) => ({ ...o, share: total ? o.lines / total : 0 })) }
  })
}
