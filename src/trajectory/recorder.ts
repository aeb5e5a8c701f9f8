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
      const ignoredDirs = new Set(await this.shadow.ignoredDirectories())
      const root = this.repo
      const ignored = (abs: string): boolean => {
        const rel = path.relative(root, abs).split(path.sep).join('/')
        if (rel === '' || rel.startsWith('..')) return false
        return alwaysIgnored(rel) || ignoredDirs.has(rel)
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
    this.running = this.running.then(async () => {
      const inDirs = dirs.length > 0 ? (await this.shadow.git(['-c', 'core.quotePath=false', 'ls-files', '-z', '--', ...dirs.map((d) => `${d}/`)])).split('\0').filter(Boolean) : []
      await this.record([...paths, ...inDirs], quietEnd)
    })
  }

  private async record(paths: string[], quietEnd = performance.now()): Promise<void> {
    try {
      const candidates = [...new Set(paths)]
      const ignored = await this.shadow.ignored(candidates)
      const record = await takeSnapshot(this.shadow, candidates.filter((p) => !ignored.has(p)), { idleGapMs: this.idleGapMs })
      if (record) {
        this.lastTiming = { quietEnd, committed: performance.now() }
        this.options.onSnapshot?.(record)
      }
    } catch (error) {
      this.options.onError?.(error)
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
