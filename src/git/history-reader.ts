import { pairRenamesPerPath } from '../history/renames.js'
import { decodeLatin1 } from './decode.js'
import { DiffStreamParser, type DiffRecord, type FileDiff } from './diff-parser.js'
import { MergeDiffReader, objectsDirOnce } from './merge-diffs.js'
import { readSpool } from './spool.js'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import v8 from 'node:v8'
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
  /** Commits read of the range's total. */
  onProgress?: (phase: 'history', done: number, total: number) => void
  /**
   * Takes each commit's first-parent patch text (FileDiff.text) as it is read, with the commit's
   * age (0 = oldest): the text is then dropped, so the history never holds the whole patch.
   */
  patches?: PatchSink
  /** Where finished chunks are saved so that an interrupted read resumes (none: not saved). */
  checkpointDir?: string
  /** Told how many commits came from saved chunks, when any did. */
  onResumed?: (commits: number, total: number) => void
  /** Handed each chunk of commits as it is complete (analyze starts embedding their messages). */
  onCommits?: (chunk: readonly RawCommit[]) => void
}

/** Where a patch sink stood when a chunk was saved: its file's length and its section index. */
export interface PatchCheckpoint {
  bytes: number
  index: Record<string, Array<[number, number]>>
}

/**
 * The patch store as the history reader feeds it. It is opened once, before the first commit it
 * takes: on `file` (null: its own place) when the read is checkpointed, continuing from `from`
 * when saved chunks were resumed; `checkpoint` writes out what it holds and says where it stands.
 */
export interface PatchSink {
  open(file: string | null, from: PatchCheckpoint | null): void
  /** A commit's diffs (diffs[0] with its text): the sink takes the text and drops it from them. */
  add(age: number, diffs: FileDiff[][]): void
  checkpoint(): Promise<PatchCheckpoint>
}

const LOG_FORMAT = '%x01%H%x00%P%x00%aN%x00%aE%x00%at%x00%ct%x00%B%x02'
// Diff options shared by both passes: -U0 hunks, rename detection, no external/textconv drivers.
const DIFF_ARGS = ['-p', '--raw', '--no-abbrev', '-U0', '-M', '--no-color', '--no-ext-diff', '--no-textconv', '--full-index']

