/**
 * Throwaway git repositories for integration tests.
 *
 * Every repository gets its own temp HOME and an isolated git configuration (no system or global
 * config), a pinned identity and a deterministic clock: each commit (including merges and reverts)
 * advances the clock by one hour from a fixed epoch, so the same script always produces the same
 * SHAs.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, realpathSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { test as base } from 'vitest'

/** 2024-01-01T00:00:00Z. */
const EPOCH = 1_704_067_200
const TICK = 3600

export const DEFAULT_AUTHOR = { name: 'Ada Tester', email: 'ada@example.test' }

export interface Identity { name: string; email: string }

export interface CommitOptions {
  author?: Identity
  /** Unix seconds; overrides the deterministic clock for this commit only. */
  date?: number
  /** Allow a commit with no changes. */
  allowEmpty?: boolean
}

export interface MergeOptions {
  message?: string
  noFF?: boolean
  /** `-s <strategy>`, e.g. 'ours'. */
  strategy?: string
  author?: Identity
  /** Unix seconds for the merge commit (default: the deterministic clock). */
  date?: number
}

export class GitCommandError extends Error {
  constructor(readonly args: readonly string[], readonly status: number | null, readonly stderr: string, readonly stdout: string) {
    super(`git ${args.join(' ')} failed (${status}): ${stderr.trim() || stdout.trim()}`)
    this.name = 'GitCommandError'
  }
}

function makeTempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

/** The environment every helper git call uses: no user/system config, pinned identity, C locale. */
export function isolatedGitEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('GIT_')) env[k] = v
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    LC_ALL: 'C',
    TZ: 'UTC',
    ...extra,
  }
}

/** Run git synchronously; returns stdout as a Buffer. Throws GitCommandError unless the exit code is allowed. */
export function runGit(cwd: string, env: NodeJS.ProcessEnv, args: string[], okCodes: number[] = [0]): { stdout: Buffer; status: number } {
  try {
    const stdout = execFileSync('git', args, { cwd, env, maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] })
    return { stdout, status: 0 }
  } catch (e) {
    const err = e as { status: number | null; stdout?: Buffer; stderr?: Buffer }
    if (err.status !== null && okCodes.includes(err.status)) return { stdout: err.stdout ?? Buffer.alloc(0), status: err.status }
    throw new GitCommandError(args, err.status, err.stderr?.toString('utf8') ?? '', err.stdout?.toString('utf8') ?? '')
  }
}

export class TestRepo {
  readonly home: string
  private tick = 0
  /** Temp directories removed by cleanup(): this repo's parent, its home, clones made from it. */
  private readonly owned: string[] = []

  constructor(readonly dir: string, home?: string) {
    this.owned.push(dirname(dir))
    if (home === undefined) {
      this.home = makeTempDir('gitwhy-home-')
      this.owned.push(this.home)
    } else {
      this.home = home
    }
  }

