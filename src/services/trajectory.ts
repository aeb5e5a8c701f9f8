/**
 * The edit trajectory: what the CLI commands, the MCP tools and the answers (evidence, why,
 * history) call. The recorder and the shadow repository live in src/trajectory/; everything read
 * here comes from the journal (no git at query time) except a snapshot's diff.
 */
import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { PROJECT_ROOT } from '../parse/registry.js'
import { DEFAULT_DEBOUNCE_MS, DEFAULT_IDLE_GAP_MS, readIntent, readJournal, trajectoryPaths, writeIntent, type Intent, type RecorderSettings, type SnapshotRecord } from '../trajectory/journal.js'
import { dirBytes, ShadowRepo } from '../trajectory/shadow.js'
import type { PruneOptions, PruneResult } from '../trajectory/prune.js'
import { QUERIES } from '../graph/queries.js'
import type { IndexReader } from './index-reader.js'
import { isAlive, lockHolder, processStart, resolveRepo } from './workspace.js'

/** The snapshot writer loads tree-sitter: imported when a command writes, not when the MCP server starts. */
const snapshots = () => import('../trajectory/snapshot.js')

export type { PruneOptions, PruneResult }

export interface RecorderStatus {
  repo: string
  running: boolean
  pid: number | null
  debounce_ms: number | null
  idle_gap_ms: number | null
  started_at: string | null
  intent: Intent | null
  snapshots: number
  sessions: number
  last_snapshot: { id: string; time: string; summary: string } | null
  shadow_bytes: number
  log: string | null
}

export function recorderStatus(repo: string): RecorderStatus {
  const p = trajectoryPaths(repo)
  const pid = lockHolder(p.lock)
  let settings: RecorderSettings | null = null
  if (pid !== null) {
    try {
      settings = JSON.parse(readFileSync(p.settings, 'utf8')) as RecorderSettings
    } catch {
      settings = null
    }
  }
  const journal = readJournal(repo)
  const last = journal[journal.length - 1]
  return {
    repo,
    running: pid !== null,
    pid,
    debounce_ms: settings?.debounce_ms ?? null,
    idle_gap_ms: settings?.idle_gap_ms ?? null,
    started_at: settings?.started_at ?? null,
    intent: readIntent(repo),
    snapshots: journal.length,
    sessions: new Set(journal.map((r) => r.session)).size,
    last_snapshot: last ? { id: last.id, time: last.time, summary: last.summary } : null,
    shadow_bytes: dirBytes(p.gitDir),
    log: existsSync(p.log) ? p.log : null,
  }
}

export interface RecorderFlags {
  debounceMs?: number
  idleGapMinutes?: number
}

export function checkRecorderFlags(flags: RecorderFlags): void {
  if (flags.debounceMs !== undefined && (!Number.isInteger(flags.debounceMs) || flags.debounceMs < 50 || flags.debounceMs > 600_000)) {
    throw new UserError(`--debounce must be a whole number of milliseconds from 50 to 600000, got ${flags.debounceMs}`, 'pass e.g. --debounce 2000 (the default)', 'bad_option')
  }
  if (flags.idleGapMinutes !== undefined && (!Number.isInteger(flags.idleGapMinutes) || flags.idleGapMinutes < 1 || flags.idleGapMinutes > 10_080)) {
    throw new UserError(`--idle-gap must be a whole number of minutes from 1 to 10080, got ${flags.idleGapMinutes}`, 'pass e.g. --idle-gap 30 (the default)', 'bad_option')
  }
}

const MAX_LOG_BYTES = 1024 * 1024

/** The background recorder's entry point (src/trajectory/daemon.ts), beside this package's other compiled modules. */
const DAEMON_JS = path.join(PROJECT_ROOT, 'dist', 'trajectory', 'daemon.js')

/**
 * Start the background recorder (the recorder of `gitwhy watch` without oclif, detached, its stderr in recorder.log) and wait
 * until it holds the lock and has caught up; an already running one is reported, not doubled.
 */