/** argv for a log pass: the commits named on stdin, in that order, each with its first-parent diff. */
export function logArgs(): string[] {
  return ['-c', 'log.showRoot=true', 'log', '--no-walk=unsorted', '--stdin', '--diff-merges=first-parent', ...DIFF_ARGS, `--format=${LOG_FORMAT}`]
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

/** Commits per mined chunk: enough for few processes, few enough that a checkpoint comes often. */
export function chunkSize(total: number): number {
  return Math.min(10_000, Math.max(500, Math.ceil(total / 16)))
}

/**
 * Read the history in chunks of consecutive commits (topological order): each chunk is one log
 * pass (first-parent diffs), parsed while git writes it, plus the diffs of its merges against
 * their other parents where the walks need them (merge-diffs.ts). Two chunks' logs run at once,
 * and one chunk's merge passes while the next chunks' logs do. With `checkpointDir`, every
 * finished chunk is saved there, and a run that was interrupted picks up the saved chunks instead
 * of mining them again. Commits come back newest first, with renames paired as the per-path
 * readers pair them.
 */
export async function readHistory(repo: string, options: ReadHistoryOptions): Promise<RawCommit[]> {
  const listArgs = ['rev-list', '--topo-order']
  if (options.maxCommits !== undefined) listArgs.push(`--max-count=${options.maxCommits}`)
  const shas = (await git(repo, [...listArgs, ...options.range.map(assertRange), '--'])).split('\n').filter(Boolean)
  const size = chunkSize(shas.length)
  const checkpoints = options.checkpointDir ? openCheckpoints(options.checkpointDir, { shas: shas.length, head: shas[0] ?? '', last: shas[shas.length - 1] ?? '', size, noContentDiff: options.noContentDiff ?? [] }) : null

  const workDir = mkdtempSync(path.join(options.workDir ?? tmpdir(), 'gitwhy-history-'))
  const pre: string[] = []
  // A private attributes file (lowest precedence: the repository's own .gitattributes still win).
  if (options.noContentDiff?.length) {
    const file = path.join(workDir, 'attributes')
    writeFileSync(file, options.noContentDiff!.map((p) => `${p} -diff`).join('\n') + '\n')
    pre.push('-c', `core.attributesFile=${file}`)
  }
  const progress = options.onProgress ?? (() => {})
  const commits: RawCommit[] = []
  let read = 0
  let resumed = 0
  // the patch text goes to the sink, which is checkpointed with the chunks (the chunks hold none)
  const sink = options.patches
  let opened = false
  let from: PatchCheckpoint | null = null
  const openSink = () => {
    if (!opened) sink?.open(checkpoints?.patchFile ?? null, from)
    opened = true
  }
  const emit = (chunk: RawCommit[]) => {
    for (const c of chunk) {
      sink?.add(shas.length - 1 - commits.length, c.diffs)
      commits.push(c)
    }
    options.onCommits?.(chunk)
  }
  try {
    // the previous chunk's merge passes and checkpoint, still running while the next logs are read
    let tail: Promise<void> = Promise.resolve()
    const objectsDir = objectsDirOnce(repo)
    const chunks = Math.ceil(shas.length / size)
    const want = (n: number) => shas.slice(n * size, (n + 1) * size)
    let n = 0
    // saved chunks are taken while they follow one another from the first
    for (let saved; n < chunks && (saved = checkpoints?.load(n, want(n), sink !== undefined)); n++) {
      emit(saved.commits)
      from = saved.patches
      read += saved.commits.length
      resumed += saved.commits.length
      progress('history', read, shas.length)
    }
    openSink()
    // Two chunks' logs run at once: one log is one git process on one core (rails: 46 s of it),
    // and this thread's parsing leaves the other core idle half the time. Their commits still go
    // out in order. `reading`: each running log's commits parsed so far, for the progress.
    const reading = new Map<number, number>()
    // a failed read stops the log still running ahead of it
    const stop = new AbortController()
    const mine = (n: number) => {
      const merges = new MergeDiffReader(repo, pre, workDir, objectsDir)
      reading.set(n, 0)
      const chunk = readLog(repo, pre, path.join(workDir, `log-${n}`), want(n), merges, stop.signal, (done) => {
        reading.set(n, done)
        let sum = read
        for (const d of reading.values()) sum += d
        progress('history', sum, shas.length)
      })
      chunk.catch(() => {})
      return { merges, chunk }
    }
    let ahead = n < chunks ? mine(n) : null
    for (; n < chunks; n++) {
      const { merges, chunk: reads } = ahead!
      ahead = n + 1 < chunks ? mine(n + 1) : null
      const chunk = await reads.catch((error: unknown) => {
        stop.abort()
        throw error
      })
      reading.delete(n)
      read += chunk.length
      const before = tail
      const index = n
      tail = (async () => {
        const extra = await merges.finish()
        for (const c of chunk) {
          const diffs = extra.get(c.sha)
          if (diffs) for (let k = 1; k < c.parents.length; k++) c.diffs[k] = diffs[k] ?? []
        }
        await before
        emit(chunk)
        checkpoints?.save(index, chunk, sink && checkpoints ? await sink.checkpoint() : null)
      })()
      tail.catch(() => {})
    }
    await tail
    openSink()
    progress('history', shas.length, shas.length)
    if (resumed > 0) options.onResumed?.(resumed, shas.length)
    return commits
  } finally {
    rmSync(workDir, { recursive: true, force: true })
  }
}

/** One log pass over `shas` (newest first), parsed as git writes it; merges go to `merges`. */
async function readLog(repo: string, pre: string[], file: string, shas: string[], merges: MergeDiffReader, signal: AbortSignal, onProgress: (done: number) => void): Promise<RawCommit[]> {
  const commits: RawCommit[] = []
  const parser = new DiffStreamParser((rec: DiffRecord) => {
    const c = parseLogHeader(rec.header) as RawCommit
    c.diffs = [pairRenamesPerPath(rec.files, rec.oids)]
    commits.push(c)
    if (c.parents.length > 1) merges.add({ sha: c.sha, parents: c.parents, first: c.diffs[0] })
    if (commits.length % 250 === 0) onProgress(commits.length)
  }, true)
  try {
    await readSpool(file, gitToFile(repo, [...pre, ...logArgs()], file, shas.join('\n') + '\n', undefined, signal), (chunk) => parser.push(chunk))
    parser.end()
  } finally {
    rmSync(file, { force: true })
  }
  if (commits.length !== shas.length || commits.some((c, i) => c.sha !== shas[i])) throw new Error(`the log pass returned ${commits.length} commits for ${shas.length} asked`)
  return commits
}

/**
 * Mined chunks kept between runs: `<dir>/<key>/chunk-<n>.bin` (V8's serialization: half of
 * JSON's cost, ~1 s of rails/rails' main thread in all), where the key names what was
 * mined (the commit list's ends and length, the chunk size, the diff options), and the patch
 * sink's file `<dir>/<key>/patches.bin` with, in each chunk, where the sink stood once it was
 * saved. Other keys' files are stale and go when a new key is opened; the caller removes the
 * directory once the index is built.
 */
function openCheckpoints(dir: string, what: Record<string, unknown>) {
  const key = createHash('sha256').update(JSON.stringify({ format: 3, ...what })).digest('hex').slice(0, 16)
  mkdirSync(path.join(dir, key), { recursive: true })
  for (const name of readdirSync(dir)) if (name !== key) rmSync(path.join(dir, name), { recursive: true, force: true })
  const file = (n: number) => path.join(dir, key, `chunk-${n}.bin`)
  const patchFile = path.join(dir, key, 'patches.bin')
  const patchBytes = () => {
    try {
      return statSync(patchFile).size
    } catch {
      return -1
    }
  }
  return {
    patchFile,
    load(n: number, shas: string[], withPatches: boolean): { commits: RawCommit[]; patches: PatchCheckpoint | null } | null {
      let saved: { commits: RawCommit[]; patches: PatchCheckpoint | null }
      try {
        saved = v8.deserialize(readFileSync(file(n))) as typeof saved
      } catch {
        return null
      }
      const commits = saved?.commits
      if (!Array.isArray(commits) || commits.length !== shas.length || !commits.every((c, i) => c?.sha === shas[i] && Array.isArray(c.diffs))) return null
      // the patch store must hold at least what it held when the chunk was saved
      if (withPatches && !(saved.patches && Number.isSafeInteger(saved.patches.bytes) && saved.patches.bytes <= patchBytes())) return null
      return saved
    },
    save(n: number, commits: RawCommit[], patches: PatchCheckpoint | null): void {
      // written whole, then renamed: a chunk file is complete or absent
      writeFileSync(file(n) + '.tmp', v8.serialize({ commits, patches }))
      renameSync(file(n) + '.tmp', file(n))
    },
  }
}
