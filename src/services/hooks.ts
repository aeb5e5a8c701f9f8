import { appendFileSync, chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { isUserError } from '../errors.js'
import { git } from '../git/run.js'
import { RUN_JS } from '../setup/launcher.js'
import { gitwhyDir, lockHolder, readMeta, resolveRepo, tryLock, writeFailure } from './workspace.js'

/**
 * Opt-in git hooks that keep the index fresh: after a commit, merge, rewrite (amend, rebase) or
 * branch checkout, the hook starts `gitwhy hooks run` in the background and returns at once. The
 * runner refreshes an existing index (incremental when it can), one analyze at a time:
 *
 *   .gitwhy/analyze.pending     "HEAD moved since the last analyze started": written by every hook
 *   .gitwhy/hooks-runner.lock   pid of the one runner; a hook that finds it held just leaves the
 *                               pending mark, and the holder analyzes again before it exits
 *   .gitwhy/hooks.log           what the runners did (the hook itself prints nothing)
 *
 * What install adds to a hook file is one delimited block (BLOCK_BEGIN … BLOCK_END) preceded by one
 * newline, so uninstall can cut exactly those bytes out again. Whether gitwhy created the file is
 * written inside the block (CREATED_NOTE), so uninstall needs no state beside the hooks.
 */
export const HOOK_NAMES = ['post-commit', 'post-merge', 'post-rewrite', 'post-checkout'] as const
export type HookName = (typeof HOOK_NAMES)[number]

export const BLOCK_BEGIN = '# >>> gitwhy >>>'
export const BLOCK_END = '# <<< gitwhy <<<'
const CREATED_NOTE = '# gitwhy created this file: `gitwhy hooks uninstall` deletes it when nothing else is in it.'
const APPENDED_NOTE = '# `gitwhy hooks uninstall` removes this block and leaves the rest of the file as it was.'
/** What a file gitwhy creates holds besides the block. */
export const CREATED_HEADER = '#!/bin/sh\n'

const PENDING_FILE = 'analyze.pending'
const RUNNER_LOCK = 'hooks-runner.lock'
const LOG_FILE = 'hooks.log'
const LOG_MAX_BYTES = 512 * 1024
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash'])

export type HookChangeStatus = 'created' | 'appended' | 'updated' | 'unchanged' | 'removed' | 'absent' | 'refused'
export type HookState = 'installed' | 'outdated' | 'not_installed' | 'foreign'

export interface HookChange {
  name: HookName
  /** The file install edits (for husky 9: the script in `.husky/`, which husky's wrapper runs). */
  path: string
  status: HookChangeStatus
  message?: string
}

export interface HooksChangeResult {
  hooks_dir: string
  hooks: HookChange[]
}

export interface HooksStatusResult {
  repo: string
  hooks_dir: string
  hooks: Array<{ name: HookName; path: string; status: HookState }>
  indexed: boolean
  background: { running: boolean; pid: number | null; pending: boolean; log: string | null }
}

/** The command a hook runs: this node and this package's `bin/run.js`, both absolute. */
export interface HookCommand {
  node: string
  runJs: string
}

export function defaultHookCommand(): HookCommand {
  return { node: process.execPath, runJs: RUN_JS }
}

// ---------------------------------------------------------------- the block (pure text)

/** Quote for POSIX sh: single quotes, with each `'` written as `'\''`. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

/**
 * The block for one hook. It keeps `$?` of what ran before it (post-checkout's exit status
 * becomes `git checkout`'s), starts the runner detached with every stream on /dev/null (so git and
 * any caller reading git's output never wait for it), and does nothing when node or gitwhy is gone
 * or `GITWHY_HOOKS=0`. post-checkout runs only for branch checkouts (its third argument is 1).
 */
/** The line that starts the runner, detached (the block's core, and the fix when a hook cannot be edited). */
function invocation(name: HookName, cmd: HookCommand): string {
  return `${shQuote(cmd.node)} ${shQuote(cmd.runJs)} hooks run --hook ${name} </dev/null >/dev/null 2>&1 &`
}

export function renderBlock(name: HookName, created: boolean, cmd: HookCommand): string {
  const node = shQuote(cmd.node)
  const runJs = shQuote(cmd.runJs)
  const branchOnly = name === 'post-checkout' ? '[ "$3" = 1 ] && ' : ''
  // A rebase fires post-commit for every commit it picks and post-rewrite once at the end: wait for that one.
  const notRebasing = name === 'post-commit' ? ' && [ ! -d "$(git rev-parse --git-path rebase-merge 2>/dev/null)" ]' : ''
  return [
    BLOCK_BEGIN,
    '# Refreshes the gitwhy index in the background after this git command (log: .gitwhy/hooks.log).',
    created ? CREATED_NOTE : APPENDED_NOTE,
    'gitwhy_rc=$?',
    `if ${branchOnly}[ "\${GITWHY_HOOKS-}" != 0 ] && [ -x ${node} ] && [ -f ${runJs} ]${notRebasing}; then`,
    `  ${invocation(name, cmd)}`,
    'fi',
    '(exit $gitwhy_rc)',
    BLOCK_END,
    '',
  ].join('\n')
}

export interface FoundBlock {
  /** Offset of the block's first byte (the BLOCK_BEGIN line). */
  start: number
  /** Offset just past the BLOCK_END line (and its newline). */
  end: number
  created: boolean
  text: string
}

/** The gitwhy blocks in a hook file, or the offset of a BLOCK_BEGIN line that has no end. */
export function findBlocks(text: string): { blocks: FoundBlock[]; unterminated: number | null } {
  const blocks: FoundBlock[] = []
  let open: number | null = null
  let offset = 0
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset)
    const lineEnd = nl < 0 ? text.length : nl + 1
    const line = text.slice(offset, nl < 0 ? text.length : nl).replace(/\r$/, '')
    if (line === BLOCK_BEGIN && open === null) open = offset
    else if (line === BLOCK_END && open !== null) {
      const blockText = text.slice(open, lineEnd)
      blocks.push({ start: open, end: lineEnd, created: blockText.includes(CREATED_NOTE), text: blockText })
      open = null
    }
    offset = lineEnd
  }
  return { blocks, unterminated: open }
}