export async function startRecorder(repoArg: string | undefined, flags: RecorderFlags = {}, timeoutMs = 30_000): Promise<RecorderStatus & { started: boolean }> {
  checkRecorderFlags(flags)
  const repo = await resolveRepo(repoArg)
  const p = trajectoryPaths(repo)
  if (lockHolder(p.lock) !== null) return { ...recorderStatus(repo), started: false }
  mkdirSync(p.root, { recursive: true })
  // the log is bounded too: past 1 MB it becomes recorder.log.1 (replacing the one before)
  if (existsSync(p.log) && statSync(p.log).size > MAX_LOG_BYTES) renameSync(p.log, `${p.log}.1`)
  const log = openSync(p.log, 'a')
  const args = [DAEMON_JS, repo, String(flags.debounceMs ?? DEFAULT_DEBOUNCE_MS), String((flags.idleGapMinutes ?? DEFAULT_IDLE_GAP_MS / 60_000) * 60_000)]
  rmSync(p.settings, { force: true })
  // V8's baseline wasm compiler only: the optimizing tier compiles the grammars again in the
  // background after the first parse, ~50 MB the recorder keeps for good; parsing a snapshot's few
  // files stays fast without it (measured on vuejs/core: bench/README.md, "Trajectory recorder")
  const child = spawn(process.execPath, ['--liftoff-only', ...args], { cwd: repo, detached: true, stdio: ['ignore', 'ignore', log], env: { ...process.env, GITWHY_REPO: repo } })
  closeSync(log)
  let exited: string | null = null
  child.on('exit', (code, signal) => (exited = signal ?? String(code)))
  child.unref()
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (lockHolder(p.lock) === child.pid && existsSync(p.settings)) return { ...recorderStatus(repo), started: true }
    if (exited !== null) {
      if (lockHolder(p.lock) !== null) return { ...recorderStatus(repo), started: false }
      throw new UserError(`the recorder exited at start (${exited})${logTail(p.log)}`, `see ${p.log}`, 'recorder_failed')
    }
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new UserError(`the recorder did not start within ${timeoutMs / 1000} s`, `see ${p.log}; stop it with \`gitwhy trajectory stop\``, 'recorder_failed')
}

/** The log's last lines, for an error that says why the recorder did not start. */
function logTail(file: string): string {
  try {
    const lines = readFileSync(file, 'utf8').trim().split('\n')
    return `: ${lines.slice(-3).join(' | ')}`
  } catch {
    return ''
  }
}

/** Stop the recorder (SIGTERM: it snapshots what is pending first; SIGKILL after the timeout). */
export async function stopRecorder(repoArg: string | undefined, timeoutMs = 15_000): Promise<RecorderStatus & { stopped: boolean }> {
  const repo = await resolveRepo(repoArg)
  const p = trajectoryPaths(repo)
  const pid = lockHolder(p.lock)
  if (pid === null) return { ...recorderStatus(repo), stopped: false }
  // the pid with its start time, not the pid alone: a pid the recorder freed can be another process's by now
  const started = processStart(pid)
  try {
    process.kill(pid, 'SIGTERM')
  } catch {
    // gone already
  }
  const running = () => isAlive(pid) && processStart(pid) === started
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline && running()) await new Promise((r) => setTimeout(r, 25))
  if (running()) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone already
    }
  }
  if (lockHolder(p.lock) === null) {
    rmSync(p.lock, { force: true })
    rmSync(p.settings, { force: true })
  }
  return { ...recorderStatus(repo), stopped: true }
}

export async function setIntent(repoArg: string | undefined, text: string | null): Promise<{ repo: string; intent: Intent | null }> {
  const repo = await resolveRepo(repoArg)
  return { repo, intent: writeIntent(repo, text) }
}

/** A snapshot as answers show it: the record with what undid it and the commit it landed in. */
export interface SnapshotItem extends SnapshotRecord {
  reverted_by: string[]
  /** The indexed commit the edit landed in (null: none), when an index was there to ask; absent otherwise. */
  landed_in?: string | null
}

function withReverts(journal: SnapshotRecord[]): SnapshotItem[] {
  const by = new Map<string, string[]>()
  for (const r of journal) for (const t of r.reverts) by.set(t, [...(by.get(t) ?? []), r.id])
  return journal.map((r) => ({ ...r, reverted_by: by.get(r.id) ?? [] }))
}

export interface TimelineOptions {
  target?: string
  sinceConsolidate?: boolean
  session?: string
  limit?: number
}

export interface Timeline {
  repo: string
  target: string | null
  since_consolidate: string | null
  snapshots: SnapshotItem[]
  total: number
}

