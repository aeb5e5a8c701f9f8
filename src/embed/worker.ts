/**
 * An embedding worker analyze starts (one per core, src/embed/vectors.ts): it embeds chunks of
 * texts on its own thread while the main thread maps the history. Its thread runs below the
 * analyze's priority while the analyze has other work, so the embedding takes the cycles the rest
 * leaves idle rather than slowing it; once the analyze waits for the vectors (`urgent`), at the
 * analyze's own priority again.
 */
import { getPriority, setPriority } from 'node:os'
import { parentPort } from 'node:worker_threads'
import { embed } from './model.js'

export type EmbedRequest = { id: number; texts: string[] } | { urgent: true }

export type EmbedReply = { id: number; dims: number; data: Float32Array } | { id: number; error: string; code?: string; remedy?: string }

/** Linux: the nice value of this thread only (onnxruntime runs a one-thread session on it). */
function nice(priority: number): void {
  try {
    setPriority(Math.min(19, priority))
  } catch {
    // not allowed here: the embedding competes evenly, which is slower, never wrong
  }
}

const analyzePriority = getPriority()
nice(analyzePriority + 10)

let queue: Promise<unknown> = Promise.resolve()

// one request at a time, in order
parentPort?.on('message', (request: EmbedRequest) => {
  if ('urgent' in request) return nice(analyzePriority)
  queue = queue.then(() => embed(request.texts)).then(
    (vectors) => {
      const dims = vectors[0]?.length ?? 0
      const data = new Float32Array(vectors.length * dims)
      vectors.forEach((v, i) => data.set(v, i * dims))
      parentPort!.postMessage({ id: request.id, dims, data } satisfies EmbedReply, [data.buffer])
    },
    (error: unknown) => {
      const e = error as { message?: string; code?: string; remedy?: string }
      parentPort!.postMessage({ id: request.id, error: e?.message ?? String(error), code: e?.code, remedy: e?.remedy } satisfies EmbedReply)
    },
  )
})
