import { existsSync, rmSync } from 'node:fs'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { PROJECT_ROOT } from '../parse/registry.js'
import { checksumHex, crc32Chunks, crc32OfChunks } from '../services/index-integrity.js'
import type { DeltaFinish, DeltaFinishShared, DeltaOp, GraphDelta, GraphRels, deltaRunner } from './delta.js'
import type { DeltaClosed, DeltaReply, DeltaRequest } from './delta-worker.js'

const WORKER = path.join(PROJECT_ROOT, 'dist', 'graph', 'delta-worker.js')

/**
 * An update's graph delta, applied in parts as they become known, on a worker thread: the copy of
 * the previous graph, its opening and the history's rows (~0.5 s of Kuzu's time on vuejs/core)
 * overlap the code graph and the analytics that the main thread computes meanwhile. Without the
 * built worker (the sources run directly) the same steps run on this thread, in order.
 *
 * `apply` only queues: the first failure is thrown by `finish`, and `close` always releases the
 * graph (after `finish`, or instead of it when the update is abandoned).
 */
export class GraphDeltaWriter {
  private worker: Worker | null = null
  private readonly replies = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()
  private next = 0
  /** The steps on this thread when there is no built worker (loaded then: Kuzu is the worker's otherwise). */
  private local: Promise<ReturnType<typeof deltaRunner>> | null = null
  private failure: Error | null = null
  /** Set when the worker stopped: nothing more can be asked of it. */
  private dead: Error | null = null
  private pending: Array<Promise<unknown>> = []
  /** Each step the graph's thread ran: when it started there (epoch ms) and for how long (GITWHY_TRACE's spans). */
  readonly steps: Array<{ op: DeltaOp['op']; at: number; ms: number }> = []

  private closed = false
  /** This thread's part of the closed graph's checksum (chunks it took while the worker took others): done, or how it failed. */
  private helped: { error: Error | null } | null = null

  constructor(
    from: string,
    private readonly to: string,
    /** The previous graph's relationship counts as recorded (IndexMeta.graphRels); absent: counted when it opens. */
    rels?: GraphRels,
  ) {
    if (existsSync(WORKER)) {
      this.worker = new Worker(WORKER)
      this.worker.on('message', (reply: DeltaReply | DeltaClosed) => {
        if ('closed' in reply) return void (this.helped = this.checksumChunks(reply.file, reply.size, reply.shared))
        const waiting = this.replies.get(reply.id)
        this.replies.delete(reply.id)
        if (!waiting) return
        if (reply.error === undefined) waiting.resolve(reply)
        else waiting.reject(Object.assign(new Error(reply.error), { name: reply.name ?? 'Error', stack: reply.stack ?? reply.error }))
      })
      this.worker.on('error', (error) => this.failAll((this.dead = error)))
      this.worker.on('exit', (code) => this.failAll((this.dead ??= new Error(`the graph delta's worker stopped (exit code ${code})`))))
    }
    this.track(this.request({ op: 'open', from, to, rels }))
  }

  apply(delta: Partial<GraphDelta>): void {
    this.track(this.request({ op: 'apply', delta }))
  }

  /** Checkpoints the parts so far (while this thread computes the next). */
  checkpoint(): void {
    this.track(this.request({ op: 'checkpoint' }))
  }

  /**
   * Checkpoints, closes and hashes the graph once every part is in; the row counts and the hash.
   * Asked at once, not when this thread has seen the parts' replies: it may be busy until then
   * (an update saves its files meanwhile), and the graph's thread would wait for nothing. A part
   * that failed fails the finish there (deltaRunner), and its own error is the one thrown.
   */
  async finish(): Promise<DeltaFinish> {
    const finished = this.request({ op: 'finish' })
    finished.catch(() => {})
    await Promise.allSettled(this.pending)
    if (this.failure) throw this.failure
    const value = (await finished) as DeltaFinish | DeltaFinishShared
    if ('graph' in value) return value
    // the chunks the worker took are done (it replies after its last), and this thread's (the closed message came before the reply)
    const helped = this.helped ?? this.checksumChunks(this.to, value.size, value.shared)
    if (helped.error) throw helped.error
    return { counts: value.counts, rels: value.rels, graph: [value.size, checksumHex(crc32OfChunks(value.shared, value.size))] }
  }

  private checksumChunks(file: string, size: number, shared: Int32Array): { error: Error | null } {
    try {
      crc32Chunks(file, size, shared)
      return { error: null }
    } catch (error) {
      return { error: error as Error }
    }
  }

  /**
   * Closes the graph (best effort: a stopped worker took it with it); again, nothing. `discard`
   * removes the copy too (the update turned into a rebuild, which writes the graph afresh there).
   */
  async close(options: { discard?: boolean } = {}): Promise<void> {
    if (this.closed) return
    this.closed = true
    try {
      await Promise.allSettled(this.pending)
      await this.request({ op: 'close' }).catch(() => {})
    } finally {
      const worker = this.worker
      this.worker = null
      this.failAll(new Error('the graph delta was closed'))
      await worker?.terminate()
      if (options.discard) for (const f of [this.to, `${this.to}.wal`]) rmSync(f, { force: true })
    }
  }

  private track(p: Promise<unknown>): void {
    this.pending.push(p.catch((error: Error) => (this.failure ??= error)))
  }

  private failAll(error: Error): void {
    for (const waiting of this.replies.values()) waiting.reject(error)
    this.replies.clear()
  }

  /** Milliseconds the graph's thread ran steps of this kind (analyze's `graph_*_ms` timings). */
  busy(op: DeltaOp['op']): number {
    return this.steps.reduce((sum, step) => (step.op === op ? sum + step.ms : sum), 0)
  }

  private async request(op: DeltaOp): Promise<unknown> {
    if (this.dead) throw this.dead
    // a reply that reaches here is a step's success: it says when the step started
    let reply: { value?: unknown; ms: number; at: number }
    if (!this.worker) reply = await (await (this.local ??= import('./delta.js').then((m) => m.deltaRunner())))(op)
    else {
      const id = this.next++
      const sent = new Promise<unknown>((resolve, reject) => this.replies.set(id, { resolve, reject }))
      this.worker.postMessage({ ...op, id } as DeltaRequest)
      reply = (await sent) as DeltaReply & { at: number }
    }
    this.steps.push({ op: op.op, at: reply.at, ms: reply.ms })
    return reply.value
  }
}
