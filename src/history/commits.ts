import type { RawCommit } from '../git/history-reader.js'
import { NO_FORGE_ISSUE, NO_FORGE_PR, type CommitRow, type GraphData } from '../graph/types.js'
import type { CommitCategory } from '../services/types.js'
import { categorize } from './categorize.js'
import type { HistoryGraph } from './graph.js'
import type { IdentityMap } from './identity.js'
import { splitMessage } from './message.js'
import { parseMessageRefs } from './refs.js'
import type { RevertEdge } from './reverts.js'

type CommitTables = Pick<GraphData, 'commits' | 'authors' | 'pullRequests' | 'issues' | 'authoredBy' | 'parents' | 'partOf' | 'references' | 'closes' | 'touched' | 'renamedFrom' | 'reverts'>

/**
 * Commit-level rows: commits with categories, authors (already .mailmap-mapped by %aN/%aE, then
 * grouped into one identity per person by `identities`: see identity.ts), parents, PR / issue links, touched files and renames. Commits that arrived through a PR merge's
 * other parents are PART_OF that PR: those `git rev-list M^1..M^2` lists, unless an older PR merge
 * brought them in first or they name a PR of their own. `reverts` are the
 * verified reverts (reverts.ts): only those are category `revert`, each with its REVERTS edge.
 */
export interface CommitTableOptions {
  /** Author identities (identity.ts): each .mailmap-mapped email to its person. */
  identities?: IdentityMap
  /** The verified reverts (reverts.ts). */
  reverts?: readonly RevertEdge[]
  /** The age of the oldest of `commits` (an update's new commits follow the stored ones); 0 by default. */
  firstAge?: number
}

export function commitTables(commits: RawCommit[], graph: HistoryGraph, paths: Set<string>, options: CommitTableOptions = {}): CommitTables {
  const identities: IdentityMap = options.identities ?? new Map()
  const t: CommitTables = { commits: [], authors: [], pullRequests: [], issues: [], authoredBy: [], parents: [], partOf: [], references: [], closes: [], touched: [], renamedFrom: [], reverts: [] }
  const reverted = new Map((options.reverts ?? []).map((r) => [r.sha, r]))
  const authors = new Map<string, { name: string; emails: string[] }>()
  const prs = new Map<number, { title: string; source: string }>()
  const issues = new Set<number>()
  const prOf = new Int32Array(commits.length).fill(-1)
  const closes = new Set<string>()

  commits.forEach((c, i) => {
    const first = c.diffs[0] ?? []
    let additions = 0
    let deletions = 0
    for (const d of first) {
      additions += d.additions
      deletions += d.deletions
      paths.add(d.path)
      paths.add(d.oldPath)
      t.touched.push({ sha: c.sha, path: d.path, additions: d.additions, deletions: d.deletions, change: d.status, old_path: d.status === 'R' ? d.oldPath : '' })
      if (d.status === 'R') t.renamedFrom.push({ path: d.path, from: d.oldPath, sha: c.sha })
    }
    const category: CommitCategory = categorize({ parents: c.parents.length, authorName: c.authorName, authorEmail: c.authorEmail, reverts: reverted.has(c.sha), diff: first })
    if (category === 'revert') t.reverts.push(reverted.get(c.sha)!)
    const { subject, body } = splitMessage(c.message)
    const who = identities.get(c.authorEmail) ?? { email: c.authorEmail, name: c.authorName, emails: [c.authorEmail] }
    const row: CommitRow = {
      sha: c.sha,
      short: c.sha.slice(0, 7),
      author_name: who.name,
      author_email: who.email,
      author_date: c.authorDate,
      committer_date: c.committerDate,
      subject,
      body,
      parent_count: c.parents.length,
      category,
      additions,
      deletions,
      age: (options.firstAge ?? 0) + commits.length - 1 - i,
      boundary: graph.boundary[i],
    }
    t.commits.push(row)
    if (!authors.has(who.email)) authors.set(who.email, { name: who.name, emails: who.emails })
    t.authoredBy.push({ sha: c.sha, email: who.email })
    c.parents.forEach((p, idx) => {
      if (graph.parents[i][idx] >= 0) t.parents.push({ sha: c.sha, parent: p, idx })
    })
    const refs = parseMessageRefs(c.message)
    if (refs.pullRequest) {
      const n = refs.pullRequest.number
      const have = prs.get(n)
      // a merge commit's title is the better one; keep the first seen otherwise (newest)
      if (!have || c.parents.length > 1) prs.set(n, { title: refs.pullRequest.title, source: refs.pullRequest.source })
      prOf[i] = n
    }
    for (const ref of refs.issues) {
      issues.add(ref.number)
      t.references.push({ sha: c.sha, number: ref.number, closes: ref.closes })
      if (ref.closes && refs.pullRequest) closes.add(`${refs.pullRequest.number}:${ref.number}`)
    }
  })

  // Commits brought in by a PR merge belong to that PR: git's M^1..M^2, the commits its other
  // parents reach and its first parent does not. Oldest merges first, so a commit keeps the first
  // PR that brought it in (a PR into a release branch before the release's own PR).
  // - A merge on HEAD's first-parent line brings in what its other parents reach short of that
  //   line and of what older such merges brought (PR merges or not: those are its first parent's
  //   too): one walk per commit over the whole history.
  // - A PR merge anywhere else (into a release or develop branch) is walked exactly (prRange),
  //   less what was on that line or brought to it already: a commit made on the main branch is
  //   no PR's because a PR into develop was based on it.
  const mainline = new Uint8Array(commits.length)
  for (let i = 0; i >= 0 && i < commits.length; i = graph.parents[i][0] ?? -1) mainline[i] = 1
  const brought = new Uint8Array(commits.length)
  for (let i = commits.length - 1; i >= 0; i--) {
    const n = prOf[i]
    const parents = graph.parents[i]
    if (parents.length < 2) continue
    if (!mainline[i]) {
      if (n >= 0) for (const j of prRange(graph.parents, i)) if (prOf[j] < 0 && !mainline[j] && !brought[j]) prOf[j] = n
      continue
    }
    const stack = parents.slice(1).filter((p) => p >= 0)
    while (stack.length > 0) {
      const j = stack.pop() as number
      if (mainline[j] || brought[j]) continue
      brought[j] = 1
      if (n >= 0 && prOf[j] < 0) prOf[j] = n
      for (const p of graph.parents[j]) if (p >= 0) stack.push(p)
    }
  }
  prOf.forEach((n, i) => {
    if (n >= 0) t.partOf.push({ sha: commits[i].sha, number: n })
  })

  for (const [email, a] of authors) t.authors.push({ email, name: a.name, emails: a.emails.join(' ') })
  for (const [number, pr] of prs) t.pullRequests.push({ number, title: pr.title, url: '', source: pr.source, ...NO_FORGE_PR })
  for (const number of issues) t.issues.push({ number, title: '', url: '', source: 'message', ...NO_FORGE_ISSUE })
  for (const key of closes) {
    const [pr, issue] = key.split(':').map(Number)
    t.closes.push({ pr, issue })
  }
  return t
}

