import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gitToFile } from '../git/run.js'
import { isBot } from './categorize.js'
import { splitMessage } from './message.js'

/**
 * Reverts, verified: a commit is a revert only when its diff undoes the commit its message names.
 * A message alone is not evidence: a squash merge's body lists its branch's commits, and one of
 * them may say "This reverts commit X" while the squash as a whole does something else.
 *
 * The check is pure over the content lines of both commits' first-parent diffs (`-U0`, no rename
 * detection, so a file is the same path on both sides): on the files the two commits share, the
 * lines the candidate removes are matched against the lines the named commit added and the lines
 * it adds against the lines the named commit removed (as multisets, trailing whitespace dropped).
 * It undoes the named commit when at least REVERT_SHARE of the smaller side matches: a whole
 * revert matches all of both; a partial revert (some files or some hunks of the named commit)
 * matches all of its own lines; an unrelated change to the same files matches almost nothing.
 */

/** Share of the smaller side (the named commit's or the candidate's lines on shared files) that must match. */
export const REVERT_SHARE = 0.8

/** What a message claims to revert: full or abbreviated SHAs, and the quoted subject of `Revert "…"`. */
export interface RevertClaim {
  shas: string[]
  subject: string | null
}

const NAMED_SHA = /This reverts commit ([0-9a-f]{7,40})/g
const QUOTED_SUBJECT = /^(?:[\w-]+(?:\([^)]*\))?!?:\s*)?Revert "(.+)"/i

/** The claim of a message, or null when it claims nothing. */
export function revertClaim(message: string): RevertClaim | null {
  const shas = [...new Set([...message.matchAll(NAMED_SHA)].map((m) => m[1]))]
  const first = message.split('\n', 1)[0] ?? ''
  const quoted = QUOTED_SUBJECT.exec(first)
  // `Revert "subject" (#123)`: the quoted part ends at the last quote
  const subject = quoted ? quoted[1].trim() : null
  if (shas.length === 0 && !subject) return null
  return { shas, subject }
}

/** One commit's first-parent diff as content lines, per file (keyed by the `diff --git` line). */
export type LineDiff = Map<string, { added: string[]; removed: string[] }>

/**
 * Parse `git diff-tree --stdin -p -U0 --no-renames --format=%x01%H%x02` output (latin1 text) into
 * each commit's LineDiff. Pure.
 */
export function parseLineDiffs(text: string): Map<string, LineDiff> {
  const out = new Map<string, LineDiff>()
  let diff: LineDiff | null = null
  let file: { added: string[]; removed: string[] } | null = null
  let inHunk = false
  for (const line of text.split('\n')) {
    if (line.charCodeAt(0) === 1) {
      const sha = line.slice(1, line.indexOf('\x02') === -1 ? undefined : line.indexOf('\x02'))
      diff = new Map()
      out.set(sha, diff)
      file = null
      inHunk = false
    } else if (!diff) continue
    else if (line.startsWith('diff --git ')) {
      file = { added: [], removed: [] }
      diff.set(line, file)
      inHunk = false
    } else if (line.startsWith('@@')) inHunk = true
    else if (inHunk && file && line[0] === '+') file.added.push(line.slice(1).trimEnd())
    else if (inHunk && file && line[0] === '-') file.removed.push(line.slice(1).trimEnd())
  }
  return out
}

/**
 * How much of `target` the `candidate` undoes, on the files both change: matched lines over the
 * smaller side's lines (0 when they share no file or no line). See the module comment.
 */
export function undoneShare(candidate: LineDiff, target: LineDiff): number {
  let matched = 0
  let targetLines = 0
  let candidateLines = 0
  for (const [key, t] of target) {
    const c = candidate.get(key)
    if (!c) continue
    targetLines += t.added.length + t.removed.length
    candidateLines += c.added.length + c.removed.length
    matched += overlap(c.removed, t.added) + overlap(c.added, t.removed)
  }
  const smaller = Math.min(targetLines, candidateLines)
  return smaller === 0 ? 0 : matched / smaller
}

function overlap(a: string[], b: string[]): number {
  const counts = new Map<string, number>()
  for (const x of b) counts.set(x, (counts.get(x) ?? 0) + 1)
  let n = 0
  for (const x of a) {
    const left = counts.get(x) ?? 0
    if (left > 0) {
      n++
      counts.set(x, left - 1)
    }
  }
  return n
}

/** A commit known to the index, for resolving what a claim names. */
export interface KnownCommit {
  sha: string
  subject: string
  /** Newest first position: a target must be older than the candidate. */
  order: number
}

/**
 * The indexed commit a claim names: the first named SHA (full or unique prefix) that is an older
 * indexed commit, else the newest older commit whose subject is the quoted one. Null when the named
 * commit is not in the indexed history (a squashed branch's commit never is).
 */
