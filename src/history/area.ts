import type { FileDiff } from '../git/diff-parser.js'
import type { HistoryGraph } from './graph.js'

export interface AreaHit {
  commit: number
  /** The file's path in that commit (for a directory: the directory). */
  path: string
}

export interface AreaResult {
  hits: AreaHit[]
  /** The walk reached the edge of the indexed history. */
  truncated: boolean
}

function touchesDir(fd: FileDiff, dir: string): boolean {
  return fd.path.startsWith(dir) || (fd.status === 'R' && fd.oldPath.startsWith(dir))
}

function touchesFile(fd: FileDiff, path: string): boolean {
  return fd.path === path || (fd.status === 'R' && fd.oldPath === path)
}

/**
 * Area history.
 *
 * Without rename following (`git log -- PATH`, files and directories) git simplifies history: a
 * merge TREESAME to a parent follows only that parent and is not shown; a merge that differs from
 * every parent is shown and all parents are followed.
 *
 * With rename following (`git log --follow -- FILE`) git cannot prune (the path changes), so it
 * walks every commit in its default order (committer date, newest first, ties first-in first-out),
 * never shows merges, and keeps ONE current path that switches to the old name when a commit that
 * created the path by a rename is shown. That order-dependence is reproduced here on purpose.
 */
export function areaHistory(graph: HistoryGraph, head: number, path: string, options: { directory: boolean; follow: boolean }): AreaResult {
  if (options.follow && !options.directory) return followHistory(graph, head, path)
  const hits: AreaHit[] = []
  let truncated = false
  const matches = options.directory
    ? ((dir) => (fd: FileDiff) => touchesDir(fd, dir))(path === '' || path.endsWith('/') ? path : `${path}/`)
    : (fd: FileDiff) => touchesFile(fd, path)
  const pending = new Uint8Array(graph.shas.length)
  pending[head] = 1
  const send = (parent: number) => {
    if (parent < 0) truncated = true
    else pending[parent] = 1
  }
  for (let i = head; i < graph.shas.length; i++) {
    if (!pending[i]) continue
    const parents = graph.parents[i]
    const touching = graph.diffs[i].map((d) => d.some(matches))
    if (parents.length === 0) {
      if (graph.boundary[i]) truncated = true
      if (touching[0]) hits.push({ commit: i, path })
      continue
    }
    const same = touching.findIndex((t) => !t)
    if (same >= 0) {
      send(parents[same])
      continue
    }
    hits.push({ commit: i, path })
    for (const parent of parents) send(parent)
  }
  return { hits, truncated }
}

function followHistory(graph: HistoryGraph, head: number, start: string): AreaResult {
  return followHistories(graph, head, [start])[0]
}

/**
 * `git log --follow` of several files in one walk: the walk's order does not depend on the path,
 * so each file keeps its own current name and gets the hits its own walk would.
 */
export function followHistories(graph: HistoryGraph, head: number, starts: string[]): AreaResult[] {
  const current = [...starts]
  const hits: AreaHit[][] = starts.map(() => [])
  let truncated = false
  // current name -> the files known by it now
  const byName = new Map<string, number[]>()
  const watch = (name: string, k: number) => {
    const list = byName.get(name)
    if (list) list.push(k)
    else byName.set(name, [k])
  }
  starts.forEach((s, k) => watch(s, k))
  const touchedAt = new Int32Array(starts.length).fill(-1)
  const touched: number[] = []
  const queue = new DateQueue(graph.dates)
  const seen = new Uint8Array(graph.shas.length)
  seen[head] = 1
  queue.push(head)
  for (let i = queue.pop(); i >= 0; i = queue.pop()) {
    const parents = graph.parents[i]
    if (parents.length <= 1) {
      const diffs = graph.diffs[i][0] ?? []
      touched.length = 0
      const touch = (name: string) => {
        for (const k of byName.get(name) ?? []) {
          if (touchedAt[k] === i) continue
          touchedAt[k] = i
          touched.push(k)
        }
      }
      for (const fd of diffs) {
        touch(fd.path)
        if (fd.status === 'R') touch(fd.oldPath)
      }
      for (const k of touched) {
        const path = current[k]
        hits[k].push({ commit: i, path })
        const renamed = diffs.find((fd) => fd.status === 'R' && fd.path === path)
        if (renamed) {
          const list = byName.get(path)!
          list.splice(list.indexOf(k), 1)
          if (list.length === 0) byName.delete(path)
          current[k] = renamed.oldPath
          watch(renamed.oldPath, k)
        }
      }
      if (parents.length === 0 && graph.boundary[i]) truncated = true
    }
    for (const p of parents) {
      if (p < 0) truncated = true
      else if (!seen[p]) {
        seen[p] = 1
        queue.push(p)
      }
    }
  }
  return hits.map((h) => ({ hits: h, truncated }))
}

/** Max-heap on committer date; equal dates come out in insertion order, as in git's walk. */
class DateQueue {
  private heap: number[] = []
  private counter = 0
  /** Insertion rank of each commit (every commit is pushed at most once). */
  private readonly order: Int32Array

  constructor(private readonly dates: number[]) {
    this.order = new Int32Array(dates.length)
  }

  private before(a: number, b: number): boolean {
    const da = this.dates[a]
    const db = this.dates[b]
    return da > db || (da === db && this.order[a] < this.order[b])
  }

  push(commit: number): void {
    this.order[commit] = this.counter++
    const h = this.heap
    h.push(commit)
    let i = h.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.before(h[i], h[parent])) break
      ;[h[i], h[parent]] = [h[parent], h[i]]
      i = parent
    }
  }

  pop(): number {
    const h = this.heap
    if (h.length === 0) return -1
    const top = h[0]
    const last = h.pop() as number
    if (h.length > 0) {
      h[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < h.length && this.before(h[l], h[m])) m = l
        if (r < h.length && this.before(h[r], h[m])) m = r
        if (m === i) break
        ;[h[i], h[m]] = [h[m], h[i]]
        i = m
      }
    }
    return top
  }
}
