/**
 * The shadow repository: a git directory under `.gitwhy/trajectory/` with its own index file, whose
 * work tree is the user's. Every call goes through the git chokepoint with GIT_DIR, GIT_WORK_TREE
 * and GIT_INDEX_FILE set and every other GIT_* variable of this process removed, so that no call
 * can read or write the user's `.git` (a hook runner's GIT_INDEX_FILE, say). Snapshots are plumbing
 * (update-index, write-tree, commit-tree, update-ref): no hook, no config of the user's, no reflog
 * of theirs runs or changes.
 */
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { git, GitError, gitBuffer, gitToFile } from '../git/run.js'
import { isBinary } from '../parse/classify.js'
import { ensureGitwhyDir } from '../services/workspace.js'
import { TRAJECTORY_REF, trajectoryPaths, type TrajectoryPaths } from './journal.js'

/** The author of every shadow commit (never the user's identity: these are not the user's commits). */
const SHADOW_IDENTITY = { name: 'gitwhy trajectory', email: 'trajectory@gitwhy.invalid' }

/** Files larger than this are not recorded (the same cap as analyze's default). */
export const DEFAULT_MAX_SNAPSHOT_BYTES = 1_000_000

/** Directories never recorded, whatever the ignore files say. */
export const ALWAYS_IGNORED = ['.git', '.gitwhy', 'node_modules'] as const

export function alwaysIgnored(rel: string): boolean {
  for (const segment of rel.split('/')) if ((ALWAYS_IGNORED as readonly string[]).includes(segment)) return true
  return false
}

/** Every GIT_* variable of this process removed (a hook runner's GIT_DIR or GIT_INDEX_FILE, say). */
function withoutGitVariables(): Record<string, undefined> {
  const env: Record<string, undefined> = {}
  for (const key of Object.keys(process.env)) if (key.startsWith('GIT_')) env[key] = undefined
  return env
}

/** The first bytes of a file, read to tell a binary (one buffer for every file). */
const SNIFF = Buffer.alloc(8000)

/** The ensure() under way for each shadow repository (by its git directory) in this process. */
const ensuring = new Map<string, Promise<void>>()

export class ShadowRepo {
  readonly paths: TrajectoryPaths
  private readonly env: Record<string, string | undefined>
  /** ensure() ran for this instance (the recorder's, for its whole life: one check per snapshot, not four git calls). */
  private ensured = false

  constructor(
    readonly repo: string,
    readonly maxBytes = DEFAULT_MAX_SNAPSHOT_BYTES,
  ) {
    this.paths = trajectoryPaths(repo)
    this.env = {
      ...withoutGitVariables(),
      GIT_DIR: this.paths.gitDir,
      GIT_WORK_TREE: repo,
      GIT_INDEX_FILE: this.paths.indexFile,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_OPTIONAL_LOCKS: '0',
      GIT_AUTHOR_NAME: SHADOW_IDENTITY.name,
      GIT_AUTHOR_EMAIL: SHADOW_IDENTITY.email,
      GIT_COMMITTER_NAME: SHADOW_IDENTITY.name,
      GIT_COMMITTER_EMAIL: SHADOW_IDENTITY.email,
    }
  }

  /** Run git on the shadow repository. */
  async git(args: string[], options: { input?: string | Buffer; okCodes?: number[]; env?: Record<string, string> } = {}): Promise<string> {
    return (await this.gitBuffer(args, options)).stdout.toString('utf8')
  }

  async gitBuffer(args: string[], options: { input?: string | Buffer; okCodes?: number[]; env?: Record<string, string> } = {}): Promise<{ stdout: Buffer; code: number }> {
    return gitBuffer(this.repo, args, { input: options.input, okCodes: options.okCodes, env: { ...this.env, ...options.env } })
  }

  /** Run git on the shadow repository, its output written straight to `file` (gitToFile). */
  async gitToFile(args: string[], file: string, input?: string): Promise<void> {
    await gitToFile(this.repo, args, file, input, this.env)
  }

  exists(): boolean {
    return existsSync(path.join(this.paths.gitDir, 'HEAD'))
  }

