/**
 * Hotspots, a per-file risk score with readable reasons, and a backtest that replays history to
 * check whether the score predicted where fixes landed. Pure; formulas in docs/analytics.md.
 */
import { isTestPath } from '../parse/classify.js'
import { fileCoChange } from './cochange.js'
import { activityStats, DAY, headFilesOf, headPathsByChange, isGhost, lastActivity, ownershipOf } from './stats.js'
import type { ActivityStats, AnalyticsConfig, AnalyticsInput, Change } from './types.js'

const byString = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)

export interface Hotspot {
  key: string
  /** recent_revisions × ln(1 + revisions). */
  score: number
  revisions: number
  recent_revisions: number
  churn: number
  /** Fraction of all ranked items with a strictly lower score (0..1); 0 when score is 0. */
  percentile: number
}

/**
 * Every item ranked by score = recent_revisions × ln(1 + revisions), then revisions, churn, key.
 *
 * Why this shape: recent change is the strongest single predictor of near-future change and
 * faults, so it enters linearly and a file nobody touched lately scores 0 whatever its past
 * (those rank after all active ones, by total revisions). The whole history still matters — a
 * file that has been changing for years is a chronic hotspot, a burst on a new file may settle —
 * but only logarithmically, so age alone (old files accumulate revisions) cannot dominate.
 */
export function hotspots(stats: Map<string, ActivityStats>): Hotspot[] {
  const ranked = [...stats].map(([key, s]) => ({
    key,
    score: s.recent_revisions * Math.log1p(s.revisions),
    revisions: s.revisions,
    recent_revisions: s.recent_revisions,
    churn: s.churn,
    percentile: 0,
  }))
  ranked.sort((x, y) => y.score - x.score || y.revisions - x.revisions || y.churn - x.churn || byString(x.key, y.key))
  const n = ranked.length
  // ranked is by score desc: the items below a score are those after its last tie
  let end = 0
  for (let i = 0; i < n; i = end) {
    end = i
    while (end < n && ranked[end].score === ranked[i].score) end++
    const p = ranked[i].score > 0 ? (n - end) / n : 0
    for (let j = i; j < end; j++) ranked[j].percentile = p
  }
  return ranked
}

/**
 * Each item's hotspot score and percentile as hotspots() gives them, in the stats' order, without
 * ranking the items (the activity columns need no order; sorting ~20,000 of them by score, then
 * revisions, churn and key was ~27 ms of an update on prettier). An item's percentile is the
 * share of items with a lower score, so only the positive scores need sorting, as numbers.
 */
export function hotspotScores(stats: Map<string, ActivityStats>): { score: Float64Array; percentile: Float64Array } {
  const n = stats.size
  const score = new Float64Array(n)
  let i = 0
  for (const s of stats.values()) score[i++] = s.recent_revisions * Math.log1p(s.revisions)
  const positive = score.filter((x) => x > 0).sort()
  const percentile = new Float64Array(n)
  for (let j = 0; j < n; j++) {
    if (!(score[j] > 0)) continue
    // the first of the scores equal to this one, in ascending order: the items below it
    let lo = 0
    let hi = positive.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (positive[mid] < score[j]) lo = mid + 1
      else hi = mid
    }
    // every item at zero is below a positive score too
    percentile[j] = (n - (positive.length - lo)) / n
  }
  return { score, percentile }
}

export interface RiskFeatures {
  revisions: number
  recent_revisions: number
  /** The recent window the hotspot used (config.recentDays). */
  recent_days: number
  /** From the blame line counts at HEAD; 0 when nobody owns a line (binary, empty). */
  bus_factor: number
  /** Share of the largest owner (0..1; 0 when nobody owns a line). */
  dominant_share: number
  /** The largest owner's email, or null. */
  owner: string | null
  /** Days from the largest owner's newest non-bot commit to headTime; null when unknown. */
  owner_inactive_days: number | null
  /** The largest owner holds ≥ DOMINANT_SHARE and has been inactive for more than ghostDays. */
  ghost: boolean
  /** Hotspot percentile among present files (0..1). */
  hotspot_percentile: number
  /** Files it co-changes with (pairs passing the co-change thresholds). */
  cochange_breadth: number
}

