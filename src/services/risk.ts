import { UserError } from '../errors.js'
import { analyticsInput, loadAnalyticsCache, loadOwnership, loadStoredActivity } from '../analytics/cache.js'
import { backtest as replay, riskFeatures, riskOf, type BacktestResult, type Risk, type RiskFeatures, type RiskUnit } from '../analytics/risk.js'
import { ownershipOf } from '../analytics/stats.js'
import { NO_ACTIVITY, type ActivityRow } from '../graph/types.js'
import { blameOwners, mapHistory } from '../history/hunk-mapper.js'
import { askOrder, asOf, authorNames, epoch, lastActive } from './analytics.js'
import { symbolIds } from './index-layout.js'
import { directoryRefused, resolveTarget, type Target } from './resolve.js'
import { IndexReader, withReader } from './index-reader.js'
import type { IndexInfo } from './types.js'

export interface RiskResult extends Risk {
  target: Target
  index: IndexInfo
  features: RiskFeatures
  /** The largest owners of its lines at HEAD. */
  contributors: Array<{ name: string; email: string; share: number; last_active: string | null }>
  /** The people to ask: its owners by their lines, each halved for every year since their last commit (askOrder), at most 3. */
  ask: Array<{ name: string; email: string; share: number; last_active: string | null }>
}

/**
 * LOW / MEDIUM / HIGH for a file or symbol from its bus factor, ghost status, hotspot percentile
 * and co-change breadth (src/analytics/risk.ts has the model; docs/analytics.md the reasoning).
 */
export async function risk(options: { repo?: string; reader?: IndexReader; target: string }): Promise<RiskResult> {
  return withReader(options, async (reader) => {
    const target = resolveTarget(reader, options.target)
    if (target.kind === 'directory') throw directoryRefused(target, 'risk')
    const { risk: assessed, lines } = await riskWithActivity(reader, target)
    return { target, index: await reader.indexInfo(), ...assessed, ask: await askOf(reader, lines) }
  })
}

/** The people to ask of these owners' lines (per email, most first): risk's `ask`, brief's owners. */
export async function askOf(reader: IndexReader, lines: Array<[string, number]>): Promise<RiskResult['ask']> {
  const total = lines.reduce((n, [, l]) => n + l, 0)
  const owners = ownerRows(reader, lines)
  const active = await lastActive(reader, owners.map((o) => o.email))
  return askOrder(owners, active, (await asOf(reader)) * 1000)
    .slice(0, ASKED)
    .map((o) => ({ name: o.name, email: o.email, share: total > 0 ? o.lines / total : 0, last_active: o.last_active }))
}

const ASKED = 3

/** `Ann <ann@x> (73 %, last commit 2026-05-01), …`: the people to ask, for the terminal and the MCP tool. */
export function askList(ask: RiskResult['ask']): string {
  return ask.map((c) => `${c.name} <${c.email}> (${(c.share * 100).toFixed(0)} %${c.last_active ? `, last commit ${c.last_active.slice(0, 10)}` : ''})`).join(', ')
}

/** The activity columns of a file or symbol row (NO_ACTIVITY when analyze found none). */
type RiskRow = Pick<ActivityRow, 'revisions' | 'recent_revisions' | 'hotspot_percentile' | 'cochange_partners' | 'last_change'>

type OwnerRow = { email: string; name: string; lines: number }

/*
 * A risk is read from the index's files, without opening the database (~0.15 s of a CLI call):
 * the activity columns analyze stored beside the graph (analytics-out.json), the lines each
 * author owns of a file (analytics.json, the OWNED_BY edges) or of a symbol (its file's blame,
 * walked as evidence walks it, bot commits left out: BLAMED_ON -> AUTHORED_BY), and the authors'
 * names and last commits (the commit catalog). test/integration/risk-sources.test.ts holds every
 * answer to the graph's.
 */

/** The risk, the activity row it is read from (revisions, last change) and the owners' lines it counted. */
export async function riskWithActivity(reader: IndexReader, target: Exclude<Target, { kind: 'directory' }>): Promise<{ risk: AssessedRisk; revisions: number; last_change: string | null; lines: Array<[string, number]> }> {
  const row = target.kind === 'file' ? activityOf(storedActivity(reader, 'files'), target.path) : activityOf(storedActivity(reader, 'symbols'), target.id)
  let lines: Array<[string, number]>
  if (target.kind === 'file') lines = fileOwnerLines(reader, target.path)
  else {
    const { blame, shas } = reader.memo(`risk\0blame\0${target.path}`, () => {
      const walk = walkBlame(reader, [target.path])
      return { blame: walk.blame[0], shas: walk.shas }
    })
    lines = symbolOwnerLines(reader, blame, shas, target.start_line, target.end_line)
  }
  return { risk: await assessLines(reader, row, lines, target.kind), revisions: row.revisions, last_change: row.last_change, lines }
}

