/**
 * Calls to a worker thread that answers each in turn (serveCalls on its side), or to the same
 * handler in this thread when there is no worker to start (no built file: a test run from the
 * sources; or not wanted). The worker keeps the process alive only while a call waits for it: a
 * build that fails midway leaves nothing hanging.
 */
import { existsSync } from 'node:fs'
import { parentPort, Worker, type TransferListItem } from 'node:worker_threads'

/** `code`: a system error's (ENOSPC, EACCES), so that the caller can tell the user's trouble from a bug. */
type Reply = { id: number; value?: unknown; error?: string; code?: string }

export class WorkerCalls<Request, Response> {
  private readonly worker: Worker | null
  private readonly waiting = new Map<number, { resolve: (value: Response) => void; reject: (error: Error) => void }>()
  private next = 0
  private dead: Error | null = null

  /**
   * `file`: the worker's built script (null or absent: `local` answers here, when called).
   * `what`: how its failures begin ("making the search documents failed: …").
   */
  constructor(
    file: string | null,
    private readonly local: (request: Request) => Response,
    what: string,
  ) {
    this.worker = file !== null && existsSync(file) ? new Worker(file) : null
    const worker = this.worker
    if (!worker) return
    worker.unref()
    worker.on('message', (reply: Reply) => {
      const waiting = this.waiting.get(reply.id)
      this.waiting.delete(reply.id)
      if (this.waiting.size === 0) worker.unref()
      if (reply.error !== undefined) waiting?.reject(Object.assign(new Error(`${what} failed: ${reply.error}`), reply.code === undefined ? {} : { code: reply.code }))
      else waiting?.resolve(reply.value as Response)
    })
    const fail = (error: Error) => {
      this.dead ??= error
      for (const w of this.waiting.values()) w.reject(this.dead)
      this.waiting.clear()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`${what} failed: its thread stopped (exit code ${code})`)))
  }

  /** The answer to `request`, after those to the calls before it. `transfer`: buffers handed over (unusable here afterwards). */
  call(request: Request, transfer: TransferListItem[] = []): Promise<Response> {
    if (!this.worker) {
      try {
        return Promise.resolve(this.local(request))
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)))
      }
    }
    if (this.dead) return Promise.reject(this.dead)
    const id = this.next++
    return new Promise<Response>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject })
      this.worker!.ref()
      this.worker!.postMessage({ id, request }, transfer)
    })
  }

  /** Stops the worker; what it was still doing is not wanted. */
  async close(): Promise<void> {
    await this.worker?.terminate()
  }
}

/** A worker's side of WorkerCalls: each request's answer from `handle`, in turn, or its error. */
export function serveCalls<Request>(handle: (request: Request) => unknown): void {
  parentPort?.on('message', ({ id, request }: { id: number; request: Request }) => {
    let reply: Reply
    try {
      reply = { id, value: handle(request) }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException)?.code
      reply = { id, error: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) }
    }
    parentPort!.postMessage(reply)
  })
}