  /**
   * Create the shadow repository (once), and refresh its exclude file from the user's
   * `.git/info/exclude` (read, never written) plus the directories never recorded: with the
   * work tree's own `.gitignore` files and the global excludes file, git then ignores exactly
   * what it ignores for the user.
   */
  async ensure(): Promise<void> {
    if (this.ensured && this.exists()) return
    // one at a time per shadow repository in this process: an MCP server answering many calls at
    // once ensured it from each, and concurrent `git config` writes fail on git's lock file
    const key = this.paths.gitDir
    const run = (ensuring.get(key) ?? Promise.resolve()).catch(() => {}).then(() => this.ensureRetrying())
    ensuring.set(key, run)
    try {
      await run
    } finally {
      if (ensuring.get(key) === run) ensuring.delete(key)
    }
  }

  /**
   * ensureNow, tried again (up to 5 times, 50 ms apart) when git found the config or a template
   * file locked or half-written by another process setting the same repository up (the hook's
   * recorder and an MCP server, say): the next try finds it set up, or sets it up itself.
   */
  private async ensureRetrying(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.ensureNow()
      } catch (error) {
        const contended = error instanceof GitError && /could not lock|File exists/i.test(error.stderr)
        if (!contended || attempt >= 5) throw error
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  }

  private async ensureNow(): Promise<void> {
    if (this.exists() && this.ensured) return
    ensureGitwhyDir(this.repo)
    mkdirSync(this.paths.root, { recursive: true })
    if (!this.exists()) {
      await git(this.repo, ['init', '--bare', '-q', this.paths.gitDir], { env: { ...this.env, GIT_DIR: undefined, GIT_WORK_TREE: undefined, GIT_INDEX_FILE: undefined } })
      for (const [key, value] of [['core.bare', 'false'], ['core.autocrlf', 'false'], ['core.fsmonitor', 'false'], ['core.untrackedCache', 'false'], ['gc.auto', '0'], ['core.logAllRefUpdates', 'false'], ['commit.gpgSign', 'false']]) {
        await this.git(['config', key, value])
      }
      await this.git(['symbolic-ref', 'HEAD', TRAJECTORY_REF])
    }
    const userExclude = await this.userExcludeFile()
    const own = `# written by gitwhy: the user's info/exclude, then what the recorder never records\n${userExclude ? readFileSync(userExclude, 'utf8') : ''}\n${ALWAYS_IGNORED.map((d) => `${d}/`).join('\n')}\n`
    const target = path.join(this.paths.gitDir, 'info', 'exclude')
    mkdirSync(path.dirname(target), { recursive: true })
    if (!existsSync(target) || readFileSync(target, 'utf8') !== own) writeFileSync(target, own)
    // the repository's own core.excludesFile (the global one git reads for the shadow repository too)
    const excludesFile = (await git(this.repo, ['config', '--path', '--get', 'core.excludesFile'], { okCodes: [1], env: this.userEnv() })).trim()
    const wanted = excludesFile !== '' ? path.resolve(this.repo, excludesFile) : ''
    // written only when it differs: a write takes git's lock on the config file (another process may hold it)
    const current = (await this.git(['config', '--local', '--get', 'core.excludesFile'], { okCodes: [1] })).trim()
    if (wanted !== current) {
      if (wanted !== '') await this.git(['config', 'core.excludesFile', wanted])
      else await this.git(['config', '--unset', 'core.excludesFile'], { okCodes: [5] })
    }
    this.ensured = true
  }

  /** The environment for the few reads of the user's repository: none of this process's GIT_* variables. */
  private userEnv(): Record<string, string | undefined> {
    return { ...withoutGitVariables(), GIT_OPTIONAL_LOCKS: '0' }
  }

  private async userExcludeFile(): Promise<string | null> {
    try {
      const rel = (await git(this.repo, ['rev-parse', '--git-path', 'info/exclude'], { env: this.userEnv() })).trim()
      const file = path.resolve(this.repo, rel)
      return existsSync(file) ? file : null
    } catch {
      return null
    }
  }

  /** The newest snapshot's commit, or null before the first. */
  async head(): Promise<string | null> {
    if (!this.exists()) return null
    const { stdout, code } = await this.gitBuffer(['rev-parse', '-q', '--verify', `${TRAJECTORY_REF}^{commit}`], { okCodes: [1] })
    return code === 0 ? stdout.toString('utf8').trim() : null
  }

  /** Paths of the user's work tree git would record: tracked by the user, or untracked and not ignored. */
  async userFiles(): Promise<string[]> {
    const out = await git(this.repo, ['-c', 'core.quotePath=false', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], { env: this.userEnv() })
    return [...new Set(out.split('\0').filter(Boolean))]
  }

