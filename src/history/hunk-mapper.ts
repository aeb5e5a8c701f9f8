import type { FileDiff } from '../git/diff-parser.js'
import type { HistoryGraph } from './graph.js'

/**
 * The hunk mapper: one backward walk over the history computes, for every line of every target
 * file, the commit `git blame` names, and for every tracked range the commit set
 * `git log -L start,end:path` gives. Both follow renames and pass lines through merges the way
 * git does (blame: a line goes to the first parent in which it is unchanged, a parent with an
 * identical blob takes everything; line-log: a merge not touching the range in some parent
 * follows that parent only, otherwise it is shown and the range goes to every parent).
 *
 * Ranges and lines are 0-based here; the public API converts.
 */

export interface MapTarget {
  path: string
  lines: number
  /** Ranges to trace like `git log -L` (1-based, inclusive). */
  ranges: Array<{ start: number; end: number }>
}

/**
 * Commits blame looks through (`git blame --ignore-revs-file`): their changed lines go to the
 * parent line git's fuzzy matching picks (see ignore-revs.ts). `guess` gives, for the commit's
 * diff against parent k of a file, each changed line's parent line (-1 or absent: it stays).
 */
export interface IgnoredRevs {
  commits: ReadonlySet<number>
  guess: (commit: number, parent: number, fd: FileDiff) => ReadonlyMap<number, number> | undefined
}

export interface RangeChange {
  commit: number
  added: number
  removed: number
  /** With `{ hunks: true }`: the diffs' hunks that touched the range (first parent for a merge). */
  parts?: Array<{ path: string; hunks: number[]; touched: number[]; ranges: number[] }>
}

export interface MapResult {
  /**
   * Per target file, per line: the commit index owning it. A negative value ~idx marks a line
   * attributed to boundary commit idx whose real origin lies beyond the indexed history.
   */
  blame: Int32Array[]
  /** Per target, per range: the commits that changed it, newest first. */
  rangeHistory: RangeChange[][][]
  /** Per target, per range: the trace reached the edge of the indexed history. */
  rangeTruncated: boolean[][]
}

// A blame run: lines [start, start+len) of this commit's version map to target `file`, line `head`.
type Runs = number[] // flat [start, len, file, head, ...]
// A range set in git's representation: sorted, disjoint, non-adjacent [start, end) pairs.
type RangeSet = number[]

/** Range id -> its range set in this commit's version of a path. */
type LinePending = Map<number, RangeSet>

function isIdentical(fd: FileDiff): boolean {
  return fd.hunks.length === 0 && !fd.binary && (fd.status === 'M' || fd.status === 'R')
}

function diffByPath(diffs: FileDiff[]): Map<string, FileDiff> {
  const m = new Map<string, FileDiff>()
  for (const fd of diffs) if (fd.status !== 'D') m.set(fd.path, fd)
  return m
}

/** The pending entries of the paths a diff touches, each removed from `pending` as it is taken. */
function* takeTouched<T>(pending: Map<string, T>, diffs: FileDiff[]): Generator<[FileDiff, T]> {
  for (const fd of diffs) {
    if (fd.status === 'D') continue
    const entry = pending.get(fd.path)
    if (entry === undefined) continue
    pending.delete(fd.path)
    yield [fd, entry]
  }
}

function appendRuns(map: Map<string, Runs>, path: string, runs: Runs): void {
  if (runs.length === 0) return
  const have = map.get(path)
  if (have) {
    for (let i = 0; i < runs.length; i++) have.push(runs[i])
  } else map.set(path, runs)
}

/** Runs are independent of their order: merging either map into the other gives the same walk. */
function mergeRunMaps(into: Map<string, Runs>, from: Map<string, Runs>): void {
  for (const [p, r] of from) appendRuns(into, p, r)
}

/**
 * Two pending maps joined into one, the smaller copied into the larger. A merge's first parent
 * inherits every path its diff does not touch, and the pending state of a long history is large:
 * copying it whole at each of 20k merges made the walk quadratic (rails: 13 commits/s). Runs are
 * independent of their order and range sets are unions, so the direction changes nothing.
 */
function joinMaps<T>(a: Map<string, T>, b: Map<string, T>, merge: (into: Map<string, T>, from: Map<string, T>) => void): Map<string, T> {
  if (a.size < b.size) [a, b] = [b, a]
  merge(a, b)
  return a
}

/**
 * Split runs (in the commit's coordinates) by a diff's hunks: lines outside every hunk's new side
 * map to the parent (`passed`, parent coordinates); lines inside stay (`kept`, same coordinates).
 */
