import { closeSync, ftruncateSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs'
import path from 'node:path'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { decodeBytes } from '../git/decode.js'
import type { FileDiff, FileStatus } from '../git/diff-parser.js'
import type { PatchCheckpoint, PatchSink, RawCommit } from '../git/history-reader.js'
import { isDirectoryMark } from '../git/merge-diffs.js'
import type { HistoryGraph } from './graph.js'
import { appendSegments, SegmentReader } from './segments.js'
import { ShardReader, updateShards, writeShards } from './shards.js'
import { damagedIndex, parseIndexJson, readIndexFile } from '../services/index-integrity.js'
import { PROJECT_ROOT } from '../parse/registry.js'
import { WorkerCalls } from '../runtime/worker-calls.js'

/**
 * The mined history laid out for single-path questions: `dag.json` (SHAs, parents, dates,
 * boundary flags) and `diffs.bin`, JSON sections holding every diff entry that names a path (as
 * its new path, or as the source of a rename), located through `diffs-index/` (sharded by path). A query loads
 * the DAG and the sections of the path and its earlier names only, and gets a sparse HistoryGraph
 * that walks exactly like the full one for that lineage.
 *
 * Commits are numbered by age (0 = oldest), which new commits never change: an update appends
 * them to the DAG and new sections to diffs.bin (a path can own several), a store in segments
 * (segments.ts) of which an update copies at most the last.
 */
const DAG = 'dag.json'
const DIFFS = 'diffs.bin'
/** Sharded by path (see shards.ts): path -> the [offset, length] of each of its sections. */
const INDEX = 'diffs-index'

// [age, parentIndex, path, oldPath, status, flags, additions, deletions, hunks]
type Entry = [number, number, string, string, FileStatus, number, number, number, number[]]

export interface Dag {
  /** By age: index 0 is the oldest commit. */
  shas: string[]
  parents: number[][]
  dates: number[]
  boundary: number[]
}

type Sections = Record<string, Array<[number, number]>>

/** The indexed commits' graph without diffs (PathIndex.skeleton). */
type Skeleton = Omit<HistoryGraph, 'diffs'> & { empty: FileDiff[][][] }

const EMPTY_DIFFS: FileDiff[][][] = []
/**
 * The diffs of a commit with `parents` parents (a root has one list) that touch no walked path:
 * frozen empty lists, shared by every such commit of every walk (a commit's own are made when its
 * first entry comes).
 */
function emptyDiffs(parents: number): FileDiff[][] {
  const m = Math.max(1, parents)
  return (EMPTY_DIFFS[m] ??= Object.freeze(Array.from({ length: m }, () => Object.freeze([]) as unknown as FileDiff[])) as unknown as FileDiff[][])
}

/**
 * The patch store: the removed and added lines of every first-parent (and root) diff, for
 * `--patch` and `pickaxe`. `patches.bin` holds deflated sections by path (the diff's new path),
 * located through `patches-index/`; `patches` gives entries as [age, path, text] (FileDiff.text
 * decoded). A section is PATCH_SECTION, its entry count, each entry's age and byte length
 * (uint32 LE) and the entries' bytes as git wrote them: no string is made of the text at build
 * time. An index from before holds sections of JSON ('[' first), which read the same.
 */
const PATCHES = 'patches.bin'
const PATCH_INDEX = 'patches-index'
export type PatchEntry = [number, string, string]
const PATCH_SECTION = 0
/** An entry as it is written: the commit's age and the hunk lines' bytes (the section names the path). */
type StoredPatch = [age: number, text: Uint8Array]

/**
 * The first-parent diff entries whose text the store keeps: every one of a commit with one
 * parent; of a merge, those whose path differs from every other parent's too. A merge whose file
 * is some other parent's blob is TREESAME to that parent there: `git log -L` passes every range of
 * the file to it and never shows the merge, and `git log -S/-G` look at no merge's diff, so that
 * text is read by nothing (on git/git the merges' first-parent patches are 552 MB, more than all
 * other commits' together, and nearly all of it is the branch's own lines, stored with its commits).
 */
export function storedPatchEntries(diffs: FileDiff[][]): FileDiff[] {
  const first = diffs[0] ?? []
  if (diffs.length <= 1) return first
  const others = diffs.slice(1).map((list) => new Set(list.map((d) => d.path)))
  return first.filter((d) => others.every((paths) => paths.has(d.path)))
}

function patchesByPath(perCommit: Array<{ age: number; diffs: FileDiff[][] }>): Map<string, StoredPatch[]> {
  const sections = new Map<string, StoredPatch[]>()
  for (const { age, diffs } of perCommit) {
    for (const d of storedPatchEntries(diffs)) {
      if (!d.text) continue
      let list = sections.get(d.path)
      if (!list) sections.set(d.path, (list = []))
      list.push([age, d.text])
    }
  }
  return sections
}

/** One path's entries as a stored section (deflated). */
export function deflatePatches(entries: StoredPatch[]): Buffer {
  const { buf } = layOut(new Map([['', entries]]))
  return deflateRawSync(buf, { level: 1 })
}

/** A stored section's entries (either format), or null when it does not read. */
export function inflatePatches(buf: Buffer, p: string): PatchEntry[] | null {
  let data: Buffer
  try {
    data = inflateRawSync(buf)
  } catch {
    return null
  }
  if (data[0] === 0x5b) {
    try {
      return JSON.parse(data.toString('utf8')) as PatchEntry[]
    } catch {
      return null
    }
  }
  if (data.length < 5 || data[0] !== PATCH_SECTION) return null
  const n = data.readUInt32LE(1)
  let at = 5 + 8 * n
  if (at > data.length) return null
  const out: PatchEntry[] = []
  for (let i = 0; i < n; i++) {
    const length = data.readUInt32LE(9 + 8 * i)
    if (at + length > data.length) return null
    out.push([data.readUInt32LE(5 + 8 * i), p, decodeBytes(data.subarray(at, at + length))])
    at += length
  }
  return at === data.length ? out : null
}

/**
 * A path's locations in `index`, added empty on first use: as an own property, whatever the name
 * (a file may be called `constructor` or `__proto__`).
 */
function locationsOf(index: Sections, p: string): Array<[number, number]> {
  if (!Object.hasOwn(index, p)) Object.defineProperty(index, p, { value: [], writable: true, enumerable: true, configurable: true })
  return index[p]
}

/**
 * A flush's sections laid out, undeflated, in one buffer of their own (handed to the patch file's
 * thread as it is, not copied): each path's [start, end) in it, in order.
 */
export interface LaidOutSections {
  buf: Uint8Array
  parts: Array<[path: string, start: number, end: number]>
}

function layOut(sections: Map<string, StoredPatch[]>): LaidOutSections {
  let size = 0
  for (const entries of sections.values()) {
    size += 5 + 8 * entries.length
    for (const [, text] of entries) size += text.length
  }
  // its own memory (not the pool's), to be handed to the patch file's thread whole
  const buf = Buffer.allocUnsafeSlow(size)
  const parts: LaidOutSections['parts'] = []
  let start = 0
  for (const [p, entries] of sections) {
    // a section: PATCH_SECTION, its entry count, each entry's age and byte length, their bytes
    buf[start] = PATCH_SECTION
    buf.writeUInt32LE(entries.length, start + 1)
    let at = start + 5 + 8 * entries.length
    entries.forEach(([age, text], i) => {
      buf.writeUInt32LE(age, start + 5 + 8 * i)
      buf.writeUInt32LE(text.length, start + 9 + 8 * i)
      buf.set(text, at)
      at += text.length
    })
    parts.push([p, start, at])
    start = at
  }
  return { buf, parts }
}

function entriesByPath(perCommit: Array<{ age: number; diffs: FileDiff[][] }>): Map<string, Entry[]> {
  const sections = new Map<string, Entry[]>()
  const add = (p: string, e: Entry) => {
    let list = sections.get(p)
    if (!list) sections.set(p, (list = []))
    list.push(e)
  }
  for (const { age, diffs } of perCommit) {
    diffs.forEach((list, k) => {
      for (const d of list) {
        const e: Entry = [age, k, d.path, d.oldPath, d.status, (d.binary ? 1 : 0) | (d.whitespaceOnly ? 2 : 0), d.additions, d.deletions, d.hunks]
        add(d.path, e)
        if (d.oldPath !== d.path) add(d.oldPath, e)
      }
    })
  }
  return sections
}

/**
 * Write sections to the file `fd` at `offset` onwards, one at a time (the whole store is never
 * one buffer); records their locations in `index`.
 */
function writeSections(fd: number, sections: Map<string, Entry[]>, index: Sections, offset: number): void {
  for (const [p, entries] of sections) {
    const buf = Buffer.from(JSON.stringify(entries))
    locationsOf(index, p).push([offset, buf.length])
    for (let at = 0; at < buf.length; ) at += writeSync(fd, buf, at, buf.length - at, offset + at)
    offset += buf.length
    sections.delete(p)
  }
}

function withFile<T>(file: string, flags: string, fn: (fd: number) => T): T {
  const fd = openSync(file, flags)
  try {
    return fn(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * The patch store's file as a PatchWriter fills it, on the patch file's thread: each flush's
 * sections deflated and written at the end, their locations indexed (a path owns one section per
 * flush); at the finish the file goes into the index directory with its section index.
 */
export class PatchFile {
  private index: Sections = {}
  private offset = 0
  private fd = -1
  private file = ''

  constructor(private readonly dir: string) {}

  open(file: string | null, from: PatchCheckpoint | null): void {
    this.file = file ?? path.join(this.dir, PATCHES)
    this.fd = openSync(this.file, from ? 'r+' : 'w')
    if (from) {
      ftruncateSync(this.fd, from.bytes)
      this.offset = from.bytes
      this.index = structuredClone(from.index)
    }
  }

  write({ buf, parts }: LaidOutSections): void {
    const section = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength)
    for (const [p, start, end] of parts) {
      const out = deflateRawSync(section.subarray(start, end), { level: 1 })
      locationsOf(this.index, p).push([this.offset, out.length])
      for (let at = 0; at < out.length; ) at += writeSync(this.fd, out, at, out.length - at, this.offset + at)
      this.offset += out.length
    }
  }

  /** Where the file stands: a copy (the index grows on with the next writes). */
  checkpoint(): PatchCheckpoint {
    return { bytes: this.offset, index: structuredClone(this.index) }
  }

  finish(): void {
    closeSync(this.fd)
    this.fd = -1
    const target = path.join(this.dir, PATCHES)
    if (this.file !== target) renameSync(this.file, target)
    writeShards(this.dir, PATCH_INDEX, Object.entries(this.index))
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd)
    this.fd = -1
  }
}

export type PatchFileCall = { op: 'open'; dir: string; file: string | null; from: PatchCheckpoint | null } | { op: 'write'; sections: LaidOutSections } | { op: 'checkpoint' } | { op: 'finish' } | { op: 'close' }

/**
 * A PatchFile driven by calls (the patch file's thread, or this one): the first failure (a full
 * disk) is kept and every call after it fails with it, so that the checkpoint or the finish that
 * the history's read waits for reports it.
 */
export function patchFileCalls(): (call: PatchFileCall) => PatchCheckpoint | null {
  let store: PatchFile | null = null
  let failed: Error | null = null
  return (call) => {
    // a close still closes the file (a worker's descriptor is the process's)
    if (failed && call.op !== 'close') throw failed
    try {
      if (call.op === 'open') (store = new PatchFile(call.dir)).open(call.file, call.from)
      else if (call.op === 'write') store!.write(call.sections)
      else if (call.op === 'checkpoint') return store!.checkpoint()
      else if (call.op === 'finish') store!.finish()
      else store?.close()
      return null
    } catch (error) {
      failed = error instanceof Error ? error : new Error(String(error))
      throw failed
    }
  }
}

const PATCH_WORKER = path.join(PROJECT_ROOT, 'dist', 'history', 'patch-worker.js')

/**
 * Writes the patch store of a full build while the history is read: each commit's patch text
 * goes into per-path sections that are handed out every few MB and at every checkpoint, and the
 * text is dropped from the diffs, so the build never holds the whole patch. The sections are
 * deflated and written on a thread of their own (PatchFile): ~4 s of rails/rails' main thread in
 * the history phase, where it parses what git's logs write. A checkpointed read has it write in
 * the checkpoint directory (what a resumed run continues), and `finish` moves the file into the
 * index.
 */
export class PatchWriter implements PatchSink {
  private pending: Array<{ age: number; diffs: FileDiff[][] }> = []
  private pendingChars = 0
  private readonly calls: WorkerCalls<PatchFileCall, PatchCheckpoint | null>
  /** The writes asked for and not yet answered: a failed one fails the next checkpoint or the finish. */
  private writes: Array<Promise<unknown>> = []

  /** `threaded` false: deflated and written in this thread. */
  constructor(
    private readonly dir: string,
    threaded = true,
  ) {
    this.calls = new WorkerCalls(threaded ? PATCH_WORKER : null, patchFileCalls(), 'writing the patch store')
  }

  open(file: string | null, from: PatchCheckpoint | null): void {
    this.track(this.calls.call({ op: 'open', dir: this.dir, file, from }))
  }

  /** Take the text of one commit's first-parent diff (what storedPatchEntries keeps of it). */
  add(age: number, diffs: FileDiff[][]): void {
    const kept: FileDiff[] = []
    for (const d of storedPatchEntries(diffs)) {
      if (!d.text) continue
      kept.push({ ...d })
      this.pendingChars += d.text.length
    }
    for (const d of diffs[0] ?? []) delete d.text
    if (kept.length > 0) this.pending.push({ age, diffs: [kept] })
    if (this.pendingChars > 32 * 1024 * 1024) this.flush()
  }

  async checkpoint(): Promise<PatchCheckpoint> {
    this.flush()
    await this.settled()
    return (await this.calls.call({ op: 'checkpoint' }))!
  }

  /** Write what is left and the section index. */
  async finish(): Promise<void> {
    this.flush()
    await this.settled()
    await this.calls.call({ op: 'finish' })
    await this.calls.close()
  }

  /** Stop without finishing (the build failed). */
  async close(): Promise<void> {
    await this.calls.call({ op: 'close' }).catch(() => {})
    await this.calls.close()
  }

  private flush(): void {
    if (this.pending.length === 0) return
    const sections = layOut(patchesByPath(this.pending))
    this.pending = []
    this.pendingChars = 0
    this.track(this.calls.call({ op: 'write', sections }, [sections.buf.buffer as ArrayBuffer]))
  }

  private track(call: Promise<unknown>): void {
    call.catch(() => {})
    this.writes.push(call)
  }

  private async settled(): Promise<void> {
    const writes = this.writes
    this.writes = []
    await Promise.all(writes)
  }
}

/** The path index of a full build; its patch store was written by a PatchWriter. */
export function savePathIndex(dir: string, graph: HistoryGraph): void {
  const n = graph.shas.length
  const perCommit = graph.diffs.map((diffs, i) => ({ age: n - 1 - i, diffs }))
  const index: Sections = {}
  withFile(path.join(dir, DIFFS), 'w', (fd) => writeSections(fd, entriesByPath(perCommit), index, 0))
  writeShards(dir, INDEX, Object.entries(index))
  const byAge = (i: number) => n - 1 - i
  const dag: Dag = { shas: [], parents: [], dates: [], boundary: [] }
  for (let age = 0; age < n; age++) {
    const i = n - 1 - age
    dag.shas.push(graph.shas[i])
    dag.parents.push(graph.parents[i].map((p) => (p < 0 ? -1 : byAge(p))))
    dag.dates.push(graph.dates[i])
    dag.boundary.push(graph.boundary[i] ? 1 : 0)
  }
  writeFileSync(path.join(dir, DAG), JSON.stringify(dag))
}

export class PathIndex {
  private dagCache: Dag | null = null
  /** dag.json as read (appendTo writes the next one from it). */
  private dagBytes: Buffer | null = null
  private readonly index: ShardReader<Array<[number, number]>>
  private readonly patchIndex: ShardReader<Array<[number, number]>>

  private constructor(private readonly dir: string) {
    this.index = new ShardReader(dir, INDEX)
    this.patchIndex = new ShardReader(dir, PATCH_INDEX)
  }

  /**
   * The stored hunk lines of the first-parent diffs that name these paths (every path when
   * `paths` is null), as [age, path, text]; `topo` turns an age into the index of a graph from
   * graphFor (0 = newest).
   */
  patches(paths: Iterable<string> | null): PatchEntry[] {
    const wanted = paths === null ? Object.keys(this.patchIndex.entries()) : [...new Set(paths)]
    const out: PatchEntry[] = []
    const store = new SegmentReader(this.dir, PATCHES)
    try {
      for (const p of wanted) {
        for (const [offset, length] of this.patchIndex.get(p) ?? []) {
          const entries = inflatePatches(store.read(offset, length), p)
          if (!entries) throw damagedIndex(this.dir, `a section of ${PATCHES} cannot be read`)
          for (const e of entries) out.push(e)
        }
      }
    } finally {
      store.close()
    }
    return out
  }

  /** The graph index (0 = newest) of a commit's age, in a graph from graphFor without fresh commits. */
  topo(age: number): number {
    return this.size - 1 - age
  }

  static open(dir: string): PathIndex {
    return new PathIndex(dir)
  }

  get dag(): Dag {
    if (!this.dagCache) {
      const data = readIndexFile(this.dir, DAG)
      if (!data) throw damagedIndex(this.dir, `${DAG} is missing`)
      this.dagCache = parseIndexJson<Dag>(this.dir, DAG, data.toString('utf8'))
      this.dagBytes = data
    }
    return this.dagCache
  }

  private skeletonCache: Skeleton | null = null

  /**
   * The indexed commits as a graph without diffs (0 = newest), made once: every walk of one path
   * shares its arrays (read-only), and its per-commit diff lists are frozen empty ones that
   * graphFor replaces where a path has entries. A walk on git/git (82k commits) built all of them
   * anew: ~34 ms a walk before it read any diff.
   */
  private skeleton(): Skeleton {
    if (!this.skeletonCache) {
      const { shas, parents, dates, boundary } = this.dag
      const n = shas.length
      const sk: Skeleton = { shas: [], parents: [], dates: [], boundary: [], empty: [] }
      for (let age = n - 1; age >= 0; age--) {
        sk.shas.push(shas[age])
        sk.parents.push(parents[age].map((p) => (p < 0 ? -1 : n - 1 - p)))
        sk.dates.push(dates[age])
        sk.boundary.push(boundary[age] === 1)
        sk.empty.push(emptyDiffs(parents[age].length))
      }
      // shared by every walk: a caller that wrote into them would change the others' graphs (the
      // list of empty lists is copied by each walk: a frozen one copies ~4x slower)
      for (const list of [sk.shas, sk.parents, sk.dates, sk.boundary]) Object.freeze(list)
      this.skeletonCache = sk
    }
    return this.skeletonCache
  }

  get size(): number {
    return this.dag.shas.length
  }

  /** Every path that ever appears in the history (reads the whole index). */
  paths(): string[] {
    return Object.keys(this.index.entries()).filter((p) => !isDirectoryMark(p))
  }

  has(p: string): boolean {
    return !isDirectoryMark(p) && this.index.get(p) !== undefined
  }

  private read(paths: Iterable<string>): Entry[] {
    const out: Entry[] = []
    const store = new SegmentReader(this.dir, DIFFS)
    try {
      for (const p of paths) {
        for (const [offset, length] of this.index.get(p) ?? []) {
          // a section must lie inside the store and parse: anything else is damage, not a bug
          const buf = store.read(offset, length)
          const entries = parseIndexJson<Entry[]>(this.dir, DIFFS, buf.toString('utf8'))
          if (!Array.isArray(entries)) throw damagedIndex(this.dir, `a section of ${DIFFS} cannot be parsed`)
          for (const e of entries) out.push(e)
        }
      }
    } finally {
      store.close()
    }
    return out
  }

  /** Entries of `start` and, transitively, of the names the paths were renamed from. */
  private lineage(start: Iterable<string>, prefix: string | null): Entry[] {
    const loaded = new Set<string>()
    const entries: Entry[] = []
    // a directory's walk reads the directory marks under it too (merge-diffs.ts)
    let frontier = prefix === null ? [...new Set(start)] : Object.keys(this.index.entries()).filter((p) => p.startsWith(prefix))
    while (frontier.length > 0) {
      for (const p of frontier) loaded.add(p)
      const batch = this.read(frontier)
      const next = new Set<string>()
      for (const e of batch) {
        entries.push(e)
        if (prefix === null && !loaded.has(e[3])) next.add(e[3])
      }
      frontier = [...next]
    }
    return entries
  }

  /**
   * A graph holding only the diff entries of `start` and the names it was renamed from; with
   * `prefix`, of every path under that directory. `fresh` commits (newer than everything indexed,
   * newest first) are put in front with all their diffs: that is the graph of an update.
   */
  graphFor(start: string | string[], options: { prefix?: boolean; fresh?: RawCommit[] } = {}): HistoryGraph {
    const fresh = options.fresh ?? []
    const k = fresh.length
    const n = this.size
    // topological index (0 = newest): fresh commits first, then the indexed ones by falling age
    const topo = (age: number) => k + n - 1 - age
    let g: HistoryGraph
    if (k === 0) {
      const sk = this.skeleton()
      g = { shas: sk.shas, parents: sk.parents, dates: sk.dates, boundary: sk.boundary, diffs: sk.empty.slice() }
    } else {
      // an update's one walk: the fresh commits, then the indexed ones straight from the DAG (the
      // skeleton and a copy of it shifted by k were ~45 ms of git/git's update)
      g = { shas: [], parents: [], dates: [], boundary: [], diffs: [] }
      const freshIndex = new Map(fresh.map((c, i) => [c.sha, i]))
      const { shas, parents, dates, boundary } = this.dag
      // a stored parent is found from the newest back (nearly always a few steps)
      const stored = (sha: string) => {
        const age = shas.lastIndexOf(sha)
        return age < 0 ? -1 : topo(age)
      }
      fresh.forEach((c) => {
        g.shas.push(c.sha)
        g.parents.push(c.parents.map((p) => freshIndex.get(p) ?? stored(p)))
        g.dates.push(Math.floor(Date.parse(c.committerDate) / 1000))
        g.boundary.push(false)
        g.diffs.push(c.diffs.length > 0 ? c.diffs : [[]])
      })
      for (let age = n - 1; age >= 0; age--) {
        g.shas.push(shas[age])
        g.parents.push(parents[age].map((p) => (p < 0 ? -1 : topo(p))))
        g.dates.push(dates[age])
        g.boundary.push(boundary[age] === 1)
        g.diffs.push(emptyDiffs(parents[age].length))
      }
    }
    const roots = typeof start === 'string' ? [start] : start
    const seeds = new Set(roots)
    // names reached through the fresh commits' renames continue in the indexed history
    for (const c of fresh) for (const d of c.diffs) for (const f of d) if (seeds.has(f.path)) seeds.add(f.oldPath)
    const seen = new Set<string>()
    for (const e of this.lineage(seeds, options.prefix ? roots[0] : null)) {
      const [age, kk, p, oldPath, status, flags, additions, deletions, hunks] = e
      const key = `${age}\0${kk}\0${p}\0${oldPath}`
      if (seen.has(key)) continue
      seen.add(key)
      const t = topo(age)
      // the shared empty lists are frozen: a commit's own are made when its first entry comes
      if (Object.isFrozen(g.diffs[t])) g.diffs[t] = g.diffs[t].map(() => [])
      g.diffs[t][kk].push({ path: p, oldPath, status, binary: (flags & 1) !== 0, whitespaceOnly: (flags & 2) !== 0, additions, deletions, hunks })
    }
    return g
  }

  /**
   * Write the index of `dir` as this one plus `fresh` commits (newest first): the DAG grows at the
   * young end, and new sections are appended to diffs.bin and patches.bin (appendSegments).
   */
  appendTo(dir: string, fresh: RawCommit[]): void {
    const n = this.size
    const k = fresh.length
    const added: Dag = { shas: [], parents: [], dates: [], boundary: [] }
    const freshAge = new Map(fresh.map((c, i) => [c.sha, n + k - 1 - i]))
    // a stored parent is found from the newest back (nearly always HEAD's line, a few steps back):
    // a map of every stored sha was ~40 ms on git/git's 82,000
    const ageOf = (sha: string) => freshAge.get(sha) ?? this.dag.shas.lastIndexOf(sha)
    for (let i = k - 1; i >= 0; i--) {
      const c = fresh[i]
      added.shas.push(c.sha)
      added.parents.push(c.parents.map(ageOf))
      added.dates.push(Math.floor(Date.parse(c.committerDate) / 1000))
      added.boundary.push(0)
    }
    const perCommit = fresh.map((c, i) => ({ age: n + k - 1 - i, diffs: c.diffs }))
    const append = (name: string, index: ShardReader<Array<[number, number]>>, shards: string, sections: Array<[string, Buffer]>) => {
      const offsets = appendSegments(this.dir, dir, name, sections.map(([, buf]) => buf))
      const added: Sections = {}
      sections.forEach(([p, buf], i) => locationsOf(added, p).push([offsets[i], buf.length]))
      updateShards(this.dir, dir, shards, Object.entries(added).map(([p, locations]) => [p, [...(index.get(p) ?? []), ...locations]] as [string, Array<[number, number]>]))
    }
    append(DIFFS, this.index, INDEX, [...entriesByPath(perCommit)].map(([p, entries]) => [p, Buffer.from(JSON.stringify(entries))]))
    append(PATCHES, this.patchIndex, PATCH_INDEX, [...patchesByPath(perCommit)].map(([p, entries]) => [p, deflatePatches(entries)]))
    writeFileSync(path.join(dir, DAG), appendedDag(this.dagBytes, this.dag, added))
  }
}

const DAG_KEYS = ['shas', 'parents', 'dates', 'boundary'] as const

/**
 * dag.json with `added`'s entries after each list's: spliced into the stored text when it is
 * JSON.stringify's (the keys in this order, no spaces), else written out anew; the same bytes
 * either way. Copying and writing out git/git's 5.4 MB again was ~0.1 s of an update.
 */
export function appendedDag(stored: Buffer | null, dag: Dag, added: Dag): Buffer | string {
  const whole = () => JSON.stringify(Object.fromEntries(DAG_KEYS.map((key) => [key, [...dag[key], ...added[key]]])))
  if (!stored) return whole()
  // where each list ends: before `],"<next key>":[`, and before the closing `]}`
  const ends: number[] = []
  for (let i = 1; i < DAG_KEYS.length; i++) ends.push(stored.indexOf(`],"${DAG_KEYS[i]}":[`))
  ends.push(stored.length - 2)
  if (stored.subarray(0, 9).toString() !== '{"shas":[') return whole()
  if (ends.some((at, i) => at < 0 || (i > 0 && at <= ends[i - 1])) || stored.subarray(stored.length - 2).toString() !== ']}') return whole()
  const parts: Buffer[] = []
  let from = 0
  DAG_KEYS.forEach((key, i) => {
    parts.push(stored.subarray(from, ends[i]))
    if (added[key].length > 0) {
      const text = JSON.stringify(added[key])
      // the stored list is empty when its '[' is right before its end
      parts.push(Buffer.from((stored[ends[i] - 1] === 0x5b ? '' : ',') + text.slice(1, -1)))
    }
    from = ends[i]
  })
  parts.push(stored.subarray(from))
  return Buffer.concat(parts)
}
