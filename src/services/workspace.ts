import { execFileSync } from 'node:child_process'
import { existsSync, linkSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs'
import { readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { UserError } from '../errors.js'
import { isAlive } from '../runtime/alive.js'
import type { GraphRels } from '../graph/delta.js'
import { SCHEMA_VERSION } from '../graph/schema.js'
import type { IdentityConfig } from '../history/identity.js'
import { remoteWeb, type RemoteWeb } from '../history/remote.js'
import type { AnalyticsConfig } from '../analytics/types.js'
import { SpareCopier } from './graph-spare.js'
import { GRAPH_DB, INDEX_FILES } from './index-layout.js'
import { checkOnOpen, damagedIndex } from './index-integrity.js'
import { isTrusted } from './index-trust.js'
import { gitDirsOf } from '../git/git-dir.js'
import { HeadReader } from '../git/head.js'
import { git, gitBuffer, GitError } from '../git/run.js'

/**
 * The on-disk layout under `<repo>/.gitwhy/`:
 *   meta.json          the active index: schema version, indexed HEAD, options, counts, timings,
 *                      the hash of its manifest, and the index it replaced (kept for its readers)
 *   index-<id>/        one complete index (graph.kuzu, dag.json, diffs.bin and its segments,
 *                      diffs-index/, commits/, files/, manifest.json: see index-layout.ts); analyze builds a
 *                      new one beside the active one and swaps meta.json atomically
 *   trash-index-<id>/  a retired index, deleted by the next build or update (removeStaleIndexDirs)
 *   analyze.lock       held by the one writer: its pid, start time and boot id
 *   briefs/            rationale cards by evidence fingerprint (services/brief.ts): kept across rebuilds
 *   .gitignore         `*`, so that nobody commits the index by accident
 */
export const GITWHY_DIR = '.gitwhy'

export interface IndexMeta {
  schemaVersion: number
  indexDir: string
  head: string
  shallow: boolean
  options: {
    maxCommits: number | null
    maxFileBytes: number
    analytics: AnalyticsConfig
    /** Author emails grouped into identities beyond .mailmap (`analyze --no-identity-merge` turns it off). */
    identityMerge: boolean
    identities: IdentityConfig
    /** Commits blame looks through (blame.ignoreRevsFile, .git-blame-ignore-revs), sorted; null after --no-ignore-revs. */
    ignoreRevs: string[] | null
    /** The extraction rules' fingerprint (LanguageRegistry.fingerprint); absent in indexes built before it was recorded. */
    extraction?: string
    /** The model that embedded the search documents (id and hash of its files); null: not embedded (the default; --embeddings turns it on); absent before schema 10. */
    embeddings?: { id: string; hash: string } | null
  }
  counts: Record<string, number>
  skipped: Record<string, number>
  timings: Record<string, number>
  createdAt: string
  gitwhyVersion: string
  /** SHA-256 of the index directory's manifest.json (see index-integrity.ts). */
  manifest?: string
  /** The `origin` remote's web address and forge when analyze last ran (PR and issue links); null: none known. */
  remote?: RemoteWeb | null
  /** The index this one replaced: kept until the next swap, for readers that opened it. */
  previousIndexDir?: string | null
  /** Fingerprint of the decisions the graph holds (knowledge/decision-rows.ts); absent: none, or an index from before. */
  decisions?: string
  /** The forge cache the index took its PR and issue rows from (`gitwhy enrich`; src/forge/cache.ts), and how many rows came from it; absent: none. */
  forge?: { fingerprint: string; pull_requests: number; issues: number }
  /**
   * The size of graph.kuzu when it was last loaded whole (a full build), carried by updates: an
   * updated graph that grew past GRAPH_REGROWTH times this is loaded afresh. A safety net: Kuzu
   * keeps pages an update frees (a SET string's, until the delta stopped setting unchanged ones:
   * vuejs/core's graph had grown from 92 to 206 MB over ~100 updates). Absent: an index from
   * before (its current size is taken then).
   */
  graphBuiltBytes?: number
  /**
   * graph.kuzu's rows per relationship table, counted when it was written (a build's load, an
   * update's finish): where the next update's check of its rows starts, so that the copy it opens
   * need not be counted first (~45 ms on prettier). Absent: an index from before (counted then).
   */
  graphRels?: GraphRels
}

export async function resolveRepo(dir?: string): Promise<string> {
  const start = path.resolve(dir ?? process.env.GITWHY_REPO ?? process.cwd())
  if (!existsSync(start)) throw new UserError(`${start} does not exist`, 'pass an existing directory with --repo', 'not_found')
  const cwd = statSync(start).isDirectory() ? start : path.dirname(start)
  const found = workTreeOf(cwd)
  if (found) return found
  try {
    const top = (await git(cwd, ['rev-parse', '--show-toplevel'])).trim()
    if (!top) throw new Error('bare')
    return top
  } catch (error) {
    if (error instanceof UserError) throw error
    throw new UserError(`${start} is not inside a git repository (or it is a bare repository)`, 'run gitwhy inside a git work tree, or pass --repo <path to a git repository>', 'not_a_repo')
  }
}

/**
 * The work tree root containing `dir`, found by looking for `.git` upwards without starting git
 * (every CLI call and hook resolves it). null when git must decide: its environment points
 * elsewhere, or `dir` is inside a `.git` directory.
 */
function workTreeOf(dir: string): string | null {
  if (process.env.GIT_DIR || process.env.GIT_WORK_TREE || process.env.GIT_CEILING_DIRECTORIES) return null
  let at = realpathSync(dir)
  for (;;) {
    if (path.basename(at) === '.git') return null
    if (existsSync(path.join(at, '.git'))) return gitDirsOf(at) ? at : null
    const up = path.dirname(at)
    if (up === at) return null
    at = up
  }
}

export function gitwhyDir(repo: string): string {
  return path.join(repo, GITWHY_DIR)
}

export function readMeta(repo: string): IndexMeta | null {
  const file = path.join(gitwhyDir(repo), 'meta.json')
  if (!existsSync(file)) return null
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as IndexMeta
  } catch {
    return null
  }
}

/** meta.json is there but cannot be read: the index is damaged rather than absent. */
export function metaDamaged(repo: string): boolean {
  return readMeta(repo) === null && existsSync(path.join(gitwhyDir(repo), 'meta.json'))
}

/**
 * The active index, or a UserError telling how to create, repair or verify it. Checks what is
 * cheap (the manifest, the large files' sizes) and that this machine built or verified it; the
 * readers check each file they read against the manifest.
 */
export function requireIndex(repo: string): { meta: IndexMeta; dir: string } {
  const meta = readMeta(repo)
  if (!meta && metaDamaged(repo)) throw damagedIndex(gitwhyDir(repo), 'meta.json cannot be read')
  if (!meta) throw new UserError(`no gitwhy index in ${repo}`, `run \`gitwhy analyze ${repo}\` first`, 'no_index')
  if (meta.schemaVersion !== SCHEMA_VERSION) {
    throw new UserError(
      `the index in ${repo} was built with schema version ${meta.schemaVersion}; this gitwhy reads version ${SCHEMA_VERSION}`,
      `rebuild it: \`gitwhy analyze ${repo} --force\``,
      'schema_mismatch',
    )
  }
  const dir = path.join(gitwhyDir(repo), meta.indexDir)
  if (!existsSync(dir)) throw new UserError(`the index directory ${dir} is missing`, `rebuild it: \`gitwhy analyze ${repo} --force\``, 'no_index')
  const missing = missingIndexFiles(dir)
  if (missing.length > 0) {
    throw damagedIndex(dir, `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing`)
  }
  checkOnOpen(dir, meta.manifest)
  if (!isTrusted(repo, dir, meta.manifest)) throw unverifiedIndex(repo)
  return { meta, dir }
}

export function unverifiedIndex(repo: string): UserError {
  return new UserError(
    `this index was not built on this machine (or its files changed since): ${gitwhyDir(repo)} is not served until it is checked against the repository's history`,
    `run \`gitwhy analyze ${repo}\` to verify it (whatever does not match is rebuilt)`,
    'index_unverified',
  )
}

/** The parts of a complete index directory that `dir` lacks (none: the index is usable). */
export function missingIndexFiles(dir: string): string[] {
  return INDEX_FILES.filter((f) => !existsSync(path.join(dir, f)))
}

/** Create `.gitwhy/` (with a `.gitignore` of `*`, so the index is not committed by accident). */
export function ensureGitwhyDir(repo: string): string {
  const root = gitwhyDir(repo)
  mkdirSync(root, { recursive: true })
  const ignore = path.join(root, '.gitignore')
  if (!existsSync(ignore)) writeFileSync(ignore, '# written by gitwhy: the index is rebuilt per clone (see the README to share it)\n*\n')
  return root
}

export function newIndexDir(repo: string): { id: string; dir: string } {
  const root = ensureGitwhyDir(repo)
  const id = `index-${Date.now().toString(36)}-${process.pid}`
  const dir = path.join(root, id)
  mkdirSync(dir)
  return { id, dir }
}

/**
 * Atomically make `meta` the active index. The index it replaces is kept until the next swap, so
 * a reader that read the old meta.json a moment ago can still open it; older ones are removed.
 */
export function activateIndex(repo: string, meta: IndexMeta, copier: SpareCopier = SpareCopier.later()): void {
  const root = gitwhyDir(repo)
  const previous = readMeta(repo)?.indexDir ?? null
  meta.previousIndexDir = previous === meta.indexDir ? null : previous
  const tmp = path.join(root, `meta.json.${process.pid}.tmp`)
  writeFileSync(tmp, JSON.stringify(meta, null, 2))
  renameSync(tmp, path.join(root, 'meta.json'))
  removeStaleIndexDirs(repo)
  // the next update's copy of the graph, made meanwhile (a big graph's only)
  copier.start(path.join(root, meta.indexDir, GRAPH_DB))
}

const TRASH = 'trash-'

/**
 * Retire every index directory but the active one, the one it replaced (a reader may still be
 * using it) and those of other live processes (an analyze's head start: graphHeadStart). The caller
 * holds the writer lock, so no other build is in progress: anything else is left over from a build
 * that failed or was killed. Retired directories are renamed into the
 * trash at once (no reader opens them by that name) and deleted by the next analyze that builds
 * or updates, in the background of its work (emptyTrash): deleting the ~1,000 files of an index
 * took ~0.1 s of every update.
 */
export function removeStaleIndexDirs(repo: string): void {
  const root = gitwhyDir(repo)
  if (!existsSync(root)) return
  const meta = readMeta(repo)
  const keep = [meta?.indexDir, meta?.previousIndexDir]
  for (const name of readdirSync(root)) {
    if (!name.startsWith('index-') || keep.includes(name) || inProgressElsewhere(name)) continue
    try {
      renameSync(path.join(root, name), path.join(root, `${TRASH}${name}`))
    } catch {
      rmSync(path.join(root, name), { recursive: true, force: true })
    }
  }
}

/**
 * An index directory another live process is writing: an analyze copies the graph it will update
 * before it takes the writer lock (newIndexDir names the directory after its pid).
 */
function inProgressElsewhere(name: string): boolean {
  const pid = Number(name.slice(name.lastIndexOf('-') + 1))
  return pid !== process.pid && isAlive(pid)
}

/** Delete the retired index directories, on libuv's threads while the caller works (errors ignored: they stay for the next one). */
export async function emptyTrash(repo: string): Promise<void> {
  const root = gitwhyDir(repo)
  let names: string[]
  try {
    names = await readdir(root)
  } catch {
    return
  }
  await Promise.all(names.filter((n) => n.startsWith(TRASH)).map((n) => rm(path.join(root, n), { recursive: true, force: true }).catch(() => {})))
}

export { isAlive }

/**
 * Who holds a lock: the pid with its start time and the boot it started in, so that a pid the
 * system reused for another process after the holder died is not taken for the holder.
 */
interface LockRecord {
  pid: number
  start: string | null
  boot: string | null
}

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
  } catch {
    return null
  }
}

