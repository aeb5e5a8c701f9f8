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
  // items are interned to integers so a pair is two numbers, not a concatenated string
  const ids = new Map<string, number>()
  const names: string[] = []
  const items: number[] = []
  const starts = [0]
  for (const cs of changesets) {
    if (!cs.include) continue
    const distinct = new Set(cs.items)
    if (distinct.size === 0 || distinct.size > config.maxChangesetSize) continue
    for (const item of distinct) {
      let id = ids.get(item)
      if (id === undefined) {
        id = names.length
        ids.set(item, id)
        names.push(item)
      }
      items.push(id)
    }
    starts.push(items.length)
  }
  return coChangeOfSets({ items, starts }, names, config)
}

/**
 * Counted changesets (included, 1..maxChangesetSize items): changeset c holds the distinct
 * indexes into the names items[starts[c]] .. items[starts[c + 1] - 1].
 */
export interface CountedSets {
  items: ArrayLike<number>
  starts: ArrayLike<number>
}

/**
 * What an update knows beyond the sets (column-update.ts): every item's revisions (counted over
 * all the history's sets, not only these), the history's count of sets, and the items whose pairs
 * are wanted (a pair is counted when one of its items is marked).
 */
export interface PartialSets {
  revs?: ArrayLike<number>
  total?: number
  only?: Uint8Array
}

/** coChange over changesets already counted. */
export function coChangeOfSets(sets: CountedSets, names: readonly string[], config: CoChangeConfig, known: PartialSets = {}): CoChange[] {
  const { items, starts } = sets
  const count = starts.length - 1
  const total = known.total ?? count
  const revs = known.revs ?? revisionsOf(sets, names.length)
  const only = known.only
  const pairs = new PairCounts(starts[count])
  const eligible: number[] = []
  for (let c = 0; c < count; c++) {
    if (starts[c + 1] - starts[c] < 2) continue
    eligible.length = 0
    for (let k = starts[c]; k < starts[c + 1]; k++) if (revs[items[k]] >= config.minRevisions) eligible.push(items[k])
    for (let i = 0; i < eligible.length; i++) {
      const a = eligible[i]
      const marked = only === undefined || only[a] === 1
      for (let j = i + 1; j < eligible.length; j++) if (marked || only![eligible[j]] === 1) pairs.add(a, eligible[j])
    }
  }
  const out: CoChange[] = []
  pairs.forEach((p, q, s) => {
    if (s < config.minShared) return
    let x = p
    let y = q
    if (names[y] < names[x]) [x, y] = [y, x]
    const degree = (100 * s) / ((revs[x] + revs[y]) / 2)
    if (degree < config.minDegree || Math.max(s / revs[x], s / revs[y]) < (config.minConfidence ?? 0)) return
    out.push({ a: names[x], b: names[y], shared: s, degree: Math.round(degree * 10) / 10, confidence_ab: s / revs[x], confidence_ba: s / revs[y], support: s / total })
  })
  return out.sort(coChangeOrder)
}

/** Each item's count of the sets that hold it. */
function revisionsOf({ items, starts }: CountedSets, n: number): Int32Array {
  const revs = new Int32Array(n)
  for (let k = 0; k < starts[starts.length - 1]; k++) revs[items[k]]++
  return revs
}

/** Co-change's order: degree, then shared, descending; then a, then b. */
export function coChangeOrder(p: CoChange, q: CoChange): number {
  return q.degree - p.degree || q.shared - p.shared || byString(p.a, q.a) || byString(p.b, q.b)
}

/**
 * How often each unordered pair of small integers was added: open addressing over typed arrays,
 * so ~150,000 additions (vuejs/core's files and symbols) leave no garbage behind.
 */
class PairCounts {
  private low: Int32Array
  private high: Int32Array
  private counts: Int32Array
  private size = 0

  constructor(expected: number) {
    let capacity = 1024
    while (capacity < expected * 2) capacity *= 2
    this.low = new Int32Array(capacity).fill(-1)
    this.high = new Int32Array(capacity)
    this.counts = new Int32Array(capacity)
  }

  add(a: number, b: number): void {
    const lo = a < b ? a : b
    const hi = a < b ? b : a
    const mask = this.low.length - 1
    let at = (Math.imul(lo, 0x9e3779b1) ^ Math.imul(hi, 0x85ebca77)) & mask
    for (;;) {
      const seen = this.low[at]
      if (seen === -1) {
        this.low[at] = lo
        this.high[at] = hi
        this.counts[at] = 1
        if (++this.size * 2 > this.low.length) this.grow()
        return
      }
      if (seen === lo && this.high[at] === hi) {
        this.counts[at]++
        return
      }
      at = (at + 1) & mask
    }
  }

  forEach(fn: (lo: number, hi: number, count: number) => void): void {
    for (let at = 0; at < this.low.length; at++) if (this.low[at] !== -1) fn(this.low[at], this.high[at], this.counts[at])
  }

  private grow(): void {
    const { low, high, counts } = this
    this.low = new Int32Array(low.length * 2).fill(-1)
    this.high = new Int32Array(low.length * 2)
    this.counts = new Int32Array(low.length * 2)
    this.size = 0
    for (let at = 0; at < low.length; at++) {
      if (low[at] === -1) continue
      this.add(low[at], high[at])
      this.counts[this.find(low[at], high[at])] = counts[at]
    }
  }

  private find(lo: number, hi: number): number {
    const mask = this.low.length - 1
    let at = (Math.imul(lo, 0x9e3779b1) ^ Math.imul(hi, 0x85ebca77)) & mask
    while (!(this.low[at] === lo && this.high[at] === hi)) at = (at + 1) & mask
    return at
  }
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
  return withoutEnclosing(coChange(changesets, config), parent)
}

/** The pairs but those of a symbol and one that encloses it (at any depth): see symbolCoChange. */
export function withoutEnclosing(pairs: CoChange[], parent: ReadonlyMap<string, string | null>): CoChange[] {
  const encloses = (outer: string, inner: string): boolean => {
    const seen = new Set<string>()
    for (let p = parent.get(inner) ?? null; p !== null && !seen.has(p); p = parent.get(p) ?? null) {
      if (p === outer) return true
      seen.add(p)
    }
    return false
  }
  return pairs.filter((p) => !encloses(p.a, p.b) && !encloses(p.b, p.a))
}
