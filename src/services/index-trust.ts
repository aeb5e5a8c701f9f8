import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { gitDirsOf } from '../git/git-dir.js'
import { gitwhyHome } from './registry.js'
import { sha256 } from './index-integrity.js'

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

interface TrustRecord {
  repo: string
  manifest: string
  files: Record<string, string>
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

function identity(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const rel of PINNED) {
    try {
      const s = statSync(path.join(dir, rel))
      out[rel] = `${s.ino}:${s.ctimeMs}`
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
  const now = identity(dir)
  return records(trustFile(repo)).some((r) => r.repo === real && r.manifest === manifest && PINNED.every((f) => r.files?.[f] === now[f]))
}

/** Record the index in `dir` as built (or verified) here; keeps the last few. */
export function trustIndex(repo: string, dir: string, manifest: string): void {
  const file = trustFile(repo)
  const record: TrustRecord = { repo: realpathSync(repo), manifest, files: identity(dir) }
  const kept = records(file).filter((r) => r.manifest !== manifest).slice(-(KEEP - 1))
  mkdirSync(path.dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify({ indexes: [...kept, record] }))
  renameSync(tmp, file)
}
