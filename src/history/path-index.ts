import { closeSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { FileDiff, FileStatus } from '../git/diff-parser.js'
import type { HistoryGraph } from './graph.js'

/**
 * The mined history laid out for single-path questions: `dag.json` (SHAs, parents, dates,
 * boundary flags) and `diffs.bin`, one JSON section per path holding every diff entry that names
 * the path (as its new path, or as the source of a rename), located through `diffs-index.json`.
 * A query loads the DAG and the sections of the path and its earlier names only, and gets a
 * sparse HistoryGraph that walks exactly like the full one for that lineage.
 */
const DAG = 'dag.json'
const DIFFS = 'diffs.bin'
const INDEX = 'diffs-index.json'

// [commit, parentIndex, path, oldPath, status, flags, additions, deletions, hunks]
type Entry = [number, number, string, string, FileStatus, number, number, number, number[]]

interface Dag {
  shas: string[]
  parents: number[][]
  dates: number[]
  boundary: number[]
}

export function savePathIndex(dir: string, graph: HistoryGraph): void {
  const sections = new Map<string, Entry[]>()
  const add = (p: string, e: Entry) => {
    let list = sections.get(p)
    if (!list) sections.set(p, (list = []))
    list.push(e)
  }
  graph.diffs.forEach((perParent, i) =>
    perParent.forEach((diffs, k) => {
      for (const d of diffs) {
        const e: Entry = [i, k, d.path, d.oldPath, d.status, (d.binary ? 1 : 0) | (d.whitespaceOnly ? 2 : 0), d.additions, d.deletions, d.hunks]
        add(d.path, e)
        if (d.oldPath !== d.path) add(d.oldPath, e)
      }
    }),
  )
  const index: Record<string, [number, number]> = {}
  const chunks: Buffer[] = []
  let offset = 0
  for (const [p, entries] of sections) {
    const buf = Buffer.from(JSON.stringify(entries))
    index[p] = [offset, buf.length]
    chunks.push(buf)
    offset += buf.length
  }
  writeFileSync(path.join(dir, DIFFS), Buffer.concat(chunks))
  writeFileSync(path.join(dir, INDEX), JSON.stringify(index))
  const dag: Dag = { shas: graph.shas, parents: graph.parents, dates: graph.dates, boundary: graph.boundary.map((b) => (b ? 1 : 0)) }
  writeFileSync(path.join(dir, DAG), JSON.stringify(dag))
}

export class PathIndex {
  private constructor(
    private readonly dir: string,
    readonly dag: Dag,
    private readonly index: Record<string, [number, number]>,
  ) {}

  static open(dir: string): PathIndex {
    const dag = JSON.parse(readFileSync(path.join(dir, DAG), 'utf8')) as Dag
    const index = JSON.parse(readFileSync(path.join(dir, INDEX), 'utf8')) as Record<string, [number, number]>
    return new PathIndex(dir, dag, index)
  }

  /** Every path that ever appears in the history. */
  paths(): string[] {
    return Object.keys(this.index)
  }

  has(p: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.index, p)
  }

  private read(paths: Iterable<string>): Entry[] {
    const out: Entry[] = []
    const fd = openSync(path.join(this.dir, DIFFS), 'r')
    try {
      for (const p of paths) {
        const loc = this.index[p]
        if (!loc) continue
        const buf = Buffer.alloc(loc[1])
        readSync(fd, buf, 0, loc[1], loc[0])
        for (const e of JSON.parse(buf.toString('utf8')) as Entry[]) out.push(e)
      }
    } finally {
      closeSync(fd)
    }
    return out
  }

  /**
   * A graph holding only the diff entries of `start` and, transitively, of the names it was
   * renamed from; with `prefix`, of every path under that directory.
   */
  graphFor(start: string, options: { prefix?: boolean } = {}): HistoryGraph {
    const wanted = new Set<string>()
    if (options.prefix) {
      for (const p of this.paths()) if (p.startsWith(start)) wanted.add(p)
    } else wanted.add(start)
    const loaded = new Set<string>()
    const entries: Entry[] = []
    let frontier = [...wanted]
    while (frontier.length > 0) {
      for (const p of frontier) loaded.add(p)
      const batch = this.read(frontier)
      frontier = []
      for (const e of batch) {
        entries.push(e)
        if (!options.prefix && e[2] !== e[3] && !loaded.has(e[3]) && !frontier.includes(e[3])) frontier.push(e[3])
      }
    }
    const { shas, parents, dates, boundary } = this.dag
    const diffs: FileDiff[][][] = parents.map((ps) => (ps.length === 0 ? [[]] : ps.map(() => [])))
    const seen = new Set<string>()
    for (const e of entries) {
      const [i, k, p, oldPath, status, flags, additions, deletions, hunks] = e
      const key = `${i}\0${k}\0${p}\0${oldPath}`
      if (seen.has(key)) continue
      seen.add(key)
      diffs[i][k].push({ path: p, oldPath, status, binary: (flags & 1) !== 0, whitespaceOnly: (flags & 2) !== 0, additions, deletions, hunks })
    }
    return { shas, parents, dates, boundary: boundary.map((b) => b === 1), diffs }
  }
}
