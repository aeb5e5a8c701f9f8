/**
 * The embedding worker analyze starts: it embeds batches of texts on its own thread while the
 * main thread maps the history, so the two share the machine's cores instead of taking turns.
 */
import { parentPort } from 'node:worker_threads'
import { embed } from './model.js'

export interface EmbedRequest {
  id: number
  texts: string[]
}

export type EmbedReply = { id: number; dims: number; data: Float32Array } | { id: number; error: string; code?: string; remedy?: string }

let queue: Promise<unknown> = Promise.resolve()

// one request at a time, in order: the model's own threads do the parallel part
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
