/**
 * Document vectors at analyze time (issue 12): a content-hash → vector cache carried from one
 * index to the next (so an update, or a rebuild after an option change, embeds only texts it has
 * not seen), and the embedder that fills it on a worker thread while the main thread maps the
 * history.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { UserError } from '../errors.js'
import { PROJECT_ROOT } from '../parse/registry.js'
import { composeVector, docInput, inputHash, type ComposedInput, type DocRow } from './docs.js'
import { embed, embeddingModelFingerprint, type EmbeddingRecord } from './model.js'
import type { EmbedReply, EmbedRequest } from './worker.js'

export const EMBEDDINGS_FILE = 'embeddings.json'
export const VECTORS_FILE = 'embeddings.f32'

interface CacheHeader {
  model: EmbeddingRecord | null
  dimensions: number
  /** Content hash of each vector of the vectors file, in order. */
  hashes: string[]
  /** The next free Doc row (an update numbers its new documents from here). */
  nextRow: number
}

/** Texts per message to the worker: big enough to batch well, small enough to report progress. */
const CHUNK = 256

export class VectorCache {
  private constructor(
    readonly model: EmbeddingRecord | null,
    public dimensions: number,
    private readonly vectors: Map<string, Float32Array>,
    public nextRow: number,
  ) {}

  /** The cache of the index in `dir` when it was embedded by `model`, else an empty one. */
  static load(dir: string | null, model: EmbeddingRecord | null): VectorCache {
    const empty = new VectorCache(model, 0, new Map(), 0)
    if (!dir || !existsSync(path.join(dir, EMBEDDINGS_FILE)) || !existsSync(path.join(dir, VECTORS_FILE))) return empty
    try {
      const header = JSON.parse(readFileSync(path.join(dir, EMBEDDINGS_FILE), 'utf8')) as CacheHeader
      // the row numbering goes on whatever the model; the vectors only for the same one
      if (!model || header.model?.hash !== model.hash) return new VectorCache(model, 0, new Map(), header.nextRow)
      const bytes = readFileSync(path.join(dir, VECTORS_FILE))
      const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
      if (all.length !== header.hashes.length * header.dimensions) return empty
      const vectors = new Map(header.hashes.map((h, i) => [h, all.subarray(i * header.dimensions, (i + 1) * header.dimensions)]))
      return new VectorCache(model, header.dimensions, vectors, header.nextRow)
    } catch {
      // an unreadable cache costs a re-embedding, never the index
      return empty
    }
  }

  get(hash: string): Float32Array | undefined {
    return this.vectors.get(hash)
  }

  has(hash: string): boolean {
    return this.vectors.has(hash)
  }

  set(hash: string, vector: Float32Array): void {
    this.dimensions = vector.length
    this.vectors.set(hash, vector)
  }

  /** Write the vectors of `keep` (a full build: its documents' hashes; an update: every one known). */
  save(dir: string, keep?: ReadonlySet<string>): void {
    const hashes = [...this.vectors.keys()].filter((h) => !keep || keep.has(h))
    const data = new Float32Array(hashes.length * this.dimensions)
    hashes.forEach((h, i) => data.set(this.vectors.get(h)!, i * this.dimensions))
    writeFileSync(path.join(dir, VECTORS_FILE), new Uint8Array(data.buffer))
    writeFileSync(path.join(dir, EMBEDDINGS_FILE), JSON.stringify({ model: this.model, dimensions: this.dimensions, hashes, nextRow: this.nextRow } satisfies CacheHeader))
  }

  /** The vectors of `docs` that have one, in order, one flat array, and their rows (a full build's DocVector rows). */
  flat(docs: readonly DocRow[]): { rows: number[]; data: Float32Array } {
    const embedded = docs.filter((d) => !d.unembedded)
    const data = new Float32Array(embedded.length * this.dimensions)
    embedded.forEach((d, i) => data.set(this.vectors.get(d.hash)!, i * this.dimensions))
    return { rows: embedded.map((d) => d.row), data }
  }
}

const WORKER = path.join(PROJECT_ROOT, 'dist', 'embed', 'worker.js')
/**
 * Embedding workers at most: one one-thread model session per core (1.6x the texts per CPU-second
 * of one session on two threads), but no more than two, as each holds its own runtime and model
 * (~170 MB, ~1 s to load). A second worker starts only when a chunk waits for one.
 */
const MAX_WORKERS = Math.max(1, Math.min(2, availableParallelism()))

interface Chunk {
  texts: string[]
  resolve: (reply: EmbedReply) => void
}

/**
 * Embeds the documents the cache lacks, on worker threads that run below the analyze's own
 * priority until `finish` (they take the cores the history mapping leaves idle, not its time); in this thread
 * when the built worker is missing. `add` hands documents over as soon as their texts exist;
 * `finish` waits for all.
 */
export class DocEmbedder {
  private readonly workers: Worker[] = []
  private readonly idle: Worker[] = []
  private readonly queue: Chunk[] = []
  private readonly running = new Map<Worker, Chunk>()
  private readonly jobs: Promise<void>[] = []
  private readonly queued = new Set<string>()
  /** Composed documents (a symbol's): their hash → the hashes of the inputs their vector is made of. */
  private readonly composed = new Map<string, ComposedInput>()
  private failure: Error | null = null
  /** Texts sent to the model, and of those embedded. */
  total = 0
  done = 0
  /** The documents whose vector this run makes (a composed one's inputs may be shared or known). */
  private readonly made = new Set<string>()

