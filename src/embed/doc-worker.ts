/** The thread that makes a full build's search documents (src/embed/doc-maker.ts). */
import { parentPort } from 'node:worker_threads'
import { runDocJob, type DocJob, type DocReply } from './doc-maker.js'

parentPort?.on('message', (job: DocJob) => {
  let reply: DocReply
  try {
    reply = { id: job.id, value: runDocJob(job) }
  } catch (error) {
    reply = { id: job.id, error: error instanceof Error ? error.message : String(error) }
  }
  parentPort!.postMessage(reply)
})