/**
 * Does the snapshot touch the target: a path (file or directory), a symbol id, `path:Name`, a
 * qualified name or its last parts (`run` for `Server.run`)? Matched against the journal, not the
 * index: a snapshot's symbols may exist nowhere in the history yet.
 */
export function touches(r: SnapshotRecord, target: string): boolean {
  const t = target.replace(/\/+$/, '')
  if (r.files.some((f) => f.path === t || f.path.startsWith(`${t}/`))) return true
  const colon = t.lastIndexOf(':')
  const asId = colon > 0 ? `${t.slice(0, colon)}#${t.slice(colon + 1)}` : t
  return r.symbols.some((s) => s.id === t || s.id === asId || s.qualified_name === t || s.qualified_name.endsWith(`.${t}`))
}

/** Newest first; since the last checkpoint when asked. */
export async function timeline(repoArg: string | undefined, options: TimelineOptions = {}, landed?: LandedLookup): Promise<Timeline> {
  const repo = await resolveRepo(repoArg)
  if (options.target !== undefined && (options.target.trim() === '' || options.target.length > 1000)) {
    throw new UserError('the target is empty or too long', 'pass a path, a directory, path:Name or a qualified symbol name', 'bad_target')
  }
  const journal = withReverts(readJournal(repo))
  let from = 0
  let since: string | null = null
  if (options.sinceConsolidate) {
    for (let i = journal.length - 1; i >= 0; i--) {
      if (journal[i].kind === 'consolidate') {
        from = i + 1
        since = journal[i].id
        break
      }
    }
  }
  let items = journal.slice(from)
  if (options.session) {
    if (!items.some((r) => r.session === options.session)) throw unknownSession(journal, options.session)
    items = items.filter((r) => r.session === options.session)
  }
  if (options.target) items = items.filter((r) => touches(r, options.target!))
  items.reverse()
  const total = items.length
  if (options.limit) items = items.slice(0, options.limit)
  // where the edits went, when there is an index to ask (its LANDED_IN edges); none: left out
  const commits = landed && items.length > 0 ? await landed(items.map((r) => r.id)).catch(() => null) : null
  if (commits) items = items.map((r) => ({ ...r, landed_in: commits.get(r.id) ?? null }))
  return { repo, target: options.target ?? null, since_consolidate: since, snapshots: items, total }
}

function unknownSession(journal: SnapshotRecord[], id: string): UserError {
  const sessions = [...new Set(journal.map((r) => r.session))].slice(-5)
  return new UserError(`no trajectory session ${id}`, sessions.length > 0 ? `pass one of ${sessions.join(', ')} (see \`gitwhy trajectory summary\`)` : 'record one first: `gitwhy trajectory start`', 'not_found')
}

export interface SessionSummary {
  repo: string
  session: string
  first: string
  last: string
  snapshots: number
  intents: string[]
  files: Array<{ path: string; snapshots: number; added: number; removed: number }>
  symbols: Array<{ id: string; qualified_name: string; snapshots: number }>
  reverts: Array<{ snapshot: string; undid: string[]; summary: string }>
  checkpoints: Array<{ id: string; summary: string }>
  net: { files: number; added: number; removed: number }
}

/** A session (default: the newest) summed up: what it touched, its intents, its reverts and its net diff. */
export async function sessionSummary(repoArg: string | undefined, session?: string): Promise<SessionSummary> {
  const repo = await resolveRepo(repoArg)
  const journal = readJournal(repo)
  if (journal.length === 0) throw new UserError(`no trajectory recorded in ${repo}`, 'start the recorder: `gitwhy trajectory start` (or `gitwhy watch`)', 'no_trajectory')
  const id = session ?? journal[journal.length - 1].session
  const items = journal.filter((r) => r.session === id)
  if (items.length === 0) throw unknownSession(journal, id)
  const files = new Map<string, { path: string; snapshots: number; added: number; removed: number }>()
  const symbols = new Map<string, { id: string; qualified_name: string; snapshots: number }>()
  for (const r of items) {
    for (const f of r.files) {
      const e = files.get(f.path) ?? { path: f.path, snapshots: 0, added: 0, removed: 0 }
      e.snapshots++
      e.added += f.added
      e.removed += f.removed
      files.set(f.path, e)
    }
    for (const s of r.symbols) {
      const e = symbols.get(s.id) ?? { id: s.id, qualified_name: s.qualified_name, snapshots: 0 }
      e.snapshots++
      symbols.set(s.id, e)
    }
  }
  const net = await netDiff(repo, items[0].id, items[items.length - 1].id, journal)
  return {
    repo,
    session: id,
    first: items[0].time,
    last: items[items.length - 1].time,
    snapshots: items.length,
    intents: [...new Set(items.map((r) => r.intent).filter((t): t is string => t !== null))],
    files: [...files.values()].sort((a, b) => b.snapshots - a.snapshots || a.path.localeCompare(b.path)),
    symbols: [...symbols.values()].sort((a, b) => b.snapshots - a.snapshots || a.id.localeCompare(b.id)),
    reverts: items.filter((r) => r.reverts.length > 0).map((r) => ({ snapshot: r.id, undid: r.reverts, summary: r.summary })),
    checkpoints: items.filter((r) => r.kind === 'consolidate').map((r) => ({ id: r.id, summary: r.summary })),
    net,
  }
}

