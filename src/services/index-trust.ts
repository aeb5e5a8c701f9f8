import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { gitDirsOf } from '../git/git-dir.js'
import { gitwhyHome } from './registry.js'
import { manifestOf, sha256 } from './index-integrity.js'

/**
 * Which indexes this machine built or verified, kept where a clone or a copy of the repository's
 * files does not carry it: `<git dir>/gitwhy-trust` (or `$GITWHY_HOME/trust/` when git's
 * environment points elsewhere). An index is trusted when a record names its repository, its
 * manifest's hash (which pins every file's content) and the identity on disk (inode and change
 * time) of the files readers do not hash on open: a file put there by a checkout, a copy or an
 * edit has a new change time, so an index that arrived any other way than being built here is
 * verified against git's objects by `gitwhy analyze` before anything reads it. Only node's fs
 * here: the Claude hook checks it on its 200 ms budget.
 */
const TRUST_FILE = 'gitwhy-trust'
const KEEP = 8
/** The files whose content readers take on trust (graph.kuzu is opened by Kuzu, diffs.bin read in parts). */
const PINNED = ['graph.kuzu', 'diffs.bin']
/** diffs.bin's later segments (src/history/segments.ts), read in parts as it is. */
const PINNED_SEGMENT = /^diffs\.\d+\.bin$/

/** The pinned files of the index in `dir`: PINNED and the later segments its manifest lists. */
function pinnedOf(dir: string, manifest: string): string[] {
  return [...PINNED, ...Object.keys(manifestOf(dir, manifest).files).filter((rel) => PINNED_SEGMENT.test(rel))]
}

interface TrustRecord {
  repo: string
  manifest: string
  files: Record<string, string>
  /**
   * Every file the manifest lists, as it was on disk when its hash was taken (size, inode, change
   * time): while they all still are, the files hold what the manifest says without hashing them.
   */
  all?: Record<string, string>
}

function trustFile(repo: string): string {
  const dirs = gitDirsOf(repo)
  return dirs ? path.join(dirs.gitDir, TRUST_FILE) : path.join(gitwhyHome(), 'trust', `${sha256(realpathSync(repo)).slice(0, 16)}.json`)
}

function records(file: string): TrustRecord[] {
  if (!existsSync(file)) return []
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as { indexes?: TrustRecord[] }
    return Array.isArray(data.indexes) ? data.indexes : []
  } catch {
    return []
  }
}

function identity(dir: string, files: readonly string[], withSize = false): Record<string, string> {
  const out: Record<string, string> = {}
  for (const rel of files) {
    try {
      const s = statSync(path.join(dir, rel))
      out[rel] = withSize ? `${s.size}:${s.ino}:${s.ctimeMs}` : `${s.ino}:${s.ctimeMs}`
    } catch {
      out[rel] = 'missing'
    }
  }
  return out
}

/** Whether the index in `dir` (with meta.json's manifest hash) was built or verified here. */
export function isTrusted(repo: string, dir: string, manifest: string | undefined): boolean {
  if (manifest === undefined) return false
  const real = realpathSync(repo)
  let pinned: string[]
  try {
    pinned = pinnedOf(dir, manifest)
  } catch {
    return false
  }
  const now = identity(dir, pinned)
  return records(trustFile(repo)).some((r) => r.repo === real && r.manifest === manifest && pinned.every((f) => r.files?.[f] === now[f]))
}

/**
 * Whether every file of the trusted index in `dir` is, on disk, the very file whose hash the
 * manifest holds: same size, same inode, same change time as when it was hashed here. Any write,
 * truncation, copy or replacement changes the change time, so this answers "intact" for an index
 * nobody touched without reading it (a no-op or an update need not hash hundreds of MB); what it
 * cannot see is a change below the file system (a bad disk), which status and doctor (they hash
 * everything) and every reader of a whole file (it hashes what it reads) still find.
 */
export function unchangedSinceTrusted(repo: string, dir: string, manifest: string | undefined): boolean {
  if (manifest === undefined) return false
  let listed: string[]
  try {
    listed = Object.keys(manifestOf(dir, manifest).files)
  } catch {
    return false
  }
  const real = realpathSync(repo)
  const record = records(trustFile(repo)).find((r) => r.repo === real && r.manifest === manifest)
  if (!record?.all || Object.keys(record.all).length !== listed.length) return false
  const now = identity(dir, listed, true)
  return listed.every((rel) => record.all![rel] === now[rel] && now[rel] !== 'missing')
}

/** Record the index in `dir` as built (or verified) here; keeps the last few. */
export function trustIndex(repo: string, dir: string, manifest: string): void {
  const file = trustFile(repo)
  const record: TrustRecord = { repo: realpathSync(repo), manifest, files: identity(dir, pinnedOf(dir, manifest)), all: identity(dir, Object.keys(manifestOf(dir, manifest).files), true) }
  const kept = records(file).filter((r) => r.manifest !== manifest).slice(-(KEEP - 1))
  mkdirSync(path.dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify({ indexes: [...kept, record] }))
  renameSync(tmp, file)
}