/** `text` with `block` appended after one separating newline (which removeBlocks takes back). */
export function appendBlock(text: string, block: string): string {
  return text + '\n' + block
}

/**
 * `text` without its gitwhy blocks, each with the newline install put before it: the bytes as they
 * were. That newline is the one before the block when it ends a blank line, or when the block ends
 * the file (the original had no final newline); a block the user moved under a line of their own
 * keeps that line's newline.
 */
export function removeBlocks(text: string, blocks: FoundBlock[]): string {
  let out = ''
  let at = 0
  for (const b of blocks) {
    const ours = b.start > at && text[b.start - 1] === '\n' && (b.start - 1 === at || text[b.start - 2] === '\n' || b.end === text.length)
    const from = ours ? b.start - 1 : b.start
    out += text.slice(at, from)
    at = b.end
  }
  return out + text.slice(at)
}

/** Why gitwhy may not append to this file (null: it is a shell script, or has no shebang). */
export function notShellReason(content: Buffer): string | null {
  if (content.includes(0)) return 'is a binary file'
  const first = content.toString('utf8').split('\n', 1)[0].replace(/\r$/, '')
  if (!first.startsWith('#!')) return null
  const words = first.slice(2).trim().split(/\s+/)
  let interpreter = path.basename(words[0] ?? '')
  if (interpreter === 'env') interpreter = path.basename(words.slice(1).find((w) => !w.startsWith('-') && !w.includes('=')) ?? '')
  return SHELLS.has(interpreter) ? null : `is not a shell script (its first line is \`${first}\`)`
}

// ---------------------------------------------------------------- where the hooks are

export interface HooksLocation {
  repo: string
  /** The directory git runs hooks from (`git rev-parse --git-path hooks`: core.hooksPath, worktrees). */
  hooksDir: string
  /** Where the scripts to edit are: hooksDir, or for husky 9 (hooksPath `.husky/_`) the `.husky/` scripts its wrappers run. */
  scriptsDir: string
  husky: boolean
  gitDirs: string[]
}

