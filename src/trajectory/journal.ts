/**
 * The trajectory's user state, beside the rebuildable index (it survives `analyze --force`):
 *
 *   .gitwhy/trajectory/
 *     shadow.git/      the shadow repository: one commit per snapshot on refs/heads/trajectory
 *     index            the shadow repository's index (GIT_INDEX_FILE)
 *     journal.jsonl    one SnapshotRecord per line, oldest first: what answers read without git
 *     intent.json      the current intent ({text, set_at}), or absent
 *     recorder.lock    the running recorder: pid, start time, boot id (workspace.ts tryLock)
 *     recorder.json    the running recorder's settings (debounce, idle gap), for status
 *     recorder.log     the background recorder's log (past 1 MB moved to recorder.log.1 at its next start)
 *     write.lock       held while a snapshot, checkpoint or prune writes the shadow repository
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { gitwhyDir } from '../services/workspace.js'

export const TRAJECTORY_DIR = 'trajectory'
/** The quiet period after which the recorder snapshots what changed. */
export const DEFAULT_DEBOUNCE_MS = 2000
/** Default idle gap that starts a new session: 30 minutes without a snapshot. */
export const DEFAULT_IDLE_GAP_MS = 30 * 60 * 1000

/** What `recorder.json` says about the running recorder. */
export interface RecorderSettings {
  pid: number
  started_at: string
  debounce_ms: number
  idle_gap_ms: number
}
/** The shadow repository's branch: every snapshot and checkpoint, oldest at the root. */
export const TRAJECTORY_REF = 'refs/heads/trajectory'

export interface TrajectoryPaths {
  root: string
  gitDir: string
  indexFile: string
  journal: string
  intent: string
  lock: string
  settings: string
  log: string
  writeLock: string
}

export function trajectoryPaths(repo: string): TrajectoryPaths {
  const root = path.join(gitwhyDir(repo), TRAJECTORY_DIR)
  return {
    root,
    gitDir: path.join(root, 'shadow.git'),
    indexFile: path.join(root, 'index'),
    journal: path.join(root, 'journal.jsonl'),
    intent: path.join(root, 'intent.json'),
    lock: path.join(root, 'recorder.lock'),
    settings: path.join(root, 'recorder.json'),
    log: path.join(root, 'recorder.log'),
    writeLock: path.join(root, 'write.lock'),
  }
}

/** A file a snapshot changed: line counts and the blob ids (git's content hashes) before and after. */
export interface SnapshotFile {
  path: string
  status: 'A' | 'M' | 'D'
  added: number
  removed: number
  before: string | null
  after: string | null
  /** The changed lines' ranges in the snapshot's version of the file, 1-based inclusive [start, end, ...]. */
  ranges: number[]
}

/** A symbol a snapshot changed: content hashes of its text before and after (null: absent). */
export interface SnapshotSymbol {
  id: string
  path: string
  qualified_name: string
  kind: string
  added: number
  removed: number
  before: string | null
  after: string | null
}

export type SnapshotKind = 'baseline' | 'auto' | 'consolidate'

export interface SnapshotRecord {
  /** The shadow commit's SHA. */
  id: string
  kind: SnapshotKind
  /** ISO 8601, UTC. */
  time: string
  session: string
  intent: string | null
  summary: string
  files: SnapshotFile[]
  symbols: SnapshotSymbol[]
  /** Earlier snapshots whose change this one undid (content back to what it was before them). */
  reverts: string[]
  /** Files in the tree (a baseline lists none of them one by one). */
  tree_files?: number
}

export function readJournal(repo: string): SnapshotRecord[] {
  const file = trajectoryPaths(repo).journal
  if (!existsSync(file)) return []
  const out: SnapshotRecord[] = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    try {
      out.push(JSON.parse(line) as SnapshotRecord)
    } catch {
      // a line cut short by a crash mid-append: the snapshot's commit is still in the shadow repository
    }
  }
  return out
}

export function appendJournal(repo: string, record: SnapshotRecord): void {
  appendFileSync(trajectoryPaths(repo).journal, JSON.stringify(record) + '\n')
}

export function rewriteJournal(repo: string, records: SnapshotRecord[]): void {
  const file = trajectoryPaths(repo).journal
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, records.map((r) => JSON.stringify(r) + '\n').join(''))
  renameSync(tmp, file)
}

export interface Intent {
  text: string
  set_at: string
}

export const MAX_INTENT_CHARS = 500

export function readIntent(repo: string): Intent | null {
  try {
    const v = JSON.parse(readFileSync(trajectoryPaths(repo).intent, 'utf8')) as Intent
    return typeof v?.text === 'string' && v.text !== '' ? v : null
  } catch {
    return null
  }
}

/** Set (or with null clear) the intent that stamps every following snapshot; it survives restarts. */
export function writeIntent(repo: string, text: string | null): Intent | null {
  const p = trajectoryPaths(repo)
  if (text === null) {
    rmSync(p.intent, { force: true })
    return null
  }
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim()
  if (clean === '') throw new UserError('the intent is empty', 'pass a sentence, e.g. gitwhy intent "fixing the login timeout" (or --clear)', 'bad_option')
  if (clean.length > MAX_INTENT_CHARS) throw new UserError(`the intent is ${clean.length} characters long (at most ${MAX_INTENT_CHARS})`, 'say it in one sentence', 'bad_option')
  mkdirSync(p.root, { recursive: true })
  const intent = { text: clean, set_at: new Date().toISOString() }
  const tmp = `${p.intent}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify(intent) + '\n')
  renameSync(tmp, p.intent)
  return intent
}
