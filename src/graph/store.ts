/**
 * The one door to the Kuzu database for reads: open (turning Kuzu's open failures into errors a
 * user can act on), run statements, get JSON-safe rows back, close.
 *
 * Row values are converted so that JSON.stringify never throws and never loses data silently:
 * - BigInt (INT128 from sum(), large INT64) → number when it is a safe integer, else a decimal string;
 * - Date (TIMESTAMP, DATE) → ISO 8601 string in UTC;
 * - a whole node → its properties plus `_label`; a relationship → its properties plus `_label`.
 *   Kuzu's internal `_id`, `_src` and `_dst` (table/offset pairs) are dropped: they mean nothing
 *   outside this database file and change on every rebuild. Return the key (`c.sha`) when an
 *   identity is needed;
 * - a path (recursive relationship) → `{ _nodes: [...], _rels: [...] }` converted the same way;
 * - Uint8Array (BLOB) → base64 string.
 */
import { existsSync, statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import kuzu from 'kuzu'
import type { Connection, Database, KuzuValue, QueryResult } from 'kuzu'
import { UserError } from '../errors.js'
import { BUFFER_POOL_BYTES } from './load.js'

const READ_BUFFER_POOL_BYTES = 64 * 1024 * 1024

export interface OpenOptions {
  readOnly: boolean
  /** A reader's buffer pool (default 64 MB, quick to open): a one-off scan of a whole text column needs more. */
  bufferPoolBytes?: number
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

export class GraphStore {
  private readonly idle: Connection[]
  private readonly waiting: Array<(conn: Connection) => void> = []
  private running = 0
  private drained: (() => void) | null = null
  private closing = false

  private constructor(
    readonly dbPath: string,
    readonly readOnly: boolean,
    private readonly db: Database,
    private readonly connections: Connection[],
  ) {
    this.idle = [...connections]
  }

  /**
   * Open an existing index. Never creates one: a missing path is "no index yet" even for a
   * read-write open (building is writeGraph's job). A read-only store gets a small pool of
   * connections, so concurrent callers (the MCP server) share one database instead of each
   * opening their own.
   */
  static async open(dbPath: string, options: OpenOptions): Promise<GraphStore> {
    if (!existsSync(dbPath)) {
      throw new UserError(`no gitwhy index at ${dbPath}`, 'run `gitwhy analyze` to build the index first', 'no_index')
    }
    const stat = statSync(dbPath)
    if (stat.isDirectory()) {
      throw corruptIndex(dbPath, 'the index path is a directory, not a Kuzu database file')
    }
    // a reader touches little: a small pool opens and answers its first query faster (27 → 5 ms);
    // its address space is sized to the file, not Kuzu's default 8 TB reservation, so that many
    // open indexes (or a constrained ulimit -v) do not exhaust it
    const db = options.readOnly
      ? new kuzu.Database(dbPath, options.bufferPoolBytes ?? READ_BUFFER_POOL_BYTES, true, true, Math.max(readerAddressSpace(stat.size), 2 * (options.bufferPoolBytes ?? 0)))
      : new kuzu.Database(dbPath, BUFFER_POOL_BYTES, true, false)
    try {
      await db.init()
    } catch (error) {
      await db.close().catch(() => {})
      throw openError(dbPath, options.readOnly, error)
    }
    const connections: Connection[] = []
    const count = options.readOnly ? READ_CONNECTIONS : 1
    try {
      for (let i = 0; i < count; i++) {
        const conn = new kuzu.Connection(db)
        connections.push(conn)
        await conn.init()
      }
    } catch (error) {
      for (const conn of connections) await conn.close().catch(() => {})
      await db.close().catch(() => {})
      throw openError(dbPath, options.readOnly, error)
    }
    return new GraphStore(dbPath, options.readOnly, db, connections)
  }

  /**
   * Run one statement and return its rows with JSON-safe values. With params, the statement is
   * prepared and the values are bound (never spliced into the text); values Kuzu 0.11 cannot bind
   * safely are refused first (see checkParams). `maxRows` stops reading after that many rows
   * (the answer says so through `truncated`), `timeoutMs` interrupts the query inside Kuzu.
   */
  async query<T = Record<string, unknown>>(statement: string, params?: Record<string, unknown>, options: QueryOptions = {}): Promise<T[]> {
    return (await this.queryRows(statement, params, options)).rows as T[]
  }

  /** `query` plus whether `maxRows` cut the rows short. */
  async queryRows(statement: string, params?: Record<string, unknown>, options: QueryOptions = {}): Promise<{ rows: Record<string, JsonValue>[]; truncated: boolean }> {
    if (params !== undefined) checkParams(params)
    const conn = await this.acquire()
    try {
      return await this.execute(conn, statement, params, options)
    } finally {
      this.release(conn)
    }
  }

  /** Waits for queries already started, then releases the database (results are closed per query). */
  async close(): Promise<void> {
    if (this.closing) return
    this.closing = true
    if (this.running > 0) await new Promise<void>((resolve) => (this.drained = resolve))
    for (const conn of this.connections) await conn.close()
    await this.db.close()
  }

  private acquire(): Promise<Connection> {
    if (this.closing) return Promise.reject(new Error('GraphStore is closed'))
    this.running++
    const conn = this.idle.pop()
    if (conn) return Promise.resolve(conn)
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  private release(conn: Connection): void {
    this.running--
    const next = this.waiting.shift()
    if (next) next(conn)
    else this.idle.push(conn)
    if (this.running === 0) this.drained?.()
  }

  private async execute(conn: Connection, statement: string, params: Record<string, unknown> | undefined, options: QueryOptions): Promise<{ rows: Record<string, JsonValue>[]; truncated: boolean }> {
    conn.setQueryTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS)
    let results: QueryResult[]
    if (params === undefined) {
      const r = await conn.query(statement)
      results = Array.isArray(r) ? r : [r]
    } else {
      const prepared = await conn.prepare(statement)
      if (!prepared.isSuccess()) throw new Error(prepared.getErrorMessage())
      const r = await conn.execute(prepared, params as Record<string, KuzuValue>)
      results = Array.isArray(r) ? r : [r]
    }
    try {
      // A multi-statement text yields one result per statement; the last one is the answer.
      // the rows are in memory once the statement has run: reading them synchronously costs what
      // converting them costs, where Kuzu's async reader pays a thread-pool round trip per row
      // (17,000 call edges of hono: 0.6-1.9 s against 35 ms)
      const last = results[results.length - 1]
      const max = options.maxRows ?? Infinity
      const rows: Record<string, JsonValue>[] = []
      while (rows.length < max && last.hasNext()) {
        const row = last.getNextSync()
        if (row === null) break
        rows.push(toJsonRow(row))
      }
      return { rows, truncated: last.hasNext() }
    } finally {
      for (const r of results) r.close()
    }
  }
}

export interface QueryOptions {
  /** Stop after this many rows (default: all). */
  maxRows?: number
  /** Kuzu interrupts the query after this long (default DEFAULT_TIMEOUT_MS). */
  timeoutMs?: number
}

/** Every query is interrupted after this long unless the caller says otherwise: no call may wedge a server. */
export const DEFAULT_TIMEOUT_MS = 60_000

/** Concurrent queries per read-only store; more callers wait for a free connection. */
const READ_CONNECTIONS = Math.max(2, Math.min(8, availableParallelism()))

/** Kuzu reserves its whole maximum database size as address space: a power of two well above the file. */
function readerAddressSpace(fileBytes: number): number {
  let size = 1024 * 1024 * 1024
  while (size < fileBytes * 4) size *= 2
  return size
}

/** A parameter value Kuzu 0.11 would crash on or corrupt. */
export class QueryParamError extends Error {
  constructor(
    readonly param: string,
    readonly problem: string,
  ) {
    super(`query parameter $${param} ${problem}`)
    this.name = 'QueryParamError'
  }
}

/**
 * Kuzu 0.11 infers a parameter's type from its value, and some values take the native process
 * down instead of failing: an empty list or an empty map segfaults, a list whose first element is
 * null or an empty list/map asserts, and a list mixing types is silently reinterpreted ([1, 2.5]
 * binds 2.5's bits as an integer). Every parameter of every query is checked here first.
 */
export function checkParams(params: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(params)) {
    const { problem } = shapeOf(value, 0)
    if (problem) throw new QueryParamError(name, problem)
  }
}

/** The value's type as Kuzu would infer it, or the reason it cannot be bound. */
function shapeOf(value: unknown, depth: number): { shape: string; problem: string | null } {
  if (depth > 16) return { shape: '', problem: 'is nested too deeply' }
  if (value === null || value === undefined) return { shape: 'null', problem: null }
  switch (typeof value) {
    case 'string':
      return { shape: 'string', problem: null }
    case 'boolean':
      return { shape: 'boolean', problem: null }
    case 'number':
      if (!Number.isFinite(value)) return { shape: '', problem: `is ${value}, not a finite number` }
      return { shape: Number.isInteger(value) ? 'integer' : 'float', problem: null }
    case 'bigint':
      return { shape: 'integer', problem: null }
    case 'object':
      break
    default:
      return { shape: '', problem: `is a ${typeof value}, which cannot be a query value` }
  }
  if (value instanceof Date) return { shape: 'date', problem: Number.isNaN(value.getTime()) ? 'is an invalid date' : null }
  if (Array.isArray(value)) {
    if (value.length === 0) return { shape: '', problem: 'is an empty list, which Kuzu 0.11 cannot bind (leave the condition out instead)' }
    let shape: string | null = null
    for (const [i, item] of value.entries()) {
      const inner = shapeOf(item, depth + 1)
      if (inner.problem) return { shape: '', problem: `element ${i} ${inner.problem}` }
      if (inner.shape === 'null') {
        if (i === 0) return { shape: '', problem: 'starts with null, which Kuzu 0.11 cannot type (put a non-null value first)' }
        continue
      }
      if (shape === null) shape = inner.shape
      else if (shape !== inner.shape) return { shape: '', problem: `mixes value types (${shape} and ${inner.shape}); a list holds one type` }
    }
    return { shape: `[${shape}]`, problem: null }
  }
  const entries = Object.entries(value as Record<string, unknown>)
  if (entries.length === 0) return { shape: '', problem: 'is an empty map, which Kuzu 0.11 cannot bind' }
  const fields: string[] = []
  for (const [key, item] of entries) {
    const inner = shapeOf(item, depth + 1)
    if (inner.problem) return { shape: '', problem: `field ${JSON.stringify(key)} ${inner.problem}` }
    if (inner.shape === 'null') return { shape: '', problem: `field ${JSON.stringify(key)} is null, which Kuzu 0.11 cannot type in a map` }
    fields.push(`${key}:${inner.shape}`)
  }
  return { shape: `{${fields.join(',')}}`, problem: null }
}

function corruptIndex(dbPath: string, detail: string): UserError {
  return new UserError(
    `the gitwhy index at ${dbPath} cannot be opened: ${detail}`,
    'run `gitwhy analyze --force` to rebuild it',
    'index_corrupt',
  )
}

function openError(dbPath: string, readOnly: boolean, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error)
  // Kuzu 0.11: any open while another process holds a conflicting lock (a writer, or readers when
  // we want to write) fails with "IO exception: Could not set lock on file : <path>".
  if (/could not set lock/i.test(message)) {
    return readOnly
      ? new UserError(
          `the gitwhy index at ${dbPath} is being written by another process`,
          'retry when that process (probably `gitwhy analyze`) finishes',
          'index_locked',
        )
      : new UserError(
          `the gitwhy index at ${dbPath} is in use by another process (being written, or open for reading)`,
          'retry when that process finishes, or stop the gitwhy reader (MCP server, TUI) holding it',
          'index_locked',
        )
  }
  if (/not a valid kuzu database|storage version|database path cannot be a directory|corrupt|checksum|magic/i.test(message)) {
    return corruptIndex(dbPath, message.replace(/^[\w ]*exception: /i, ''))
  }
  if (/cannot create an empty database under read only mode/i.test(message)) {
    return new UserError(`no gitwhy index at ${dbPath}`, 'run `gitwhy analyze` to build the index first', 'no_index')
  }
  return error instanceof Error ? error : new Error(message)
}

/** Convert one Kuzu row to JSON-safe values (see the module comment for the rules). */
export function toJsonRow(row: Record<string, KuzuValue>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {}
  for (const [key, value] of Object.entries(row)) out[key] = toJsonValue(value)
  return out
}

const INTERNAL_KEYS = new Set(['_id', '_src', '_dst'])

export function toJsonValue(value: unknown): JsonValue {
  if (value === null || value === undefined) return null
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      return Number.isFinite(value) ? value : String(value)
    case 'bigint':
      return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString()
    case 'object':
      break
    default:
      return String(value)
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64')
  if (Array.isArray(value)) return value.map((v) => toJsonValue(v))
  const record = value as Record<string, unknown>
  // Only nodes and relationships carry _label next to _id; a user's map or struct keeps its keys.
  const graphElement = '_label' in record && ('_id' in record || '_src' in record)
  const out: Record<string, JsonValue> = {}
  for (const [k, v] of Object.entries(record)) {
    if (graphElement && INTERNAL_KEYS.has(k)) continue
    out[k] = toJsonValue(v)
  }
  return out
}
