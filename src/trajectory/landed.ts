/**
 * Which commit a snapshot's edit landed in, matched by content (so a squash, an amend or a
 * cherry-pick count as well as a plain commit): the oldest commit, committed no earlier than the
 * snapshot, whose first-parent diff adds every line the snapshot added, in the same files
 * (multisets of lines, trailing whitespace and blank lines dropped). A snapshot that only deleted
 * lines lands where those lines are deleted. A snapshot whose lines were rewritten again before
 * the commit lands nowhere: its content never reached the history.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { git, gitBuffer, gitToFile } from '../git/run.js'
import { lineDiffArgs, parseLineDiffs, type LineDiff } from '../history/reverts.js'
import type { SnapshotRecord } from './journal.js'
import type { ShadowRepo } from './shadow.js'

/** A commit may carry a clock a little behind the recorder's (another machine, a rebase keeping dates). */
const CLOCK_SLACK_S = 300

/** A commit a snapshot may have landed in: its sha and committer time (seconds). */
export interface LandingCommit {
  sha: string
  time: number
}

/**
 * `candidates` (oldest first, no merges): the only commits to look in, when the others are known
 * not to hold these snapshots (an update: the new commits); by default every commit of `head`
 * since the oldest snapshot.
 */
export async function landedIn(repo: string, head: string, shadow: ShadowRepo, journal: readonly SnapshotRecord[], candidates?: readonly LandingCommit[]): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  const snapshots = journal.filter((r) => r.kind !== 'baseline' && r.files.length > 0)
  if (snapshots.length === 0 || !shadow.exists()) return out
  const since = Math.min(...snapshots.map((r) => Date.parse(r.time))) / 1000 - CLOCK_SLACK_S
  const commits = candidates ? candidates.filter((c) => c.time >= since) : await commitsSince(repo, head, since)
  if (commits.length === 0) return out
  // The files each commit and each snapshot changed (cheap: no content): a snapshot lands only in a
  // commit that changes one of its files, so only those sharing one are diffed (with the commits).
  const [commitNames, snapNames] = await Promise.all([
    gitBuffer(repo, nameDiffArgs(), { input: commits.map((c) => c.sha).join('\n') + '\n' }),
    shadow.gitBuffer(nameDiffArgs(), { input: snapshots.map((s) => s.id).join('\n') + '\n' }),
  ])
  const changed = new Set([...parseNames(commitNames.stdout.toString('latin1')).values()].flat())
  const names = parseNames(snapNames.stdout.toString('latin1'))
  const sharing = snapshots.filter((s) => names.get(s.id)?.some((p) => changed.has(p)) ?? true)
  if (sharing.length === 0) return out
  // written to files: a snapshot's diff can be megabytes, and git would wait on a pipe this busy thread drains
  const tmp = mkdtempSync(path.join(tmpdir(), 'gitwhy-landed-'))
  let commitDiffs: Map<string, LineDiff>
  let snapDiffs: Map<string, LineDiff>
  try {
    const commitFile = path.join(tmp, 'commits')
    const snapFile = path.join(tmp, 'snapshots')
    await Promise.all([
      gitToFile(repo, lineDiffArgs(), commitFile, commits.map((c) => c.sha).join('\n') + '\n'),
      shadow.gitToFile(lineDiffArgs(), snapFile, sharing.map((s) => s.id).join('\n') + '\n'),
    ])
    commitDiffs = parseLineDiffs(readFileSync(commitFile).toString('latin1'))
    snapDiffs = parseLineDiffs(readFileSync(snapFile).toString('latin1'))
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  for (const s of snapshots) {
    const own = snapDiffs.get(s.id)
    if (!own) continue
    const at = Date.parse(s.time) / 1000 - CLOCK_SLACK_S
    const hit = commits.find((c) => c.time >= at && contains(commitDiffs.get(c.sha), own))
    if (hit) out.set(s.id, hit.sha)
  }
  return out
}

/** lineDiffArgs' commits with their changed paths only (those of its `diff --git` lines). */
function nameDiffArgs(): string[] {
  return ['diff-tree', '--stdin', '-r', '--root', '--always', '--name-only', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', '--format=%x01%H%x02']
}

/** nameDiffArgs' output: each commit's changed paths. */
function parseNames(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  let paths: string[] | null = null
  for (const line of text.split('\n')) {
    if (line.charCodeAt(0) === 1) out.set(line.slice(1, line.indexOf('\x02') === -1 ? undefined : line.indexOf('\x02')), (paths = []))
    else if (paths && line !== '') paths.push(line)
  }
  return out
}

/** The commits of `head` since a time (seconds), oldest first, no merges. */
async function commitsSince(repo: string, head: string, since: number): Promise<LandingCommit[]> {
  const log = await git(repo, ['log', '--no-merges', '--format=%H %ct', `--since=@${Math.floor(since)}`, head, '--'])
  return log.split('\n').filter(Boolean).map((l) => ({ sha: l.slice(0, l.indexOf(' ')), time: Number(l.slice(l.indexOf(' ') + 1)) })).reverse()
}

/** Does the commit's diff hold every line the snapshot added (or, for a deletion only, removed)? */
function contains(commit: LineDiff | undefined, snapshot: LineDiff): boolean {
  if (!commit) return false
  const added = [...snapshot.values()].some((f) => f.added.some((l) => l.trim() !== ''))
  let needed = 0
  for (const [key, f] of snapshot) {
    const lines = (added ? f.added : f.removed).filter((l) => l.trim() !== '')
    if (lines.length === 0) continue
    needed += lines.length
    const c = commit.get(key)
    if (!c || !subset(lines, added ? c.added : c.removed)) return false
  }
  return needed > 0
}

function subset(lines: string[], of: string[]): boolean {
  const counts = new Map<string, number>()
  for (const l of of) counts.set(l, (counts.get(l) ?? 0) + 1)
  for (const l of lines) {
    const left = counts.get(l) ?? 0
    if (left === 0) return false
    counts.set(l, left - 1)
  }
  return true
}
