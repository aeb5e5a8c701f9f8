import type { CommitCategory } from '../services/types.js'
import { informativeBody, informativeSubject } from './message.js'

/**
 * Commit units (issue 15): the logical changes a history is made of, rather than its commits.
 *
 *   - A **run**: consecutive micro-commits by one author, each within UNIT_WINDOW (an hour) of the
 *     one before — vague subjects ("wip", "fix typo", "lint") or small changes (category micro) —
 *     are one unit: eight "wip" commits are one explanation, one line of a brief, one LLM block.
 *   - A **mega-commit** (category mega, or more than MEGA_UNIT_FILES files) is decomposed by file
 *     group (the top folder, or what `groupOf` says: a community): one part per group, so that a
 *     brief of one file speaks of the part that touched its area, not of the 300 others.
 *   - Every other commit is a unit of its own.
 *
 * Pure: the caller gives the commits (any order; units come oldest first) and, for mega-commits,
 * their files.
 */

export interface UnitCommit {
  sha: string
  author: string
  email: string
  /** Author time, epoch seconds. */
  time: number
  subject: string
  /** The body paragraph that explains (CommitRef.why), if any. */
  why?: string | null
  category: CommitCategory
  /** The files the commit touched: needed only to decompose a mega-commit. */
  files?: string[]
}

export interface CommitUnit {
  /** commit: one commit; run: consecutive micro-commits folded; part: one file group of a mega-commit. */
  kind: 'commit' | 'run' | 'part'
  /** Oldest first. */
  shas: string[]
  author: string
  email: string
  /** Epoch seconds of its first and last commit. */
  start: number
  end: number
  /** Subjects that state something (a run keeps those of its commits that do). */
  subjects: string[]
  /** Subjects that say nothing, counted, most frequent first: [["wip", 7], ["fix typo", 1]]. */
  folded: Array<[string, number]>
  /** A mega-commit's part: its group, the commit's files in it, and the commit's files in all. */
  group?: { name: string; files: number; total: number }
}

/** Consecutive micro-commits of one author at most this far apart (seconds) are one run. */
export const UNIT_WINDOW = 3600
/** A commit touching more files than this is decomposed by file group even when not categorized mega. */
export const MEGA_UNIT_FILES = 50

/** Container folders whose children are the real areas (a monorepo's packages). */
const CONTAINERS = new Set(['packages', 'apps', 'libs', 'lib', 'modules', 'plugins', 'crates', 'services', 'projects', 'components', 'internal', 'pkg', 'cmd', 'src'])

/** A path's file group: its top folder (`packages/x` in a container folder), `.` at the root. */
export function fileGroup(path: string): string {
  const parts = path.split('/')
  if (parts.length <= 1) return '.'
  if (CONTAINERS.has(parts[0]) && parts.length > 2) return `${parts[0]}/${parts[1]}`
  return parts[0]
}

/** A subject that says nothing about why, with no body paragraph that does. */
export function vagueCommit(c: Pick<UnitCommit, 'subject' | 'why'>): boolean {
  return (WORK_IN_PROGRESS.test(c.subject) || !informativeSubject(c.subject)) && !informativeBody(c.why)
}

/** `wip: scheduler, more component` says what was touched, not why: work in progress whatever follows. */
const WORK_IN_PROGRESS = /^\s*(?:wip|tmp|temp)\b|^\s*(?:fixup|squash)!/i

/** A commit a run folds: a vague message, or a small change (category micro). */
export function microCommit(c: UnitCommit): boolean {
  if (c.category === 'merge' || c.category === 'mega' || c.category === 'revert' || c.category === 'initial' || (c.files?.length ?? 0) > MEGA_UNIT_FILES) return false
  return c.category === 'micro' || vagueCommit(c)
}

const normalized = (subject: string) => subject.trim().replace(/[\s.!:;,-]+$/, '').toLowerCase() || '(empty)'

function counted(subjects: string[]): Array<[string, number]> {
  const n = new Map<string, number>()
  for (const s of subjects) n.set(normalized(s), (n.get(normalized(s)) ?? 0) + 1)
  return [...n].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
}

function unitOf(kind: CommitUnit['kind'], commits: UnitCommit[]): CommitUnit {
  const first = commits[0]
  const explained = commits.filter((c) => !vagueCommit(c))
  return {
    kind,
    shas: commits.map((c) => c.sha),
    author: first.author,
    email: first.email,
    start: first.time,
    end: commits[commits.length - 1].time,
    subjects: explained.map((c) => c.subject),
    folded: counted(commits.filter((c) => vagueCommit(c)).map((c) => c.subject)),
  }
}

export interface UnitOptions {
  /** Seconds between consecutive commits of a run (default UNIT_WINDOW). */
  window?: number
  /** A file's group for decomposing mega-commits (default fileGroup: the top folder). */
  groupOf?: (path: string) => string
}

/** The units of some commits, oldest first (ties by SHA, so the result never depends on the input's order). */
export function commitUnits(commits: UnitCommit[], options: UnitOptions = {}): CommitUnit[] {
  const window = options.window ?? UNIT_WINDOW
  const groupOf = options.groupOf ?? fileGroup
  const sorted = [...commits].sort((a, b) => a.time - b.time || (a.sha < b.sha ? -1 : a.sha > b.sha ? 1 : 0))
  const out: CommitUnit[] = []
  let run: UnitCommit[] = []
  const flush = () => {
    if (run.length === 1) out.push(unitOf('commit', run))
    else if (run.length > 1) out.push(unitOf('run', run))
    run = []
  }
  for (const c of sorted) {
    if (microCommit(c)) {
      const last = run[run.length - 1]
      if (last && (last.email !== c.email || c.time - last.time > window)) flush()
      run.push(c)
      continue
    }
    flush()
    const files = c.files ?? []
    if ((c.category === 'mega' || files.length > MEGA_UNIT_FILES) && files.length > 0) {
      const groups = new Map<string, number>()
      for (const f of files) groups.set(groupOf(f), (groups.get(groupOf(f)) ?? 0) + 1)
      for (const [name, n] of [...groups].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) out.push({ ...unitOf('part', [c]), group: { name, files: n, total: files.length } })
      continue
    }
    out.push(unitOf('commit', [c]))
  }
  flush()
  return out
}