  /** What changed in the work tree since the shadow index was written (modified, deleted, new and not ignored). */
  async changedSinceIndex(): Promise<string[]> {
    await this.git(['update-index', '-q', '--refresh'], { okCodes: [1] })
    const out = await this.git(['-c', 'core.quotePath=false', 'ls-files', '-z', '--modified', '--deleted', '--others', '--exclude-standard'])
    return [...new Set(out.split('\0').filter(Boolean))]
  }

  /** Every path the shadow index tracks. */
  async indexPaths(): Promise<string[]> {
    return (await this.git(['-c', 'core.quotePath=false', 'ls-files', '-z'])).split('\0').filter(Boolean)
  }

  /** Of these paths, the ones the ignore rules leave out (paths the shadow index tracks never are). */
  async ignored(paths: string[]): Promise<Set<string>> {
    if (paths.length === 0) return new Set()
    const out = await this.git(['-c', 'core.quotePath=false', 'check-ignore', '-z', '--stdin'], { input: paths.join('\0') + '\0', okCodes: [1] })
    return new Set(out.split('\0').filter(Boolean))
  }

  /** Ignored directories (not descended into by the watcher): `git ls-files --others --ignored --directory`. */
  async ignoredDirectories(): Promise<string[]> {
    const out = await this.git(['-c', 'core.quotePath=false', 'ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--no-empty-directory'])
    return out.split('\0').filter((p) => p.endsWith('/')).map((p) => p.slice(0, -1))
  }

  /**
   * Stage the paths in the shadow index: present files that are recordable are added, the others
   * (deleted, grown over the size cap, binary, a directory) removed. Returns the paths staged.
   */
  async stage(paths: string[]): Promise<number> {
    const list: string[] = []
    const drop: string[] = []
    for (const rel of paths) {
      if (rel === '' || alwaysIgnored(rel)) continue
      if (this.recordable(rel)) list.push(rel)
      else drop.push(rel)
    }
    if (list.length > 0) await this.git(['update-index', '--add', '--remove', '-z', '--stdin'], { input: list.join('\0') + '\0' })
    if (drop.length > 0) await this.git(['update-index', '--force-remove', '-z', '--stdin'], { input: drop.join('\0') + '\0' })
    return list.length + drop.length
  }

  /** A regular file (or symlink) within the size cap that is not binary; a missing path counts (it is a deletion). */
  private recordable(rel: string): boolean {
    const abs = path.join(this.repo, rel)
    let st
    try {
      st = lstatSync(abs)
    } catch {
      return true
    }
    if (st.isSymbolicLink()) return true
    if (!st.isFile() || st.size > this.maxBytes) return false
    const fd = openSync(abs, 'r')
    try {
      const n = readSync(fd, SNIFF, 0, SNIFF.length, 0)
      return !isBinary(SNIFF.subarray(0, n))
    } finally {
      closeSync(fd)
    }
  }

  async writeTree(): Promise<string> {
    return (await this.git(['write-tree'])).trim()
  }

  async treeOf(commit: string): Promise<string> {
    return (await this.git(['rev-parse', `${commit}^{tree}`])).trim()
  }

  /** Commit a tree on top of `parent` (null: a root) at `time`, and move the branch to it. */
  async commit(tree: string, parent: string | null, message: string, time: Date): Promise<string> {
    const date = `${Math.floor(time.getTime() / 1000)} +0000`
    const sha = (await this.git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-'], { input: message, env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } })).trim()
    await this.git(['update-ref', TRAJECTORY_REF, sha, ...(parent ? [parent] : [])])
    return sha
  }

  /** Blob contents by id (cat-file --batch). */
  async blobs(ids: string[]): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>()
    const unique = [...new Set(ids)]
    if (unique.length === 0) return out
    const { stdout } = await this.gitBuffer(['cat-file', '--batch'], { input: unique.join('\n') + '\n' })
    let at = 0
    for (const id of unique) {
      const nl = stdout.indexOf(10, at)
      if (nl < 0) break
      const header = stdout.subarray(at, nl).toString('utf8').split(' ')
      if (header[1] === 'missing') {
        at = nl + 1
        continue
      }
      const size = Number(header[2])
      out.set(id, stdout.subarray(nl + 1, nl + 1 + size))
      at = nl + 1 + size + 1
    }
    return out
  }
}

/** Bytes of the files under a directory (the shadow repository's size). */
export function dirBytes(dir: string): number {
  let total = 0
  if (!existsSync(dir)) return 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) total += dirBytes(full)
    else if (entry.isFile()) total += statSync(full).size
  }
  return total
}
