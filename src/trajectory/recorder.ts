/**
 * The recorder: watches the work tree (chokidar 5: pure JavaScript over fs.watch, no native
 * binary to fetch, maintained) and after a quiet period takes one snapshot of everything that
 * changed. A burst — a checkout of a thousand files, a formatter run — keeps resetting the quiet
 * period, so it is one snapshot; a burst that never pauses is cut at `maxWaitMs`.
 *
 * Ignored directories (from git, at start) and `.git/`, `.gitwhy/`, `node_modules/` are not
 * watched at all; for the rest, git's ignore rules decide at snapshot time (check-ignore).
 */
import path from 'node:path'
import { watch, type FSWatcher } from 'chokidar'
import { UserError } from '../errors.js'
import { tryLock } from '../services/workspace.js'
import { rmSync, writeFileSync } from 'node:fs'
import { DEFAULT_DEBOUNCE_MS, DEFAULT_IDLE_GAP_MS, type RecorderSettings, type SnapshotRecord } from './journal.js'
import { alwaysIgnored, ShadowRepo } from './shadow.js'
import { pruneShadow } from './prune.js'
import { extractorFor, takeSnapshot } from './snapshot.js'

export interface RecorderOptions {
  debounceMs?: number
  idleGapMs?: number
  /** A burst that never pauses is snapshotted after this long (default: max(10 s, 5 × debounce)). */
  maxWaitMs?: number
  onSnapshot?: (record: SnapshotRecord) => void
  onError?: (error: unknown) => void
}

export class Recorder {
  private watcher: FSWatcher | null = null
  private pending = new Set<string>()
  private removedDirs = new Set<string>()
  /** Directories not watched: ignored at the start, or found ignored since. */
  private readonly ignoredDirs = new Set<string>()
  private timer: NodeJS.Timeout | null = null
  private firstPending = 0
  private running: Promise<void> = Promise.resolve()
  private releaseLock: (() => void) | null = null
  readonly shadow: ShadowRepo
  readonly debounceMs: number
  readonly idleGapMs: number
  private readonly maxWaitMs: number
  /** When the last snapshot was committed (performance.now()), and when its quiet period had ended. */
  lastTiming: { quietEnd: number; committed: number } | null = null

  constructor(
    readonly repo: string,
    private readonly options: RecorderOptions = {},
  ) {
    this.shadow = new ShadowRepo(repo)
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS
    this.idleGapMs = options.idleGapMs ?? DEFAULT_IDLE_GAP_MS
    this.maxWaitMs = options.maxWaitMs ?? Math.max(10_000, 5 * this.debounceMs)
  }