export function splitRuns(runs: Runs, hunks: number[]): { passed: Runs; kept: Runs } {
  const passed: Runs = []
  const kept: Runs = []
  const h = hunks.length / 4
  // prefix[j] = line offset (old - new) for positions past the first j hunks
  const prefix = new Array<number>(h + 1)
  prefix[0] = 0
  for (let j = 0; j < h; j++) {
    const b = j * 4
    prefix[j + 1] = prefix[j] + (hunks[b + 1] - hunks[b]) - (hunks[b + 3] - hunks[b + 2])
  }
  for (let r = 0; r < runs.length; r += 4) {
    const start = runs[r]
    const end = start + runs[r + 1]
    const file = runs[r + 2]
    const head = runs[r + 3]
    // first hunk whose new end is past `start`
    let lo = 0
    let hi = h
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (hunks[mid * 4 + 3] <= start) lo = mid + 1
      else hi = mid
    }
    let j = lo
    let pos = start
    while (pos < end) {
      while (j < h && hunks[j * 4 + 3] <= pos) j++
      if (j < h && hunks[j * 4 + 2] <= pos) {
        const stop = Math.min(end, hunks[j * 4 + 3])
        kept.push(pos, stop - pos, file, head + (pos - start))
        pos = stop
      } else {
        const stop = j < h ? Math.min(end, hunks[j * 4 + 2]) : end
        passed.push(pos + prefix[j], stop - pos, file, head + (pos - start))
        pos = stop
      }
    }
  }
  return { passed, kept }
}

// ---- git line-log range algebra (line-log.c), reproduced exactly, quirks included ----

/**
 * Hunk indices whose target side overlaps the range set (diff_ranges_filter_touched). A pure
 * deletion (empty target side) touches a range only strictly inside it, as in git.
 */
export function filterTouched(hunks: number[], rs: RangeSet): number[] {
  const out: number[] = []
  const h = hunks.length / 4
  let j = 0
  const nr = rs.length / 2
  for (let i = 0; i < h; i++) {
    const ts = hunks[i * 4 + 2]
    const te = hunks[i * 4 + 3]
    while (ts > rs[j * 2 + 1]) {
      j++
      if (j === nr) return out
    }
    const s = rs[j * 2]
    const e = rs[j * 2 + 1]
    if (!(te <= s || e <= ts)) out.push(i)
  }
  return out
}

/** out = a \ b (range_set_difference); b given as the touched hunks' target sides. */
function difference(a: RangeSet, hunks: number[], touched: number[]): RangeSet {
  const out: RangeSet = []
  let j = 0
  const nb = touched.length
  for (let i = 0; i < a.length; i += 2) {
    let start = a[i]
    const end = a[i + 1]
    while (start < end) {
      while (j < nb && start >= hunks[touched[j] * 4 + 3]) j++
      if (j >= nb || end < hunks[touched[j] * 4 + 2]) {
        out.push(start, end)
        break
      }
      const bs = hunks[touched[j] * 4 + 2]
      const be = hunks[touched[j] * 4 + 3]
      if (start >= bs) {
        start = be
      } else if (end > bs) {
        if (start < bs) out.push(start, bs)
        start = be
      } else {
        // end === bs: git's loop would spin here only for empty b ranges; mirror its append
        out.push(start, end)
        break
      }
    }
  }
  return out
}

/** range_set_shift_diff: move ranges across all hunks. */
function shift(rs: RangeSet, hunks: number[]): RangeSet {
  const out: RangeSet = []
  const h = hunks.length / 4
  let j = 0
  let offset = 0
  for (let i = 0; i < rs.length; i += 2) {
    while (j < h && rs[i] >= hunks[j * 4 + 2]) {
      offset += hunks[j * 4 + 1] - hunks[j * 4] - (hunks[j * 4 + 3] - hunks[j * 4 + 2])
      j++
    }
    out.push(rs[i] + offset, rs[i + 1] + offset)
  }
  return out
}

/** range_set_union: merge overlapping and adjacent ranges, drop empty ones. */
export function union(a: RangeSet, b: RangeSet): RangeSet {
  const out: RangeSet = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    // take from a while it sorts first (by start, then end), as git's merge of the two lists does
    const fromA = j >= b.length || (i < a.length && (a[i] < b[j] || (a[i] === b[j] && a[i + 1] < b[j + 1])))
    let s: number
    let e: number
    if (fromA) {
      s = a[i]
      e = a[i + 1]
      i += 2
    } else {
      s = b[j]
      e = b[j + 1]
      j += 2
    }
    if (s === e) continue
    const o = out.length
    if (o === 0 || out[o - 1] < s) out.push(s, e)
    else if (out[o - 1] < e) out[o - 1] = e
  }
  return out
}