export async function hooksLocation(repo: string): Promise<HooksLocation> {
  const [hooks, gitDir, commonDir] = (await git(repo, ['rev-parse', '--git-path', 'hooks', '--absolute-git-dir', '--git-common-dir'])).split('\n').map((l) => l.trim())
  const hooksDir = path.resolve(repo, hooks)
  // husky 9 points core.hooksPath at `.husky/_`, whose generated wrappers (rewritten on every
  // install) source `_/h`, which runs `.husky/<hook>` and exits: that script is where a block runs.
  const husky = path.basename(hooksDir) === '_' && existsSync(path.join(hooksDir, 'h'))
  return { repo, hooksDir, scriptsDir: husky ? path.dirname(hooksDir) : hooksDir, husky, gitDirs: [gitDir, path.resolve(repo, commonDir)] }
}

function inside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file)
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
}

/** A note for a hook file in the work tree (husky keeps its scripts there, usually tracked). */
function workTreeNote(loc: HooksLocation, file: string): string | null {
  if (!inside(loc.repo, file) || loc.gitDirs.some((d) => inside(d, file))) return null
  return `${path.relative(loc.repo, file)} is in the work tree: keep the gitwhy block out of commits (it holds paths of this machine)`
}

// ---------------------------------------------------------------- install / uninstall / status

type Inspected =
  | { kind: 'missing' }
  | { kind: 'refused'; reason: string; fix: string }
  | { kind: 'script'; text: string; blocks: FoundBlock[] }

