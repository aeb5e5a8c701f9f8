/** Result shapes of the service layer. The CLI's --json output and MCP structured content are these. */
import type { TrajectoryItem } from './trajectory.js'

export interface CommitRef {
  sha: string
  short: string
  author: string
  email: string
  /** ISO 8601 author date. */
  date: string
  subject: string
  category: CommitCategory
  /** The first paragraph of the body that explains (no trailers, no squash boilerplate), cut to ~240 characters; absent when there is none. */
  why?: string
  /** Only on a verified revert (category `revert`): the SHA of the commit it undoes. */
  reverts?: string
}

export type CommitCategory = 'merge' | 'initial' | 'bot' | 'revert' | 'formatting' | 'micro' | 'normal' | 'mega'

export interface PullRequestRef {
  number: number
  title: string
  url: string | null
  /** The paragraph of its description that says why (forge enrichment: `gitwhy enrich`), cut to ~240 characters; absent when there is none. */
  why?: string
}

export interface IssueRef {
  number: number
  title: string
  url: string | null
  closes: boolean
  /** The paragraph of its description that says why (forge enrichment), cut to ~240 characters; absent when there is none. */
  why?: string
}

export type EvidenceSource = 'blame' | 'history' | 'area' | 'pickaxe'

export interface EvidenceItem {
  commit: CommitRef
  source: EvidenceSource
  /** For blame: how many lines of the range this commit owns at the indexed HEAD. */
  lines?: number
  /** For area history: the file's path in that commit. */
  path_at_commit?: string
  /**
   * The commit is on the blame ignore list (blame.ignoreRevsFile / .git-blame-ignore-revs): blame
   * looks through it, as `git blame --ignore-revs-file` does; it still shows in line history.
   */
  ignored?: true
  pull_requests: PullRequestRef[]
  issues: IssueRef[]
  /** With --patch: the commit's hunks for the range, per file (as `git log -L`, without context lines). */
  patch?: FilePatch[]
}

export interface FilePatch {
  path: string
  hunks: Array<{ header: string; lines: string[] }>
}

export interface IndexInfo {
  head: string
  stale: boolean
  /** Commits in the working HEAD not in the index (0 when fresh). null when unknown (history rewritten). */
  commits_behind: number | null
}

export interface EvidenceTarget {
  path: string
  line_start: number
  line_end: number
  symbol: { qualified_name: string; kind: string } | null
}

export interface EvidenceResult {
  target: EvidenceTarget
  index: IndexInfo
  evidence: EvidenceItem[]
  /** Total before --limit was applied. */
  total: number
  /**
   * Set when part of the answer cannot be decided from the index: lines whose origin lies beyond
   * the indexed history (a shallow clone, or --max-commits). Those lines are attributed to the
   * boundary commit, as `git blame` does, and counted here.
   */
  undecided: { lines: number; reason: string } | null
  /** Set when the requested range went past the end of the file and was cut there (as `git blame -L` does). */
  clamped: { requested_line_end: number; note: string } | null
  /** Recorded edits of the range no indexed commit holds (the edit trajectory), newest first; absent when none. */
  trajectory?: TrajectoryItem[]
}

export interface HistoryResult {
  target: { path: string; kind: 'file' | 'directory'; follow_renames: boolean }
  index: IndexInfo
  evidence: EvidenceItem[]
  total: number
  /** The history is cut (shallow clone or --max-commits): older commits may be missing. */
  truncated: boolean
  /** With --trajectory: recorded edits of the path no indexed commit holds, newest first; absent when none. */
  trajectory?: TrajectoryItem[]
}
