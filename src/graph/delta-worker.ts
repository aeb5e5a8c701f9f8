/**
 * The graph delta of an update on its own thread (src/graph/delta-writer.ts): Kuzu copies, opens
 * and changes the graph while the main thread computes the code graph and the analytics.
 */
import { parentPort } from 'node:worker_threads'
import { deltaRunner, type DeltaOp } from './delta.js'

export type DeltaRequest = DeltaOp & { id: number }
/** A step's reply: its value or error, how long the step ran (not how long it waited for the ones before) and when it started (epoch ms). */
export type DeltaReply = { id: number; ms: number; at?: number; value?: unknown; error?: string; name?: string; stack?: string }
/** Sent by a finish once the graph is closed, before its reply: the caller takes chunks of the shared checksum too (crc32Chunks). */
export type DeltaClosed = { closed: true; file: string; size: number; shared: Int32Array }

const run = deltaRunner({ onClosed: (file, size, shared) => parentPort!.postMessage({ closed: true, file, size, shared } satisfies DeltaClosed) })

parentPort?.on('message', (request: DeltaRequest) => {
  run(request).then(
    ({ value, ms, at }) => parentPort!.postMessage({ id: request.id, ms, at, value } satisfies DeltaReply),
    (error: unknown) => parentPort!.postMessage({ id: request.id, ms: 0, error: error instanceof Error ? error.message : String(error), name: error instanceof Error ? error.name : undefined, stack: error instanceof Error ? error.stack : undefined } satisfies DeltaReply),
  )
})