  constructor(
    readonly cache: VectorCache,
    private readonly onProgress: (done: number, total: number) => void = () => {},
  ) {}

  add(docs: ReadonlyArray<Pick<DocRow, 'hash' | 'text' | 'compose' | 'input' | 'unembedded'>>): void {
    const todo: Array<{ hash: string; input: string }> = []
    const want = (hash: string, input: string) => {
      if (this.cache.has(hash) || this.queued.has(hash)) return
      this.queued.add(hash)
      todo.push({ hash, input })
    }
    for (const d of docs) {
      const { input, hash, composed } = docInput(d)
      if (d.unembedded) continue
      // each document once; one whose vector the previous index holds is not made again (a hash
      // this run queued is one it embeds, even when the cache has its vector by now)
      if (this.made.has(hash) || (this.cache.has(hash) && !this.queued.has(hash))) continue
      this.made.add(hash)
      if (input !== null) {
        want(hash, input)
        continue
      }
      // its inputs' vectors now, the document's own in finish()
      this.composed.set(hash, { own: inputHash(composed!.own), parts: composed!.parts.map(inputHash) })
      for (const part of [composed!.own, ...composed!.parts]) want(inputHash(part), part)
    }
    this.total += todo.length
    for (let i = 0; i < todo.length; i += CHUNK) {
      const chunk = todo.slice(i, i + CHUNK)
      const job = this.embedChunk(chunk.map((c) => c.input)).then(
        (vectors) => {
          chunk.forEach((c, k) => this.cache.set(c.hash, vectors[k]))
          this.done += chunk.length
          // the phase ends in finish(): more documents may still come
          if (this.done < this.total) this.onProgress(this.done, this.total)
        },
        (error: unknown) => {
          this.failure ??= error instanceof Error ? error : new Error(String(error))
        },
      )
      this.jobs.push(job)
    }
  }

  /** Waits for every vector; throws the first failure (a model that does not load is a user error). */
  async finish(): Promise<VectorCache> {
    try {
      // the analyze has nothing else to do now: the workers need not give way to it any more
      for (const worker of this.workers) worker.postMessage({ urgent: true } satisfies EmbedRequest)
      // chunks added while waiting (none today) are waited for too
      for (let n = 0; n < this.jobs.length; n = this.jobs.length) await Promise.all(this.jobs.slice(n))
      if (this.failure) throw this.failure
      for (const [hash, { own, parts }] of this.composed) {
        this.cache.set(hash, composeVector(this.cache.get(own)!, parts.map((p) => this.cache.get(p)!)))
      }
      this.composed.clear()
      if (this.total > 0) this.onProgress(this.done, this.total)
      return this.cache
    } finally {
      await this.close()
    }
  }

  /** How many documents' vectors this run made. */
  get documents(): number {
    return this.made.size
  }

  async close(): Promise<void> {
    const workers = this.workers.splice(0)
    this.idle.length = 0
    await Promise.all(workers.map((w) => w.terminate()))
  }

  private async embedChunk(texts: string[]): Promise<Float32Array[]> {
    if (!existsSync(WORKER)) return embed(texts)
    const reply = await new Promise<EmbedReply>((resolve) => {
      this.queue.push({ texts, resolve })
      this.dispatch()
    })
    if ('error' in reply) {
      throw reply.remedy ? new UserError(reply.error, reply.remedy, reply.code) : new Error(`embedding failed: ${reply.error}`)
    }
    return Array.from({ length: texts.length }, (_, i) => reply.data.subarray(i * reply.dims, (i + 1) * reply.dims))
  }

  /** Hands waiting chunks to idle workers, starting one while there are fewer than MAX_WORKERS. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.workers.length < MAX_WORKERS ? this.startWorker() : undefined)
      if (!worker) return
      const chunk = this.queue.shift()!
      this.running.set(worker, chunk)
      worker.postMessage({ id: 0, texts: chunk.texts } satisfies EmbedRequest)
    }
  }

  private startWorker(): Worker {
    embeddingModelFingerprint() // a missing model folder is a user error here, not in the worker
    const worker = new Worker(WORKER)
    worker.unref()
    this.workers.push(worker)
    const settle = (reply: EmbedReply) => {
      const chunk = this.running.get(worker)
      this.running.delete(worker)
      chunk?.resolve(reply)
    }
    worker.on('message', (reply: EmbedReply) => {
      settle(reply)
      if (this.workers.includes(worker)) {
        this.idle.push(worker)
        this.dispatch()
      }
    })
    worker.on('error', (error) => {
      settle({ id: -1, error: error.message })
      if (this.workers.includes(worker)) this.workers.splice(this.workers.indexOf(worker), 1)
      // what waits fails too: the model that broke one worker breaks the next
      for (const chunk of this.queue.splice(0)) chunk.resolve({ id: -1, error: error.message })
    })
    return worker
  }
}
