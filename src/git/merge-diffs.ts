import { rmSync } from 'node:fs'
import path from 'node:path'
import { pairRenamesPerPath } from '../history/renames.js'
import { DiffStreamParser, type DiffRecord, type FileDiff } from './diff-parser.js'
import { gitPiped, gitToFile } from './run.js'
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
 * - the entries naming those paths (as new path or rename source), exactly as the full
 *   `diff-tree -M` with per-path rename pairing (renames.ts) gives them: a patch pass restricted to
 *   the paths (no renames), then, only where a path is added or deleted against that parent, the
 *   whole tree's rename pairing (raw, no patch) and the patches of the inexact renames it finds;
 * - for each directory above those paths, whether the parent's diff touches anything under it
 *   (`git log -- DIR` asks): compared by tree ids, and recorded as a directory mark (an entry whose
 *   path is the directory with its trailing slash, or '' for the root) when no entry shows it.
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

/**
 * The pathspec that selects `name` (literal pathspecs). Node passes arguments as UTF-8, so a name
 * with other characters (perhaps decoded from another encoding) is selected through its longest
 * ASCII directory, and the entries are filtered by name afterwards.
 */
export function pathspecFor(name: string): string {
  if (/^[\x20-\x7e]*$/.test(name)) return name
  const ascii = name.slice(0, name.search(/[^\x20-\x7e]/))
  const slash = ascii.lastIndexOf('/')
  return slash > 0 ? ascii.slice(0, slash) : '.'
}

/** '' (the root) and every directory above `name`, each with its trailing slash. */
function directoriesAbove(name: string): string[] {
  const out = ['']
  for (let i = name.indexOf('/'); i !== -1; i = name.indexOf('/', i + 1)) out.push(name.slice(0, i + 1))
  return out
}

/** One parent of one merge: what is wanted and what was found. */
interface Slot {
  sha: string
  k: number
  parent: string
  names: Set<string>
  /** Entries of the restricted patch pass (no renames) naming `names`. */
  patch: FileDiff[]
  /** The final entries. */
  diffs: FileDiff[]
}

const DIFF_OPTIONS = ['-p', '--no-abbrev', '-U0', '--no-color', '--no-ext-diff', '--no-textconv', '--full-index', '--format=%x01%H%x02']
/** Pathspecs per restricted process: enough to need few processes, few enough to match quickly. */
const MAX_SPECS = 2000
const MAX_SLOTS = 400

export class MergeDiffReader {
  private readonly slots: Slot[] = []
  private batch: Slot[] = []
  private batchSpecs = new Set<string>()
  private chain: Promise<void> = Promise.resolve()
  private failure: unknown = null
  private files = 0
  /** Readers share a work directory: each names its spool files apart. */
  private static readers = 0
  private readonly id = MergeDiffReader.readers++

  /** `pre`: git options placed before the subcommand (the private attributes file); `workDir`: where git's output is spooled. */
  constructor(
    private readonly repo: string,
    private readonly pre: string[],
    private readonly workDir: string,
  ) {}

  /** Queue a merge; restricted passes start as batches fill, while the caller goes on. */
  add(m: MergeToRead): void {
    const names = new Set<string>()
    for (const d of m.first) {
      names.add(d.path)
      names.add(d.oldPath)
    }
    for (let k = 1; k < m.parents.length; k++) {
      const slot: Slot = { sha: m.sha, k, parent: m.parents[k], names, patch: [], diffs: [] }
      this.slots.push(slot)
      if (names.size === 0) continue
      this.batch.push(slot)
      for (const n of names) this.batchSpecs.add(pathspecFor(n))
    }
    if (this.batchSpecs.size >= MAX_SPECS || this.batch.length >= MAX_SLOTS) this.flush()
  }

  private flush(): void {
    if (this.batch.length === 0) return
    const batch = this.batch
    const specs = [...this.batchSpecs]
    this.batch = []
    this.batchSpecs = new Set()
    this.chain = this.chain.then(async () => {
      if (this.failure) return
      try {
        await this.restricted(batch, ['--no-renames'], specs, (slot, rec) => {
          slot.patch = rec.files.filter((f) => slot.names.has(f.path) || slot.names.has(f.oldPath))
        })
      } catch (error) {
        this.failure = error
      }
    })
  }

  /** One diff-tree process over `slots` with the given pathspecs; each record handed to `onRecord`. */
  private async restricted(slots: Slot[], options: string[], specs: string[], onRecord: (slot: Slot, rec: DiffRecord) => void): Promise<void> {
    await this.spooled(['--literal-pathspecs', 'diff-tree', '--stdin', '--always', ...options, ...DIFF_OPTIONS, '--', ...specs], slots, false, onRecord)
  }

  private async spooled(args: string[], slots: Slot[], rawOnly: boolean, onRecord: (slot: Slot, rec: DiffRecord) => void): Promise<void> {
    const file = path.join(this.workDir, `merge-diffs-${this.id}-${this.files++}`)
    let next = 0
    const parser = new DiffStreamParser((rec) => {
      const slot = slots[next++]
      if (!slot || rec.header !== slot.sha) throw new Error(`merge diff out of order: got ${rec.header}, expected ${slot?.sha}`)
      onRecord(slot, rec)
    }, false, rawOnly)
    try {
      const input = slots.map((s) => `${s.sha} ${s.parent}\n`).join('')
      await readSpool(file, gitToFile(this.repo, [...this.pre, ...args], file, input), (chunk) => parser.push(chunk))
      parser.end()
    } finally {
      rmSync(file, { force: true })
    }
  }

