import type { FileDiff } from '../../src/git/diff-parser.js'
import type { HistoryGraph } from '../../src/history/graph.js'

/** A FileDiff with defaults: status from the hunks' shape unless given. */
export function fd(path: string, hunks: number[], extra: Partial<FileDiff> = {}): FileDiff {
  let additions = 0
  let deletions = 0
  for (let i = 0; i < hunks.length; i += 4) {
    deletions += hunks[i + 1] - hunks[i]
    additions += hunks[i + 3] - hunks[i + 2]
  }
  return { path, oldPath: path, status: 'M', binary: false, hunks, additions, deletions, whitespaceOnly: false, ...extra }
}

export const added = (path: string, lines: number): FileDiff => fd(path, [0, 0, 0, lines], { status: 'A' })
export const renamed = (from: string, to: string, hunks: number[] = []): FileDiff => fd(to, hunks, { status: 'R', oldPath: from })

export interface NodeSpec {
  parents: number[]
  /** One diff list per parent (a root: one list, vs the empty tree). */
  diffs: FileDiff[][]
  boundary?: boolean
  date?: number
}

/** Commits are given newest first (children before parents), as the mapper expects. */
export function graph(nodes: NodeSpec[]): HistoryGraph {
  return {
    shas: nodes.map((_, i) => `c${i}`),
    parents: nodes.map((n) => n.parents),
    diffs: nodes.map((n) => n.diffs),
    boundary: nodes.map((n) => n.boundary ?? n.parents.some((p) => p < 0)),
    dates: nodes.map((n, i) => n.date ?? 1000 - i),
  }
}