export interface RiskWeights {
  ownership: number
  hotspot: number
  cochange: number
}

export interface RiskModel {
  weights: RiskWeights
  /** Co-change partners at which the co-change factor saturates at 1. */
  breadthSaturation: number
  /** Score thresholds: ≥ medium is MEDIUM, ≥ high is HIGH. */
  medium: number
  high: number
}

/**
 * Calibrated with `node bench/backtest.mjs` (source files only, fixes that changed lines), chosen
 * on hono, cobra and requests at 6 and 12 months (mean ROC AUC 0.762), checked on six held-out
 * repositories never used to choose — vuejs/core, commander.js, click, logrus, ripgrep, express:
 * mean 0.660, worst 0.359 (commander.js: 2 positives among 48 files), against 0.629 / 0.339 for the
 * previous 10 / 80 / 40 and 0.602 / 0.435 for recent activity alone. Co-change breadth predicts
 * best alone (a central file is fixed more), recent activity next; a dominant owner predicts
 * fewer fixes (AUC 0.17–0.50 alone on every held-out repository but commander.js), as the
 * ownership literature finds, and any weight on it lowered the AUC: it scores nothing, and its
 * reasons (bus factor 1, an inactive owner) are shown as knowledge risk (OWNERSHIP_REASON_MIN).
 */
export const DEFAULT_RISK_MODEL: RiskModel = {
  weights: { ownership: 0, hotspot: 30, cochange: 80 },
  breadthSaturation: 10,
  medium: 0.3,
  high: 0.6,
}

export type RiskLevel = 'LOW' | 'MEDIUM' | 'HIGH'

export interface Risk {
  level: RiskLevel
  /** Weighted mean of the factors, 0..1. */
  score: number
  /** Readable, biggest contribution first: one per factor that adds at least REASON_MIN. */
  reasons: string[]
  /** Each factor in 0..1 before weighting. */
  factors: RiskWeights
}

/** A factor adding less than this to the score gets no reason. */
export const REASON_MIN = 0.05
/**
 * Ownership is knowledge risk (who can still explain the file), not fix risk: its reasons are
 * shown when the factor reaches this (an owner of ≥ 75 % of the lines, or a ghost), whatever its weight.
 */
export const OWNERSHIP_REASON_MIN = 0.5

/** What a risk is of: its reasons compare a file with files, a symbol with symbols. */
export type RiskUnit = 'file' | 'symbol'

/**
 * Factors, each 0..1:
 * - ownership: 0 unless one author owns a majority (bus factor 1), then (share − 0.5) / 0.5, so
 *   51 % ≈ 0 and a sole author = 1; a ghost file (dominant owner gone quiet) is 1.
 * - hotspot: the hotspot percentile.
 * - cochange: min(1, partners / breadthSaturation).
 * score = Σ weight · factor / Σ weight; level by model.medium / model.high.
 */
export function riskOf(features: RiskFeatures, model: RiskModel = DEFAULT_RISK_MODEL, unit: RiskUnit = 'file'): Risk {
  const w = model.weights
  const factors: RiskWeights = {
    ownership: features.ghost ? 1 : features.bus_factor === 1 ? Math.max(0, Math.min(1, (features.dominant_share - 0.5) / 0.5)) : 0,
    hotspot: Math.max(0, Math.min(1, features.hotspot_percentile)),
    cochange: model.breadthSaturation > 0 ? Math.min(1, features.cochange_breadth / model.breadthSaturation) : features.cochange_breadth > 0 ? 1 : 0,
  }
  const total = w.ownership + w.hotspot + w.cochange
  const part = (k: keyof RiskWeights) => (total > 0 ? (w[k] * factors[k]) / total : 0)
  const score = part('ownership') + part('hotspot') + part('cochange')
  const text: Record<keyof RiskWeights, string[]> = {
    ownership: ownershipReasons(features),
    hotspot: [`changed ${times(features.recent_revisions)} in the last ${features.recent_days} days (top ${topPercent(features.hotspot_percentile)} % of ${unit}s)`],
    cochange: [`often changes together with ${features.cochange_breadth} other ${unit}${features.cochange_breadth === 1 ? '' : 's'}`],
  }
  const order: Array<keyof RiskWeights> = ['ownership', 'hotspot', 'cochange']
  const reasons = order
    .filter((k) => part(k) >= REASON_MIN || (k === 'ownership' && factors.ownership >= OWNERSHIP_REASON_MIN))
    .sort((x, y) => part(y) - part(x) || order.indexOf(x) - order.indexOf(y))
    .flatMap((k) => text[k])
  const level: RiskLevel = score >= model.high ? 'HIGH' : score >= model.medium ? 'MEDIUM' : 'LOW'
  return { level, score, reasons, factors }
}