/** When a process started: /proc/<pid>/stat field 22 on Linux, `ps -o lstart=` elsewhere; null if unknown. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // the command name (field 2) may hold spaces and parentheses: count fields after its last ')'
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null
  } catch {
    if (existsSync('/proc/self/stat')) return null // Linux, and the process is gone
  }
  try {
    return execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null
  } catch {
    return null
  }
}

function parseLock(text: string): LockRecord | null {
  try {
    const r = JSON.parse(text) as LockRecord
    if (Number.isInteger(r?.pid)) return { pid: r.pid, start: r.start ?? null, boot: r.boot ?? null }
  } catch {
    // a lock written by an older gitwhy: its pid alone
  }
  const pid = Number(text.trim())
  return Number.isInteger(pid) && pid > 0 ? { pid, start: null, boot: null } : null
}

/** The live process holding the lock `file`, or null (no lock, or its holder is gone). */
export function lockHolder(file: string): number | null {
  const holder = readHolder(file)
  return holder === 'missing' ? null : holder
}

/** lockHolder, telling a lock that is not there ('missing') from one nobody live holds (null). */
function readHolder(file: string): number | null | 'missing' {
  let record: LockRecord | null
  try {
    record = parseLock(readFileSync(file, 'utf8'))
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : null
  }
  if (!record || !isAlive(record.pid)) return null
  if (record.boot !== null && bootId() !== null && record.boot !== bootId()) return null
  if (record.start !== null && processStart(record.pid) !== record.start) return null
  return record.pid
}

