import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { isUserError } from '../errors.js'
import { printableLines } from '../render.js'
import type { IndexReader } from '../services/index-reader.js'
import type { ToolAnswer } from './budget.js'
import { answerText } from './text.js'

/** The indexes as one session sees them: a call that names no repository means this client's default. */
export interface SessionIndexes {
  /**
   * The work tree root for a tool's `repo` argument (a registered name, a path, or none: the
   * default). `needsIndex: false` (a tool of the work tree): the default is the repository the
   * server started in, indexed or not, before any other.
   */
  root(repo: string | undefined, needsIndex?: boolean): Promise<string>
  /** Run `fn` with the current index of a repository. */
  use<T>(repo: string | undefined, fn: (reader: IndexReader) => Promise<T>): Promise<T>
}

/** What every tool, resource and prompt registrar gets: the open indexes and a way to answer. */
export interface ServerContext {
  pool: SessionIndexes
  version: string
  /**
   * Run a tool against a repository's current index; a UserError becomes an isError result saying
   * how to recover. The text is given as lines, each made printable (a newline or an escape
   * sequence inside a commit subject cannot forge a line of the answer), and the answer is fitted
   * into the size budget, a list answer from `offset` on.
   */
  answer(repo: string | undefined, fn: (reader: IndexReader) => Promise<ToolAnswer>, offset?: number): Promise<CallToolResult>
  /** The same for a tool that needs the work tree, not the index (the edit trajectory): `fn` gets its root. */
  answerRoot(repo: string | undefined, fn: (root: string) => Promise<ToolAnswer>, offset?: number): Promise<CallToolResult>
}

/**
 * What a failure tells the model, for tools and resources alike: a UserError's message and fix,
 * or (a bug, logged on stderr) that other calls still work.
 */
export function failureText(error: unknown): string {
  if (isUserError(error)) return answerText([error.message, `To fix: ${error.remedy}`])
  process.stderr.write(`gitwhy mcp: internal error: ${printableLines((error as Error)?.stack ?? String(error))}\n`)
  return answerText([`gitwhy internal error: ${(error as Error)?.message ?? String(error)}. This is a bug in gitwhy; other tools still work.`])
}

export function toolError(error: unknown): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: failureText(error) }] }
}