function ownershipReasons(f: RiskFeatures): string[] {
  const out: string[] = []
  if (f.bus_factor === 1) out.push(`one author owns ${Math.round(f.dominant_share * 100)} % of the lines (bus factor 1)`)
  if (f.ghost && f.owner_inactive_days !== null) out.push(`its main owner has been inactive for ${f.owner_inactive_days} days`)
  return out
}

function times(n: number): string {
  return n === 1 ? 'once' : `${n} times`
}

function topPercent(percentile: number): number {
  return Math.max(1, Math.ceil((1 - percentile) * 100 - 1e-9))
}

/** The risk features of every present file, by path (sorted). */
export function fileRiskFeatures(input: AnalyticsInput, config: AnalyticsConfig): Map<string, RiskFeatures> {
  const paths = headPathsByChange(input.changes, input.renames, input.files)
  const stats = activityStats(input, config, paths).fileStats
  const pairs = fileCoChange(input, config, paths)
  const active = lastActivity(input)
  const ranks = hotspotScores(stats)
  const percentile = new Map([...stats.keys()].map((key, i) => [key, ranks.percentile[i]]))
  const partners = new Map<string, number>()
  for (const p of pairs) {
    partners.set(p.a, (partners.get(p.a) ?? 0) + 1)
    partners.set(p.b, (partners.get(p.b) ?? 0) + 1)
  }
  const out = new Map<string, RiskFeatures>()
  for (const path of input.files.map((f) => f.path).sort(byString)) {
    const s = stats.get(path)
    const owners = input.ownership[path] ?? []
    const top = ownershipOf(owners).owners[0]
    out.set(path, riskFeatures({ revisions: s?.revisions ?? 0, recent_revisions: s?.recent_revisions ?? 0, percentile: percentile.get(path) ?? 0, partners: partners.get(path) ?? 0, owners, ownerLastActive: top ? active.get(top.email) : undefined, headTime: input.headTime, config }))
  }
  return out
}

/** The features of one file or symbol from its activity and the lines each author owns (shared by the live risk and the backtest). */
export function riskFeatures(f: {
  revisions: number
  recent_revisions: number
  percentile: number
  partners: number
  owners: ReadonlyArray<readonly [string, number]>
  /** The largest owner's newest commit, epoch seconds. */
  ownerLastActive: number | undefined
  headTime: number
  config: Pick<AnalyticsConfig, 'recentDays' | 'ghostDays'>
}): RiskFeatures {
  const own = ownershipOf(f.owners)
  const top = own.owners[0]
  const last = f.ownerLastActive
  return {
    revisions: f.revisions,
    recent_revisions: f.recent_revisions,
    recent_days: f.config.recentDays,
    bus_factor: own.bus_factor,
    dominant_share: top?.share ?? 0,
    owner: top?.email ?? null,
    owner_inactive_days: last === undefined ? null : Math.floor((f.headTime - last) / DAY),
    ghost: isGhost(top?.share ?? 0, last, f.headTime, f.config.ghostDays),
    hotspot_percentile: f.percentile,
    cochange_breadth: f.partners,
  }
}

