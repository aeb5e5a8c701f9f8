import { spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
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

const BASE_ARGS = ['-c', 'core.quotePath=true', '-c', 'color.ui=false', '-c', 'log.showSignature=false', '-c', 'diff.noprefix=false', '-c', 'diff.mnemonicPrefix=false', '-c', 'diff.relative=false', '-c', 'diff.external=']

export function assertSafeRef(ref: string): string {
  if (ref.startsWith('-') || ref.includes('\0') || /\s/.test(ref)) {
    throw new UserError(`"${ref}" is not a valid git revision`, 'pass a commit SHA, branch or tag name (values starting with "-" are refused)', 'bad_ref')
  }
  return ref
}

function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat', PAGER: 'cat' }
}

export interface GitRunOptions {
  input?: string | Buffer
  /** Exit codes that are not failures (e.g. 1 for merge-base --is-ancestor). */
  okCodes?: number[]
}

/** Run git to completion and return stdout as a Buffer. */
export function gitBuffer(cwd: string, args: string[], options: GitRunOptions = {}): Promise<{ stdout: Buffer; code: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...BASE_ARGS, ...args], { cwd, env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (d: Buffer) => out.push(d))
    child.stderr.on('data', (d: Buffer) => err.push(d))
    child.on('error', (e) => reject(new UserError(`could not run git: ${e.message}`, 'install git 2.30 or newer and make sure it is on PATH', 'no_git')))
    child.on('close', (code) => {
      const ok = code === 0 || (code !== null && (options.okCodes ?? []).includes(code))
      if (!ok) reject(new GitError(args, code, Buffer.concat(err).toString('utf8')))
      else resolve({ stdout: Buffer.concat(out), code: code ?? 0 })
    })
    child.stdin.on('error', () => {})
    if (options.input !== undefined) child.stdin.end(options.input)
    else child.stdin.end()
  })
}

export async function git(cwd: string, args: string[], options: GitRunOptions = {}): Promise<string> {
  return (await gitBuffer(cwd, args, options)).stdout.toString('utf8')
}

/**
 * Run git with stdout written straight to `file` (no round trip through this process), so git
 * keeps its own pace while this thread is busy with other work. Resolves when git exits.
 */
export function gitToFile(cwd: string, args: string[], file: string, input?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fd = openSync(file, 'w')
    const child = spawn('git', [...BASE_ARGS, ...args], { cwd, env: gitEnv(), stdio: ['pipe', fd, 'pipe'] })
    closeSync(fd)
    const err: Buffer[] = []
    child.stderr!.on('data', (d: Buffer) => err.push(d))
    child.on('error', (e) => reject(new UserError(`could not run git: ${e.message}`, 'install git 2.30 or newer and make sure it is on PATH', 'no_git')))
    child.on('close', (code) => {
      if (code !== 0) reject(new GitError(args, code, Buffer.concat(err).toString('utf8')))
      else resolve()
    })
    child.stdin!.on('error', () => {})
    child.stdin!.end(input ?? '')
  })
}
