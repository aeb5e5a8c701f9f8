import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { UserError, nearest } from '../errors.js'

/**
 * The user-level list of indexed repositories, so one MCP server can answer for several. It lives
 * in `$GITWHY_HOME/registry.json` (default `~/.gitwhy/`), outside every repository. `gitwhy analyze`
 * records each index it builds and drops the entries whose repository or index has gone; readers
 * (list_repos, the default repository) skip those, and `gitwhy repos prune` removes them.
 */
export interface RegisteredRepo {
  /** Short name tools accept as `repo`: the directory name, made unique with its parent's name. */
  name: string
  /** Absolute path of the work tree root. */
  path: string
  /** HEAD at the last analyze. */
  head: string
  indexed_at: string
}

interface RegistryFile {
  version: 1
  repos: RegisteredRepo[]
}

export function gitwhyHome(): string {
  return process.env.GITWHY_HOME ? path.resolve(process.env.GITWHY_HOME) : path.join(os.homedir(), '.gitwhy')
}

function registryFile(): string {
  return path.join(gitwhyHome(), 'registry.json')
}

export function listRegistered(): RegisteredRepo[] {
  const file = registryFile()
  if (!existsSync(file)) return []
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as RegistryFile
    return Array.isArray(data.repos) ? data.repos : []
  } catch {
    // a damaged registry is rebuilt by the next analyze; reading it must not break a query
    return []
  }
}

function uniqueName(repoPath: string, taken: Set<string>): string {
  const base = path.basename(repoPath) || 'repo'
  if (!taken.has(base)) return base
  const withParent = `${path.basename(path.dirname(repoPath))}/${base}`
  if (!taken.has(withParent)) return withParent
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`
}

/** Why a registered repository can no longer be served, or null when it can. */
export function deadReason(repo: RegisteredRepo): string | null {
  if (!existsSync(repo.path)) return 'the directory no longer exists'
  if (!existsSync(path.join(repo.path, '.gitwhy', 'meta.json'))) return 'its index was removed'
  return null
}

/** The registered repositories that still have an index. */
export function liveRegistered(): RegisteredRepo[] {
  return listRegistered().filter((r) => deadReason(r) === null)
}

export interface PruneResult {
  removed: Array<RegisteredRepo & { reason: string }>
  kept: RegisteredRepo[]
}

/** Remove the entries whose repository or index has gone (`dryRun`: only say which). */
export function pruneRegistry(options: { dryRun?: boolean } = {}): PruneResult {
  const repos = listRegistered()
  const removed: PruneResult['removed'] = []
  const kept: RegisteredRepo[] = []
  for (const r of repos) {
    const reason = deadReason(r)
    if (reason) removed.push({ ...r, reason })
    else kept.push(r)
  }
  if (removed.length && !options.dryRun) writeRegistry(kept)
  return { removed, kept }
}

function writeRegistry(repos: RegisteredRepo[]): void {
  const file = registryFile()
  mkdirSync(path.dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify({ version: 1, repos } satisfies RegistryFile, null, 2) + '\n')
  renameSync(tmp, file)
}

/**
 * Record (or refresh) a repository's index, dropping the entries that can no longer be served.
 * Written atomically; the name of a known path never changes.
 */
export function recordIndex(repoPath: string, head: string): RegisteredRepo {
  const repos = listRegistered().filter((r) => r.path === repoPath || deadReason(r) === null)
  const existing = repos.find((r) => r.path === repoPath)
  const entry: RegisteredRepo = existing ?? { name: uniqueName(repoPath, new Set(repos.map((r) => r.name))), path: repoPath, head, indexed_at: '' }
  entry.head = head
  entry.indexed_at = new Date().toISOString()
  if (!existing) repos.push(entry)
  repos.sort((a, b) => a.name.localeCompare(b.name))
  writeRegistry(repos)
  return entry
}

/**
 * A `repo` argument (a registered name, or a path to a repository) as a path. A path that exists
 * is returned as is (resolveRepo validates it later); a name must be registered.
 */
export function lookupRepo(nameOrPath: string): string {
  const repos = liveRegistered()
  const byName = repos.find((r) => r.name === nameOrPath)
  if (byName) return byName.path
  const abs = path.resolve(nameOrPath)
  if ((path.isAbsolute(nameOrPath) || nameOrPath.includes('/') || nameOrPath.startsWith('.')) && existsSync(abs)) return abs
  const suggestions = nearest(nameOrPath, repos.map((r) => r.name))
  throw new UserError(
    `no indexed repository named ${nameOrPath}`,
    repos.length
      ? `use one of: ${(suggestions.length ? suggestions : repos.map((r) => r.name)).join(', ')} (list_repos shows them all), or an absolute path`
      : 'no repository is indexed yet: run `gitwhy analyze <repo>` first',
    'unknown_repo',
  )
}
