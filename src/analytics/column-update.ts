/**
 * An update's analytics from the previous pass's state (AnalyticsState) instead of a pass over the
 * whole history: only the files and symbols the update can have changed are counted again, over
 * their own commits, and only the co-change pairs with one of them in it; everything else is the
 * previous pass's, as it was. The result equals columnAnalyticsWithState's on the updated history
 * (test/unit/analytics-update.test.ts holds it to that on random histories and updates).
 *
 * An item (a file at HEAD, or a symbol) is counted again when:
 * - a new commit touches it, or it is new at HEAD;
 * - an old commit's entry maps to it now and did not before, or the reverse (a rename in the new
 *   commits, a file deleted or re-created at HEAD);
 * - its history's entries were replaced (the re-walked files' symbols: dropped, or added to old
 *   commits);
 * - one of its commits crosses the recent window's edge (HEAD's time moved);
 * - it is in an old commit whose changeset's count in co-change flipped (a changeset grew past, or
 *   shrank under, the size cap, or emptied);
 * - (a symbol) its file is counted again (a symbol's churn falls back to its file's, and its file's
 *   parse gives its parents).
 * A pair of two items neither counted again has the same shared changesets and revisions as before,
 * hence the same numbers; support's denominator is the history's, recounted.
 */
import type { CoChangeRow } from '../graph/types.js'
import { coChangeOfSets, coChangeOrder, withoutEnclosing } from './cochange.js'
import { analyticsPass, finishStats, headPathIds, revisionFlags, slotsOf, stateConfig, type Accumulators, type ActivityCounts, type AnalyticsColumns, type AnalyticsState, type ColumnInput, type ColumnResult, type SlotState } from './columns.js'
import { DAY } from './stats.js'
import type { AnalyticsConfig, CoChange } from './types.js'

/**
 * Past this share of items to count again, the whole pass is as quick; GITWHY_RECOUNT_SHARE sets
 * another (tests set 1: a small fixture's update then counts again rather than making the pass).
 */
function recountShare(): number {
  const set = Number(process.env.GITWHY_RECOUNT_SHARE)
  return set > 0 ? set : 1 / 3
}

export interface PreviousAnalytics {
  state: AnalyticsState
  /** The previous pass's pairs (analytics-out.json's rows: every number but support). */
  fileCoChanged: readonly CoChangeRow[]
  symbolCoChanged: readonly CoChangeRow[]
}

/**
 * The analytics of `cols` (an update's history: cols.updated says what it was made from) from the
 * previous pass's state; `replaced` are the symbols whose histories the update replaced. Undefined
 * when the state does not fit that history, or when most items change anyway: then the caller
 * makes the full pass (`most`: the share of items past which it does).
 */
