import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pairRenamesPerPath } from '../history/renames.js'
import { DiffStreamParser, type BlobIds, type DiffRecord, type FileDiff } from './diff-parser.js'
import { git, gitBuffer, gitToFile } from './run.js'
import { readSpool } from './spool.js'

/**
 * The diffs of merges against their non-first parents, restricted to what blame, line history and
 * area history read from them.
 *
 * Every walk looks at a merge's other parents only for the names its first-parent diff touches
 * (a line, range or path that the merge left as the first parent had it goes to the first parent).
 * A full second-parent diff of a merge of a long-lived branch is everything the mainline did since
 * the branch forked (git/git: ~1 GB of raw output, tens of GB of patch), so only these are read:
 *
 * - one raw pass (tree ids and blob ids only, no file content: cheap however large the diff)
 *   finds, per merge and parent, the entries naming those paths and which directories above them
 *   the diff touches (`git log -- DIR` asks; a directory no kept entry shows is recorded as a
 *   directory mark: an entry whose path is the directory with its trailing slash, '' for the root);
 * - only where such a path is added or deleted against that parent, the whole tree's rename
 *   pairing (raw, `-M`, then per-path pairing as renames.ts does) decides the entries;
 * - the patches of the kept entries come from one diff-tree pass over synthetic commits whose
 *   trees hold just those blobs (one fast-import into a private repository; the repository's
 *   objects are reached as an alternate, nothing is written there): git diffs exactly the pairs
 *   wanted.
 *   A batch of pathspecs cannot do this: every merge would get the patches of every path of its
 *   batch, and git matches each tree entry against every pathspec.
 */

export interface MergeToRead {
  sha: string
  parents: string[]
  /** The merge's first-parent diff, renames paired. */
  first: FileDiff[]
}

/** A directory mark: the entry that says "the diff touches something under this directory". */
export function isDirectoryMark(p: string): boolean {
  return p === '' || p.endsWith('/')
}

function directoryMark(dir: string): FileDiff {
  return { path: dir, oldPath: dir, status: 'M', binary: false, hunks: [], additions: 0, deletions: 0, whitespaceOnly: false }
}

/** Same test as area history's for a directory (with its trailing slash). */
function touchesDir(fd: FileDiff, dir: string): boolean {
  return fd.path.startsWith(dir) || (fd.status === 'R' && fd.oldPath.startsWith(dir))
}

/** '' (the root) and every directory above `name`, each with its trailing slash. */
function directoriesAbove(name: string): string[] {
  const out = ['']
  for (let i = name.indexOf('/'); i !== -1; i = name.indexOf('/', i + 1)) out.push(name.slice(0, i + 1))
  return out
}

/** A kept entry with what a tree needs to hold its two sides. */
interface Kept {
  f: FileDiff
  oids: BlobIds
  modes: [string, string]
}

/** One parent of one merge: what is wanted and what was found. */
interface Slot {
  sha: string
  k: number
  parent: string
  names: Set<string>
  /** Entries of the raw pass (no renames) naming `names`. */
  raw: Kept[]
  /** Directories above `names` ('' and `dir/`) that the diff touches. */
  touched: Set<string>
  /** The final entries. */
  diffs: FileDiff[]
}

const FORMAT = '--format=%x01%H%x02'
const PATCH_OPTIONS = ['-p', '--no-renames', '--no-abbrev', '-U0', '--no-color', '--no-ext-diff', '--no-textconv', '--full-index', FORMAT]

export class MergeDiffReader {
  private readonly slots: Slot[] = []
  private files = 0
  /** Readers share a work directory: each names its files apart. */
  private static readers = 0
  private readonly id = MergeDiffReader.readers++

  /**
   * `pre`: git options placed before the subcommand (the private attributes file); `workDir`:
   * where git's output is spooled; `objectsDir`: the repository's object directory (objectsDirOnce).
   */
  constructor(
    private readonly repo: string,
    private readonly pre: string[],
    private readonly workDir: string,
    private readonly objectsDir: () => Promise<string> = objectsDirOnce(repo),
  ) {}

  /** Queue a merge (read by `finish`). */
  add(m: MergeToRead): void {
    const names = new Set<string>()
    for (const d of m.first) {
      names.add(d.path)
      names.add(d.oldPath)
    }
    for (let k = 1; k < m.parents.length; k++) this.slots.push({ sha: m.sha, k, parent: m.parents[k], names, raw: [], touched: new Set(), diffs: [] })
  }

