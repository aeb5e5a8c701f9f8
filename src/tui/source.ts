import { isUserError } from '../errors.js'
import { communities, community, hotspots, ownership, related, type CommunitiesResult, type CommunityResult, type HotspotsResult, type OwnershipResult, type RelatedResult } from '../services/analytics.js'
import { context, type ContextResult } from '../services/codegraph.js'
import { evidence } from '../services/evidence.js'
import { exploreFiles, fileSymbols, symbolIndex, symbolRisks, type ExploreFile, type ExploreSymbol, type ExploreSymbolRisk, type SymbolEntry } from '../services/explore.js'
import { IndexReader } from '../services/index-reader.js'
import { commitDetail, type CommitDetail } from '../services/lookup.js'
import { risk, type RiskResult } from '../services/risk.js'
import { search, type SearchResult } from '../services/search.js'
import type { EvidenceResult, IndexInfo } from '../services/types.js'
import { readMeta } from '../services/workspace.js'

/** A value the explorer asked the services for: still coming, there, or why not. */
export type Load<T> = { state: 'loading' } | { state: 'ok'; value: T } | { state: 'error'; message: string; remedy: string | null }

/** What a pane or side view shows: a file, or one symbol of it (by its id). */
export interface ExploreTarget {
  path: string
  symbol: ExploreSymbol | null
}

export const targetKey = (t: ExploreTarget): string => (t.symbol ? t.symbol.id : t.path)

/** How many answers are kept (evidence with its hunks is the largest: up to a few MB for a busy file). */
const KEEP = 400

/**
 * Every answer the explorer shows, through the same services as the CLI and the MCP server, on
 * one open index. Each answer is kept by its key (an index never changes once built), so going
 * back to a view is instant (the KEEP answers used last; a long session does not grow without
 * bound). Loads run one at a time after the current keypress has been drawn, the one asked for
 * last first (what the screen shows now), and every settled load notifies the subscribers, which
 * redraw.
 */

export class ExploreSource {
  private readonly cache = new Map<string, Load<unknown>>()
  private readonly queue: Array<{ key: string; run: () => Promise<unknown> | unknown; quiet: boolean }> = []
  /** Kept answers to ask again the next time they are requested, shown meanwhile (see `forget`). */
  private readonly stale = new Set<string>()
  /** The job running, if any. */
  private current: { quiet: boolean } | null = null
  private readonly listeners = new Set<() => void>()
  private running = false
  /** Bumped at every settled load (a React external store's snapshot). */
  version = 0

  /** Bumped when the index is reopened: an answer computed from the previous one is dropped. */
  private generation = 0

  constructor(private currentReader: IndexReader) {}

