/**
 * Per-file and per-symbol activity, ownership and ghosts, computed from an AnalyticsInput alone
 * as of its `headTime`. Pure: no git, no files, no clock. Formulas and defaults: docs/analytics.md.
 */
import type { CommitCategory } from '../services/types.js'
import type { ActivityStats, AnalyticsConfig, AnalyticsInput, Change } from './types.js'

export const DAY = 86_400

/** A file owned at least this much by one author has a dominant owner (ghost candidates). */
export const DOMINANT_SHARE = 0.8

/**
 * Merges repeat their branch's changes in the first-parent diff, bots are not people, and a
 * reformat touches everything without changing anything: none of them is a revision.
 */
const NOT_A_REVISION: ReadonlySet<CommitCategory> = new Set<CommitCategory>(['merge', 'bot', 'formatting'])

export function countsAsRevision(category: CommitCategory): boolean {
  return !NOT_A_REVISION.has(category)
}

/**
 * A Change may carry exact per-symbol line counts (the CHANGED relation's added + removed);
 * when present they are a symbol's churn instead of the file-level proxy.
 */
export interface ChangeWithSymbolLines extends Change {
  symbolLines?: Record<string, number>
}

/** sha → (path as the commit wrote it → the same file's path at HEAD). Paths of gone files are absent. */
export type HeadPathMap = Map<string, Map<string, string>>

/**
 * For every change (same order as `changes`): its paths mapped to the file's path at HEAD.
 *
 * Walks the history newest → oldest (the order of `changes`) with an alias table "name at this
 * point of history → path at HEAD", starting from the present files. A commit's own files are
 * read BEFORE its renames are undone (the commit already writes the new name); then each rename
 * `from → path` at that commit gives `from` the alias `path` had, and `path` loses its alias
 * (a rename target did not exist under that name before the rename). So:
 * - chains a→b→c resolve to c;
 * - a name reused after a rename-away (a→b, later a new `a`) splits at the rename: changes to `a`
 *   after it are the new `a`, before it are `b`;
 * - renames of one commit apply simultaneously (a swap a↔b works);
 * - when one source was renamed to several destinations (per-path rename pairing can do that),
 *   the smallest HEAD path among them wins;
 * - a path deleted and later re-created without a rename is one file (as `git log -- path`);
 * - a rename whose commit is not among `changes` is ignored (its place in time is unknown).
 */
export function headPathsByChange(changes: readonly Change[], renames: AnalyticsInput['renames'], files: AnalyticsInput['files']): Array<Map<string, string>> {
  const renamesAt = new Map<string, Array<{ path: string; from: string }>>()
  for (const r of renames) {
    const list = renamesAt.get(r.sha)
    if (list) list.push(r)
    else renamesAt.set(r.sha, [r])
  }
  const alias = new Map<string, string>()
  for (const f of files) alias.set(f.path, f.path)
  const out: Array<Map<string, string>> = []
  for (const c of changes) {
    const m = new Map<string, string>()
    for (const f of c.files) {
      const head = alias.get(f.path)
      if (head !== undefined) m.set(f.path, head)
    }
    out.push(m)
    const rs = renamesAt.get(c.sha)
    if (!rs) continue
    const sources = new Map<string, string | undefined>()
    for (const r of rs) {
      const head = alias.get(r.path)
      const prev = sources.get(r.from)
      if (head !== undefined && (prev === undefined || head < prev)) sources.set(r.from, head)
      else if (!sources.has(r.from)) sources.set(r.from, undefined)
    }
    for (const r of rs) alias.delete(r.path)
    for (const [from, head] of sources) {
      if (head === undefined) alias.delete(from)
      else alias.set(from, head)
    }
  }
  return out
}

/** Every path each commit touched, mapped to the file's path at HEAD (see headPathsByChange). */
export function headPaths(input: AnalyticsInput): HeadPathMap {
  const byChange = headPathsByChange(input.changes, input.renames, input.files)
  const out: HeadPathMap = new Map()
  input.changes.forEach((c, i) => out.set(c.sha, byChange[i]))
  return out
}

/** One commit's files as HEAD paths, deduplicated, with their line churn summed. */
export function headFilesOf(change: Change, paths: Map<string, string>): Map<string, number> {
  const out = new Map<string, number>()
  for (const f of change.files) {
    const head = paths.get(f.path)
    if (head !== undefined) out.set(head, (out.get(head) ?? 0) + f.additions + f.deletions)
  }
  return out
}

interface Accumulator {
  revisions: number
  recent: number
  churn: number
  authors: Set<string>
  first: number | null
  last: number | null
}

function emptyAccumulator(): Accumulator {
  return { revisions: 0, recent: 0, churn: 0, authors: new Set(), first: null, last: null }
}

function add(acc: Accumulator, c: Change, churn: number, recentFrom: number): void {
  acc.revisions++
  if (c.time > recentFrom) acc.recent++
  acc.churn += churn
  acc.authors.add(c.author)
  if (acc.first === null || c.time < acc.first) acc.first = c.time
  if (acc.last === null || c.time > acc.last) acc.last = c.time
}

function finish(acc: Accumulator): ActivityStats {
  return { revisions: acc.revisions, recent_revisions: acc.recent, churn: acc.churn, authors: acc.authors.size, first_change: acc.first, last_change: acc.last }
}

function sortedMap<V>(entries: Iterable<[string, V]>): Map<string, V> {
  return new Map([...entries].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)))
}