  private async spooled(
    args: string[],
    lines: string[],
    rawOnly: boolean,
    onRecord: (n: number, rec: DiffRecord) => void,
    options: { env?: Record<string, string>; rawFilter?: (n: number, path: string) => boolean } = {},
  ): Promise<void> {
    const { env, rawFilter } = options
    const file = path.join(this.workDir, `merge-diffs-${this.id}-${this.files++}`)
    let next = 0
    const parser = new DiffStreamParser((rec) => {
      const n = next++
      const want = lines[n]?.slice(0, rec.header.length)
      if (want !== rec.header) throw new Error(`merge diff out of order: got ${rec.header}, expected ${want}`)
      onRecord(n, rec)
    }, false, rawOnly, rawFilter)
    try {
      await readSpool(file, gitToFile(this.repo, [...this.pre, ...args], file, lines.join('\n') + '\n', env), (chunk) => parser.push(chunk))
      parser.end()
    } finally {
      rmSync(file, { force: true })
    }
  }

  /** Every queued merge's diffs against its other parents: sha -> diffs, [k] set for k >= 1. */
  async finish(): Promise<Map<string, FileDiff[][]>> {
    const wanted = this.slots.filter((s) => s.names.size > 0)
    const line = (s: Slot) => `${s.sha} ${s.parent}`
    if (wanted.length > 0) {
      // every raw line marks the directories it touches; only those naming a wanted path are kept
      let above: { n: number; dirs: Set<string> } = { n: -1, dirs: new Set() }
      const rawFilter = (n: number, p: string) => {
        const slot = wanted[n]
        if (!slot) return false // more records than asked: the order check reports it
        if (above.n !== n) above = { n, dirs: directoriesOf(slot.names) }
        touchDirs(slot.touched, above.dirs, p)
        return slot.names.has(p)
      }
      await this.spooled(['diff-tree', '--stdin', '--always', '-r', '--raw', '--no-abbrev', '--no-renames', FORMAT], wanted.map(line), true, (n, rec) => {
        rec.files.forEach((f, i) => wanted[n].raw.push({ f, oids: rec.oids[i]!, modes: rec.modes![i] }))
      }, { rawFilter })
    }
    const patched: Array<{ slot: Slot; kept: Kept[] }> = []
    const renamed = wanted.filter((s) => s.raw.some((e) => e.f.status === 'A' || e.f.status === 'D'))
    for (const s of wanted) if (!renamed.includes(s) && s.raw.length > 0) patched.push({ slot: s, kept: s.raw })
    if (renamed.length > 0) {
      // the whole tree's rename pairing, for the parents where a wanted path is added or deleted
      await this.spooled(['diff-tree', '--stdin', '--always', '-r', '--raw', '--no-abbrev', '-M', FORMAT], renamed.map(line), true, (n, rec) => {
        const slot = renamed[n]
        const kept: Kept[] = []
        pairRenamesPerPath(rec.files, rec.oids).forEach((e, i) => {
          if (!slot.names.has(e.path) && !slot.names.has(e.oldPath)) return
          const exact = i >= rec.files.length || (e.status === 'R' && (e !== rec.files[i] || rec.oids[i]![0] === rec.oids[i]![1]))
          // a rename's patch is its two blobs' diff, shown under the new path
          if (exact) slot.diffs.push(e)
          else kept.push({ f: e, oids: rec.oids[i]!, modes: rec.modes![i] })
        })
        if (kept.length > 0) patched.push({ slot, kept })
      })
    }
    if (patched.length > 0) await this.patches(patched)
    const out = new Map<string, FileDiff[][]>()
    for (const s of this.slots) {
      for (const d of s.names.size > 0 ? directoriesOf(s.names) : []) {
        if (s.touched.has(d) && !s.diffs.some((f) => touchesDir(f, d))) s.diffs.push(directoryMark(d))
      }
      let arr = out.get(s.sha)
      if (!arr) out.set(s.sha, (arr = []))
      arr[s.k] = s.diffs
    }
    return out
  }