/** Map a range set across a diff (range_set_map_across_diff). */
export function mapAcross(rs: RangeSet, hunks: number[]): { ranges: RangeSet; touched: number[] } {
  const touched = filterTouched(hunks, rs)
  // no hunk touches the ranges nor starts before the last of them: they map to themselves (what
  // the steps below give then, for a range set is normalised), as they do for most of a file's
  // symbols at most of its commits
  if (touched.length === 0 && (hunks.length === 0 || rs[rs.length - 2] < hunks[2])) return { ranges: rs, touched }
  const rest = difference(rs, hunks, touched)
  const shifted = shift(rest, hunks)
  const parentSides: RangeSet = []
  for (const t of touched) parentSides.push(hunks[t * 4], hunks[t * 4 + 1])
  return { ranges: union(shifted, parentSides), touched }
}

function addLine(map: Map<string, LinePending>, path: string, id: number, rs: RangeSet): void {
  if (rs.length === 0) return
  let entry = map.get(path)
  if (!entry) map.set(path, (entry = new Map()))
  addRange(entry, id, rs)
}

function addRange(entry: LinePending, id: number, rs: RangeSet): void {
  const have = entry.get(id)
  entry.set(id, have ? union(have, rs) : rs)
}

/**
 * Range sets are unions: merging either map into the other gives the same sets. `from` is given
 * up: a path `into` lacks takes its entry as it is (as appendRuns takes a path's runs).
 */
function mergeLineMaps(into: Map<string, LinePending>, from: Map<string, LinePending>): void {
  for (const [path, entry] of from) {
    const have = into.get(path)
    if (!have) into.set(path, entry)
    else for (const [id, rs] of entry) if (rs.length > 0) addRange(have, id, rs)
  }
}

/**
 * The ignore pass of an ignored commit over one parent's diff of a file: lines of `runs` (in the
 * commit's coordinates, all inside hunks) that match a parent line go to the parent (`passed`,
 * parent coordinates, one line each); the others are `kept`.
 */
function ignorePass(runs: Runs, guess: ReadonlyMap<number, number> | undefined): { passed: Runs; kept: Runs } {
  if (!guess || runs.length === 0) return { passed: [], kept: runs }
  const passed: Runs = []
  const kept: Runs = []
  for (let r = 0; r < runs.length; r += 4) {
    for (let l = 0; l < runs[r + 1]; l++) {
      const m = guess.get(runs[r] + l) ?? -1
      if (m >= 0) passed.push(m, 1, runs[r + 2], runs[r + 3] + l)
      else kept.push(runs[r] + l, 1, runs[r + 2], runs[r + 3] + l)
    }
  }
  return { passed, kept }
}

export interface MapOptions {
  /** Keep the hunks that touched each range (`RangeChange.parts`, for evidence --patch). */
  hunks?: boolean
  /** The commits blame looks through (.git-blame-ignore-revs; ignore-revs.ts). */
  ignored?: IgnoredRevs
  /** Commits walked of the graph's total, every few thousand. */
  onProgress?: (done: number, total: number) => void
}

