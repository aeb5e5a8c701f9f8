import type { FileDiff } from '../git/diff-parser.js'

/**
 * The commit DAG with per-parent diffs: what the hunk mapper walks. Commits are in topological
 * order, newest first (every child before its parents).
 */
export interface HistoryGraph {
  shas: string[]
  /** Parent indices; -1 for a parent outside the indexed history (cut by --max-commits). */
  parents: number[][]
  /** diffs[i][k]: changes from parents[i][k] to commit i. A root commit has diffs[i][0] vs the empty tree. */
  diffs: FileDiff[][][]
  /** Commits whose history is cut: a shallow-clone graft, or a parent outside the indexed range. */
  boundary: boolean[]
  /** Committer dates (epoch seconds): the order of git's default revision walk. */
  dates: number[]
}

export function buildGraph(
  commits: Array<{ sha: string; parents: string[]; diffs: FileDiff[][]; committerDate: string }>,
  shallow: ReadonlySet<string>,
): HistoryGraph {
  const index = new Map<string, number>()
  commits.forEach((c, i) => index.set(c.sha, i))
  const parents = commits.map((c) => c.parents.map((p) => index.get(p) ?? -1))
  return {
    shas: commits.map((c) => c.sha),
    parents,
    diffs: commits.map((c) => (c.diffs.length > 0 ? c.diffs : [[]])),
    boundary: commits.map((c, i) => shallow.has(c.sha) || parents[i].some((p) => p === -1)),
    dates: commits.map((c) => Math.floor(Date.parse(c.committerDate) / 1000)),
  }
}