/** The session's net change: from the state before its first snapshot to its last. */
async function netDiff(repo: string, first: string, last: string, journal: SnapshotRecord[]): Promise<SessionSummary['net']> {
  const shadow = new ShadowRepo(repo)
  const firstRecord = journal.find((r) => r.id === first)
  const from = firstRecord?.kind === 'baseline' ? first : `${first}^`
  const out = await shadow.git(['diff', '--numstat', '-z', '--no-renames', from, last, '--'], { okCodes: [128] }).catch(() => '')
  let files = 0
  let added = 0
  let removed = 0
  for (const row of out.split('\0')) {
    const m = /^(\d+|-)\t(\d+|-)\t/.exec(row)
    if (!m) continue
    files++
    added += m[1] === '-' ? 0 : Number(m[1])
    removed += m[2] === '-' ? 0 : Number(m[2])
  }
  return { files, added, removed }
}

export interface SnapshotDetail {
  repo: string
  snapshot: SnapshotItem
  diff: string
  truncated: boolean
}

const MAX_DIFF_CHARS = 15_000

/** One snapshot (by id or unique prefix) with its diff against the previous snapshot. */
export async function snapshotDetail(repoArg: string | undefined, id: string): Promise<SnapshotDetail> {
  const repo = await resolveRepo(repoArg)
  if (!/^[0-9a-f]{4,40}$/.test(id)) throw new UserError(`"${id.slice(0, 80)}" is not a snapshot id`, 'pass the hex id (4 characters or more) a trajectory answer shows', 'bad_target')
  const journal = withReverts(readJournal(repo))
  const hits = journal.filter((r) => r.id.startsWith(id))
  if (hits.length !== 1) {
    throw new UserError(hits.length === 0 ? `no snapshot ${id}` : `${id} names ${hits.length} snapshots`, hits.length === 0 ? 'see `gitwhy trajectory` for the ids' : 'pass more characters of the id', 'not_found')
  }
  const snap = hits[0]
  const shadow = new ShadowRepo(repo)
  const args = snap.kind === 'baseline' ? ['show', '--stat', '--format=', snap.id] : ['diff', '--no-color', '--no-ext-diff', '--no-renames', `${snap.id}^`, snap.id, '--']
  const text = (await shadow.git(['-c', 'core.quotePath=false', ...args])).replace(/\n$/, '')
  return { repo, snapshot: snap, diff: text.slice(0, MAX_DIFF_CHARS), truncated: text.length > MAX_DIFF_CHARS }
}

/** Write a `[CONSOLIDATE]` checkpoint: what changed since the last snapshot, and the summary of the work. */
export async function consolidate(repoArg: string | undefined, summary: string): Promise<{ repo: string; checkpoint: SnapshotRecord }> {
  const repo = await resolveRepo(repoArg)
  const clean = summary.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim()
  if (clean === '' || clean.length > 2000) throw new UserError(clean === '' ? 'the summary is empty' : `the summary is ${clean.length} characters long (at most 2000)`, 'say in a sentence what the work so far did, e.g. "implemented the login feature"', 'bad_option')
  const { takeSnapshot, withWriteLock } = await snapshots()
  const shadow = new ShadowRepo(repo)
  await shadow.ensure()
  const pending = (await shadow.head()) === null ? [] : await withWriteLock(shadow, () => shadow.changedSinceIndex())
  const ignored = await shadow.ignored(pending)
  const record = await takeSnapshot(shadow, pending.filter((p) => !ignored.has(p)), { kind: 'consolidate', message: clean, idleGapMs: recorderIdleGap(repo) })
  return { repo, checkpoint: record! }
}