/**
 * A fix: a revert, or a subject naming a fix or bug (`fix:`, `fix(scope):`, "Fixes #12",
 * "bugfix", "hotfix", "regression"). Merges and bots never are: a merge repeats its branch's
 * commits, and bots' `fix(deps):` are dependency bumps.
 */
export const FIX_SUBJECT = /\b(fix(e[sd]|ing)?|bug(s|fix(es)?)?|hotfix(es)?|regression)\b/i

export function isFix(change: Pick<Change, 'category' | 'subject'>): boolean {
  if (change.category === 'merge' || change.category === 'bot') return false
  return change.category === 'revert' || FIX_SUBJECT.test(change.subject)
}

export interface BacktestOptions {
  /** How far back "now" moves: T = headTime − months · 30 days; files are labelled on (T, HEAD]. */
  months: number
  config: AnalyticsConfig
  weights?: RiskWeights
  /** Other model settings (saturation, thresholds); `weights` wins over model.weights. */
  model?: Partial<RiskModel>
}

export interface BacktestFile {
  /** Path at HEAD. */
  path: string
  score: number
  level: RiskLevel
  /** Received at least one fix commit after as_of. */
  positive: boolean
}

export interface BacktestResult {
  /** T, epoch seconds. */
  as_of: number
  horizon_months: number
  /** Files scored: source files (a grammar parses them, not tests) present at T and still present at HEAD. */
  files: number
  positives: number
  /** positives / files; null when no file was scored. */
  base_rate: number | null
  /** ROC AUC of the score (Mann–Whitney, ties ½); null without positives or without negatives. */
  auc: number | null
  /** Positives among the top ceil(10 %) by score (ties at the cut shared pro rata). */
  precision_at_10pct: number | null
  /** The AUC of each factor alone, to calibrate the weights. */
  factor_auc: { ownership: number | null; hotspot: number | null; cochange: number | null }
  /** Every scored file, by score desc then path. */
  ranked: BacktestFile[]
}

/**
 * Source code: a file a grammar parses that is not a test. Docs, manifests, CI configs and
 * lockfiles change with every release (and a version bump may be labelled "fix"), tests change
 * with every fix of what they test: scored among code, they led every ranking and said nothing.
 */
export function isSourceFile(file: { path: string; language: string | null }): boolean {
  return file.language !== null && !isTestPath(file.path)
}

/**
 * Replays history: computes every feature as of T = headTime − months·30 days from the changes
 * with time ≤ T only, scores the source files (isSourceFile) that existed at T and still exist at
 * HEAD, and labels a file positive when a fix (isFix) changed lines of it after T (a rename or a
 * mode change alone is no fix of the file). Approximations, because the input holds
 * HEAD's state only: a file's identity is its HEAD path (renames after T are followed, which only
 * joins histories); a file existed at T when a change ≤ T touched it; ownership at T is each
 * author's share of the lines ADDED to the file by non-merge commits ≤ T (not a blame at T).
 */
