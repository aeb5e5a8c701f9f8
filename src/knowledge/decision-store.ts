/**
 * Where decisions live: user state, outside the rebuildable index.
 *
 *   .gitwhy-decisions.jsonl          (repository root; meant to be reviewed and committed) the
 *                                    manual and accepted decisions, superseded and rejected ones
 *                                    included, one JSON object a line, oldest first
 *   .gitwhy/decisions-proposed.jsonl (local, never committed) mined candidates waiting for
 *                                    `decisions accept`, and the candidates rejected, so that
 *                                    mining again does not propose them again
 *
 * Every change takes `.gitwhy/decisions.lock`, reads both files afresh, and writes the changed
 * one to a temporary file renamed over it: concurrent writers queue, a reader never sees half a
 * file, and a crash leaves the previous file.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { ensureGitwhyDir, gitwhyDir, lockHolder, tryLock } from '../services/workspace.js'
import { DecisionFormatError, formatDecision, parseDecision, type Decision } from './decision-model.js'

export const DECISION_FILE = '.gitwhy-decisions.jsonl'
export const PROPOSED_FILE = 'decisions-proposed.jsonl'
const LOCK_FILE = 'decisions.lock'
/** How long a writer waits for another one (a write takes milliseconds; a holder that died is taken over at once). */
const LOCK_WAIT_MS = 30_000

export interface DecisionFileProblem {
  file: string
  line: number
  message: string
}

export interface DecisionState {
  /** The committed file's decisions, in file order. */
  decisions: Decision[]
  /** Mined candidates (proposed or rejected), in file order. */
  proposed: Decision[]
  /** Lines of either file that are not decisions (skipped by readers; writers refuse until they are fixed). */
  problems: DecisionFileProblem[]
}

export function decisionFile(repo: string): string {
  return path.join(repo, DECISION_FILE)
}

export function proposedFile(repo: string): string {
  return path.join(gitwhyDir(repo), PROPOSED_FILE)
}

function readFile(file: string, label: string, problems: DecisionFileProblem[]): Decision[] {
  if (!existsSync(file)) return []
  const out: Decision[] = []
  const seen = new Set<string>()
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    if (!line.trim()) return
    try {
      const d = parseDecision(JSON.parse(line))
      if (seen.has(d.id)) throw new DecisionFormatError(`id ${d.id} appears twice`)
      seen.add(d.id)
      out.push(d)
    } catch (error) {
      if (!(error instanceof DecisionFormatError) && !(error instanceof SyntaxError)) throw error
      problems.push({ file: label, line: i + 1, message: error.message })
    }
  })
  return out
}

/** Both files as they are now (no lock: each is replaced whole by a rename). */
export function readDecisions(repo: string): DecisionState {
  const problems: DecisionFileProblem[] = []
  const decisions = readFile(decisionFile(repo), DECISION_FILE, problems)
  const proposed = readFile(proposedFile(repo), `.gitwhy/${PROPOSED_FILE}`, problems)
  return { decisions, proposed, problems }
}

function writeFile(file: string, decisions: Decision[]): void {
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, decisions.map((d) => formatDecision(d) + '\n').join(''))
  renameSync(tmp, file)
}

async function lock(repo: string): Promise<() => void> {
  const file = path.join(ensureGitwhyDir(repo), LOCK_FILE)
  const until = Date.now() + LOCK_WAIT_MS
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    const release = tryLock(file)
    if (release) return release
    if (Date.now() > until) {
      const pid = lockHolder(file)
      throw new UserError(`the decision files of ${repo} are locked${pid !== null ? ` by process ${pid}` : ''}`, 'wait for that command to finish and run this one again', 'locked')
    }
    await new Promise((r) => setTimeout(r, wait + Math.random() * wait))
  }
}

/**
 * Change the decisions under the lock: `change` gets both files' decisions as they are now and
 * edits the arrays in place; a file is written only when its content changed. Refuses while
 * either file has lines that are not decisions (rewriting would drop them).
 */
export async function updateDecisions<T>(repo: string, change: (state: DecisionState) => T): Promise<T> {
  const release = await lock(repo)
  try {
    const state = readDecisions(repo)
    if (state.problems.length > 0) throw problemsError(state.problems)
    const before = [state.decisions.map(formatDecision).join('\n'), state.proposed.map(formatDecision).join('\n')]
    const result = change(state)
    if (state.decisions.map(formatDecision).join('\n') !== before[0]) writeFile(decisionFile(repo), state.decisions)
    if (state.proposed.map(formatDecision).join('\n') !== before[1]) {
      if (state.proposed.length === 0) rmSync(proposedFile(repo), { force: true })
      else writeFile(proposedFile(repo), state.proposed)
    }
    return result
  } finally {
    release()
  }
}

export function problemsError(problems: DecisionFileProblem[]): UserError {
  const first = problems[0]
  return new UserError(
    `line ${first.line} of ${first.file} is not a decision: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more bad lines)` : ''}`,
    `fix or delete that line (one JSON object per line; see the README, Decisions), then run the command again; nothing was changed`,
    'bad_decision_file',
  )
}