export function updatedColumnAnalytics(
  cols: AnalyticsColumns,
  input: ColumnInput,
  config: AnalyticsConfig,
  previous: PreviousAnalytics,
  replaced: Iterable<string>,
  most = recountShare(),
): { result: ColumnResult; state: AnalyticsState } | undefined {
  const st = previous.state
  const upd = cols.updated
  if (!upd || st.format !== 1 || st.config !== stateConfig(config) || st.commits !== upd.from.length || st.counted.length !== st.commits || cols.length !== upd.from.length + upd.fresh) return undefined
  const old = upd.from
  const fresh = upd.fresh
  const revision = revisionFlags(cols)
  const heads = headPathIds(cols, input.files, revision)
  const slots = slotsOf(cols, input)
  const { fileKeys, symbolKeys, fileOf, symbolOf } = slots
  const nFiles = fileKeys.length
  const nSymbols = symbolKeys.length
  const recentFrom = input.headTime - config.recentDays * DAY
  const oldRecentFrom = st.headTime - config.recentDays * DAY

  const fileDirty = new Uint8Array(nFiles)
  const symbolDirty = new Uint8Array(nSymbols)
  /** commits whose changesets may hold other items than before */
  const changed = new Uint8Array(cols.length)
  changed.fill(1, 0, fresh)

  // each slot's previous slot (-1: new at HEAD, counted again)
  const fileFrom = previousSlots(st.files, fileKeys, fileDirty)
  const symbolFrom = previousSlots(st.symbols, symbolKeys, symbolDirty)

  // The old commits' file entries map where they did unless HEAD's files changed or a new commit renamed.
  const freshEntries = cols.fileStart[fresh]
  const sameFiles = st.files.keys.length === nFiles && fileFrom.every((at) => at >= 0)
  if (!sameFiles || cols.renamePath.length !== old.renamePath.length) {
    const before = headPathIds(old, st.files.keys.map((path) => ({ path, language: null })), revision.subarray(fresh))
    for (let j = 0; j < old.length; j++) {
      if (revision[j + fresh] === 0) continue
      for (let k = old.fileStart[j]; k < old.fileStart[j + 1]; k++) {
        const was = before[k]
        const now = heads[k + freshEntries]
        if (was === now) continue
        changed[j + fresh] = 1
        if (now >= 0) fileDirty[fileOf[now]] = 1
        if (was >= 0 && fileOf[was] >= 0) fileDirty[fileOf[was]] = 1
      }
    }
  }

  // Symbols whose entries were replaced, or which came or went at HEAD: their commits' changesets
  // may differ (a replaced symbol's dropped entries already marked theirs: symbolsChanged).
  const marked = new Uint8Array(cols.strings.length)
  const mark = (id: string) => {
    const sid = cols.known(id)
    if (sid !== undefined) marked[sid] = 1
    const slot = slots.symbolSlot.get(id)
    if (slot !== undefined) symbolDirty[slot] = 1
  }
  for (const id of replaced) mark(id)
  symbolFrom.forEach((at, slot) => {
    if (at < 0) mark(symbolKeys[slot])
  })
  if (st.symbols.keys.length !== nSymbols - countOf(symbolFrom, -1)) for (const id of st.symbols.keys) if (!slots.symbolSlot.has(id)) mark(id)

  for (let i = 0, n = cols.length; i < n; i++) {
    if (revision[i] === 0) continue
    if (i >= fresh && upd.symbolsChanged[i] === 1) changed[i] = 1
    // a new commit, or one in or out of the recent window now: its items are counted again
    if (i < fresh || cols.time[i] > oldRecentFrom !== cols.time[i] > recentFrom) markCommit(cols, i, heads, fileOf, symbolOf, fileDirty, symbolDirty)
    if (changed[i] === 1) continue
    for (let k = cols.symbolStart[i]; k < cols.symbolStart[i + 1]; k++) {
      if (marked[cols.symbol[k]] === 1) {
        changed[i] = 1
        break
      }
    }
  }

  // the changed commits' changesets: counted as before, or their items counted again
  const counted = new Uint8Array(cols.length)
  counted.set(st.counted, fresh)
  const fileStamp = new Int32Array(nFiles).fill(-1)
  const symbolStamp = new Int32Array(nSymbols).fill(-1)
  for (let i = 0, n = cols.length; i < n; i++) {
    if (changed[i] === 0) continue
    let flags = 0
    if (revision[i] === 1) {
      const fileCount = cols.fileStart[i + 1] - cols.fileStart[i]
      let files = 0
      for (let k = cols.fileStart[i]; k < cols.fileStart[i + 1]; k++) {
        const head = heads[k]
        if (head >= 0 && fileStamp[fileOf[head]] !== i) {
          fileStamp[fileOf[head]] = i
          files++
        }
      }
      let symbols = 0
      for (let k = cols.symbolStart[i]; k < cols.symbolStart[i + 1]; k++) {
        const slot = symbolOf[cols.symbol[k]]
        if (slot >= 0 && symbolStamp[slot] !== i) {
          symbolStamp[slot] = i
          symbols++
        }
      }
      if (fileCount <= config.maxChangesetSize && files > 0) flags |= 1
      if (fileCount <= config.maxChangesetSize && symbols > 0 && symbols <= config.maxChangesetSize) flags |= 2
    }
    if (i >= fresh && flags !== counted[i]) markCommit(cols, i, heads, fileOf, symbolOf, (flags ^ counted[i]) & 1 ? fileDirty : undefined, (flags ^ counted[i]) & 2 ? symbolDirty : undefined)
    counted[i] = flags
  }
  // a symbol of a file counted again is counted again
  for (let s = 0; s < nSymbols; s++) if (slots.symbolFile[s] >= 0 && fileDirty[slots.symbolFile[s]] === 1) symbolDirty[s] = 1

  const dirtyFiles = countOf(fileDirty, 1)
  const dirtySymbols = countOf(symbolDirty, 1)
  if (dirtyFiles > nFiles * most || dirtySymbols > nSymbols * most) return undefined

  // the commits that hold an item counted again, and the pass over them alone
  const relevant = new Uint8Array(cols.length)
  for (let i = 0, n = cols.length; i < n; i++) {
    if (revision[i] === 0) continue
    let hit = false
    for (let k = cols.fileStart[i]; k < cols.fileStart[i + 1] && !hit; k++) hit = heads[k] >= 0 && fileDirty[fileOf[heads[k]]] === 1
    for (let k = cols.symbolStart[i]; k < cols.symbolStart[i + 1] && !hit; k++) hit = symbolOf[cols.symbol[k]] >= 0 && symbolDirty[symbolOf[cols.symbol[k]]] === 1
    if (hit) relevant[i] = 1
  }
  const p = analyticsPass(cols, slots, heads, revision, recentFrom, config, { commits: relevant, files: fileDirty, symbols: symbolDirty })

  let fileChangesets = 0
  let symbolChangesets = 0
  for (let i = 0, n = cols.length; i < n; i++) {
    fileChangesets += counted[i] & 1
    symbolChangesets += (counted[i] >> 1) & 1
  }
  const files = merged(p.files, p.fileCoRevisions, fileDirty, fileFrom, st.files)
  const symbols = merged(p.symbols, p.symbolCoRevisions, symbolDirty, symbolFrom, st.symbols)
  const fileCoChange = mergedPairs(
    coChangeOfSets(p.fileSets, fileKeys, config, { revs: files.coRevisions, total: fileChangesets, only: fileDirty }),
    previous.fileCoChanged,
    slots.fileSlot,
    fileDirty,
    fileChangesets,
  )
  const symbolCoChange = mergedPairs(
    withoutEnclosing(coChangeOfSets(p.symbolSets, symbolKeys, config, { revs: symbols.coRevisions, total: symbolChangesets, only: symbolDirty }), slots.parent),
    previous.symbolCoChanged,
    slots.symbolSlot,
    symbolDirty,
    symbolChangesets,
  )
  return {
    result: { fileStats: finishStats(files.acc, fileKeys), symbolStats: finishStats(symbols.acc, symbolKeys), fileCoChange, symbolCoChange },
    state: {
      format: 1,
      config: st.config,
      headTime: input.headTime,
      commits: cols.length,
      counted,
      files: { keys: fileKeys, ...files.acc, coRevisions: files.coRevisions, changesets: fileChangesets },
      symbols: { keys: symbolKeys, ...symbols.acc, coRevisions: symbols.coRevisions, changesets: symbolChangesets },
    },
  }
}