/**
 * The commits a merge's other parents reach and its first parent does not (`git rev-list
 * M^1..M^2`), in a history whose indices are in topological order (--topo-order: a parent after
 * its children). Painted as git paints a merge base: the smallest index first, so a commit's
 * paint is final when it is taken, until no commit that only the other parents reach is waiting.
 */
export function prRange(parents: ReadonlyArray<ReadonlyArray<number>>, merge: number): number[] {
  const FIRST = 1
  const OTHER = 2
  const paint = new Map<number, number>()
  const heap: number[] = []
  let waiting = 0 // queued commits painted OTHER only
  const mark = (j: number, colour: number) => {
    if (j < 0) return
    const was = paint.get(j) ?? 0
    const now = was | colour
    if (now === was) return
    paint.set(j, now)
    if (was === 0) heapPush(heap, j)
    if (now === OTHER) waiting++
    else if (was === OTHER) waiting--
  }
  const [first, ...others] = parents[merge]
  mark(first, FIRST)
  for (const p of others) mark(p, OTHER)
  const range: number[] = []
  while (waiting > 0) {
    const j = heapPop(heap)
    const colour = paint.get(j)!
    if (colour === OTHER) {
      waiting--
      range.push(j)
    }
    for (const p of parents[j]) mark(p, colour)
  }
  return range
}

function heapPush(heap: number[], value: number): void {
  let i = heap.push(value) - 1
  while (i > 0) {
    const up = (i - 1) >> 1
    if (heap[up] <= value) break
    heap[i] = heap[up]
    i = up
  }
  heap[i] = value
}

function heapPop(heap: number[]): number {
  const top = heap[0]
  const last = heap.pop()!
  if (heap.length > 0) {
    let i = 0
    for (;;) {
      const left = 2 * i + 1
      if (left >= heap.length) break
      const child = left + 1 < heap.length && heap[left + 1] < heap[left] ? left + 1 : left
      if (heap[child] >= last) break
      heap[i] = heap[child]
      i = child
    }
    heap[i] = last
  }
  return top
}
