/**
 * A full build's documents made on a thread of their own. Scrubbing, splitting and choosing the
 * words of 99,000 commit messages and 50,000 symbol summaries was ~8 s of rails/rails' main thread
 * (~4.9 s of it in the history phase, where git's logs want both cores, ~3.4 s in the rows, where
 * the other core was idle); the worker makes them while this thread maps the history and counts
 * the analytics. An update's few documents, and those of a build of fewer than 5,000 commits
 * without embeddings, are made in this thread (the worker's start-up would cost more). The
 * documents are the same either way: the same functions make them.
 */
import path from 'node:path'
import { symbolSearchText } from '../codegraph/search-text.js'
import { isBot } from '../history/categorize.js'
import { splitMessage } from '../history/message.js'
import { PROJECT_ROOT } from '../parse/registry.js'
import { WorkerCalls } from '../runtime/worker-calls.js'
import { commitDoc, symbolDoc, type DocRow, type SymbolSummaryInput } from './docs.js'

/** What a commit's document is made of. */
export interface CommitDocInput {
  sha: string
  message: string
  authorName: string
  authorEmail: string
}

export type MadeDoc = Omit<DocRow, 'row'>

/** Symbols' documents and their full-text words (Symbol.search), in the order they were asked. */
export interface SymbolDocs {
  docs: MadeDoc[]
  search: string[]
}

/** A commit's document: its message less sign-offs, a bot's embedded by its subject (commitDoc). */
export function rawCommitDoc(c: CommitDocInput): MadeDoc {
  return commitDoc({ sha: c.sha, ...splitMessage(c.message) }, { bot: isBot(c.authorName, c.authorEmail) })
}

export function symbolDocs(inputs: readonly SymbolSummaryInput[]): SymbolDocs {
  return { docs: inputs.map(symbolDoc), search: inputs.map((s) => symbolSearchText(s, s.doc)) }
}

export type DocJob = { op: 'commits'; inputs: CommitDocInput[] } | { op: 'symbols'; inputs: SymbolSummaryInput[] }

export function runDocJob(job: DocJob): MadeDoc[] | SymbolDocs {
  return job.op === 'commits' ? job.inputs.map(rawCommitDoc) : symbolDocs(job.inputs)
}

const WORKER = path.join(PROJECT_ROOT, 'dist', 'embed', 'doc-worker.js')
/** Symbols per message: the worker starts on the first while this thread makes the rest's rows. */
const SYMBOL_BATCH = 5_000

/** Hands documents to make to the worker (WorkerCalls) and gives them back in the order asked. */
export class DocMaker {
  private readonly calls: WorkerCalls<DocJob, MadeDoc[] | SymbolDocs>
  private batch: SymbolSummaryInput[] = []
  private readonly symbolParts: Array<Promise<SymbolDocs>> = []

  /** `threaded` false: made in this thread, when asked. */
  constructor(threaded = true) {
    this.calls = new WorkerCalls(threaded ? WORKER : null, runDocJob, 'making the search documents')
  }

  /** The commits' documents, in their order. */
  commits(inputs: readonly CommitDocInput[]): Promise<MadeDoc[]> {
    // only what a document is made of crosses to the worker (not a commit's diffs)
    return this.calls.call({ op: 'commits', inputs: inputs.map(({ sha, message, authorName, authorEmail }) => ({ sha, message, authorName, authorEmail })) }) as Promise<MadeDoc[]>
  }

  /** One symbol's document and words, to be had from `symbols()`. */
  symbol(input: SymbolSummaryInput): void {
    this.batch.push(input)
    if (this.batch.length >= SYMBOL_BATCH) this.flush()
  }

  /** Every symbol's since the last call, in the order given. */
  async symbols(): Promise<SymbolDocs> {
    this.flush()
    const parts = await Promise.all(this.symbolParts.splice(0))
    return { docs: parts.flatMap((p) => p.docs), search: parts.flatMap((p) => p.search) }
  }

  /** Stops the worker (what it was still making is not wanted). */
  async close(): Promise<void> {
    this.batch = []
    await this.calls.close()
  }

  private flush(): void {
    if (this.batch.length === 0) return
    const part = this.calls.call({ op: 'symbols', inputs: this.batch }) as Promise<SymbolDocs>
    // awaited in symbols(); a failure meanwhile is not unhandled
    part.catch(() => {})
    this.symbolParts.push(part)
    this.batch = []
  }
}