export function mapHistory(graph: HistoryGraph, head: number, targets: MapTarget[], options: MapOptions = {}): MapResult {
  const ignored = options.ignored
  const blame = targets.map((t) => new Int32Array(t.lines).fill(-0x7fffffff))
  // range ids are global; rangeOwner maps them back to (target, range)
  const rangeOwner: Array<[number, number]> = []
  const rangeHistory: RangeChange[][][] = targets.map((t) => t.ranges.map(() => []))
  const rangeTruncated: boolean[][] = targets.map((t) => t.ranges.map(() => false))

  // by commit index (an array: a walk visits every commit from head down)
  const blamePending: Array<Map<string, Runs> | undefined> = new Array(graph.shas.length)
  const linePending: Array<Map<string, LinePending> | undefined> = new Array(graph.shas.length)
  {
    const initialBlame = new Map<string, Runs>()
    const initialLines = new Map<string, LinePending>()
    targets.forEach((t, f) => {
      if (t.lines > 0) appendRuns(initialBlame, t.path, [0, t.lines, f, 0])
      t.ranges.forEach((r, k) => {
        const id = rangeOwner.length
        rangeOwner.push([f, k])
        const s = Math.max(0, r.start - 1)
        const e = Math.min(t.lines, r.end)
        if (e > s) addLine(initialLines, t.path, id, [s, e])
      })
    })
    blamePending[head] = initialBlame
    linePending[head] = initialLines
  }
  /** By range id: its latest change recorded (a commit can change a range in several of its diffs). */
  const lastRecorded = new Array<RangeChange | undefined>(rangeOwner.length)

  const assign = (commit: number, runs: Runs, undecided: boolean): void => {
    const value = undecided ? ~commit : commit
    for (let r = 0; r < runs.length; r += 4) {
      const out = blame[runs[r + 2]]
      const h = runs[r + 3]
      out.fill(value, h, h + runs[r + 1])
    }
  }
  const record = (commit: number, id: number, hunks: number[], touched: number[], path: string, ranges: RangeSet): void => {
    const part = options.hunks && touched.length > 0 ? { path, hunks, touched, ranges } : null
    let added = 0
    let removed = 0
    for (const t of touched) {
      removed += hunks[t * 4 + 1] - hunks[t * 4]
      added += hunks[t * 4 + 3] - hunks[t * 4 + 2]
    }
    const last = lastRecorded[id]
    if (last && last.commit === commit) {
      last.added += added
      last.removed += removed
      if (part) (last.parts ??= []).push(part)
      return
    }
    const [f, k] = rangeOwner[id]
    const change: RangeChange = { commit, added, removed }
    if (part) change.parts = [part]
    rangeHistory[f][k].push(change)
    lastRecorded[id] = change
  }
  const truncate = (entry: LinePending): void => {
    for (const id of entry.keys()) {
      const [f, k] = rangeOwner[id]
      rangeTruncated[f][k] = true
    }
  }
  const passBlame = (parent: number, child: number, map: Map<string, Runs>): void => {
    if (map.size === 0) return
    if (parent < 0) {
      for (const runs of map.values()) assign(child, runs, true)
      return
    }
    const have = blamePending[parent]
    blamePending[parent] = have ? joinMaps(have, map, mergeRunMaps) : map
  }
  const passLines = (parent: number, map: Map<string, LinePending>): void => {
    if (map.size === 0) return
    if (parent < 0) {
      for (const entry of map.values()) truncate(entry)
      return
    }
    const have = linePending[parent]
    linePending[parent] = have ? joinMaps(have, map, mergeLineMaps) : map
  }

  for (let i = head; i < graph.shas.length; i++) {
    if ((i & 4095) === 0) options.onProgress?.(i, graph.shas.length)
    const bl = blamePending[i]
    const ll = linePending[i]
    if (!bl && !ll) continue
    blamePending[i] = undefined
    linePending[i] = undefined
    const parents = graph.parents[i]
    const diffs = graph.diffs[i]
    // a commit whose (first-parent) diff names none of the walked paths hands everything on to its
    // first parent, as the branches below would: most commits of a path's walk are such
    if (parents.length > 0 && diffs[0].length === 0) {
      if (bl) passBlame(parents[0], i, bl)
      if (ll) passLines(parents[0], ll)
      continue
    }
    const shallowRoot = parents.length === 0 && graph.boundary[i]
    const ignoring = ignored !== undefined && ignored.commits.has(i)

    if (bl) {
      if (parents.length === 0) {
        for (const runs of bl.values()) assign(i, runs, shallowRoot)
      } else if (parents.length === 1) {
        const moved = new Map<string, Runs>()
        for (const [fd, runs] of takeTouched(bl, diffs[0])) {
          if (fd.status === 'A' || fd.binary) assign(i, runs, false)
          else if (isIdentical(fd)) appendRuns(moved, fd.oldPath, runs)
          else {
            const { passed, kept } = splitRuns(runs, fd.hunks)
            if (ignoring && parents[0] >= 0 && kept.length > 0) {
              const again = ignorePass(kept, ignored!.guess(i, 0, fd))
              assign(i, again.kept, false)
              appendRuns(moved, fd.oldPath, again.passed)
            } else assign(i, kept, false)
            appendRuns(moved, fd.oldPath, passed)
          }
        }
        passBlame(parents[0], i, joinMaps(bl, moved, mergeRunMaps))
      } else {
        const byParent = diffs.map(diffByPath)
        const toParent = parents.map(() => new Map<string, Runs>())
        for (const [fd, runs] of takeTouched(bl, diffs[0])) {
          // a parent holding an identical blob takes the whole file (git blame's shortcut)
          let whole = -1
          for (let k = 0; k < parents.length && whole < 0; k++) {
            const d = byParent[k].get(fd.path)
            if (!d || isIdentical(d)) whole = k
          }
          if (whole >= 0) {
            const d = byParent[whole].get(fd.path)
            appendRuns(toParent[whole], d ? d.oldPath : fd.path, runs)
            continue
          }
          let remaining = runs
          for (let k = 0; k < parents.length && remaining.length > 0; k++) {
            const d = byParent[k].get(fd.path)
            if (!d || d.status === 'A' || d.binary) continue
            const { passed, kept } = splitRuns(remaining, d.hunks)
            appendRuns(toParent[k], d.oldPath, passed)
            remaining = kept
          }
          // an ignored merge: what no parent explains goes to the parents' matching lines in order
          for (let k = 0; ignoring && k < parents.length && remaining.length > 0; k++) {
            const d = byParent[k].get(fd.path)
            if (!d || d.status === 'A' || d.binary || parents[k] < 0) continue
            const { passed, kept } = ignorePass(remaining, ignored!.guess(i, k, d))
            appendRuns(toParent[k], d.oldPath, passed)
            remaining = kept
          }
          assign(i, remaining, false)
        }
        toParent[0] = joinMaps(toParent[0], bl, mergeRunMaps)
        parents.forEach((p, k) => passBlame(p, i, toParent[k]))
      }
    }

    if (ll) {
      if (parents.length <= 1) {
        const moved = new Map<string, LinePending>()
        for (const [fd, entry] of takeTouched(ll, diffs[0] ?? [])) {
          for (const [id, rs] of entry) {
            const { ranges, touched } = mapAcross(rs, fd.hunks)
            if (touched.length > 0) record(i, id, fd.hunks, touched, fd.path, rs)
            addLine(moved, fd.oldPath, id, ranges)
          }
        }
        const next = joinMaps(ll, moved, mergeLineMaps)
        if (parents.length === 0) {
          if (shallowRoot) for (const entry of next.values()) truncate(entry)
        } else passLines(parents[0], next)
      } else {
        const byParent = diffs.map(diffByPath)
        const toParent = parents.map(() => new Map<string, LinePending>())
        for (const [fd, entry] of takeTouched(ll, diffs[0])) {
          for (const [id, rs] of entry) {
            const cands: Array<{ path: string; ranges: RangeSet; hunks: number[]; touched: number[]; newPath: string }> = []
            let follow = -1
            for (let k = 0; k < parents.length; k++) {
              const d = byParent[k].get(fd.path)
              if (!d) {
                cands.push({ path: fd.path, ranges: rs, hunks: [], touched: [], newPath: fd.path })
                follow = k
                break
              }
              const m = mapAcross(rs, d.hunks)
              cands.push({ path: d.oldPath, ranges: m.ranges, hunks: d.hunks, touched: m.touched, newPath: d.path })
              if (m.touched.length === 0) {
                follow = k
                break
              }
            }
            if (follow >= 0) {
              addLine(toParent[follow], cands[follow].path, id, cands[follow].ranges)
              continue
            }
            // shown: git prints the merge; count the lines of its first-parent diff
            record(i, id, cands[0].hunks, cands[0].touched, cands[0].newPath, rs)
            cands.forEach((c, k) => addLine(toParent[k], c.path, id, c.ranges))
          }
        }
        toParent[0] = joinMaps(toParent[0], ll, mergeLineMaps)
        parents.forEach((p, k) => passLines(p, toParent[k]))
      }
    }
  }
  return { blame, rangeHistory, rangeTruncated }
}

/**
 * Who owns lines [start, end) of a blame array (mapHistory's per-line commit index; `~index` for a
 * line whose origin lies past the indexed history, attributed to that boundary commit as git blame
 * does): lines per commit index, in order of first appearance, and how many lines are past the cut.
 */
export function blameOwners(blame: ArrayLike<number>, start: number, end: number, commits: number): { owners: Map<number, number>; undecided: number } {
  const owners = new Map<number, number>()
  let undecided = 0
  for (let l = Math.max(0, start); l < Math.min(end, blame.length); l++) {
    const v = blame[l]
    if (v < 0) undecided++
    const c = v < 0 ? ~v : v
    if (c >= 0 && c < commits) owners.set(c, (owners.get(c) ?? 0) + 1)
  }
  return { owners, undecided }
}