function inspect(file: string, name: HookName, cmd: HookCommand): Inspected {
  let st
  try {
    st = lstatSync(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' }
    throw error
  }
  const invoke = invocation(name, cmd)
  if (st.isSymbolicLink()) {
    return {
      kind: 'refused',
      reason: `${file} is a symbolic link (to ${readlinkSync(file)}); gitwhy does not edit a script other hooks or repositories may share`,
      fix: `add \`${invoke}\` to the script it points to yourself, or replace the link with a copy and run \`gitwhy hooks install\` again`,
    }
  }
  if (!st.isFile()) return { kind: 'refused', reason: `${file} is not a regular file`, fix: `move it away and run \`gitwhy hooks install\` again` }
  const content = readFileSync(file)
  const text = content.toString('utf8')
  const found = findBlocks(text)
  if (found.unterminated !== null) {
    return { kind: 'refused', reason: `${file} has a "${BLOCK_BEGIN}" line without its "${BLOCK_END}" line`, fix: `delete the broken gitwhy lines from ${file} and run \`gitwhy hooks install\` again` }
  }
  if (found.blocks.length === 0) {
    const why = notShellReason(content)
    if (why) return { kind: 'refused', reason: `${file} ${why}; gitwhy only appends to shell scripts`, fix: `run \`${invoke}\` from that hook yourself (in the background, ignoring its exit status)` }
  }
  return { kind: 'script', text, blocks: found.blocks }
}

function writeInPlace(file: string, text: string): void {
  // In place (not a rename over it), so the file keeps its mode, owner and links.
  writeFileSync(file, text)
}

/** Install the hooks; `indexed` says whether there is an index for them to refresh yet. */
export async function installHooks(options: { repo?: string }): Promise<{ result: HooksChangeResult; indexed: boolean }> {
  const repo = await resolveRepo(options.repo)
  const loc = await hooksLocation(repo)
  try {
    return writeHooks(repo, loc)
  } catch (error) {
    throw writeFailure(error, loc.scriptsDir) ?? error
  }
}

function writeHooks(repo: string, loc: HooksLocation): { result: HooksChangeResult; indexed: boolean } {
  const cmd = defaultHookCommand()
  const hooks: HookChange[] = []
  for (const name of HOOK_NAMES) {
    const file = path.join(loc.scriptsDir, name)
    const found = inspect(file, name, cmd)
    const note = workTreeNote(loc, file)
    const change = (status: HookChangeStatus, message?: string | null): HookChange => {
      const m = [message, note].filter(Boolean).join('; ')
      return m ? { name, path: file, status, message: m } : { name, path: file, status }
    }
    if (found.kind === 'refused') {
      hooks.push(change('refused', `${found.reason}. fix: ${found.fix}`))
      continue
    }
    if (found.kind === 'missing') {
      mkdirSync(loc.scriptsDir, { recursive: true })
      writeFileSync(file, appendBlock(CREATED_HEADER, renderBlock(name, true, cmd)), { mode: 0o755 })
      chmodSync(file, 0o755) // the umask may have taken bits away
      hooks.push(change('created'))
      continue
    }
    const { text, blocks } = found
    if (blocks.length === 0) {
      writeInPlace(file, appendBlock(text, renderBlock(name, false, cmd)))
      const stops = /^[ \t]*(exit|exec)\b/m.test(text) ? 'the script has an `exit` or `exec` line: when it is reached, the gitwhy block after it does not run' : null
      const mode = statSync(file).mode
      const disabled = !loc.husky && (mode & 0o111) === 0 ? 'the file is not executable, so git does not run it (chmod +x it to enable the hook)' : null
      hooks.push(change('appended', [stops, disabled].filter(Boolean).join('; ') || null))
      continue
    }
    const wanted = renderBlock(name, blocks[0].created, cmd)
    if (blocks.length === 1 && blocks[0].text === wanted) {
      hooks.push(change('unchanged'))
      continue
    }
    // An outdated block (another node, a moved package) is replaced where it stands; extra copies go.
    const rest = removeBlocks(text.slice(blocks[0].end), blocks.slice(1).map((b) => ({ ...b, start: b.start - blocks[0].end, end: b.end - blocks[0].end })))
    writeInPlace(file, text.slice(0, blocks[0].start) + wanted + rest)
    hooks.push(change('updated'))
  }
  return { result: { hooks_dir: loc.hooksDir, hooks }, indexed: readMeta(repo) !== null }
}

export async function uninstallHooks(options: { repo?: string }): Promise<HooksChangeResult> {
  const repo = await resolveRepo(options.repo)
  const loc = await hooksLocation(repo)
  const cmd = defaultHookCommand()
  const hooks: HookChange[] = []
  for (const name of HOOK_NAMES) {
    const file = path.join(loc.scriptsDir, name)
    const found = inspect(file, name, cmd)
    if (found.kind === 'missing') {
      hooks.push({ name, path: file, status: 'absent' })
      continue
    }
    if (found.kind === 'refused' || found.blocks.length === 0) {
      hooks.push({ name, path: file, status: 'absent', message: 'no gitwhy block in it; left as it is' })
      continue
    }
    const rest = removeBlocks(found.text, found.blocks)
    if (found.blocks.some((b) => b.created) && (rest === CREATED_HEADER || rest === '')) {
      rmSync(file, { force: true })
      hooks.push({ name, path: file, status: 'removed', message: 'deleted the file gitwhy had created' })
    } else {
      writeInPlace(file, rest)
      hooks.push({ name, path: file, status: 'removed', message: 'removed the gitwhy block; the rest of the file is as it was' })
    }
  }
  return { hooks_dir: loc.hooksDir, hooks }
}

export async function hooksStatus(options: { repo?: string }): Promise<HooksStatusResult> {
  const repo = await resolveRepo(options.repo)
  const loc = await hooksLocation(repo)
  const cmd = defaultHookCommand()
  const hooks = HOOK_NAMES.map((name) => {
    const file = path.join(loc.scriptsDir, name)
    const found = inspect(file, name, cmd)
    let status: HookState
    if (found.kind === 'missing') status = 'not_installed'
    else if (found.kind === 'refused' || found.blocks.length === 0) status = 'foreign'
    else status = found.blocks.length === 1 && found.blocks[0].text === renderBlock(name, found.blocks[0].created, cmd) ? 'installed' : 'outdated'
    return { name, path: file, status }
  })
  const root = gitwhyDir(repo)
  const pid = lockHolder(path.join(root, RUNNER_LOCK))
  const log = path.join(root, LOG_FILE)
  return {
    repo,
    hooks_dir: loc.hooksDir,
    hooks,
    indexed: readMeta(repo) !== null,
    background: { running: pid !== null, pid, pending: existsSync(path.join(root, PENDING_FILE)), log: existsSync(log) ? log : null },
  }
}

// ---------------------------------------------------------------- the background runner

/** Clear the pending mark; true when it was set (an atomic test-and-clear). */
function takePending(root: string): boolean {
  try {
    unlinkSync(path.join(root, PENDING_FILE))
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
}

function hookLogger(root: string): (message: string) => void {
  const file = path.join(root, LOG_FILE)
  try {
    if (statSync(file).size > LOG_MAX_BYTES) renameSync(file, file + '.1')
  } catch {
    // no log yet
  }
  return (message) => appendFileSync(file, `${new Date().toISOString()} [pid ${process.pid}] ${message}\n`)
}

/**
 * Git runs hooks with GIT_DIR / GIT_INDEX_FILE / GIT_PREFIX set, some of them relative to the
 * hook's directory. Make the ones that locate the repository absolute and drop the others (in
 * place: the git runner passes process.env on), so every git the analyze spawns sees the same
 * repository and no commit's temporary index.
 */
export function adoptHookGitEnv(env: NodeJS.ProcessEnv, cwd: string): void {
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY']) {
    const v = env[k]
    if (v) env[k] = path.resolve(cwd, v)
  }
  delete env.GIT_INDEX_FILE
  delete env.GIT_PREFIX
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** How long the runner waits for an analyze someone started by hand before it gives up. */
const LOCKED_WAIT_MS = 60 * 60 * 1000

export interface HookRunResult {
  repo: string
  /** What this process did: analyzed (how many times), left the work to a running runner, or skipped (no index). */
  outcome: 'analyzed' | 'queued' | 'no_index'
  analyses: number
}

/**
 * What a hook starts: mark the index as wanted, then analyze until no request is pending, unless
 * another runner is at it (it sees the mark). Never throws for an analyze failure: the hook's
 * user is not watching, so failures go to `.gitwhy/hooks.log`. Only an existing index is
 * refreshed (with the options it was built with): a hook in a worktree nobody analyzed does nothing.
 */
export async function runHookAnalyze(options: { repo: string; hook: string }): Promise<HookRunResult> {
  const repo = await resolveRepo(options.repo)
  if (!readMeta(repo)) return { repo, outcome: 'no_index', analyses: 0 }
  const root = gitwhyDir(repo)
  const log = hookLogger(root)
  writeFileSync(path.join(root, PENDING_FILE), `${options.hook} ${process.pid}\n`)
  let analyses = 0
  for (;;) {
    const release = tryLock(path.join(root, RUNNER_LOCK))
    if (!release) {
      if (analyses === 0) log(`${options.hook}: queued (another runner is analyzing; it runs again after)`)
      return { repo, outcome: analyses ? 'analyzed' : 'queued', analyses }
    }
    try {
      while (takePending(root)) {
        await analyzeOnce(repo, options.hook, log)
        analyses++
      }
    } finally {
      release()
    }
    // A hook that found the lock held just before release() left its mark for us: take it.
    if (!existsSync(path.join(root, PENDING_FILE))) return { repo, outcome: 'analyzed', analyses }
  }
}

async function analyzeOnce(repo: string, hook: string, log: (m: string) => void): Promise<void> {
  const { analyze } = await import('./analyze.js') // the graph stack loads only when a runner needs it
  const started = Date.now()
  for (;;) {
    const meta = readMeta(repo)
    if (!meta) {
      log(`${hook}: the index is gone; nothing to refresh`)
      return
    }
    log(`${hook}: analyze start`)
    try {
      const s = await analyze({ repo, maxCommits: meta.options.maxCommits ?? undefined, maxFileBytes: meta.options.maxFileBytes, identityMerge: meta.options.identityMerge, ignoreRevs: meta.options.ignoreRevs !== null, embeddings: Boolean(meta.options.embeddings) })
      log(`${hook}: analyze done: ${s.mode} at ${s.head}${s.mode === 'incremental' ? ` (${s.new_commits} new commits)` : ''} in ${s.timings.total_ms} ms`)
      return
    } catch (error) {
      if (isUserError(error) && error.code === 'locked' && Date.now() - started < LOCKED_WAIT_MS) {
        log(`${hook}: analyze waiting: ${error.message}`)
        await sleep(1000)
        continue
      }
      const text = isUserError(error) ? `${error.message} (fix: ${error.remedy})` : ((error as Error)?.stack ?? String(error))
      log(`${hook}: analyze failed: ${text}`)
      return
    }
  }
}