/**
 * The risk of a file or symbol whose owners the caller has already counted (brief: from the blame
 * of its evidence), lines per author email, most first: no walk of its own.
 */
export async function riskFromOwnerLines(reader: IndexReader, target: Exclude<Target, { kind: 'directory' }>, lines: Array<[string, number]>): Promise<AssessedRisk> {
  const row = target.kind === 'file' ? activityOf(storedActivity(reader, 'files'), target.path) : activityOf(storedActivity(reader, 'symbols'), target.id)
  return assessLines(reader, row, lines, target.kind)
}

/** Lines owned per author email of a blame given as lines per commit SHA, bot commits left out, most first (as a symbol's risk counts them). */
export function ownerLinesOf(reader: IndexReader, blame: Iterable<readonly [string, number]>): Array<[string, number]> {
  const catalog = reader.commits()
  const per = new Map<string, number>()
  for (const [sha, n] of blame) {
    const commit = catalog.get(sha)?.commit
    if (!commit || commit.category === 'bot') continue
    per.set(commit.email, (per.get(commit.email) ?? 0) + n)
  }
  return [...per].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
}

async function assessLines(reader: IndexReader, row: RiskRow, lines: Array<[string, number]>, unit: RiskUnit): Promise<AssessedRisk> {
  const owners = ownerRows(reader, lines)
  const active = await lastActive(reader, topOwners(lines))
  return assess(reader, row, owners, active, await asOf(reader), unit)
}

export type AssessedRisk = Risk & { features: RiskFeatures; contributors: RiskResult['contributors'] }

/**
 * The risk of many indexed files and of every symbol in them (context-for-pr), with one walk of
 * their history for all the symbols' owners, plus each file's owner rows (files nobody owns a line
 * of have none). Paths that are not indexed files are left out.
 */
export async function risksOfFiles(reader: IndexReader, paths: string[]): Promise<{ files: Map<string, AssessedRisk>; symbols: Map<string, AssessedRisk>; owners: Map<string, OwnerRow[]> }> {
  const indexed = [...new Set(paths)].flatMap((p) => {
    const f = reader.file(p)
    return f ? [f] : []
  })
  if (indexed.length === 0) return { files: new Map(), symbols: new Map(), owners: new Map() }
  const walk = walkBlame(reader, indexed.map((f) => f.path))
  const fileLines = new Map(indexed.map((f) => [f.path, fileOwnerLines(reader, f.path)]))
  const symbolLines = new Map<string, Array<[string, number]>>()
  indexed.forEach((f, fi) => {
    const ids = symbolIds(f)
    f.symbols.forEach((s, si) => symbolLines.set(ids[si], symbolOwnerLines(reader, walk.blame[fi], walk.shas, s.startLine, s.endLine)))
  })
  const emails = new Set<string>()
  for (const lines of [...fileLines.values(), ...symbolLines.values()]) for (const e of topOwners(lines)) emails.add(e)
  const active = await lastActive(reader, [...emails])
  const now = await asOf(reader)
  const owners = new Map<string, OwnerRow[]>()
  const files = new Map<string, AssessedRisk>()
  for (const [p, lines] of fileLines) {
    const rows = ownerRows(reader, lines)
    if (rows.length) owners.set(p, rows)
    files.set(p, assess(reader, activityOf(storedActivity(reader, 'files'), p), rows, active, now, 'file'))
  }
  const symbols = new Map<string, AssessedRisk>()
  for (const [id, lines] of symbolLines) symbols.set(id, assess(reader, activityOf(storedActivity(reader, 'symbols'), id), ownerRows(reader, lines), active, now, 'symbol'))
  return { files, symbols, owners }
}

/** The activity columns analyze stored for every file or every symbol (kept per reader). */
function storedActivity(reader: IndexReader, part: 'files' | 'symbols'): Record<string, ActivityRow> {
  return reader.memo(`risk\0activity\0${part}`, () => loadStoredActivity(reader.dir, part))
}