function recorderIdleGap(repo: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(trajectoryPaths(repo).settings, 'utf8')) as RecorderSettings).idle_gap_ms
  } catch {
    return undefined
  }
}

/** Squash old snapshots (see src/trajectory/prune.ts); the recorder does it too, at every start. */
export async function prune(repoArg: string | undefined, options: PruneOptions = {}): Promise<PruneResult> {
  const repo = await resolveRepo(repoArg)
  const shadow = new ShadowRepo(repo)
  if (!shadow.exists()) throw new UserError(`no trajectory recorded in ${repo}`, 'nothing to prune; start the recorder with `gitwhy trajectory start`', 'no_trajectory')
  return (await import('../trajectory/prune.js')).pruneShadow(shadow, options)
}

/** What an answer appends after the committed evidence: recorded edits the index has no commit for. */
export interface TrajectoryItem {
  id: string
  time: string
  session: string
  intent: string | null
  summary: string
  reverts: string[]
  reverted_by: string[]
  uncommitted: true
}

export interface RangeTarget {
  path: string
  line_start?: number
  line_end?: number
  symbol?: { qualified_name: string } | null
}

/** Does the snapshot touch the range: the symbol itself, or a changed line range of the file overlapping it (the snapshot's own line numbers). */
function touchesRange(r: SnapshotRecord, t: RangeTarget): boolean {
  if (t.symbol && r.symbols.some((s) => s.id === `${t.path}#${t.symbol!.qualified_name}`)) return true
  const lo = t.line_start ?? 1
  const hi = t.line_end ?? Number.MAX_SAFE_INTEGER
  const everything = t.path === '.' || t.path === ''
  return r.files.some((f) => {
    if (!everything && f.path !== t.path && !f.path.startsWith(`${t.path.replace(/\/+$/, '')}/`)) return false
    if (t.line_start === undefined || f.ranges.length === 0) return true
    for (let i = 0; i < f.ranges.length; i += 2) if (f.ranges[i] <= hi && f.ranges[i + 1] >= lo) return true
    return false
  })
}

/**
 * The recorded snapshots of a range (or a whole file or directory) that did not land in an
 * indexed commit, newest first: the journal's, less those the graph links to a commit by LANDED_IN
 * (asked only when there is a candidate, so an answer without trajectory never opens the graph).
 */
export async function uncommittedTrajectory(repo: string, target: RangeTarget, landed: LandedLookup, limit = 5): Promise<TrajectoryItem[]> {
  const journal = readJournal(repo)
  if (journal.length === 0) return []
  const hits = withReverts(journal).filter((r) => r.kind !== 'baseline' && touchesRange(r, target))
  if (hits.length === 0) return []
  const done = await landed(hits.map((r) => r.id)).catch(() => new Map<string, string>())
  return hits
    .filter((r) => !done.has(r.id))
    .reverse()
    .slice(0, limit)
    .map((r) => ({ id: r.id, time: r.time, session: r.session, intent: r.intent, summary: r.summary, reverts: r.reverts, reverted_by: r.reverted_by, uncommitted: true }))
}

/** The snapshots among `ids` the index links to a commit (LANDED_IN): snapshot id → commit SHA. */
export type LandedLookup = (ids: string[]) => Promise<Map<string, string>>

export function landedIn(reader: IndexReader): LandedLookup {
  return async (ids) => new Map((await (await reader.graph()).query<{ id: string; sha: string }>(QUERIES.landedSnapshots, { ids })).map((r) => [r.id, r.sha]))
}

/** An answer with its uncommitted trajectory, when there is any (absent otherwise: the answer's shape is unchanged). */
export async function withTrajectory<R extends object>(reader: IndexReader, target: RangeTarget, result: R): Promise<R & { trajectory?: TrajectoryItem[] }> {
  const trajectory = await uncommittedTrajectory(reader.repo, target, landedIn(reader))
  return trajectory.length > 0 ? { ...result, trajectory } : result
}