/**
 * Take the lock `file`; null when a live process holds it. A lock whose holder is gone (or whose
 * pid now belongs to another process) is taken over.
 *
 * The lock appears whole or not at all: its record is written to a private file first and then
 * hard-linked to `file` (a link fails when `file` exists). Created empty and then written, a
 * second process could read it between the two, see no holder and take it over (two hook runners
 * analyzed at once that way). A stale lock is first renamed to a private name, so that of two
 * processes taking it over only one gets it; the one that finds a live record under its private
 * name instead (the other's new lock) puts it back and leaves.
 */
export function tryLock(file: string): (() => void) | null {
  const record: LockRecord = { pid: process.pid, start: processStart(process.pid), boot: bootId() }
  const mine = `${file}.${process.pid}.tmp`
  writeFileSync(mine, JSON.stringify(record))
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(mine, file)
        return () => rmSync(file, { force: true })
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code !== 'EEXIST') {
          // hard links refused (FAT, some network file systems): created exclusively, written at once
          if (!LINKS_REFUSED.has(code ?? '')) throw error
          try {
            writeFileSync(file, JSON.stringify(record), { flag: 'wx' })
            return () => rmSync(file, { force: true })
          } catch (created) {
            if ((created as NodeJS.ErrnoException).code !== 'EEXIST') throw created
          }
        }
      }
      const holder = readHolder(file)
      // released since the link failed: link again. Renaming now could take the lock of a process
      // that linked meanwhile, which then held it beside whoever links after the rename
      if (holder === 'missing') continue
      if (holder !== null && holder !== process.pid) return null
      const stale = `${file}.${process.pid}.stale`
      try {
        renameSync(file, stale)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
        throw error
      }
      const moved = lockHolder(stale)
      if (moved !== null && moved !== process.pid) {
        try {
          linkSync(stale, file)
        } catch {
          // a third process holds it now: either way, not us
        }
        rmSync(stale, { force: true })
        return null
      }
      rmSync(stale, { force: true })
    }
    return null
  } finally {
    rmSync(mine, { force: true })
  }
}

