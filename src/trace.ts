/**
 * `GITWHY_TRACE=1`: one NDJSON span per MCP tool call and per analyze phase, appended to the
 * repository's `.gitwhy/trace.ndjson` (or `GITWHY_TRACE=/path/file.ndjson`):
 *
 *   {name, start (ISO), duration_ms, sizes: {args_bytes, result_bytes, rows}, cache_hit, error}
 *
 * `sizes`, `cache_hit` and `error` appear where known. Unset (or `0`), nothing here runs but one
 * environment read per call or phase: the span state below is only created by a traced call, and
 * the notes taken deeper down (the repository a call resolved, rows, reader cache hits) are a
 * no-op without it.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'

export interface Span {
  /** The tool's name (`why`), or `analyze` and `analyze.<phase>` (`analyze.history`). */
  name: string
  kind: 'tool' | 'analyze' | 'phase'
  /** ISO 8601, when the call or phase started. */
  start: string
  duration_ms: number
  /** Bytes of the arguments and of the result (JSON), and the rows or list items of the answer, where known. */
  sizes?: { args_bytes?: number; result_bytes?: number; rows?: number }
  /** The answer came (partly) from the index reader's cache of earlier answers; absent when no cache was asked. */
  cache_hit?: boolean
  /** The failure's message (a tool's error result, or what was thrown). */
  error?: string
  /** The repository the call answered for. */
  repo?: string
}

/** What a traced call learns while it runs. */
interface SpanState {
  repo: string | null
  rows?: number
  hits: number
  misses: number
}

const state = new AsyncLocalStorage<SpanState>()
/** A traced call ran in this process: until then the notes below return at once. */
let active = false

/** `GITWHY_TRACE`'s file for a repository: null when tracing is off (or it goes to the repository and none is known). */
export function traceFile(repo: string | null): string | null {
  const setting = process.env.GITWHY_TRACE
  if (!setting || setting === '0' || setting.toLowerCase() === 'false') return null
  if (setting === '1' || setting.toLowerCase() === 'true') return repo ? path.join(repo, '.gitwhy', 'trace.ndjson') : null
  return path.resolve(setting)
}

/** Tracing is on (GITWHY_TRACE is set to something other than 0 or false). */
export function tracing(): boolean {
  const setting = process.env.GITWHY_TRACE
  return !!setting && setting !== '0' && setting.toLowerCase() !== 'false'
}

/** Append one span (never fails the traced work: a trace that cannot be written is dropped). */
export function writeSpan(file: string, span: Span): void {
  try {
    const dir = path.dirname(file)
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true })
      // a `.gitwhy/` made for the trace keeps itself out of git, as analyze's does
      if (path.basename(dir) === '.gitwhy') writeFileSync(path.join(dir, '.gitignore'), '# written by gitwhy: the index is rebuilt per clone (see the README to share it)\n*\n')
    }
    appendFileSync(file, `${JSON.stringify(span)}\n`)
  } catch {
    // an unwritable trace file: the call itself goes on
  }
}

/**
 * Run `fn` as a traced call: the state notes taken inside it (repository, rows, cache) are given
 * to `finish` with the result, which returns the span's sizes and error. `fallbackRepo` is where
 * the span goes when the call resolved no repository.
 */
export async function traceToolCall<T>(name: string, fn: () => Promise<T>, finish: (result: T | undefined, error: unknown) => Pick<Span, 'sizes' | 'error'>, fallbackRepo: () => Promise<string | null>): Promise<T> {
  const s: SpanState = { repo: null, hits: 0, misses: 0 }
  active = true
  const started = Date.now()
  const t0 = performance.now()
  let result: T | undefined
  let failure: unknown
  try {
    result = await state.run(s, fn)
    return result
  } catch (error) {
    failure = error
    throw error
  } finally {
    const duration = Math.round((performance.now() - t0) * 1000) / 1000
    const { sizes, error } = finish(result, failure)
    const repo = s.repo ?? (await fallbackRepo().catch(() => null))
    const file = traceFile(repo)
    if (file) {
      const rows = s.rows !== undefined ? { rows: s.rows } : {}
      writeSpan(file, {
        name,
        kind: 'tool',
        start: new Date(started).toISOString(),
        duration_ms: duration,
        sizes: { ...sizes, ...rows },
        ...(s.hits + s.misses > 0 ? { cache_hit: s.hits > 0 } : {}),
        ...(error !== undefined ? { error } : {}),
        ...(repo ? { repo } : {}),
      })
    }
  }
}

/** The repository the current traced call answers for (the first one it resolved). */
export function noteRepo(repo: string): void {
  if (!active) return
  const s = state.getStore()
  if (s && s.repo === null) s.repo = repo
}

/** The rows (list items) of the current traced call's answer (counted only when traced). */
export function noteRows(rows: () => number): void {
  if (!active) return
  const s = state.getStore()
  if (s) s.rows = rows()
}

/** A cache the current traced call asked: hit or not. */
export function noteCache(hit: boolean): void {
  if (!active) return
  const s = state.getStore()
  if (!s) return
  if (hit) s.hits++
  else s.misses++
}
