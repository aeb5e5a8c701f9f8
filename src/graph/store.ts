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
import kuzu from 'kuzu'
import type { Connection, Database, KuzuValue, QueryResult } from 'kuzu'
import { UserError } from '../errors.js'
import { BUFFER_POOL_BYTES } from './load.js'

const READ_BUFFER_POOL_BYTES = 64 * 1024 * 1024

export interface OpenOptions {
  readOnly: boolean
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

export class GraphStore {
  private queue: Promise<unknown> = Promise.resolve()
  private closing = false

  private constructor(
    readonly dbPath: string,
    readonly readOnly: boolean,
    private readonly db: Database,
    private readonly conn: Connection,
  ) {}

  /**
   * Open an existing index. Never creates one: a missing path is "no index yet" even for a
   * read-write open (building is writeGraph's job).
   */
  static async open(dbPath: string, options: OpenOptions): Promise<GraphStore> {
    if (!existsSync(dbPath)) {
      throw new UserError(`no gitwhy index at ${dbPath}`, 'run `gitwhy analyze` to build the index first', 'no_index')
    }
    if (statSync(dbPath).isDirectory()) {
      throw corruptIndex(dbPath, 'the index path is a directory, not a Kuzu database file')
    }
    // a reader touches little: a small pool opens and answers its first query faster (27 → 5 ms)
    const db = new kuzu.Database(dbPath, options.readOnly ? READ_BUFFER_POOL_BYTES : BUFFER_POOL_BYTES, true, options.readOnly)
    try {
      await db.init()
    } catch (error) {
      await db.close().catch(() => {})
      throw openError(dbPath, options.readOnly, error)
    }
    const conn = new kuzu.Connection(db)
    try {
      await conn.init()
    } catch (error) {
      await conn.close().catch(() => {})
      await db.close().catch(() => {})
      throw openError(dbPath, options.readOnly, error)
    }
    return new GraphStore(dbPath, options.readOnly, db, conn)
  }

  /**
   * Run one statement and return all rows with JSON-safe values. With params, the statement is
   * prepared and the values are bound (never spliced into the text). Statements on one store run
   * one at a time.
   */
  async query<T = Record<string, unknown>>(statement: string, params?: Record<string, unknown>): Promise<T[]> {
    if (this.closing) throw new Error('GraphStore is closed')
    const run = this.queue.then(() => this.execute(statement, params))
    this.queue = run.catch(() => {})
    return (await run) as T[]
  }

  /** Waits for queries already started, then releases the database (results are closed per query). */
  async close(): Promise<void> {
    if (this.closing) return
    this.closing = true
    await this.queue
    await this.conn.close()
    await this.db.close()
  }

  private async execute(statement: string, params: Record<string, unknown> | undefined): Promise<Record<string, JsonValue>[]> {
    let results: QueryResult[]
    if (params === undefined) {
      const r = await this.conn.query(statement)
      results = Array.isArray(r) ? r : [r]
    } else {
      const prepared = await this.conn.prepare(statement)
      if (!prepared.isSuccess()) throw new Error(prepared.getErrorMessage())
      const r = await this.conn.execute(prepared, params as Record<string, KuzuValue>)
      results = Array.isArray(r) ? r : [r]
    }
    try {
      // A multi-statement text yields one result per statement; the last one is the answer.
      const rows = await results[results.length - 1].getAll()
      return rows.map((row) => toJsonRow(row))
    } finally {
      for (const r of results) r.close()
    }
  }
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