/**
 * Activity of every present file (by HEAD path) and every HEAD symbol, over the commits that
 * count as revisions (not merge, bot or formatting). Recent: time > headTime − recentDays days.
 * File churn: additions + deletions of that file. Symbol churn: the change's `symbolLines[id]`
 * when analyze supplies it, else the additions + deletions of the symbol's file in that commit
 * (an upper bound: the file's whole diff, not only the symbol's range). Every present file and
 * every symbol gets an entry; maps are sorted by key.
 */
export function activityStats(input: AnalyticsInput, config: Pick<AnalyticsConfig, 'recentDays'>, paths?: Array<Map<string, string>>): { fileStats: Map<string, ActivityStats>; symbolStats: Map<string, ActivityStats> } {
  const byChange = paths ?? headPathsByChange(input.changes, input.renames, input.files)
  const recentFrom = input.headTime - config.recentDays * DAY
  const files = new Map<string, Accumulator>()
  for (const f of input.files) files.set(f.path, emptyAccumulator())
  const symbols = new Map<string, Accumulator>()
  const symbolPath = new Map<string, string>()
  for (const s of input.symbols) {
    symbols.set(s.id, emptyAccumulator())
    symbolPath.set(s.id, s.path)
  }
  input.changes.forEach((c, i) => {
    if (!countsAsRevision(c.category)) return
    const touched = headFilesOf(c, byChange[i])
    for (const [path, churn] of touched) {
      const acc = files.get(path)
      if (acc) add(acc, c, churn, recentFrom)
    }
    const exact = (c as ChangeWithSymbolLines).symbolLines
    for (const id of new Set(c.symbols)) {
      const acc = symbols.get(id)
      if (!acc) continue
      const churn = exact?.[id] ?? touched.get(symbolPath.get(id) ?? '') ?? 0
      add(acc, c, churn, recentFrom)
    }
  })
  const fin = (m: Map<string, Accumulator>) => sortedMap([...m].map(([k, acc]): [string, ActivityStats] => [k, finish(acc)]))
  return { fileStats: fin(files), symbolStats: fin(symbols) }
}

export interface Ownership {
  /** Authors by lines owned, largest first (ties by email). */
  owners: Array<{ email: string; lines: number; share: number }>
  /** Fewest authors whose combined share exceeds one half; 0 when nobody owns a line. */
  bus_factor: number
  /** The largest owner when their share is at least DOMINANT_SHARE, else null. */
  dominant: { email: string; share: number } | null
}

/** Ownership of one file from its blame line counts per author (duplicates summed, zeros dropped). */
export function ownershipOf(lines: ReadonlyArray<readonly [string, number]>): Ownership {
  const per = new Map<string, number>()
  for (const [email, n] of lines) if (n > 0) per.set(email, (per.get(email) ?? 0) + n)
  let total = 0
  for (const n of per.values()) total += n
  const owners = [...per]
    .map(([email, n]) => ({ email, lines: n, share: n / total }))
    .sort((x, y) => y.lines - x.lines || (x.email < y.email ? -1 : x.email > y.email ? 1 : 0))
  let bus = 0
  let cum = 0
  for (const o of owners) {
    bus++
    cum += o.lines
    if (cum * 2 > total) break
  }
  const top = owners[0]
  return { owners, bus_factor: bus, dominant: top && top.share >= DOMINANT_SHARE ? { email: top.email, share: top.share } : null }
}

/**
 * Each author's newest commit time. Every category counts except bot: merging a pull request or
 * reformatting is activity, while an automated account is never "active" as a person (so a file
 * owned by a bot is never a ghost). Sorted by email.
 */
export function lastActivity(input: Pick<AnalyticsInput, 'changes'>): Map<string, number> {
  const last = new Map<string, number>()
  for (const c of input.changes) {
    if (c.category === 'bot') continue
    const t = last.get(c.author)
    if (t === undefined || c.time > t) last.set(c.author, c.time)
  }
  return sortedMap(last)
}

/**
 * The one ghost rule (ghosts, risk, the backtest): the largest owner holds ≥ DOMINANT_SHARE of the
 * lines and their newest non-bot commit is more than ghostDays before headTime. An unknown last
 * activity (a bot, an author beyond a shallow boundary) is never a ghost.
 */
export function isGhost(share: number, lastActive: number | undefined, headTime: number, ghostDays: number): boolean {
  return share >= DOMINANT_SHARE && lastActive !== undefined && headTime - lastActive > ghostDays * DAY
}

export interface Ghost {
  path: string
  /** The dominant owner's email and share of the file's lines at HEAD. */
  owner: string
  share: number
  /** Epoch seconds of the owner's newest commit. */
  owner_last_active: number
  /** Whole days from owner_last_active to headTime. */
  inactive_days: number
}

/**
 * Present files whose dominant owner (share ≥ DOMINANT_SHARE) made no commit in the last
 * `ghostDays` days before headTime. Owners with no non-bot commit in the history (bots, authors
 * beyond a shallow boundary) are not ghosts: their inactivity is unknown. Longest inactive
 * first, then by path.
 */
export function ghosts(input: AnalyticsInput, config: Pick<AnalyticsConfig, 'ghostDays'>, active: Map<string, number> = lastActivity(input)): Ghost[] {
  const out: Ghost[] = []
  for (const f of input.files) {
    const own = ownershipOf(input.ownership[f.path] ?? [])
    if (!own.dominant) continue
    const last = active.get(own.dominant.email)
    if (last === undefined || !isGhost(own.dominant.share, last, input.headTime, config.ghostDays)) continue
    out.push({ path: f.path, owner: own.dominant.email, share: own.dominant.share, owner_last_active: last, inactive_days: Math.floor((input.headTime - last) / DAY) })
  }
  return out.sort((x, y) => y.inactive_days - x.inactive_days || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0))
}