function activityOf(rows: Record<string, ActivityRow>, key: string): RiskRow {
  return Object.hasOwn(rows, key) ? rows[key] : NO_ACTIVITY
}

/** Lines owned at HEAD per author email of an indexed file, most first (bots own none). */
function fileOwnerLines(reader: IndexReader, path: string): Array<[string, number]> {
  const ownership = reader.memo('risk\0ownership', () => loadOwnership(reader.dir))
  return Object.hasOwn(ownership, path) ? ownership[path] : []
}

/** The blame at HEAD of each of these indexed files (mapHistory's commit index per line) and the walk's commits. */
function walkBlame(reader: IndexReader, paths: string[]): { blame: Int32Array[]; shas: string[] } {
  const graph = reader.pathIndex().graphFor(paths)
  const targets = paths.map((p) => ({ path: p, lines: reader.file(p)!.lines, ranges: [] }))
  return { blame: mapHistory(graph, 0, targets, { ignored: reader.ignoredRevs(graph.shas) }).blame, shas: graph.shas }
}

/** Lines start..end (1-based) of a blame per author email of their commits, bot commits left out, most first. */
function symbolOwnerLines(reader: IndexReader, blame: ArrayLike<number>, shas: readonly string[], start: number, end: number): Array<[string, number]> {
  const catalog = reader.commits()
  const per = new Map<string, number>()
  for (const [c, n] of blameOwners(blame, start - 1, end, shas.length).owners) {
    const commit = catalog.get(shas[c])?.commit
    if (!commit || commit.category === 'bot') continue
    per.set(commit.email, (per.get(commit.email) ?? 0) + n)
  }
  return [...per].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
}

/** The people to ask: the three largest owners. */
const topOwners = (lines: ReadonlyArray<readonly [string, number]>): string[] => ownershipOf(lines).owners.slice(0, 3).map((o) => o.email)

function ownerRows(reader: IndexReader, lines: Array<[string, number]>): OwnerRow[] {
  const names = authorNames(reader, lines.map(([email]) => email))
  return lines.map(([email, n]) => ({ email, name: names.get(email) ?? email, lines: n }))
}

function assess(reader: IndexReader, row: RiskRow, owners: OwnerRow[], active: Awaited<ReturnType<typeof lastActive>>, now: number, unit: RiskUnit): AssessedRisk {
  const lines = owners.map((o) => [o.email, o.lines] as [string, number])
  const own = ownershipOf(lines)
  const top = own.owners[0]
  const ownerLast = top ? active.get(top.email) : undefined
  const features = riskFeatures({
    revisions: row.revisions,
    recent_revisions: row.recent_revisions,
    percentile: row.hotspot_percentile,
    partners: row.cochange_partners,
    owners: lines,
    ownerLastActive: epoch(ownerLast?.work),
    headTime: now,
    config: reader.meta.options.analytics,
  })
  const names = new Map(owners.map((o) => [o.email, o.name]))
  const contributors = own.owners.slice(0, 3).map((o) => ({ name: names.get(o.email) ?? o.email, email: o.email, share: o.share, last_active: active.get(o.email)?.last ?? null }))
  return { ...riskOf(features, undefined, unit), features, contributors }
}

export interface BacktestReport extends Omit<BacktestResult, 'ranked' | 'as_of'> {
  index: IndexInfo
  as_of: string
  /** The ten highest-scored files with their outcome. */
  top: BacktestResult['ranked']
}

/**
 * Replay the risk model: scores as of `months` before the indexed HEAD against the files that
 * later received fix or revert commits (ROC AUC, precision at the top 10 %).
 */
export async function riskBacktest(options: { repo?: string; reader?: IndexReader; months?: number }): Promise<BacktestReport> {
  return withReader(options, async (reader) => {
    const months = options.months ?? 6
    if (!Number.isFinite(months) || months <= 0) throw new UserError(`--months must be a number > 0, got ${months}`, 'pass e.g. --months 6', 'bad_option')
    const input = analyticsInput(loadAnalyticsCache(reader.dir), reader.files(), await asOf(reader))
    const { ranked, as_of, ...result } = replay(input, { months, config: reader.meta.options.analytics })
    return { ...result, index: await reader.indexInfo(), as_of: new Date(as_of * 1000).toISOString(), top: ranked.slice(0, 10) }
  })
}
