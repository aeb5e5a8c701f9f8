import { pairRenamesPerPath } from '../history/renames.js'
import { decodeLatin1 } from './decode.js'
import { DiffStreamParser, type BlobIds, type DiffRecord, type FileDiff } from './diff-parser.js'
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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
  onProgress?: (commitsRead: number, totalCommits: number) => void
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

/** argv for the merge pass: fed "MERGE PARENT" lines on stdin, one diff per line. */
export function mergeDiffArgs(): string[] {
  return ['diff-tree', '--stdin', '--always', ...DIFF_ARGS, '--format=%x01%H%x02']
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
 * Read the history in one pass over the log (and a concurrent pass for the non-first parents of
 * merges); git spools both to files in `workDir` and they are parsed as streams. Commits come back
 * in topological order, newest first, with renames paired as the per-path readers pair them.
 */
export async function readHistory(repo: string, options: ReadHistoryOptions): Promise<RawCommit[]> {
  const listArgs = ['rev-list', '--topo-order', '--parents']
  if (options.maxCommits !== undefined) listArgs.push(`--max-count=${options.maxCommits}`)
  const list = await git(repo, [...listArgs, ...options.range.map(assertRange), '--'])
  const merges: Array<{ sha: string; parents: string[] }> = []
  let total = 0
  for (const line of list.split('\n')) {
    if (!line) continue
    total++
    const parts = line.split(' ')
    if (parts.length > 2) merges.push({ sha: parts[0], parents: parts.slice(1) })
  }

  const workDir = mkdtempSync(path.join(options.workDir ?? tmpdir(), 'gitwhy-history-'))
  const pre: string[] = []
  // A private attributes file (lowest precedence: the repository's own .gitattributes still win).
  if (options.noContentDiff?.length) {
    const file = path.join(workDir, 'attributes')
    writeFileSync(file, options.noContentDiff!.map((p) => `${p} -diff`).join('\n') + '\n')
    pre.push('-c', `core.attributesFile=${file}`)
  }
  try {
    return await readPasses(repo, options, pre, total, merges, workDir)
  } finally {
    rmSync(workDir, { recursive: true, force: true })
  }
}

async function parseFile(file: string, parser: DiffStreamParser): Promise<void> {
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) parser.push(chunk as Buffer)
  parser.end()
}

async function readPasses(repo: string, options: ReadHistoryOptions, pre: string[], total: number, merges: Array<{ sha: string; parents: string[] }>, workDir: string): Promise<RawCommit[]> {
  const commits: RawCommit[] = []
  // blob ids per commit and parent, only until renames are paired
  const oids = new Map<string, Array<BlobIds | undefined>>()
  const logParser = new DiffStreamParser((rec: DiffRecord) => {
    const c = parseLogHeader(rec.header) as RawCommit
    c.diffs = [rec.files]
    oids.set(c.sha, rec.oids)
    commits.push(c)
    if (options.onProgress && commits.length % 500 === 0) options.onProgress(commits.length, total)
  }, true)
  // git spools to files and runs at its own pace; parsing starts once it is done
  const logFile = path.join(workDir, 'log')
  const mainPass = gitToFile(repo, [...pre, ...logArgs(options.range, options.maxCommits)], logFile)

  const extraDiffs = new Map<string, FileDiff[][]>()
  const extraOids = new Map<string, Array<BlobIds | undefined>>()
  let mergePass: Promise<void> = Promise.resolve()
  if (merges.length > 0) {
    const order: Array<{ sha: string; k: number }> = []
    for (const m of merges) for (let k = 1; k < m.parents.length; k++) order.push({ sha: m.sha, k })
    let next = 0
    const mergeParser = new DiffStreamParser((rec: DiffRecord) => {
      const slot = order[next++]
      if (!slot || rec.header !== slot.sha) throw new Error(`merge diff out of order: got ${rec.header}, expected ${slot?.sha}`)
      let arr = extraDiffs.get(slot.sha)
      if (!arr) extraDiffs.set(slot.sha, (arr = []))
      arr[slot.k] = rec.files
      extraOids.set(`${slot.sha}:${slot.k}`, rec.oids)
    })
    const input = merges.flatMap((m) => m.parents.slice(1).map((p) => `${m.sha} ${p}\n`)).join('')
    const mergeFile = path.join(workDir, 'merges')
    mergePass = gitToFile(repo, [...pre, ...mergeDiffArgs()], mergeFile, input).then(() => parseFile(mergeFile, mergeParser))
  }
  await Promise.all([mainPass.then(() => parseFile(logFile, logParser)), mergePass])
  for (const c of commits) {
    const extra = extraDiffs.get(c.sha)
    if (extra) for (let k = 1; k < c.parents.length; k++) c.diffs[k] = extra[k] ?? []
    const first = oids.get(c.sha) ?? []
    c.diffs = c.diffs.map((d, k) => pairRenamesPerPath(d, k === 0 ? first : extraOids.get(`${c.sha}:${k}`) ?? []))
  }
  options.onProgress?.(commits.length, total)
  return commits
}
