import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, openSync, closeSync, appendFileSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { SCHEMA_VERSION } from '../graph/schema.js'
import type { AnalyticsConfig } from '../analytics/types.js'
import { INDEX_FILES } from './index-layout.js'
import { gitDirsOf } from '../git/git-dir.js'
import { HeadReader } from '../git/head.js'
import { git, gitBuffer, GitError } from '../git/run.js'

/**
 * The on-disk layout under `<repo>/.gitwhy/`:
 *   meta.json          the active index: schema version, indexed HEAD, options, counts, timings
 *   index-<id>/        one complete index (graph.kuzu, dag.json, diffs.bin, diffs-index/, commits/,
 *                      files/: see index-layout.ts); analyze builds a
 *                      new one beside the active one and swaps meta.json atomically
 *   analyze.lock       held by the one writer
 */
export const GITWHY_DIR = '.gitwhy'

export interface IndexMeta {
  schemaVersion: number
  indexDir: string
  head: string
  shallow: boolean
  options: { maxCommits: number | null; maxFileBytes: number; analytics: AnalyticsConfig }
  counts: Record<string, number>
  skipped: Record<string, number>
  timings: Record<string, number>
  createdAt: string
  gitwhyVersion: string
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

/** The active index, or a UserError telling how to create one. */
export function requireIndex(repo: string): { meta: IndexMeta; dir: string } {
  const meta = readMeta(repo)
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
    throw new UserError(`the index in ${dir} is incomplete (missing ${missing.join(', ')})`, `rebuild it: \`gitwhy analyze ${repo} --force\``, 'index_corrupt')
  }
  return { meta, dir }
}

/** The parts of a complete index directory that `dir` lacks (none: the index is usable). */
export function missingIndexFiles(dir: string): string[] {
  return INDEX_FILES.filter((f) => !existsSync(path.join(dir, f)))
}

export function newIndexDir(repo: string): { id: string; dir: string } {
  const root = gitwhyDir(repo)
  mkdirSync(root, { recursive: true })
  const id = `index-${Date.now().toString(36)}-${process.pid}`
  const dir = path.join(root, id)
  mkdirSync(dir)
  return { id, dir }
}

/**
 * Atomically make `meta` the active index. The index it replaces is kept until the next swap, so
 * a reader that read the old meta.json a moment ago can still open it; older ones are removed.
 */
export function activateIndex(repo: string, meta: IndexMeta): void {
  const root = gitwhyDir(repo)
  const previous = readMeta(repo)?.indexDir ?? null
  const tmp = path.join(root, `meta.json.${process.pid}.tmp`)
  writeFileSync(tmp, JSON.stringify(meta, null, 2))
  renameSync(tmp, path.join(root, 'meta.json'))
  removeStaleIndexDirs(repo, [meta.indexDir, previous])
}

/** Remove index directories not in `keep`, unless a live writer is still building them. */
export function removeStaleIndexDirs(repo: string, keep: Array<string | null>): void {
  const root = gitwhyDir(repo)
  if (!existsSync(root)) return
  for (const name of readdirSync(root)) {
    if (name.startsWith('index-') && !keep.includes(name)) {
      const pid = Number(name.split('-')[2])
      if (pid !== process.pid && isAlive(pid)) continue // another writer's build in progress
      rmSync(path.join(root, name), { recursive: true, force: true })
    }
  }
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Take the writer lock; a stale lock (its process is gone) is taken over. */
export function acquireLock(repo: string): () => void {
  const root = gitwhyDir(repo)
  mkdirSync(root, { recursive: true })
  const file = path.join(root, 'analyze.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx')
      writeFileSync(fd, String(process.pid))
      closeSync(fd)
      return () => rmSync(file, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const pid = Number(readFileSync(file, 'utf8').trim())
      if (isAlive(pid) && pid !== process.pid) {
        throw new UserError(
          `another gitwhy analyze (pid ${pid}) is updating the index of ${repo}`,
          'wait for it to finish and run the command again (the current index stays readable meanwhile)',
          'locked',
        )
      }
      rmSync(file, { force: true })
    }
  }
  throw new UserError(`could not take the index lock in ${root}`, 'remove .gitwhy/analyze.lock if no gitwhy process is running', 'locked')
}

/** Keep .gitwhy/ out of git status without touching any tracked file: .git/info/exclude. */
export async function excludeFromGit(repo: string): Promise<void> {
  const rel = (await git(repo, ['rev-parse', '--git-path', 'info/exclude'])).trim()
  const file = path.resolve(repo, rel)
  const current = existsSync(file) ? readFileSync(file, 'utf8') : ''
  if (current.split('\n').some((l) => l.trim() === `/${GITWHY_DIR}/` || l.trim() === `${GITWHY_DIR}/` || l.trim() === `/${GITWHY_DIR}`)) return
  mkdirSync(path.dirname(file), { recursive: true })
  appendFileSync(file, `${current && !current.endsWith('\n') ? '\n' : ''}/${GITWHY_DIR}/\n`)
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

export async function isAncestor(repo: string, older: string, newer: string): Promise<boolean> {
  try {
    const { code } = await gitBuffer(repo, ['merge-base', '--is-ancestor', older, newer], { okCodes: [1] })
    return code === 0
  } catch {
    return false
  }
}

export async function shallowCommits(repo: string): Promise<Set<string>> {
  const rel = (await git(repo, ['rev-parse', '--git-path', 'shallow'])).trim()
  const file = path.resolve(repo, rel)
  if (!existsSync(file)) return new Set()
  return new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))
}