  /** Every queued merge's diffs against its other parents: sha -> diffs, [k] set for k >= 1. */
  async finish(): Promise<Map<string, FileDiff[][]>> {
    this.flush()
    await this.chain
    if (this.failure) throw this.failure
    const renamed = this.slots.filter((s) => s.patch.some((f) => f.status === 'A' || f.status === 'D'))
    for (const s of this.slots) if (!renamed.includes(s)) s.diffs = s.patch
    const inexact: Array<{ slot: Slot; at: number }> = []
    if (renamed.length > 0) {
      // the whole tree's rename pairing, for the parents where a wanted path is added or deleted
      await this.spooled(['diff-tree', '--stdin', '--always', '-r', '--raw', '--no-abbrev', '-M', '--format=%x01%H%x02'], renamed, true, (slot, rec) => {
        const paired = pairRenamesPerPath(rec.files, rec.oids)
        paired.forEach((e, i) => {
          if (!slot.names.has(e.path) && !slot.names.has(e.oldPath)) return
          if (i >= rec.files.length) slot.diffs.push(e) // a source left without its rename: a deletion
          else if (e.status === 'R') {
            const exact = e !== rec.files[i] || rec.oids[i]?.[0] === rec.oids[i]?.[1]
            if (!exact) inexact.push({ slot, at: slot.diffs.length })
            slot.diffs.push(e)
          } else slot.diffs.push(slot.patch.find((p) => p.path === e.path && p.status === e.status) ?? e)
        })
      })
    }
    if (inexact.length > 0) await this.renamePatches(inexact)
    await this.markDirectories()
    const out = new Map<string, FileDiff[][]>()
    for (const s of this.slots) {
      let arr = out.get(s.sha)
      if (!arr) out.set(s.sha, (arr = []))
      arr[s.k] = s.diffs
    }
    return out
  }

  /** The patches of inexact renames: restricted to both names, with rename detection. */
  private async renamePatches(items: Array<{ slot: Slot; at: number }>): Promise<void> {
    const want = (slot: Slot, rec: DiffRecord) => {
      for (const item of items) {
        if (item.slot !== slot) continue
        const e = slot.diffs[item.at]
        const found = rec.files.find((f) => f.status === 'R' && f.path === e.path && f.oldPath === e.oldPath)
        if (found) slot.diffs[item.at] = found
      }
    }
    const slots = [...new Set(items.map((i) => i.slot))]
    const specs = new Set<string>()
    for (const { slot, at } of items) {
      specs.add(pathspecFor(slot.diffs[at].path))
      specs.add(pathspecFor(slot.diffs[at].oldPath))
    }
    await this.restricted(slots, ['-M'], [...specs], want)
    // other paths of the batch can pair differently: those renames get a process of their own
    for (const item of items) {
      if (item.slot.diffs[item.at].hunks.length > 0 || item.slot.diffs[item.at].binary) continue
      const e = item.slot.diffs[item.at]
      await this.restricted([item.slot], ['-M'], [...new Set([pathspecFor(e.path), pathspecFor(e.oldPath)])], want)
    }
  }

  /** Directory marks: one `cat-file` compares the tree ids of the directories above the wanted names. */
  private async markDirectories(): Promise<void> {
    const specs = new Map<string, number>()
    const order: string[] = []
    const spec = (sha: string, dir: string) => {
      const s = `${sha}:${dir.replace(/\/$/, '')}`
      if (!specs.has(s)) {
        specs.set(s, order.length)
        order.push(s)
      }
    }
    const dirsOf = new Map<Set<string>, string[]>()
    for (const s of this.slots) {
      if (s.names.size === 0) continue
      let dirs = dirsOf.get(s.names)
      if (!dirs) {
        const set = new Set<string>()
        for (const n of s.names) for (const d of directoriesAbove(n)) if (!d.includes('\n')) set.add(d)
        dirsOf.set(s.names, (dirs = [...set]))
      }
      for (const d of dirs) {
        spec(s.sha, d)
        spec(s.parent, d)
      }
    }
    if (order.length === 0) return
    const ids: string[] = []
    let rest = ''
    await gitPiped(this.repo, ['cat-file', '--batch-check=%(objectname)'], order.join('\n') + '\n', (chunk) => {
      const lines = (rest + chunk.toString('latin1')).split('\n')
      rest = lines.pop()!
      for (const l of lines) ids.push(l.endsWith(' missing') ? '' : l)
    })
    const id = (sha: string, dir: string) => ids[specs.get(`${sha}:${dir.replace(/\/$/, '')}`)!]
    for (const s of this.slots) {
      if (s.names.size === 0) continue
      for (const d of dirsOf.get(s.names)!) {
        if (id(s.sha, d) === id(s.parent, d)) continue
        if (!s.diffs.some((f) => touchesDir(f, d))) s.diffs.push(directoryMark(d))
      }
    }
  }
}