const LINKS_REFUSED = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])

export function lockFile(repo: string): string {
  return path.join(gitwhyDir(repo), 'analyze.lock')
}

/** Take the writer lock, or a UserError naming the analyze that holds it. */
export function acquireLock(repo: string): () => void {
  const file = lockFile(repo)
  ensureGitwhyDir(repo)
  const release = tryLock(file)
  if (release) return release
  const pid = lockHolder(file)
  throw new UserError(
    pid !== null ? `another gitwhy analyze (pid ${pid}) is updating the index of ${repo}` : `could not take the index lock ${file}`,
    pid !== null ? 'wait for it to finish and run the command again (the current index stays readable meanwhile)' : 'run the command again',
    'locked',
  )
}

/** Keep .gitwhy/ out of git status without touching any tracked file: .git/info/exclude. */
export async function excludeFromGit(repo: string): Promise<void> {
  const file = await commonGitPath(repo, 'info/exclude')
  const current = existsSync(file) ? readFileSync(file, 'utf8') : ''
  if (current.split('\n').some((l) => l.trim() === `/${GITWHY_DIR}/` || l.trim() === `${GITWHY_DIR}/` || l.trim() === `/${GITWHY_DIR}`)) return
  mkdirSync(path.dirname(file), { recursive: true })
  appendFileSync(file, `${current && !current.endsWith('\n') ? '\n' : ''}/${GITWHY_DIR}/\n`)
}

/**
 * Where `git rev-parse --git-path <rel>` puts a file that all worktrees share (`info/exclude`,
 * `shallow`): in the common git directory, found from .git's files; git is asked when they cannot
 * tell (GIT_DIR set, an unusual layout). Starting git twice was ~40 ms of an update's main thread.
 */
