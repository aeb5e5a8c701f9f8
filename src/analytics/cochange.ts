/**
 * Co-change (logical coupling, code-maat's `coupling` analysis) of files and of symbols.
 * Pure and deterministic; formulas and defaults in docs/analytics.md.
 */
import { countsAsRevision, headFilesOf, headPathsByChange } from './stats.js'
import type { AnalyticsConfig, AnalyticsInput, CoChange } from './types.js'

export type CoChangeConfig = Pick<AnalyticsConfig, 'minRevisions' | 'minShared' | 'minDegree' | 'maxChangesetSize'> & Partial<Pick<AnalyticsConfig, 'minConfidence'>>

/** One commit's items (file paths at HEAD or symbol ids); include = false for merge, bot, formatting. */
export interface Changeset {
  items: readonly string[]
  include: boolean
}

const byString = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)

/**
 * Pairs of items that change together. A changeset counts when it is included, has at least one
 * item and at most maxChangesetSize distinct items; an item's revisions are the counted
 * changesets that hold it. A pair is kept when both items have ≥ minRevisions revisions, they
 * share ≥ minShared changesets, degree ≥ minDegree and max(confidence_ab, confidence_ba) ≥
 * minConfidence (the coupling seen from the less busy side: a hub file's partners all have a small
 * degree, since its own revisions swamp the average, yet each of them may change with it half the
 * time), where
 *   degree = 100 · shared / ((revs_a + revs_b) / 2)   (code-maat; reported rounded to 0.1)
 *   confidence_ab = shared / revs_a, confidence_ba = shared / revs_b
 *   support = shared / (number of counted changesets).
 * Sorted by degree desc, shared desc, a, b. Cost O(Σ k²) over counted changesets of size k.
 */
export function coChange(changesets: Iterable<Changeset>, config: CoChangeConfig): CoChange[] {
  // items are interned to integers so a pair is one number, not a concatenated string
  const ids = new Map<string, number>()
  const names: string[] = []
  const revs: number[] = []
  const shared = new Map<number, number>()
  const counted: number[][] = []
  for (const cs of changesets) {
    if (!cs.include) continue
    const distinct = new Set(cs.items)
    if (distinct.size === 0 || distinct.size > config.maxChangesetSize) continue
    const members: number[] = []
    for (const item of distinct) {
      let id = ids.get(item)
      if (id === undefined) {
        id = names.length
        ids.set(item, id)
        names.push(item)
        revs.push(0)
      }
      revs[id]++
      members.push(id)
    }
    counted.push(members)
  }
  const n = names.length
  for (const members of counted) {
    if (members.length < 2) continue
    const eligible = members.filter((id) => revs[id] >= config.minRevisions)
    for (let i = 0; i < eligible.length; i++) {
      for (let j = i + 1; j < eligible.length; j++) {
        const x = eligible[i]
        const y = eligible[j]
        const key = x < y ? x * n + y : y * n + x
        shared.set(key, (shared.get(key) ?? 0) + 1)
      }
    }
  }
  const total = counted.length
  const out: CoChange[] = []
  for (const [key, s] of shared) {
    if (s < config.minShared) continue
    let x = Math.floor(key / n)
    let y = key - x * n
    if (names[y] < names[x]) [x, y] = [y, x]
    const degree = (100 * s) / ((revs[x] + revs[y]) / 2)
    if (degree < config.minDegree || Math.max(s / revs[x], s / revs[y]) < (config.minConfidence ?? 0)) continue
    out.push({ a: names[x], b: names[y], shared: s, degree: Math.round(degree * 10) / 10, confidence_ab: s / revs[x], confidence_ba: s / revs[y], support: s / total })
  }
  return out.sort((p, q) => q.degree - p.degree || q.shared - p.shared || byString(p.a, q.a) || byString(p.b, q.b))
}

/** One changeset per commit: the HEAD paths of its files (gone files dropped, duplicates merged). */
export function fileChangesets(input: AnalyticsInput, paths: Array<Map<string, string>> = headPathsByChange(input.changes, input.renames, input.files), maxFiles = Infinity): Changeset[] {
  // the size cap counts every file the commit touched (gone ones too), as for symbols: a sweep is a sweep
  return input.changes.map((c, i) => ({ items: [...headFilesOf(c, paths[i]).keys()], include: countsAsRevision(c.category) && c.files.length <= maxFiles }))
}

/** Co-change of present files (paths at HEAD). */
export function fileCoChange(input: AnalyticsInput, config: CoChangeConfig, paths?: Array<Map<string, string>>): CoChange[] {
  return coChange(fileChangesets(input, paths, config.maxChangesetSize), config)
}

/**
 * Co-change of HEAD symbols. A symbol and one that encloses it (at any depth) are never reported
 * as a pair: a class's line history includes every change to its methods, so that coupling is
 * structure, not news. Symbols missing from input.symbols are dropped.
 */
export function symbolCoChange(input: AnalyticsInput, config: CoChangeConfig): CoChange[] {
  const parent = new Map<string, string | null>()
  for (const s of input.symbols) parent.set(s.id, s.parent)
  // a commit over the size cap in files (a mass rename, a sweep, a vendor drop) is left out even
  // when it touched few of the indexed symbols
  const changesets = input.changes.map((c) => ({ items: c.symbols.filter((id) => parent.has(id)), include: countsAsRevision(c.category) && c.files.length <= config.maxChangesetSize }))
  const encloses = (outer: string, inner: string): boolean => {
    const seen = new Set<string>()
    for (let p = parent.get(inner) ?? null; p !== null && !seen.has(p); p = parent.get(p) ?? null) {
      if (p === outer) return true
      seen.add(p)
    }
    return false
  }
  return coChange(changesets, config).filter((p) => !encloses(p.a, p.b) && !encloses(p.b, p.a))
}