  /** Environment for git calls made by the test (isolated config, pinned identity and date). */
  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return isolatedGitEnv(this.home, extra)
  }

  private commitEnv(opts: { author?: Identity; date?: number } = {}): NodeJS.ProcessEnv {
    const when = opts.date ?? EPOCH + ++this.tick * TICK
    const author = opts.author ?? DEFAULT_AUTHOR
    const stamp = `@${when} +0000`
    return this.env({
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_AUTHOR_DATE: stamp,
      GIT_COMMITTER_NAME: DEFAULT_AUTHOR.name,
      GIT_COMMITTER_EMAIL: DEFAULT_AUTHOR.email,
      GIT_COMMITTER_DATE: stamp,
    })
  }

  /** Raw git; returns stdout as utf-8 text. */
  git(...args: string[]): string {
    return runGit(this.dir, this.commitEnvNoTick(), args).stdout.toString('utf8')
  }

  /** Raw git, stdout as bytes. */
  gitBuffer(...args: string[]): Buffer {
    return runGit(this.dir, this.commitEnvNoTick(), args).stdout
  }

  /** Raw git that may fail with one of okCodes; returns status and output. */
  gitMay(okCodes: number[], ...args: string[]): { stdout: string; status: number } {
    const r = runGit(this.dir, this.commitEnvNoTick(), args, okCodes)
    return { stdout: r.stdout.toString('utf8'), status: r.status }
  }

  /** Identity set but the clock not advanced (for commands that do not create commits). */
  private commitEnvNoTick(): NodeJS.ProcessEnv {
    const stamp = `@${EPOCH + this.tick * TICK} +0000`
    return this.env({
      GIT_AUTHOR_NAME: DEFAULT_AUTHOR.name,
      GIT_AUTHOR_EMAIL: DEFAULT_AUTHOR.email,
      GIT_AUTHOR_DATE: stamp,
      GIT_COMMITTER_NAME: DEFAULT_AUTHOR.name,
      GIT_COMMITTER_EMAIL: DEFAULT_AUTHOR.email,
      GIT_COMMITTER_DATE: stamp,
    })
  }

  private gitCommitting(opts: { author?: Identity; date?: number }, args: string[], okCodes: number[] = [0]): { stdout: string; status: number } {
    const r = runGit(this.dir, this.commitEnv(opts), args, okCodes)
    return { stdout: r.stdout.toString('utf8'), status: r.status }
  }

  path(rel: string): string {
    return join(this.dir, rel)
  }

  /** Write a file (creating directories) and stage it. */
  write(rel: string, content: string | Buffer): this {
    const abs = this.path(rel)
    mkdirSync(dirname(abs), { recursive: true })
    writeFileSync(abs, content)
    this.git('add', '--', rel)
    return this
  }

  remove(rel: string): this {
    this.git('rm', '-q', '-r', '--', rel)
    return this
  }

  move(from: string, to: string): this {
    mkdirSync(dirname(this.path(to)), { recursive: true })
    this.git('mv', '--', from, to)
    return this
  }

  /** Commit what is staged; returns the new HEAD SHA. */
  commit(message: string, opts: CommitOptions = {}): string {
    const args = ['commit', '-q', '--no-verify', '-m', message]
    if (opts.allowEmpty) args.push('--allow-empty')
    this.gitCommitting(opts, args)
    return this.head()
  }

  /** Amend HEAD (message kept unless given); returns the new SHA. */
  amend(message?: string, opts: CommitOptions = {}): string {
    const args = ['commit', '-q', '--no-verify', '--amend']
    if (message !== undefined) args.push('-m', message)
    else args.push('--no-edit')
    this.gitCommitting(opts, args)
    return this.head()
  }

  head(): string {
    return this.git('rev-parse', 'HEAD').trim()
  }

  /**
   * Replace HEAD with a copy of its commit object edited as raw bytes (an odd author line, a
   * non-UTF-8 message, an `encoding` header): written with `hash-object --literally`, so git's
   * own checks do not refuse what real histories contain. Same tree and parents; returns the SHA.
   */
  rewriteHead(edit: (raw: Buffer) => Buffer): string {
    const raw = this.gitBuffer('cat-file', 'commit', 'HEAD')
    const sha = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--literally', '--stdin'], { cwd: this.dir, env: this.env(), input: edit(raw) }).toString('utf8').trim()
    this.git('update-ref', 'HEAD', sha)
    return sha
  }

  /** Create a branch at HEAD (does not switch). */
  branch(name: string, at = 'HEAD'): this {
    this.git('branch', name, at)
    return this
  }

  checkout(name: string): this {
    this.git('checkout', '-q', name)
    return this
  }

  /** Merge a branch into the current one; throws on conflicts (use mergeResolving). Returns HEAD. */
  merge(name: string, opts: MergeOptions = {}): string {
    const args = ['merge', '-q', '--no-edit']
    if (opts.noFF ?? true) args.push('--no-ff')
    if (opts.strategy) args.push('-s', opts.strategy)
    args.push('-m', opts.message ?? `Merge branch '${name}'`)
    args.push(name)
    this.gitCommitting({ author: opts.author, date: opts.date }, args)
    return this.head()
  }

  /**
   * Merge without committing (conflicts allowed), then write the given contents (the resolution, or
   * an "evil" extra change), stage everything and commit the merge. `null` content deletes a file.
   */
  mergeResolving(name: string, files: Record<string, string | Buffer | null>, opts: MergeOptions = {}): string {
    const args = ['merge', '-q', '--no-commit', '--no-ff']
    if (opts.strategy) args.push('-s', opts.strategy)
    args.push(name)
    this.gitMay([0, 1], ...args)
    for (const [rel, content] of Object.entries(files)) {
      if (content === null) {
        if (existsSync(this.path(rel))) this.git('rm', '-q', '-f', '--', rel)
      } else {
        this.write(rel, content)
      }
    }
    const unresolved = this.git('diff', '--name-only', '--diff-filter=U').trim()
    if (unresolved) throw new Error(`mergeResolving(${name}): unresolved conflicts in ${unresolved.split('\n').join(', ')}`)
    this.gitCommitting({ author: opts.author }, ['commit', '-q', '--no-verify', '-m', opts.message ?? `Merge branch '${name}'`])
    return this.head()
  }

  revert(sha: string, opts: CommitOptions = {}): string {
    this.gitCommitting(opts, ['revert', '--no-edit', sha])
    return this.head()
  }

  /** Subjects by SHA (for readable diffs). */
  subject(sha: string): string {
    return this.git('log', '-1', '--format=%s', sha).trim()
  }

  /** A clone of this repository (e.g. `{ depth: 3 }` for a shallow one). */
  clone(opts: { depth?: number; noLocal?: boolean } = {}): TestRepo {
    const parent = makeTempDir('gitwhy-clone-')
    const dest = join(parent, 'repo')
    const args = ['clone', '-q']
    if (opts.depth !== undefined) args.push('--depth', String(opts.depth))
    if (opts.noLocal) args.push('--no-local')
    // --depth is ignored for plain-path local clones; file:// makes it real.
    args.push(opts.depth !== undefined ? `file://${this.dir}` : this.dir, dest)
    runGit(parent, this.env(), args)
    const r = new TestRepo(dest, this.home)
    this.owned.push(parent)
    r.tick = this.tick
    r.git('config', 'core.autocrlf', 'false')
    return r
  }

  /** Remove the repository, its temp home and every clone made from it. */
  cleanup(): void {
    for (const dir of this.owned) rmSync(dir, { recursive: true, force: true })
  }
}

/** A fresh repository with `git init -b main`, core.autocrlf=false and no commits. */
export function createRepo(): TestRepo {
  const parent = makeTempDir('gitwhy-repo-')
  const dir = join(parent, 'repo')
  mkdirSync(dir)
  const repo = new TestRepo(dir)
  repo.git('init', '-q', '-b', 'main')
  repo.git('config', 'core.autocrlf', 'false')
  repo.git('config', 'commit.gpgsign', 'false')
  return repo
}

/**
 * vitest fixture: `test('x', ({ repo }) => ...)` gets a fresh repository, removed after the test
 * (with any clone made from it).
 */
export const repoTest = base.extend<{ repo: TestRepo }>({
  // eslint-disable-next-line no-empty-pattern
  repo: async ({}, use) => {
    const repo = createRepo()
    await use(repo)
    repo.cleanup()
  },
})
