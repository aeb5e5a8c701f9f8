import { spawn } from 'node:child_process'
import { closeSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { UserError } from '../errors.js'

/**
 * The git chokepoint: every git call in gitwhy goes through here. Values that come from the user
 * (refs, paths) are checked by the argv builders with `assertSafeRef` / placed after `--`.
 */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (${exitCode}): ${stderr.trim().split('\n').slice(0, 3).join(' | ')}`)
    this.name = 'GitError'
  }
}

// i18n.logOutputEncoding: commit text with an `encoding` header is re-encoded to UTF-8 whatever the user configured.
const BASE_ARGS = ['-c', 'core.quotePath=true', '-c', 'i18n.logOutputEncoding=UTF-8', '-c', 'color.ui=false', '-c', 'log.showSignature=false', '-c', 'diff.noprefix=false', '-c', 'diff.mnemonicPrefix=false', '-c', 'diff.relative=false', '-c', 'diff.external=']

export function assertSafeRef(ref: string): string {
  if (ref === '' || ref.length > 1024 || ref.startsWith('-') || ref.includes('\0') || /\s/.test(ref)) {
    const shown = ref.length > 80 ? `${ref.slice(0, 80)}… (${ref.length} characters)` : ref
    throw new UserError(`"${shown}" is not a valid git revision`, 'pass a commit SHA, branch or tag name (values starting with "-" are refused)', 'bad_ref')
  }
  return ref
}

// What git says when an object the history names is not in the repository (deleted, corrupt, or
// left out of a partial or damaged copy): git log -p itself stops there.
const MISSING_OBJECT = /(?:unable to read|could not read|missing) (?:(?:blob|tree|commit) )?(?:object )?([0-9a-f]{40,64})|(?:loose|packed) object ([0-9a-f]{40,64}).* is corrupt|inflate: data stream error/i

/** A user-fixable error when git failed because the repository lacks an object, else undefined. */
export function missingObjectError(repo: string, stderr: string): UserError | undefined {
  const m = MISSING_OBJECT.exec(stderr)
  if (!m) return undefined
  const sha = m[1] ?? m[2]
  return new UserError(
    `git cannot read ${sha ? `object ${sha}` : 'an object'} in ${repo}: the repository is damaged or incomplete`,
    `run \`git fsck\` there, restore the missing objects (\`git fetch --refetch\`, or clone it again), then run gitwhy again`,
    'repo_damaged',
  )
}

function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat', PAGER: 'cat' }
}

export interface GitRunOptions {
  input?: string | Buffer
  /** Exit codes that are not failures (e.g. 1 for merge-base --is-ancestor). */
  okCodes?: number[]
  /** Extra environment (e.g. a private object directory); an undefined value removes the variable. */
  env?: Record<string, string | undefined>
  /** Aborted: git is killed (the promise rejects with the AbortError). */
  signal?: AbortSignal
}

/**
 * A write to a git that has exited fails with EPIPE (its exit code says what went wrong), and a
 * closed child has nothing more to say.
 */
const ignore = (): void => {}

/**
 * Spawn git: the one place that does. stdout goes to `onStdout`, or straight to the file
 * descriptor `stdoutFd`; resolves with the exit code when it is 0 or in `okCodes`.
 */
function runGit(
  cwd: string,
  args: string[],
  options: GitRunOptions & { onStdout?: (chunk: Buffer) => void; stdoutFd?: number; stdinFd?: number },
): Promise<number> {
  return new Promise((resolve, reject) => {
    let child: ReturnType<typeof spawn>
    try {
      child = spawn('git', [...BASE_ARGS, ...args], { cwd, env: { ...gitEnv(), ...options.env }, stdio: [options.stdinFd ?? 'pipe', options.stdoutFd ?? 'pipe', 'pipe'], signal: options.signal })
    } catch (error) {
      // spawn throws (rather than emitting 'error') when the arguments exceed the system's limit
      if ((error as NodeJS.ErrnoException).code === 'E2BIG') return reject(new UserError('the arguments are too long for git', 'pass shorter values (fewer or shorter paths and names)', 'too_long'))
      throw error
    }
    const err: Buffer[] = []
    if (options.onStdout) child.stdout?.on('data', options.onStdout)
    child.stderr!.on('data', (d: Buffer) => err.push(d))
    child.on('error', (e) => reject(e.name === 'AbortError' ? e : new UserError(`could not run git: ${e.message}`, 'install git 2.30 or newer and make sure it is on PATH', 'no_git')))
    child.on('close', (code) => {
      // A closed child can stay reachable from Node's process handle list for the rest of the
      // run, and each listener here holds this call's scope (its options, their onStdout, and
      // what that captured): on rails/rails the blame-ignore pass's cat-file kept the 180 MB
      // history graph alive through the graph load. Nothing is heard from a closed child.
      child.removeAllListeners()
      child.on('error', ignore)
      child.stdout?.removeAllListeners('data')
      child.stderr!.removeAllListeners('data')
      const ok = code === 0 || (code !== null && (options.okCodes ?? []).includes(code))
      if (!ok) reject(missingObjectError(cwd, Buffer.concat(err).toString('utf8')) ?? new GitError(args, code, Buffer.concat(err).toString('utf8')))
      else resolve(code ?? 0)
    })
    child.stdin?.on('error', ignore)
    child.stdin?.end(options.input ?? '')
  })
}

/** Run git to completion and return stdout as a Buffer. */
export async function gitBuffer(cwd: string, args: string[], options: GitRunOptions = {}): Promise<{ stdout: Buffer; code: number }> {
  const out: Buffer[] = []
  const code = await runGit(cwd, args, { ...options, onStdout: (d) => out.push(d) })
  return { stdout: Buffer.concat(out), code }
}

/** Run git, handing stdout to `onChunk` as it arrives (for protocols like `cat-file --batch`). */
export async function gitPiped(cwd: string, args: string[], input: string, onChunk: (chunk: Buffer) => void): Promise<void> {
  await runGit(cwd, args, { input, onStdout: onChunk })
}

export async function git(cwd: string, args: string[], options: GitRunOptions = {}): Promise<string> {
  return (await gitBuffer(cwd, args, options)).stdout.toString('utf8')
}

/**
 * Run git with stdout written straight to `file` (no round trip through this process), and its
 * input read from a file beside it, so git keeps its own pace while this thread is busy with other
 * work (a pipe holds 64 KB: the rest of a larger input would wait for this thread). Resolves when
 * git exits.
 */
export async function gitToFile(cwd: string, args: string[], file: string, input?: string, env?: Record<string, string | undefined>, signal?: AbortSignal): Promise<void> {
  const inputFile = `${file}.in`
  writeFileSync(inputFile, input ?? '')
  const inFd = openSync(inputFile, 'r')
  try {
    const fd = openSync(file, 'w')
    try {
      await runGit(cwd, args, { env, signal, stdoutFd: fd, stdinFd: inFd })
    } finally {
      closeSync(fd)
    }
  } finally {
    closeSync(inFd)
    rmSync(inputFile, { force: true })
  }
}
