/**
 * An embedding worker analyze starts (one per core, src/embed/vectors.ts): it embeds chunks of
 * texts on its own thread while the main thread maps the history. Its thread runs at the lowest
 * priority, so the embedding takes the cycles the rest of the analyze leaves idle rather than
 * slowing it, and catches up on every core once the rest is done.
 */
import { getPriority, setPriority } from 'node:os'
import { parentPort } from 'node:worker_threads'
import { embed } from './model.js'

export interface EmbedRequest {
  id: number
  texts: string[]
}

export type EmbedReply = { id: number; dims: number; data: Float32Array } | { id: number; error: string; code?: string; remedy?: string }

try {
  // Linux: the nice value of this thread only (onnxruntime runs a one-thread session on it)
  setPriority(Math.min(19, getPriority() + 10))
} catch {
  // not allowed here: the embedding competes evenly, which is slower, never wrong
}

let queue: Promise<unknown> = Promise.resolve()

// one request at a time, in order
parentPort?.on('message', (request: EmbedRequest) => {
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