  /**
   * The patches of the kept entries: per slot a synthetic commit whose parent's tree holds the
   * old sides and whose own tree holds the new sides, diffed by one diff-tree pass. The commits
   * come from one `git fast-import` into a private repository (one pack, its objects reached
   * through the real repository as an alternate): nothing is written where the user's objects are.
   */
  private async patches(jobs: Array<{ slot: Slot; kept: Kept[] }>): Promise<void> {
    const synth = path.join(this.workDir, `synthetic-${this.id}`)
    for (const d of ['objects/pack', 'refs']) mkdirSync(path.join(synth, d), { recursive: true })
    writeFileSync(path.join(synth, 'HEAD'), 'ref: refs/heads/main\n')
    const alternate = await this.objectsDir()
    const marks = path.join(synth, 'marks')
    const stream = fastImportStream(jobs.map(({ kept }) => kept))
    try {
      // fast-import frees and reallocates a large block for every commit, and glibc hands it back
      // to the kernel each time (a brk shrink and a TLB flush): 1 s of system time per run on
      // git/git's merges, 0.1 s when the heap is not trimmed
      const env = { GIT_DIR: synth, GIT_ALTERNATE_OBJECT_DIRECTORIES: alternate, MALLOC_TRIM_THRESHOLD_: String(1 << 30) }
      await gitBuffer(this.repo, ['fast-import', '--quiet', `--export-marks=${marks}`], { input: stream, env })
      const oid = new Map<number, string>()
      for (const line of readFileSync(marks, 'latin1').split('\n')) {
        const m = /^:(\d+) ([0-9a-f]+)$/.exec(line)
        if (m) oid.set(Number(m[1]), m[2])
      }
      const lines = jobs.map((_, n) => `${oid.get(2 * n + 2)} ${oid.get(2 * n + 1)}`)
      const objects = { GIT_OBJECT_DIRECTORY: path.join(synth, 'objects'), GIT_ALTERNATE_OBJECT_DIRECTORIES: alternate }
      await this.spooled(['diff-tree', '--stdin', '--always', ...PATCH_OPTIONS], lines, false, (n, rec) => {
        const { slot, kept } = jobs[n]
        for (const { f } of kept) {
          const found = rec.files.find((p) => p.path === f.path && (f.status === 'R' ? p.status === 'M' : p.status === f.status))
          slot.diffs.push(found && f.status === 'R' ? { ...found, status: 'R', oldPath: f.oldPath, whitespaceOnly: false } : (found ?? f))
        }
      }, { env: objects })
    } finally {
      rmSync(synth, { recursive: true, force: true })
    }
  }
}

/**
 * The repository's object directory, asked of git once however many readers want it (one a
 * chunk: a process spawned from a process of ~1 GB costs ~15 ms). A failure is asked again.
 */
export function objectsDirOnce(repo: string): () => Promise<string> {
  let dir: Promise<string> | null = null
  return () => {
    if (!dir) {
      dir = git(repo, ['rev-parse', '--git-path', 'objects']).then((out) => path.resolve(repo, out.trim()))
      dir.catch(() => (dir = null))
    }
    return dir
  }
}

/** '' and every `dir/` above the names. */
function directoriesOf(names: Set<string>): Set<string> {
  const out = new Set<string>()
  for (const n of names) for (const d of directoriesAbove(n)) out.add(d)
  return out
}

/** Mark the directories of `above` that hold `p` (they nest: stop at the first that is not wanted). */
function touchDirs(touched: Set<string>, above: Set<string>, p: string): void {
  touched.add('')
  for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) {
    const d = p.slice(0, i + 1)
    if (!above.has(d)) return
    touched.add(d)
  }
}

/** A path as fast-import reads it: C-quoted, UTF-8 bytes. */
function quoted(p: string): Buffer {
  const out: number[] = [34]
  for (const b of Buffer.from(p, 'utf8')) {
    if (b === 34 || b === 92) out.push(92, b)
    else if (b < 32 || b === 127) out.push(92, ...Buffer.from(b.toString(8).padStart(3, '0')))
    else out.push(b)
  }
  out.push(34)
  return Buffer.from(out)
}

/**
 * fast-import commands for two commits per job (marks 2n+1 and 2n+2): the first with the old
 * sides of its entries, the second with the new sides (an added file has no old side, a deleted
 * one no new side; a rename shows both under its new path, so the patch is its two blobs' diff).
 */
function fastImportStream(jobs: Kept[][]): Buffer {
  const parts: Buffer[] = []
  const header = (mark: number) => Buffer.from(`commit refs/heads/main\nmark :${mark}\ncommitter gitwhy <gitwhy@invalid> 0 +0000\ndata 0\ndeleteall\n`)
  jobs.forEach((kept, n) => {
    for (const side of [0, 1] as const) {
      parts.push(header(2 * n + 1 + side))
      for (const { f, oids, modes } of kept) {
        if (f.status === (side === 0 ? 'A' : 'D')) continue
        parts.push(Buffer.from(`M ${modes[side]} ${oids[side]} `), quoted(f.path), NEWLINE)
      }
      parts.push(NEWLINE)
    }
  })
  return Buffer.concat(parts)
}

const NEWLINE = Buffer.from('\n')