export function backtest(input: AnalyticsInput, options: BacktestOptions): BacktestResult {
  const model: RiskModel = { ...DEFAULT_RISK_MODEL, ...options.model, weights: options.weights ?? options.model?.weights ?? DEFAULT_RISK_MODEL.weights }
  const asOf = input.headTime - options.months * 30 * DAY
  const paths = headPathsByChange(input.changes, input.renames, input.files)
  const past: Change[] = []
  const added = new Map<string, Map<string, number>>()
  const positive = new Set<string>()
  input.changes.forEach((c, i) => {
    if (c.time > asOf) {
      if (isFix(c)) for (const [p, lines] of headFilesOf(c, paths[i])) if (lines > 0) positive.add(p)
      return
    }
    const files: Change['files'] = []
    const seen = new Map<string, Change['files'][number]>()
    for (const f of c.files) {
      const head = paths[i].get(f.path)
      if (head === undefined) continue
      const prev = seen.get(head)
      if (prev) {
        prev.additions += f.additions
        prev.deletions += f.deletions
      } else {
        const entry = { path: head, additions: f.additions, deletions: f.deletions }
        seen.set(head, entry)
        files.push(entry)
      }
      if (c.category !== 'merge' && f.additions > 0) {
        let per = added.get(head)
        if (!per) added.set(head, (per = new Map()))
        per.set(c.author, (per.get(c.author) ?? 0) + f.additions)
      }
    }
    past.push({ ...c, files, symbols: [] })
  })
  const existing = new Set<string>()
  for (const c of past) for (const f of c.files) existing.add(f.path)
  const ownership: AnalyticsInput['ownership'] = Object.create(null)
  for (const [path, per] of added) ownership[path] = [...per]
  const atT: AnalyticsInput = {
    headTime: asOf,
    changes: past,
    renames: [],
    files: input.files.filter((f) => existing.has(f.path)),
    symbols: [],
    ownership,
  }
  const source = new Set(input.files.filter(isSourceFile).map((f) => f.path))
  const features = fileRiskFeatures(atT, options.config)
  const scored = [...features].filter(([path]) => source.has(path)).map(([path, f]) => ({ path, risk: riskOf(f, model), positive: positive.has(path) }))
  const ranked: BacktestFile[] = scored
    .map((s) => ({ path: s.path, score: s.risk.score, level: s.risk.level, positive: s.positive }))
    .sort((x, y) => y.score - x.score || byString(x.path, y.path))
  const labels = ranked.map((r) => r.positive)
  const positives = labels.filter(Boolean).length
  const factorAuc = (k: keyof RiskWeights) => rocAuc(scored.map((s) => s.risk.factors[k]), scored.map((s) => s.positive))
  return {
    as_of: asOf,
    horizon_months: options.months,
    files: ranked.length,
    positives,
    base_rate: ranked.length > 0 ? positives / ranked.length : null,
    auc: rocAuc(ranked.map((r) => r.score), labels),
    precision_at_10pct: precisionAtTop(ranked.map((r) => r.score), labels, 0.1),
    factor_auc: { ownership: factorAuc('ownership'), hotspot: factorAuc('hotspot'), cochange: factorAuc('cochange') },
    ranked,
  }
}

/**
 * ROC AUC as the Mann–Whitney U statistic: the probability that a random positive scores above a
 * random negative, ties counting ½ (average ranks). Null without positives or without negatives.
 */
export function rocAuc(scores: readonly number[], labels: readonly boolean[]): number | null {
  const n = scores.length
  const pos = labels.filter(Boolean).length
  const neg = n - pos
  if (pos === 0 || neg === 0) return null
  const order = scores.map((_, i) => i).sort((x, y) => scores[x] - scores[y])
  let rankSum = 0
  for (let i = 0; i < n; ) {
    let j = i
    while (j < n && scores[order[j]] === scores[order[i]]) j++
    const avgRank = (i + 1 + j) / 2
    for (let k = i; k < j; k++) if (labels[order[k]]) rankSum += avgRank
    i = j
  }
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg)
}

/**
 * Precision among the top ceil(fraction · n) items by score. Items tied at the cut are taken in
 * random order, so the tie group contributes its positive rate times the places left (the
 * expected value), not whatever an arbitrary tiebreak picks. Null when n = 0.
 */
export function precisionAtTop(scores: readonly number[], labels: readonly boolean[], fraction: number): number | null {
  const n = scores.length
  if (n === 0) return null
  const k = Math.max(1, Math.ceil(fraction * n - 1e-9))
  const order = scores.map((_, i) => i).sort((x, y) => scores[y] - scores[x])
  let hits = 0
  let taken = 0
  for (let i = 0; i < n && taken < k; ) {
    let j = i
    let groupPos = 0
    while (j < n && scores[order[j]] === scores[order[i]]) {
      if (labels[order[j]]) groupPos++
      j++
    }
    const size = j - i
    const room = Math.min(size, k - taken)
    hits += (groupPos * room) / size
    taken += room
    i = j
  }
  return hits / k
}
