import { UserError } from '../errors.js'
import { loadAnalyticsCache, analyticsInput } from '../analytics/cache.js'
import { backtest as replay, riskFeatures, riskOf, type BacktestResult, type Risk, type RiskFeatures } from '../analytics/risk.js'
import { ownershipOf } from '../analytics/stats.js'
import { ANALYTICS_QUERIES as Q } from '../graph/queries.js'
import { asOf, epoch, lastActive } from './analytics.js'
import { directoryRefused, resolveTarget, type Target } from './resolve.js'
import { IndexReader, withReader } from './index-reader.js'
import type { IndexInfo } from './types.js'

export interface RiskResult extends Risk {
  target: Target
  index: IndexInfo
  features: RiskFeatures
  /** The people to ask: the largest owners of its lines at HEAD. */
  contributors: Array<{ name: string; email: string; share: number; last_active: string | null }>
}

/**
 * LOW / MEDIUM / HIGH for a file or symbol from its bus factor, ghost status, hotspot percentile
 * and co-change breadth (src/analytics/risk.ts has the model; docs/analytics.md the reasoning).
 */
export async function risk(options: { repo?: string; reader?: IndexReader; target: string }): Promise<RiskResult> {
  return withReader(options, async (reader) => {
    const target = resolveTarget(reader, options.target)
    if (target.kind === 'directory') throw directoryRefused(target, 'risk')
    return { target, index: await reader.indexInfo(), ...(await riskOfTarget(reader, target)) }
  })
}

interface RiskRow {
  revisions: number
  recent_revisions: number
  percentile: number
  partners: number
}

type OwnerRow = { email: string; name: string; lines: number }

/** The risk of one resolved file or symbol (context-for-pr scores many with one reader). */
export async function riskOfTarget(reader: IndexReader, target: Exclude<Target, { kind: 'directory' }>): Promise<Risk & { features: RiskFeatures; contributors: RiskResult['contributors'] }> {
  return (await riskWithActivity(reader, target)).risk
}

/**
 * The risk and the activity row it is read from (revisions, last change): the activity row and
 * the owners side by side, then when the largest owners were last active (remembered per reader:
 * a long-lived server meets the same people again and again).
 */
export async function riskWithActivity(reader: IndexReader, target: Exclude<Target, { kind: 'directory' }>): Promise<{ risk: AssessedRisk; revisions: number; last_change: string | null }> {
  const g = await reader.graph()
  const key = target.kind === 'file' ? target.path : target.id
  const [[row], owners] = await Promise.all([
    g.query<RiskRow & { last_change: string | null }>(target.kind === 'file' ? Q.fileRiskFeatures : Q.symbolRiskFeatures, { key }),
    target.kind === 'file' ? g.query<OwnerRow>(Q.fileOwnersOf, { path: target.path }) : g.query<OwnerRow>(Q.symbolOwners, { id: target.id }),
  ])
  const top = ownershipOf(owners.map((o) => [o.email, o.lines])).owners.slice(0, 3).map((o) => o.email)
  return { risk: assess(reader, row, owners, await lastActiveOf(reader, top), await asOf(reader)), revisions: Number(row?.revisions ?? 0), last_change: row?.last_change ?? null }
}

/** lastActive, remembered per reader (the index never changes under it). */
async function lastActiveOf(reader: IndexReader, emails: string[]): Promise<Awaited<ReturnType<typeof lastActive>>> {
  const known = reader.memo('risk\0lastActive', () => new Map<string, { last: string; work: string | null } | null>())
  const missing = emails.filter((e) => !known.has(e))
  if (missing.length) {
    const found = await lastActive(reader, missing)
    for (const e of missing) known.set(e, found.get(e) ?? null)
  }
  return new Map(emails.flatMap((e) => (known.get(e) ? [[e, known.get(e)!] as const] : [])))
}

export type AssessedRisk = Risk & { features: RiskFeatures; contributors: RiskResult['contributors'] }

/**
 * The risk of many files and of every symbol in them with a fixed number of queries, whatever
 * their count (context-for-pr), plus each file's owner rows.
 */
export async function risksOfFiles(reader: IndexReader, paths: string[]): Promise<{ files: Map<string, AssessedRisk>; symbols: Map<string, AssessedRisk>; owners: Map<string, OwnerRow[]> }> {
  if (paths.length === 0) return { files: new Map(), symbols: new Map(), owners: new Map() }
  const g = await reader.graph()
  const [fileRows, fileOwners, symbolRows, symbolOwners] = await Promise.all([
    g.query<RiskRow & { key: string }>(Q.filesRiskFeatures, { paths }),
    g.query<OwnerRow & { key: string }>(Q.filesOwners, { paths }),
    g.query<RiskRow & { key: string }>(Q.fileSymbolsRiskFeatures, { paths }),
    g.query<OwnerRow & { key: string }>(Q.fileSymbolsOwners, { paths }),
  ])
  const group = (rows: Array<OwnerRow & { key: string }>) => {
    const out = new Map<string, OwnerRow[]>()
    for (const { key, ...o } of rows) out.set(key, [...(out.get(key) ?? []), o])
    return out
  }
  const owners = group(fileOwners)
  const ofSymbols = group(symbolOwners)
  const emails = new Set<string>()
  for (const list of [...owners.values(), ...ofSymbols.values()]) for (const o of ownershipOf(list.map((x) => [x.email, x.lines])).owners.slice(0, 3)) emails.add(o.email)
  const active = await lastActive(reader, [...emails])
  const now = await asOf(reader)
  return {
    files: new Map(fileRows.map((r) => [r.key, assess(reader, r, owners.get(r.key) ?? [], active, now)])),
    symbols: new Map(symbolRows.map((r) => [r.key, assess(reader, r, ofSymbols.get(r.key) ?? [], active, now)])),
    owners,
  }
}

function assess(reader: IndexReader, row: RiskRow | undefined, owners: OwnerRow[], active: Awaited<ReturnType<typeof lastActive>>, now: number): Risk & { features: RiskFeatures; contributors: RiskResult['contributors'] } {
  const lines = owners.map((o) => [o.email, o.lines] as [string, number])
  const own = ownershipOf(lines)
  const top = own.owners[0]
  const ownerLast = top ? active.get(top.email) : undefined
  const features = riskFeatures({
    revisions: row?.revisions ?? 0,
    recent_revisions: row?.recent_revisions ?? 0,
    percentile: row?.percentile ?? 0,
    partners: row?.partners ?? 0,
    owners: lines,
    ownerLastActive: epoch(ownerLast?.work),
    headTime: now,
    config: reader.meta.options.analytics,
  })
  const names = new Map(owners.map((o) => [o.email, o.name]))
  const contributors = own.owners.slice(0, 3).map((o) => ({ name: names.get(o.email) ?? o.email, email: o.email, share: o.share, last_active: active.get(o.email)?.last ?? null }))
  return { ...riskOf(features), features, contributors }
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