export function resolveClaim(claim: RevertClaim, order: number, known: { byPrefix: (prefix: string) => KnownCommit | undefined; bySubject: (subject: string, olderThan: number) => KnownCommit | undefined }): KnownCommit | null {
  for (const sha of claim.shas) {
    const k = known.byPrefix(sha)
    if (k && k.order > order) return k
  }
  if (claim.subject) return known.bySubject(claim.subject, order) ?? null
  return null
}

/** A verified revert: `sha` undoes `target` (share: see undoneShare). */
export interface RevertEdge {
  sha: string
  target: string
  share: number
}

/** argv of the one git call: first-parent diffs as content lines of the shas fed on stdin. */
export function lineDiffArgs(): string[] {
  return ['diff-tree', '--stdin', '--root', '--always', '-p', '-U0', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', '--format=%x01%H%x02']
}

/**
 * The reverts among `candidates` (commits whose message claims one; `order` as in KnownCommit),
 * verified against what they name. One git call for every candidate and target together: its cost
 * is the size of those commits' diffs, not of the history.
 */
export async function verifyReverts(
  repo: string,
  candidates: Array<{ sha: string; message: string; order: number }>,
  known: KnownCommit[],
  /** Where git's output is spooled (default: the OS temp dir). */
  workDir?: string,
): Promise<RevertEdge[]> {
  const claims = candidates.map((c) => ({ c, claim: revertClaim(c.message) })).filter((x) => x.claim !== null)
  if (claims.length === 0) return []
  const bySha = new Map(known.map((k) => [k.sha, k]))
  const bySubject = new Map<string, KnownCommit[]>()
  for (const k of known) {
    const list = bySubject.get(k.subject)
    if (list) list.push(k)
    else bySubject.set(k.subject, [k])
  }
  const lookup = {
    byPrefix: (prefix: string) => {
      const full = bySha.get(prefix)
      if (full || prefix.length === 40) return full
      const found = known.filter((k) => k.sha.startsWith(prefix))
      return found.length === 1 ? found[0] : undefined
    },
    bySubject: (subject: string, olderThan: number) => (bySubject.get(subject) ?? []).filter((k) => k.order > olderThan).sort((a, b) => a.order - b.order)[0],
  }
  const pairs: Array<{ sha: string; target: string }> = []
  for (const { c, claim } of claims) {
    const target = resolveClaim(claim!, c.order, lookup)
    if (target) pairs.push({ sha: c.sha, target: target.sha })
  }
  if (pairs.length === 0) return []
  const shas = [...new Set(pairs.flatMap((p) => [p.sha, p.target]))]
  const diffs = parseLineDiffs(await lineDiffText(repo, shas, workDir))
  const out: RevertEdge[] = []
  for (const p of pairs) {
    const share = undoneShare(diffs.get(p.sha) ?? new Map(), diffs.get(p.target) ?? new Map())
    if (share >= REVERT_SHARE) out.push({ ...p, share: Math.round(share * 1000) / 1000 })
  }
  return out
}

/**
 * lineDiffArgs' output for `shas`, through files: git reads its input and writes its output at its
 * own pace while this thread does other work (a build maps the history meanwhile).
 */
async function lineDiffText(repo: string, shas: string[], workDir = tmpdir()): Promise<string> {
  const dir = mkdtempSync(path.join(workDir, 'gitwhy-reverts-'))
  try {
    const file = path.join(dir, 'diffs')
    await gitToFile(repo, lineDiffArgs(), file, shas.join('\n') + '\n')
    return readFileSync(file).toString('latin1')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The verified reverts among `commits` (newest first, as read). `older` are the indexed commits
 * before them (an update: the stored history), which a new revert may name.
 */
export async function revertsOf(
  repo: string,
  commits: ReadonlyArray<{ sha: string; parents: string[]; message: string; authorName: string; authorEmail: string }>,
  older: OlderCommits = { sha: [], subject: [] },
  /** Where git's output is spooled (default: the OS temp dir). */
  workDir?: string,
): Promise<RevertEdge[]> {
  // merges and bots are never reverts (categorize decides those first)
  const candidates = commits.map((c, i) => ({ sha: c.sha, message: c.message, order: i })).filter((c, i) => commits[i].parents.length === 1 && !isBot(commits[i].authorName, commits[i].authorEmail) && revertClaim(c.message) !== null)
  // the commits a claim may name, listed only when some commit claims (an update's one commit
  // rarely does, and git/git's 82,000 older ones took ~0.1 s to list)
  if (candidates.length === 0) return []
  const known: KnownCommit[] = commits.map((c, i) => ({ sha: c.sha, subject: splitMessage(c.message).subject, order: i }))
  for (let i = 0; i < older.sha.length; i++) known.push({ sha: older.sha[i], subject: older.subject[i], order: commits.length + i })
  return verifyReverts(repo, candidates, known, workDir)
}

/** The indexed commits before an update's new ones, newest first, as columns (AnalyticsColumns has them). */
export interface OlderCommits {
  sha: readonly string[]
  subject: readonly string[]
}
