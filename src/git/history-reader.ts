import { pairRenamesPerPath } from '../history/renames.js'
import { decodeLatin1 } from './decode.js'
import { DiffStreamParser, type DiffRecord, type FileDiff } from './diff-parser.js'
import { MergeDiffReader } from './merge-diffs.js'
import { readSpool } from './spool.js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { assertSafeRef, git, gitBuffer, gitToFile } from './run.js'

/** One commit as mined from git, with its diff against each parent (root: against the empty tree). */
export interface RawCommit {
  sha: string
  parents: string[]
  authorName: string
  authorEmail: string
  authorDate: string
  committerDate: string
  message: string
  /** diffs[k] = changes from parents[k] to this commit; for a root commit diffs[0] is vs the empty tree. */
  diffs: FileDiff[][]
}

export interface ReadHistoryOptions {
  /** Where git's output is spooled while it runs (default: the OS temp dir). */
  workDir?: string
  /** gitattributes patterns whose content diffs are not needed (reported as binary changes). */
  noContentDiff?: readonly string[]
  /** Revision range to read: `HEAD`, or `OLD..NEW` for an incremental update. */
  range: string[]
  maxCommits?: number
  /** Progress per phase: `history` (commits read of the range's total), `merge diffs` (merge parents read). */
  onProgress?: (phase: 'history' | 'merge diffs', done: number, total: number) => void
  /**
   * Takes each commit's first-parent patch text (FileDiff.text) as it is read, with the commit's
   * age (0 = oldest): the text is then dropped, so the history never holds the whole patch.
   */
  onPatches?: (age: number, diffs: FileDiff[]) => void
}

const LOG_FORMAT = '%x01%H%x00%P%x00%aN%x00%aE%x00%at%x00%ct%x00%B%x02'
// Diff options shared by both passes: -U0 hunks, rename detection, no external/textconv drivers.
const DIFF_ARGS = ['-p', '--raw', '--no-abbrev', '-U0', '-M', '--no-color', '--no-ext-diff', '--no-textconv', '--full-index']

/** argv for the main pass: every commit with its first-parent diff, children before parents. */
export function logArgs(range: string[], maxCommits?: number): string[] {
  const args = ['-c', 'log.showRoot=true', 'log', '--topo-order', '--diff-merges=first-parent', ...DIFF_ARGS, `--format=${LOG_FORMAT}`]
  if (maxCommits !== undefined) args.push(`--max-count=${maxCommits}`)
  return [...args, ...range.map(assertRange), '--']
}

function assertRange(r: string): string {
  for (const part of r.split('..')) if (part) assertSafeRef(part)
  return r
}

/** The latest instant an ISO 8601 date with a four-digit year can name: 9999-12-31T23:59:59Z. */
const LAST_SECOND = 253_402_300_799

/**
 * An author or committer date from `%at` / `%ct` (epoch seconds), as an ISO 8601 UTC string.
 * The commit's own time zone offset plays no part (gitwhy shows every date in UTC), so an absurd
 * offset such as `+51800` cannot spoil it. What git cannot read (a missing, negative or garbled
 * date: `%at` is then empty) is epoch 0, as `git log` shows it; so is a date past year 9999.
 */
export function gitTimeToIso(epochSeconds: string): string {
  const s = /^\d{1,12}$/.test(epochSeconds) ? Number(epochSeconds) : 0
  return new Date((s <= LAST_SECOND ? s : 0) * 1000).toISOString()
}

/** Parse the header of a LOG_FORMAT record. */
export function parseLogHeader(header: string): Omit<RawCommit, 'diffs'> {
  const f = header.split('\x00')
  return {
    sha: f[0],
    parents: f[1] ? f[1].split(' ') : [],
    authorName: identPart(f[2], '%aN'),
    authorEmail: identPart(f[3], '%aE'),
    authorDate: gitTimeToIso(f[4] ?? ''),
    committerDate: gitTimeToIso(f[5] ?? ''),
    message: decodeLatin1((f[6] ?? '').replace(/\n+$/, '')),
  }
}

/** git prints a placeholder as it stands when it cannot read the author line (no `<email>`): that is no name. */
function identPart(field: string | undefined, placeholder: string): string {
  return field === undefined || field === placeholder ? '' : decodeLatin1(field)
}

/** The commits of `range` without their diffs, in the main pass's order: one log pass. */
export async function readCommitHeaders(repo: string, range: string[], maxCommits?: number): Promise<Array<Omit<RawCommit, 'diffs'>>> {
  const args = ['log', '--topo-order', `--format=${LOG_FORMAT}`]
  if (maxCommits !== undefined) args.push(`--max-count=${maxCommits}`)
  const out: Array<Omit<RawCommit, 'diffs'>> = []
  const parser = new DiffStreamParser((rec: DiffRecord) => out.push(parseLogHeader(rec.header)))
  parser.push((await gitBuffer(repo, [...args, ...range.map(assertRange), '--'])).stdout)
  parser.end()
  return out
}

/**
 * Read the history: one pass over the log (first-parent diffs), parsed while git writes it, and the
 * merges' diffs against their other parents where the walks need them (merge-diffs.ts), read in
 * restricted batches as the log's merges come in. Commits come back in topological order, newest
 * first, with renames paired as the per-path readers pair them.
 */
export async function readHistory(repo: string, options: ReadHistoryOptions): Promise<RawCommit[]> {
  const countArgs = ['rev-list', '--count']
  if (options.maxCommits !== undefined) countArgs.push(`--max-count=${options.maxCommits}`)
  const total = Number((await git(repo, [...countArgs, ...options.range.map(assertRange), '--'])).trim())

  const workDir = mkdtempSync(path.join(options.workDir ?? tmpdir(), 'gitwhy-history-'))
  const pre: string[] = []
  // A private attributes file (lowest precedence: the repository's own .gitattributes still win).
  if (options.noContentDiff?.length) {
    const file = path.join(workDir, 'attributes')
    writeFileSync(file, options.noContentDiff!.map((p) => `${p} -diff`).join('\n') + '\n')
    pre.push('-c', `core.attributesFile=${file}`)
  }
  try {
    return await readPasses(repo, options, pre, total, workDir)
  } finally {
    rmSync(workDir, { recursive: true, force: true })
  }
}

async function readPasses(repo: string, options: ReadHistoryOptions, pre: string[], total: number, workDir: string): Promise<RawCommit[]> {
  const progress = options.onProgress ?? (() => {})
  const commits: RawCommit[] = []
  const merges = new MergeDiffReader(repo, pre, workDir, (done, all) => progress('merge diffs', done, all))
  const logParser = new DiffStreamParser((rec: DiffRecord) => {
    const c = parseLogHeader(rec.header) as RawCommit
    c.diffs = [pairRenamesPerPath(rec.files, rec.oids)]
    options.onPatches?.(total - 1 - commits.length, c.diffs[0])
    commits.push(c)
    if (c.parents.length > 1) merges.add({ sha: c.sha, parents: c.parents, first: c.diffs[0] })
    if (commits.length % 500 === 0) progress('history', commits.length, total)
  }, true)
  const logFile = path.join(workDir, 'log')
  await readSpool(logFile, gitToFile(repo, [...pre, ...logArgs(options.range, options.maxCommits)], logFile), (chunk) => logParser.push(chunk))
  logParser.end()
  progress('history', commits.length, total)
  const extra = await merges.finish()
  for (const c of commits) {
    const diffs = extra.get(c.sha)
    if (diffs) for (let k = 1; k < c.parents.length; k++) c.diffs[k] = diffs[k] ?? []
  }
  return commits
}
