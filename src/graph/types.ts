/** Rows handed to the store's bulk loader. One array per node / relationship table. */
import type { DocRow } from '../embed/docs.js'

export type { DocRow }

/** History activity columns of File and Symbol (see ACTIVITY_COLUMNS); timestamps as ISO strings. */
export interface ActivityRow {
  revisions: number
  recent_revisions: number
  churn: number
  authors: number
  first_change: string | null
  last_change: string | null
  hotspot: number
  hotspot_percentile: number
  cochange_partners: number
}

export const NO_ACTIVITY: ActivityRow = { revisions: 0, recent_revisions: 0, churn: 0, authors: 0, first_change: null, last_change: null, hotspot: 0, hotspot_percentile: 0, cochange_partners: 0 }

export interface FileRow extends ActivityRow { path: string; language: string | null; lines: number; is_test: boolean; present: boolean }
export interface SymbolRow extends ActivityRow {
  id: string
  name: string
  qualified_name: string
  kind: string
  path: string
  start_line: number
  end_line: number
  signature: string
  exported: boolean
  /** The full-text index's text (src/codegraph/search-text.ts). */
  search: string
}
export interface CommitRow {
  sha: string
  short: string
  author_name: string
  author_email: string
  /** ISO 8601 with offset. */
  author_date: string
  committer_date: string
  subject: string
  body: string
  parent_count: number
  category: string
  additions: number
  deletions: number
  /** Position in the stored history from its oldest commit (0): above every parent's, never changed by later commits. */
  age: number
  /** True for commits at the edge of the indexed history (shallow boundary or --max-commits cut). */
  boundary: boolean
}
export interface CoChangeRow { a: string; b: string; shared: number; degree: number; confidence: number; reverse_confidence: number }
export interface CommunityRow { id: string; label: string; size: number; cohesion: number }
export interface ProcessRow { id: string; label: string; kind: string; entry: string; steps: number; depth: number }
export interface AuthorRow {
  email: string
  name: string
  /** Every email of the identity, space-separated (see history/identity.ts). */
  emails: string
}
/** A pull request; the columns after `source` are filled by forge enrichment (src/forge/apply.ts), empty otherwise. */
export interface PullRequestRow {
  number: number
  title: string
  url: string
  source: string
  body: string
  /** Label names, comma-separated. */
  labels: string
  state: string
  author: string
  /** ISO 8601, null when not merged or not enriched. */
  merged_at: string | null
  /** Review comments on indexed files, one per line (`path:line login: text`). */
  reviews: string
}
/** An issue; the columns after `source` are filled by forge enrichment, empty otherwise. */
export interface IssueRow { number: number; title: string; url: string; source: string; body: string; labels: string; state: string; author: string }

/** The forge columns of a row that no enrichment touched. */
export const NO_FORGE_PR = { body: '', labels: '', state: '', author: '', merged_at: null, reviews: '' } as const
export const NO_FORGE_ISSUE = { body: '', labels: '', state: '', author: '' } as const

/** A trajectory snapshot (src/trajectory/graph.ts). */
export interface SnapshotRow { id: string; time: string; session: string; intent: string | null; summary: string; kind: string }

export interface GraphData {
  files: FileRow[]
  symbols: SymbolRow[]
  commits: CommitRow[]
  authors: AuthorRow[]
  pullRequests: PullRequestRow[]
  issues: IssueRow[]
  defines: Array<{ path: string; symbol: string }>
  contains: Array<{ parent: string; child: string }>
  touched: Array<{ sha: string; path: string; additions: number; deletions: number; change: string; old_path: string }>
  changed: Array<{ sha: string; symbol: string; added: number; removed: number }>
  blamedOn: Array<{ symbol: string; sha: string; lines: number }>
  authoredBy: Array<{ sha: string; email: string }>
  parents: Array<{ sha: string; parent: string; idx: number }>
  partOf: Array<{ sha: string; number: number }>
  references: Array<{ sha: string; number: number; closes: boolean }>
  closes: Array<{ pr: number; issue: number }>
  renamedFrom: Array<{ path: string; from: string; sha: string }>
  reverts: Array<{ sha: string; target: string; share: number }>
  fileCoChanged: CoChangeRow[]
  symbolCoChanged: CoChangeRow[]
  communities: CommunityRow[]
  memberOf: Array<{ symbol: string; community: string }>
  ownedBy: Array<{ path: string; email: string; lines: number; share: number }>
  imports: Array<{ from: string; to: string }>
  calls: Array<{ from: string; to: string; confidence: number; reason: string; line: number }>
  extends: Array<{ from: string; to: string }>
  implements: Array<{ from: string; to: string }>
  processes: ProcessRow[]
  stepIn: Array<{ symbol: string; process: string; step: number }>
  docs: DocRow[]
  /** The edit trajectory: user state beside the index, loaded at every build and update (absent: none). */
  snapshots?: SnapshotRow[]
  snapshotFiles?: Array<{ snapshot: string; path: string; added: number; removed: number }>
  snapshotSymbols?: Array<{ snapshot: string; symbol: string; added: number; removed: number }>
  snapshotReverts?: Array<{ snapshot: string; target: string }>
  landedIn?: Array<{ snapshot: string; sha: string }>
  /** Written from a vectors file (writeGraph's `vectors`), not row by row; an update inserts its few here. */
  docVectors: Array<{ row: number; embedding: number[] }>
  /** Decisions and their edges (src/knowledge/decision-rows.ts); absent: none. */
  decisions?: DecisionRow[]
  governsSymbol?: GovernsRow[]
  governsFile?: GovernsRow[]
  governsCommunity?: GovernsRow[]
  evidencedByCommit?: EvidencedByRow[]
  evidencedByPullRequest?: EvidencedByRow[]
  evidencedByIssue?: EvidencedByRow[]
  evidencedByDocument?: EvidencedByRow[]
  relatesTo?: DecisionLinkRow[]
  dependsOn?: DecisionLinkRow[]
  similarTo?: DecisionSimilarRow[]
}

export interface DecisionRow {
  id: string
  kind: string
  title: string
  statement: string
  rationale: string
  confidence: number
  status: string
  created: string
  decided_at: string
  source: string
  applies_to: string
  check: string
  superseded_by: string
}
export interface GovernsRow { decision: string; target: string | number; applies_to: string }
export interface DecisionLinkRow { from: string; to: string; reason: string }
export interface DecisionSimilarRow { from: string; to: string; score: number }
export interface EvidencedByRow { decision: string; target: string | number; start_line: number; end_line: number }
