/**
 * History analytics: what analyze computes from the mined history (co-change, per-file and
 * per-symbol activity, ownership, communities) and what the risk model reads. Everything here is
 * computed from an AnalyticsInput alone, as of `headTime` (the indexed HEAD's committer date, not
 * the wall clock: an index answers the same way on any day, and a backtest can move "now" back).
 */
import type { CommitCategory } from '../services/types.js'

/** One commit as analytics see it. */
export interface Change {
  sha: string
  /** Committer date, epoch seconds. */
  time: number
  /** Author email after .mailmap. */
  author: string
  category: CommitCategory
  subject: string
  /** Files in the commit's first-parent diff, with their path in that commit. */
  files: Array<{ path: string; additions: number; deletions: number }>
  /** Symbols (ids at the indexed HEAD) whose line history includes this commit. */
  symbols: string[]
}

export interface AnalyticsInput {
  /** "Now" for every window and age: epoch seconds. */
  headTime: number
  /** Every indexed commit, newest first. */
  changes: Change[]
  /** File renames, as File-[:RENAMED_FROM]: `path` was called `from` before commit `sha`. */
  renames: Array<{ path: string; from: string; sha: string }>
  /** Files present at the indexed HEAD. */
  files: Array<{ path: string; language: string | null }>
  /** Symbols at the indexed HEAD; `parent` is the enclosing symbol's id. */
  symbols: Array<{ id: string; path: string; qualified_name: string; parent: string | null }>
  /** Per present file: lines owned at HEAD by each author email (from the blame map). */
  ownership: Record<string, Array<[email: string, lines: number]>>
  /** File → file imports among present files, where the language makes them cheap to resolve. */
  imports?: Array<{ from: string; to: string }>
  /** Symbol → symbol calls of the code graph (src/codegraph/resolve.ts), with their confidence. */
  calls?: Array<{ from: string; to: string; confidence: number }>
}

export interface AnalyticsConfig {
  /** Days counted as "recent" (default 90). */
  recentDays: number
  /** Co-change: a file or symbol needs at least this many revisions (default 5). */
  minRevisions: number
  /** Co-change: a pair needs at least this many shared revisions (default 5). */
  minShared: number
  /** Co-change: minimum degree in percent (default 0: minConfidence decides; degree is small for every partner of a busy file). */
  minDegree: number
  /** Co-change: minimum of the larger confidence, max(shared / revs_a, shared / revs_b) (default 0.3). */
  minConfidence: number
  /** Commits touching more files than this are left out of co-change (default 30, as code-maat). */
  maxChangesetSize: number
  /** Communities smaller than this are folded away (default 3). */
  minCommunitySize: number
  /** Ghost: a dominant owner (share ≥ 0.8) inactive for more than this many days (default 180). */
  ghostDays: number
}

export const DEFAULT_ANALYTICS_CONFIG: AnalyticsConfig = {
  recentDays: 90,
  minRevisions: 5,
  minShared: 5,
  minDegree: 0,
  minConfidence: 0.3,
  maxChangesetSize: 30,
  minCommunitySize: 3,
  ghostDays: 180,
}

/** Activity of one file (keyed by its path at HEAD) or one symbol. */
export interface ActivityStats {
  /** Commits that changed it (merges, bots and formatting-only commits excluded). */
  revisions: number
  /** Of those, commits in the last `recentDays` before headTime. */
  recent_revisions: number
  /** Lines added + deleted by those commits (for a symbol: inside its range). */
  churn: number
  /** Distinct authors of those commits. */
  authors: number
  /** Epoch seconds of the oldest and newest of those commits; null when there is none. */
  first_change: number | null
  last_change: number | null
}

export interface CoChange {
  /** The pair, a < b (file paths at HEAD, or symbol ids). */
  a: string
  b: string
  /** Revisions (as above, changesets over the size cap left out) that changed both. */
  shared: number
  /** code-maat's degree: 100 × shared / average(revs_a, revs_b), rounded to 0.1. */
  degree: number
  /** shared / revs_a and shared / revs_b. */
  confidence_ab: number
  confidence_ba: number
  /** shared / all revisions considered. */
  support: number
}

export interface Community {
  /** Stable within one index: `c1`, `c2`, … by size, then label. */
  id: string
  /** Readable: the dominant file or folder and the name words most members share (docs/communities.md). */
  label: string
  size: number
  /** Share of the members' co-change weight that stays inside the community (0..1; 0: no co-change). */
  cohesion: number
}

export interface AnalyticsOutput {
  fileStats: Map<string, ActivityStats>
  symbolStats: Map<string, ActivityStats>
  fileCoChange: CoChange[]
  symbolCoChange: CoChange[]
  communities: Community[]
  /** symbol id → community id (symbols in folded communities are absent). */
  memberOf: Map<string, string>
}