  /** Take the recorder lock, catch up with what changed while no recorder ran, and start watching. */
  async start(): Promise<void> {
    await this.shadow.ensure()
    const release = tryLock(this.shadow.paths.lock)
    if (!release) throw new UserError(`a trajectory recorder already runs for ${this.repo}`, 'see `gitwhy trajectory status`; stop it with `gitwhy trajectory stop`', 'locked')
    this.releaseLock = release
    try {
      // the grammars of the languages the work tree has, loaded (and warmed up) before the first edit
      const files = await this.shadow.userFiles()
      const ex = await extractorFor(files)
      const sample = new Map<string, string>()
      for (const f of files) {
        const language = ex.languageOf(f)
        if (language !== null && !sample.has(language)) sample.set(language, f)
      }
      for (const f of sample.values()) ex.extract(f, 'function warm() {}\n')
      for (const d of await this.shadow.ignoredDirectories()) this.ignoredDirs.add(d)
      const root = this.repo
      const ignored = (abs: string): boolean => {
        const rel = path.relative(root, abs).split(path.sep).join('/')
        if (rel === '' || rel.startsWith('..')) return false
        return alwaysIgnored(rel) || this.ignoredDirs.has(rel)
      }
      this.watcher = watch(root, { ignoreInitial: true, ignored, persistent: true, followSymlinks: false, atomic: false })
      this.watcher.on('all', (event, abs) => this.onEvent(event, abs))
      this.watcher.on('error', (error) => this.options.onError?.(error))
      await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()))
      // what changed while nothing recorded (or the baseline, the first time)
      await this.record(await this.catchUpPaths())
      // written once watching and caught up: `trajectory start` waits for it
      const settings: RecorderSettings = { pid: process.pid, started_at: new Date().toISOString(), debounce_ms: this.debounceMs, idle_gap_ms: this.idleGapMs }
      writeFileSync(this.shadow.paths.settings, JSON.stringify(settings) + '\n')
      // the bound on history, after the start (a prune with something to squash rewrites and repacks)
      this.running = this.running.then(() => pruneShadow(this.shadow).then(() => {}, (error: unknown) => this.options.onError?.(error)))
    } catch (error) {
      await this.stop()
      throw error
    }
  }

  private async catchUpPaths(): Promise<string[]> {
    return (await this.shadow.head()) === null ? [] : this.shadow.changedSinceIndex()
  }

  private onEvent(event: string, abs: string): void {
    const rel = path.relative(this.repo, abs).split(path.sep).join('/')
    if (rel === '' || rel.startsWith('..') || alwaysIgnored(rel)) return
    if (event === 'addDir') return
    if (event === 'unlinkDir') this.removedDirs.add(rel)
    else this.pending.add(rel)
    if (this.pending.size + this.removedDirs.size === 1) this.firstPending = Date.now()
    if (this.timer) clearTimeout(this.timer)
    const wait = Math.max(0, Math.min(this.debounceMs, this.firstPending + this.maxWaitMs - Date.now()))
    this.timer = setTimeout(() => this.flush(), wait)
  }

  /** Snapshot what is pending now (the quiet period ended). */
  private flush(): void {
    this.timer = null
    const quietEnd = performance.now()
    const paths = [...this.pending]
    const dirs = [...this.removedDirs]
    this.pending.clear()
    this.removedDirs.clear()
    this.running = this.running.then(() => this.record(paths, quietEnd, dirs))
  }

  /** Snapshot the paths (and what the shadow index has under the removed directories); never rejects. */
  private async record(paths: string[], quietEnd = performance.now(), removedDirs: string[] = []): Promise<void> {
    try {
      const inDirs = removedDirs.length > 0 ? (await this.shadow.indexPaths()).filter((p) => removedDirs.some((d) => p.startsWith(`${d}/`))) : []
      const candidates = [...new Set([...paths, ...inDirs])]
      const ignored = await this.shadow.ignored(candidates)
      if (ignored.size > 0) await this.stopWatchingIgnored(ignored)
      const record = await takeSnapshot(this.shadow, candidates.filter((p) => !ignored.has(p)), { idleGapMs: this.idleGapMs })
      if (record) {
        this.lastTiming = { quietEnd, committed: performance.now() }
        this.options.onSnapshot?.(record)
      }
    } catch (error) {
      this.options.onError?.(error)
    }
  }

  /**
   * A directory that became ignored after the start (a build's `dist/`, a new cache) is no longer
   * watched once an event under it was found ignored: its top-most ignored ancestor, unless the
   * shadow index tracks a file under it (a file the user force-added is still recorded).
   */
  private async stopWatchingIgnored(ignored: ReadonlySet<string>): Promise<void> {
    const dirs = new Set<string>()
    for (const p of ignored) {
      const parts = p.split('/')
      for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'))
    }
    const unknown = [...dirs].filter((d) => !this.ignoredDirs.has(d))
    if (unknown.length === 0) return
    const hits = new Set([...(await this.shadow.ignored(unknown.map((d) => `${d}/`)))].map((d) => d.replace(/\/$/, '')))
    if (hits.size === 0) return
    const tracked = await this.shadow.indexPaths()
    for (const d of [...hits].sort()) {
      const parts = d.split('/')
      if (parts.some((_, i) => i > 0 && this.ignoredDirs.has(parts.slice(0, i).join('/')))) continue
      if (tracked.some((p) => p.startsWith(`${d}/`))) continue
      this.ignoredDirs.add(d)
      this.watcher?.unwatch(path.join(this.repo, d))
    }
  }

  /** Snapshot anything pending, stop watching and release the lock. */
  async stop(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer)
      this.flush()
    }
    await this.watcher?.close()
    this.watcher = null
    await this.running
    if (this.releaseLock) {
      rmSync(this.shadow.paths.settings, { force: true })
      this.releaseLock()
      this.releaseLock = null
    }
  }

  /** Resolves once every snapshot queued so far is written. */
  idle(): Promise<void> {
    return this.running
  }
}
