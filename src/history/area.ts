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

/**
 * Area history, as `git log --follow -- FILE` (renames followed) or `git log -- PATH` gives it,
 * with git's default history simplification: a merge that is TREESAME to a parent follows only
 * that parent and is not shown; a merge that differs from every parent is shown and every parent
 * is followed.
 */
export function areaHistory(graph: HistoryGraph, head: number, path: string, options: { directory: boolean; follow: boolean }): AreaResult {
  const hits: AreaHit[] = []
  let truncated = false
  const dir = options.directory ? (path === '' || path.endsWith('/') ? path : `${path}/`) : ''
  // pending[commit] = set of paths being followed in that commit (a file can carry several names
  // when branches renamed it differently)
  const pending = new Map<number, Set<string>>()
  pending.set(head, new Set([path]))

  const send = (parent: number, p: string) => {
    if (parent < 0) {
      truncated = true
      return
    }
    let s = pending.get(parent)
    if (!s) pending.set(parent, (s = new Set()))
    s.add(p)
  }

  for (let i = head; i < graph.shas.length; i++) {
    const paths = pending.get(i)
    if (!paths) continue
    pending.delete(i)
    const parents = graph.parents[i]
    const diffs = graph.diffs[i]
    if (parents.length === 0 && graph.boundary[i]) truncated = true
    for (const p of paths) {
      if (options.directory) {
        const touching = diffs.map((d) => d.some((fd) => touchesDir(fd, dir)))
        if (parents.length === 0) {
          if (touching[0]) hits.push({ commit: i, path: p })
          continue
        }
        const same = touching.findIndex((t) => !t)
        if (same >= 0) {
          send(parents[same], p)
          continue
        }
        hits.push({ commit: i, path: p })
        for (const parent of parents) send(parent, p)
        continue
      }
      const entries = diffs.map((d) => d.filter((fd) => fd.path === p || (fd.status === 'R' && fd.oldPath === p)))
      if (parents.length === 0) {
        if (entries[0].length > 0) hits.push({ commit: i, path: p })
        continue
      }
      const same = entries.findIndex((e) => e.length === 0)
      if (same >= 0) {
        send(parents[same], p)
        continue
      }
      hits.push({ commit: i, path: p })
      parents.forEach((parent, k) => {
        const renamed = options.follow ? entries[k].find((fd) => fd.status === 'R' && fd.path === p) : undefined
        send(parent, renamed ? renamed.oldPath : p)
      })
    }
  }
  return { hits, truncated }
}