/**
 * Each key's slot in the previous state (-1: none, and the slot marked dirty). Both lists are in
 * the input's order, mostly the same keys: a key is looked for first where the previous match
 * left off, and a map of the previous keys is made only when that misses.
 */
function previousSlots(previous: SlotState, keys: readonly string[], dirty: Uint8Array): Int32Array {
  const before = previous.keys
  let at: Map<string, number> | null = null
  const out = new Int32Array(keys.length)
  let next = 0
  for (let slot = 0; slot < keys.length; slot++) {
    const key = keys[slot]
    let i: number | undefined = next < before.length && before[next] === key ? next : undefined
    if (i === undefined) {
      at ??= new Map(before.map((k, j) => [k, j]))
      i = at.get(key)
    }
    if (i === undefined) {
      out[slot] = -1
      dirty[slot] = 1
    } else {
      out[slot] = i
      next = i + 1
    }
  }
  return out
}

function countOf(values: ArrayLike<number>, value: number): number {
  let n = 0
  for (let i = 0; i < values.length; i++) if (values[i] === value) n++
  return n
}

/** Marks commit i's file slots in `files` and its symbol slots in `symbols` (either may be left out). */
function markCommit(cols: AnalyticsColumns, i: number, heads: Int32Array, fileOf: Int32Array, symbolOf: Int32Array, files: Uint8Array | undefined, symbols: Uint8Array | undefined): void {
  if (files) for (let k = cols.fileStart[i]; k < cols.fileStart[i + 1]; k++) if (heads[k] >= 0) files[fileOf[heads[k]]] = 1
  if (symbols) {
    for (let k = cols.symbolStart[i]; k < cols.symbolStart[i + 1]; k++) {
      const slot = symbolOf[cols.symbol[k]]
      if (slot >= 0) symbols[slot] = 1
    }
  }
}

/** The pass's numbers for the dirty slots, the previous state's for the others. */
function merged(acc: Accumulators, coRevisions: Int32Array, dirty: Uint8Array, from: Int32Array, previous: SlotState): { acc: ActivityCounts; coRevisions: Int32Array } {
  const out: ActivityCounts = { revisions: acc.revisions, recent: acc.recent, churn: acc.churn, authors: acc.authors, first: acc.first, last: acc.last }
  for (let s = 0; s < dirty.length; s++) {
    if (dirty[s] === 1) continue
    const j = from[s]
    out.revisions[s] = previous.revisions[j]
    out.recent[s] = previous.recent[j]
    out.churn[s] = previous.churn[j]
    out.authors[s] = previous.authors[j]
    out.first[s] = previous.first[j]
    out.last[s] = previous.last[j]
    coRevisions[s] = previous.coRevisions[j]
  }
  return { acc: out, coRevisions }
}

/** The recounted pairs and the previous ones of two items not counted again (both still at HEAD), in co-change's order. */
function mergedPairs(fresh: CoChange[], previous: readonly CoChangeRow[], slot: ReadonlyMap<string, number>, dirty: Uint8Array, changesets: number): CoChange[] {
  const kept: CoChange[] = []
  for (const r of previous) {
    const a = slot.get(r.a)
    const b = slot.get(r.b)
    if (a === undefined || b === undefined || dirty[a] === 1 || dirty[b] === 1) continue
    kept.push({ a: r.a, b: r.b, shared: r.shared, degree: r.degree, confidence_ab: r.confidence, confidence_ba: r.reverse_confidence, support: r.shared / changesets })
  }
  // both in co-change's order already (the previous rows as that pass sorted them): merged
  const out: CoChange[] = []
  let i = 0
  let j = 0
  while (i < kept.length || j < fresh.length) {
    if (j >= fresh.length || (i < kept.length && coChangeOrder(kept[i], fresh[j]) <= 0)) out.push(kept[i++])
    else out.push(fresh[j++])
  }
  return out
}