  /** The index the answers come from (another one after `refresh` found a new analyze). */
  get reader(): IndexReader {
    return this.currentReader
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  getVersion = (): number => this.version

  /** Whether a load the screen waits for is queued or running (the spinner turns while there is). */
  busy(): boolean {
    return (this.current !== null && !this.current.quiet) || this.queue.some((j) => !j.quiet)
  }

  /** The cached answer for `key`, or `loading` with `run` queued to compute it. */
  request<T>(key: string, run: () => Promise<T> | T): Load<T> {
    const hit = this.cache.get(key)
    if (hit) {
      // used now: the newest in the map's order, the last to be dropped
      this.cache.delete(key)
      this.cache.set(key, hit)
    }
    if (hit && !this.stale.has(key)) return hit as Load<T>
    if (hit) {
      // asked again in the background, the kept answer shown until the new one comes
      this.stale.delete(key)
      this.queue.push({ key, run, quiet: true })
      if (!this.running) this.schedule()
      return hit as Load<T>
    }
    const loading: Load<T> = { state: 'loading' }
    this.cache.set(key, loading)
    this.queue.push({ key, run, quiet: false })
    if (!this.running) this.schedule()
    return loading
  }

  private schedule(): void {
    this.running = true
    // after the current render and its input handling: a keypress is drawn before any load runs
    setTimeout(() => void this.next(), 0)
  }

  private async next(): Promise<void> {
    const job = this.queue.pop()
    if (!job) {
      this.running = false
      this.current = null
      this.notify()
      return
    }
    this.current = job
    const generation = this.generation
    let settled: Load<unknown>
    try {
      settled = { state: 'ok', value: await job.run() }
    } catch (error) {
      settled = isUserError(error) ? { state: 'error', message: error.message, remedy: error.remedy } : { state: 'error', message: error instanceof Error ? error.message : String(error), remedy: null }
    }
    if (generation !== this.generation) {
      // computed from the index replaced meanwhile: asked again from the new one
      if (this.cache.get(job.key)?.state === 'loading') this.cache.delete(job.key)
      this.notify()
      this.schedule()
      return
    }
    this.cache.set(job.key, settled)
    for (const [key, load] of this.cache) {
      if (this.cache.size <= KEEP) break
      if (load.state !== 'loading') this.cache.delete(key)
    }
    this.notify()
    this.schedule()
  }

  private notify(): void {
    this.version++
    for (const l of this.listeners) l()
  }

  /** Ask for a kept answer again the next time the screen wants it, showing the kept one meanwhile (the index's freshness follows the working HEAD). */
  forget(key: string): void {
    if (this.cache.get(key)?.state !== 'ok' || this.stale.has(key)) return
    this.stale.add(key)
    this.notify()
  }

  /**
   * Every few seconds: the freshness is asked again (the working HEAD moves), and when analyze has
   * swapped in another index the new one is opened and every answer asked again from it (readers
   * reopen when meta.json changes, DESIGN.md; the replaced index stays on disk until the swap
   * after, so the answers shown meanwhile stay readable). A new index that cannot be opened
   * (damaged, another schema) leaves the current one in use.
   */
  refresh(): void {
    const active = readMeta(this.reader.repo)?.indexDir
    if (active === undefined || active === this.reader.meta.indexDir) return this.forget('index')
    let next: IndexReader
    try {
      next = IndexReader.openRoot(this.reader.repo)
    } catch {
      return this.forget('index')
    }
    next.pathsFromRoot = true
    const previous = this.currentReader
    this.currentReader = next
    this.generation++
    this.cache.clear()
    this.stale.clear()
    this.queue.length = 0
    void this.idle().then(() => previous.close())
    this.notify()
  }

  /** Wait for the load running, then close the index. */
  async close(): Promise<void> {
    this.queue.length = 0
    await this.idle()
    await this.currentReader.close()
  }

  /** Resolves when nothing is queued or running (tests and the benchmark wait on it). */
  async idle(): Promise<void> {
    while (this.running) await new Promise((r) => setTimeout(r, 2))
  }

  // ---- the answers, by service

  indexInfo(): Load<IndexInfo> {
    return this.request('index', () => this.reader.indexInfo())
  }

  files(): Load<ExploreFile[]> {
    return this.request('files', () => exploreFiles(this.reader))
  }

  /** A file's symbols: read from the per-file cache at once (one small shard), never queued. */
  symbols(path: string): ExploreSymbol[] {
    const key = `symbols\0${path}`
    const hit = this.cache.get(key) as Load<ExploreSymbol[]> | undefined
    if (hit?.state === 'ok') return hit.value
    const value = fileSymbols(this.reader, path)
    this.cache.set(key, { state: 'ok', value })
    return value
  }

  symbolIndex(): Load<SymbolEntry[]> {
    return this.request('symbol-index', () => symbolIndex(this.reader))
  }

  risks(path: string, ask = true): Load<Map<string, ExploreSymbolRisk>> | null {
    const key = `risks\0${path}`
    if (!ask) {
      const value = this.kept<Map<string, ExploreSymbolRisk>>(key)
      return value && { state: 'ok', value }
    }
    return this.request(key, () => symbolRisks(this.reader, path))
  }

  /** A kept answer, without asking for it (null: not kept, or still coming). */
  kept<T>(key: string): T | null {
    const hit = this.cache.get(key)
    return hit?.state === 'ok' ? (hit.value as T) : null
  }

  /** Blame and line history of the file or the symbol, each commit with its hunks for that range (from the index). */
  evidence(t: ExploreTarget, ask = true): Load<EvidenceResult> | null {
    const key = `evidence\0${targetKey(t)}`
    if (!ask) {
      const value = this.kept<EvidenceResult>(key)
      return value && { state: 'ok', value }
    }
    return this.request(key, () => evidence(t.symbol ? { reader: this.reader, symbol: t.symbol.id, limit: 0, patch: true } : { reader: this.reader, path: t.path, limit: 0, patch: true }))
  }

  commit(sha: string): Load<CommitDetail> {
    return this.request(`commit\0${sha}`, () => commitDetail(this.reader, sha))
  }

  risk(t: ExploreTarget): Load<RiskResult> {
    return this.request(`risk\0${targetKey(t)}`, () => risk({ reader: this.reader, target: targetKey(t) }))
  }

  ownership(t: ExploreTarget): Load<OwnershipResult> {
    return this.request(`ownership\0${targetKey(t)}`, () => ownership({ reader: this.reader, target: targetKey(t), limit: 0 }))
  }

  related(t: ExploreTarget): Load<RelatedResult> {
    return this.request(`related\0${targetKey(t)}`, () => related({ reader: this.reader, target: targetKey(t), limit: 50 }))
  }

  hotspots(): Load<HotspotsResult> {
    return this.request('hotspots', () => hotspots({ reader: this.reader, limit: 50 }))
  }

  communities(): Load<CommunitiesResult> {
    return this.request('communities', () => communities({ reader: this.reader, limit: 0 }))
  }

  community(id: string): Load<CommunityResult> {
    return this.request(`community\0${id}`, () => community({ reader: this.reader, name: id, limit: 0 }))
  }

  context(t: ExploreTarget): Load<ContextResult> {
    return this.request(`context\0${targetKey(t)}`, () => context({ reader: this.reader, target: targetKey(t), limit: 0 }))
  }

  search(text: string): Load<SearchResult> {
    return this.request(`search\0${text}`, () => search({ reader: this.reader, text, limit: 30 }))
  }
}