export async function commonGitPath(repo: string, rel: 'info/exclude' | 'shallow'): Promise<string> {
  const dirs = gitDirsOf(repo)
  if (dirs) return path.join(dirs.commonDir, rel)
  return path.resolve(repo, (await git(repo, ['rev-parse', '--git-path', rel])).trim())
}

/** The working HEAD (read from .git's files; git when they cannot tell), null before the first commit. */
export async function currentHead(repo: string): Promise<string | null> {
  try {
    return await (await HeadReader.open(repo)).read()
  } catch (error) {
    if (error instanceof GitError) return null
    throw error
  }
}

/** The web address of the `origin` remote (see remote.ts), null when there is none or its forge is unknown. */
export async function originRemote(repo: string): Promise<RemoteWeb | null> {
  const { stdout, code } = await gitBuffer(repo, ['config', '--get', 'remote.origin.url'], { okCodes: [1] })
  return code === 0 ? remoteWeb(stdout.toString('utf8')) : null
}

/** Record what the active index took from the forge cache in meta.json, when the cache's change left the index as it was. */
export function updateMetaForge(repo: string, forge: IndexMeta['forge']): void {
  const meta = readMeta(repo)
  if (!meta) return
  const next: IndexMeta = { ...meta, forge }
  if (forge === undefined) delete next.forge
  const root = gitwhyDir(repo)
  const tmp = path.join(root, `meta.json.${process.pid}.tmp`)
  writeFileSync(tmp, JSON.stringify(next, null, 2))
  renameSync(tmp, path.join(root, 'meta.json'))
}

/** Record a changed remote in the active meta.json (same index, same previous index). */
export function updateMetaRemote(repo: string, remote: RemoteWeb | null): void {
  const meta = readMeta(repo)
  if (!meta || JSON.stringify(meta.remote ?? null) === JSON.stringify(remote)) return
  const root = gitwhyDir(repo)
  const tmp = path.join(root, `meta.json.${process.pid}.tmp`)
  writeFileSync(tmp, JSON.stringify({ ...meta, remote }, null, 2))
  renameSync(tmp, path.join(root, 'meta.json'))
}

export async function isAncestor(repo: string, older: string, newer: string): Promise<boolean> {
  try {
    const { code } = await gitBuffer(repo, ['merge-base', '--is-ancestor', older, newer], { okCodes: [1] })
    return code === 0
  } catch {
    return false
  }
}

export async function shallowCommits(repo: string): Promise<Set<string>> {
  const file = await commonGitPath(repo, 'shallow')
  if (!existsSync(file)) return new Set()
  return new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))
}

const PERMISSION = new Set(['EACCES', 'EPERM', 'EROFS'])
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT'])
const NOT_A_DIRECTORY = new Set(['ENOTDIR', 'EISDIR', 'EEXIST'])

/**
 * A file system failure while writing (permission, read-only mount, full disk, a file where a
 * directory belongs) as a UserError naming the path and the fix; null for anything else (a bug).
 * `where` names the path when the error does not (Kuzu's own I/O errors).
 */
export function writeFailure(error: unknown, where: string): UserError | null {
  if (error instanceof UserError) return null
  const e = error as NodeJS.ErrnoException
  const code = e?.code ?? ''
  const message = String(e?.message ?? '')
  const target = e?.path ?? where
  if (PERMISSION.has(code) || /permission denied|read-only file system|operation not permitted/i.test(message)) {
    return new UserError(
      `cannot write ${target}: ${code === 'EROFS' || /read-only file system/i.test(message) ? 'the file system is read-only' : 'permission denied'}`,
      `make it writable for your user (e.g. \`chmod -R u+w ${path.dirname(target)}\`, or run gitwhy as the owner of ${where}), then run the command again`,
      'not_writable',
    )
  }
  if (NO_SPACE.has(code) || /no space left on device|disk quota exceeded/i.test(message)) {
    return new UserError(`the disk is full: could not write ${target}`, 'free some space and run the command again; the previous index is intact', 'disk_full')
  }
  if (NOT_A_DIRECTORY.has(code) && e.syscall !== undefined && /^(mkdir|open|rename|link|copyfile|scandir|stat|lstat)$/.test(e.syscall)) {
    return new UserError(`cannot write ${target}: a file is in the way of a directory gitwhy needs`, `move the file aside (gitwhy keeps its data in ${where}), then run the command again`, 'not_writable')
  }
  return null
}
