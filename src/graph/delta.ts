import { createHash } from 'node:crypto'
import { closeSync, copyFileSync, openSync, readSync } from 'node:fs'
import kuzu from 'kuzu'
import type { Connection, PreparedStatement } from 'kuzu'
import { ACTIVITY_COLUMNS, FTS_INDEXES, TABLES, tableDef, tableDefs, VECTOR_INDEX, type ColumnDef, type TableDef } from './schema.js'
import type { ActivityRow, AuthorRow, FileRow, GraphData } from './types.js'

/**
 * A small change applied in place to a copy of the previous graph (an incremental analyze):
 * cheaper than a bulk load when a few commits arrived. The statements are generated from the
 * schema's table definitions; every value goes in as a parameter.
 */
export interface GraphDelta {
  /** Files whose symbols are replaced: their Symbol nodes (and every edge of them) go first. */
  replaceSymbolsOf: string[]
  /** Existing File nodes whose properties change. */
  updateFiles: FileRow[]
  /** Added to every existing commit's `topo` (the new commits take 0..k-1). */
  topoShift: number
  /** Existing authors whose name changes (the newest commit's name wins). */
  renameAuthors: AuthorRow[]
  /** New activity columns of File and Symbol nodes that are neither inserted nor in updateFiles. */
  activity?: { files: Array<{ path: string } & ActivityRow>; symbols: Array<{ id: string } & ActivityRow> }
  /**
   * The analytics that changed (the new rows come in `insert`): co-change edges that went away or
   * changed, all communities when any changed, and the OWNED_BY edges of these files.
   */
  analytics?: {
    removeFileCoChanges: Array<{ a: string; b: string }>
    removeSymbolCoChanges: Array<{ a: string; b: string }>
    replaceCommunities: boolean
    ownershipOf: string[]
  }
  /** Code-graph edges that went away or changed (the new ones come in `insert`). */
  codeGraph?: {
    calls: Array<{ from: string; to: string; line: number }>
    extends: Array<{ from: string; to: string }>
    implements: Array<{ from: string; to: string }>
    imports: Array<{ from: string; to: string }>
    /** Process nodes to delete with their STEP_IN edges (gone or replaced). */
    processes: string[]
  }
  /** Every Snapshot node and its edges go (the trajectory's rows come back in `insert`: user state, reloaded whole). */
  replaceSnapshots?: boolean
  /** Doc rows (and their vectors) of the symbols of these files go (they come back in `insert`). */
  removeSymbolDocsOf?: string[]
  /** Rows to insert. */
  insert: Partial<GraphData>
}

/**
 * The delta's buffer pool. A delta touches few rows, but on a big history a single edge insert
 * makes Kuzu load whole column chunks of big tables: on git/git (82k commits, a 124 MB graph)
 * adding one PARENT edge fills a 64 MB or a 248 MB pool ("the buffer pool is full"). The pool is
 * reserved address space that only what is touched turns into memory, so it is sized for the
 * biggest histories rather than the typical one.
 */
const DELTA_BUFFER_POOL_BYTES = 1024 * 1024 * 1024
const BATCH = 2000

function value(row: Record<string, unknown>, col: ColumnDef): unknown {
  const v = row[col.field ?? col.name]
  if (col.type === 'TIMESTAMP') return v === null || v === undefined ? null : new Date(String(v)).toISOString()
  // Kuzu types a list parameter from its first element: 100 would make a DOUBLE column's values
  // INT64 and reinterpret 70.6's bits; as text they are cast back exactly
  if (col.type === 'DOUBLE') return v === null || v === undefined ? null : String(v)
  return v ?? null
}

/** A parameter as the column's type: numbers arrive as INT64 or DOUBLE depending on their value. */
function cast(c: ColumnDef, row = 'r.'): string {
  if (c.type === 'TIMESTAMP') return `timestamp(${row}${c.name})`
  if (c.type === 'DOUBLE') return `cast(${row}${c.name}, 'DOUBLE')`
  return `${row}${c.name}`
}

function propertyList(columns: ColumnDef[]): string {
  return columns.map((c) => `${c.name}: ${cast(c)}`).join(', ')
}

const ACTIVITY_SET = (v: string) => ACTIVITY_COLUMNS.map((c) => `${v}.${c.name} = ${cast(c)}`).join(', ')

/**
 * How a delta's rows go in. Relationships by COPY from the rows: Kuzu finds the endpoints through
 * the primary-key indexes, where `UNWIND $rows MATCH (a {key: r.from}), (b {key: r.to})` plans a
 * cross product of both node tables (3.8 s for one PARENT edge on git/git's 82k commits). Nodes of
 * an indexed table (Symbol, Doc: full-text; DocVector: vector) one CREATE each: Kuzu 0.11.3 keeps
 * those indexes current on single CREATEs (and deletes), but gives rows of one
 * `UNWIND $rows CREATE` wrong full-text postings. Other nodes in one UNWIND CREATE.
 */
function insertStatement(def: TableDef): string {
  if (def.kind === 'node') {
    if (indexed(def)) return `CREATE (:${def.name} {${def.columns.map((c) => `${c.name}: ${cast(c, '$')}`).join(', ')}})`
    return `UNWIND $rows AS r CREATE (:${def.name} {${propertyList(def.columns)}})`
  }
  const columns = ['r.__from AS __from', 'r.__to AS __to', ...def.columns.map((c) => `${cast(c)} AS ${c.name}`)]
  const pair = tableDefs(def.name).length > 1 ? ` (from='${def.from.table}', to='${def.to.table}')` : ''
  return `COPY ${def.name} FROM (UNWIND $rows AS r RETURN ${columns.join(', ')})${pair}`
}

/**
 * One relationship by its endpoints' primary keys: for a few rows cheaper than a COPY, which costs
 * 15–60 ms however few its rows (one PARENT edge: COPY 59 ms, this 2–12 ms, on vuejs/core's graph).
 * Rows one at a time, never `UNWIND`: with the endpoints named by the unwound rows Kuzu plans a
 * scan of both node tables. Where an endpoint is missing a MATCH creates nothing, where a COPY
 * fails: `made` says how many it created, and insert() fails alike.
 */
function createRelStatement(def: TableDef & { kind: 'rel' }): string {
  const key = (table: string) => tableDef(table).columns[0].name
  const props = def.columns.length > 0 ? ` {${def.columns.map((c) => `${c.name}: ${cast(c, '$')}`).join(', ')}}` : ''
  return `MATCH (a:${def.from.table} {${key(def.from.table)}: $__from}), (b:${def.to.table} {${key(def.to.table)}: $__to}) CREATE (a)-[:${def.name}${props}]->(b) RETURN count(*) AS made`
}

/** Up to this many rows, a relationship table's delta goes in one CREATE a row, not by COPY. */
const FEW_RELS = 16

function indexed(def: TableDef): boolean {
  return def.name === VECTOR_INDEX.table || FTS_INDEXES.some((ix) => ix.table === def.name)
}

async function insert(conn: Connection, def: TableDef, rows: Array<Record<string, unknown>>): Promise<void> {
  if (def.kind === 'rel' ? rows.length > FEW_RELS : !indexed(def)) return runBatched(conn, insertStatement(def), rows)
  const prepared = await prepare(conn, def.kind === 'rel' ? createRelStatement(def) : insertStatement(def))
  for (const row of rows) {
    const out = await execute(conn, prepared, row)
    if (def.kind === 'rel' && Number(out[0]?.made ?? 0) !== 1) throw new Error(`${def.name}: no ${def.from.table} ${String(row.__from)} or no ${def.to.table} ${String(row.__to)} to link`)
  }
}

function insertRows(def: TableDef, rows: ReadonlyArray<Record<string, unknown>>): Array<Record<string, unknown>> {
  return rows.map((row) => {
    const out: Record<string, unknown> = {}
    for (const c of def.columns) out[c.name] = value(row, c)
    if (def.kind === 'rel') {
      out.__from = row[def.from.field]
      out.__to = row[def.to.field]
    }
    return out
  })
}

/** Activity values as parameters: timestamps as ISO strings (null stays null). */
function activityParams(row: ActivityRow): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(row as object) }
  for (const c of ACTIVITY_COLUMNS) out[c.name] = value(row as unknown as Record<string, unknown>, c)
  return out
}

/** A connection's prepared statements: each costs ~5 ms to prepare (warmDelta prepares the first part's ahead). */
const preparedOf = new WeakMap<Connection, Map<string, PreparedStatement>>()

async function prepare(conn: Connection, statement: string): Promise<PreparedStatement> {
  let cache = preparedOf.get(conn)
  if (!cache) preparedOf.set(conn, (cache = new Map()))
  const known = cache.get(statement)
  if (known) return known
  const prepared = await conn.prepare(statement)
  if (!prepared.isSuccess()) throw new Error(`${prepared.getErrorMessage()} in: ${statement}`)
  cache.set(statement, prepared)
  return prepared
}

/** Runs a prepared statement; its first result's rows (none for most statements here). */
async function execute(conn: Connection, prepared: PreparedStatement, params: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
  const result = await conn.execute(prepared, params as never)
  const results = Array.isArray(result) ? result : [result]
  try {
    return results[0].getAllSync()
  } finally {
    for (const r of results) r.close()
  }
}

async function run(conn: Connection, statement: string, params: Record<string, unknown>): Promise<void> {
  await execute(conn, await prepare(conn, statement), params)
}

async function runBatched(conn: Connection, statement: string, rows: Array<Record<string, unknown>>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await run(conn, statement, { rows: rows.slice(i, i + BATCH) })
}

/** Row counts after the change, as analyze reports them. */
const COUNTS: Record<string, string> = {
  commits: 'MATCH (n:Commit) RETURN count(*) AS n',
  symbols: "MATCH (n:Symbol) WHERE n.name <> '<module>' RETURN count(*) AS n",
  calls: 'MATCH ()-[r:CALLS]->() RETURN count(*) AS n',
  imports: 'MATCH ()-[r:IMPORTS]->() RETURN count(*) AS n',
  authors: 'MATCH (n:Author) RETURN count(*) AS n',
  pull_requests: 'MATCH (n:PullRequest) RETURN count(*) AS n',
  issues: 'MATCH (n:Issue) RETURN count(*) AS n',
  blamed_on: 'MATCH ()-[r:BLAMED_ON]->() RETURN count(*) AS n',
  changed: 'MATCH ()-[r:CHANGED]->() RETURN count(*) AS n',
  docs: 'MATCH (n:Doc) RETURN count(*) AS n',
}

/** An open copy of the graph that deltas are applied to, in order, then finished (or closed). */
export interface DeltaSession {
  db: InstanceType<typeof kuzu.Database>
  conn: Connection
}

async function openDelta(dbPath: string): Promise<DeltaSession> {
  const db = new kuzu.Database(dbPath, DELTA_BUFFER_POOL_BYTES, true, false)
  await db.init()
  const conn = new kuzu.Connection(db)
  try {
    await conn.init()
  } catch (error) {
    await db.close()
    throw error
  }
  return { db, conn }
}

/**
 * Applies a delta (or a part of one: an update sends what the history gives as soon as it is
 * known, and the analytics and code graph later). Its deletions go before its insertions.
 */
async function applyDelta({ conn }: DeltaSession, delta: Partial<GraphDelta>): Promise<void> {
  const replaceSymbolsOf = delta.replaceSymbolsOf ?? []
  if (replaceSymbolsOf.length > 0) await run(conn, DELETE_SYMBOLS, { paths: replaceSymbolsOf })
  if (delta.removeSymbolDocsOf && delta.removeSymbolDocsOf.length > 0) {
    const paths = { paths: delta.removeSymbolDocsOf }
    await run(conn, DELETE_SYMBOL_VECTORS, paths)
    await run(conn, DELETE_SYMBOL_DOCS, paths)
  }
  if (delta.topoShift) await run(conn, SHIFT_TOPO, { k: delta.topoShift })
  if (delta.renameAuthors && delta.renameAuthors.length > 0) {
    await runBatched(conn, 'UNWIND $rows AS r MATCH (a:Author {email: r.email}) SET a.name = r.name, a.emails = r.emails', delta.renameAuthors.map((a) => ({ ...a })))
  }
  if (delta.updateFiles && delta.updateFiles.length > 0) {
    await runBatched(
      conn,
      `UNWIND $rows AS r MATCH (f:File {path: r.path}) SET f.language = r.language, f.lines = r.lines, f.is_test = r.is_test, f.present = r.present, ${ACTIVITY_SET('f')}`,
      delta.updateFiles.map((f) => activityParams(f)),
    )
  }
  if (delta.activity) {
    await runBatched(conn, `UNWIND $rows AS r MATCH (f:File {path: r.path}) SET ${ACTIVITY_SET('f')}`, delta.activity.files.map(activityParams))
    await runBatched(conn, `UNWIND $rows AS r MATCH (s:Symbol {id: r.id}) SET ${ACTIVITY_SET('s')}`, delta.activity.symbols.map(activityParams))
  }
  const a = delta.analytics
  if (a) {
    await runBatched(conn, 'UNWIND $rows AS r MATCH (:File {path: r.a})-[e:CO_CHANGED]->(:File {path: r.b}) DELETE e', a.removeFileCoChanges.map((r) => ({ ...r })))
    await runBatched(conn, 'UNWIND $rows AS r MATCH (:Symbol {id: r.a})-[e:CO_CHANGED]->(:Symbol {id: r.b}) DELETE e', a.removeSymbolCoChanges.map((r) => ({ ...r })))
    if (a.replaceCommunities) await run(conn, 'MATCH (c:Community) DETACH DELETE c', {})
    if (a.ownershipOf.length > 0) await run(conn, 'MATCH (f:File)-[r:OWNED_BY]->() WHERE f.path IN $paths DELETE r', { paths: a.ownershipOf })
  }
  if (delta.replaceSnapshots) await run(conn, 'MATCH (s:Snapshot) DETACH DELETE s', {})
  const code = delta.codeGraph
  if (code) {
    await runBatched(conn, 'UNWIND $rows AS r MATCH (:Symbol {id: r.from})-[e:CALLS]->(:Symbol {id: r.to}) WHERE e.line = r.line DELETE e', code.calls.map((r) => ({ ...r })))
    await runBatched(conn, 'UNWIND $rows AS r MATCH (:Symbol {id: r.from})-[e:EXTENDS]->(:Symbol {id: r.to}) DELETE e', code.extends.map((r) => ({ ...r })))
    await runBatched(conn, 'UNWIND $rows AS r MATCH (:Symbol {id: r.from})-[e:IMPLEMENTS]->(:Symbol {id: r.to}) DELETE e', code.implements.map((r) => ({ ...r })))
    await runBatched(conn, 'UNWIND $rows AS r MATCH (:File {path: r.from})-[e:IMPORTS]->(:File {path: r.to}) DELETE e', code.imports.map((r) => ({ ...r })))
    if (code.processes.length > 0) await run(conn, 'MATCH (p:Process) WHERE p.id IN $ids DETACH DELETE p', { ids: code.processes })
  }
  // a symbol goes in with the DEFINES edge from its file, in one statement: a DEFINES COPY after
  // the symbols' CREATEs took 150–220 ms on vuejs/core's graph, however few its rows
  const definedIn = new Map((delta.insert?.defines ?? []).map((d) => [d.symbol, d.path]))
  const defined = new Set<string>()
  for (const def of TABLES) {
    let rows = delta.insert?.[def.rows] as ReadonlyArray<Record<string, unknown>> | undefined
    if (!rows || rows.length === 0) continue
    if (def.name === 'Symbol' && def.kind === 'node') {
      await insertSymbols(conn, def, rows, definedIn, defined)
      continue
    }
    if (def.name === 'DEFINES') rows = rows.filter((d) => !defined.has(String(d.symbol)))
    if (rows.length > 0) await insert(conn, def, insertRows(def, rows))
  }
}

const DELETE_SYMBOLS = 'MATCH (s:Symbol) WHERE s.path IN $paths DETACH DELETE s'
const DELETE_SYMBOL_VECTORS = "MATCH (d:Doc), (v:DocVector) WHERE d.kind = 'symbol' AND d.path IN $paths AND v.row = d.row DELETE v"
const DELETE_SYMBOL_DOCS = "MATCH (d:Doc) WHERE d.kind = 'symbol' AND d.path IN $paths DELETE d"
const SHIFT_TOPO = 'MATCH (c:Commit) SET c.topo = c.topo + $k'

/** A symbol with the DEFINES edge from its file. */
function symbolWithFileStatement(def: TableDef): string {
  return `MATCH (f:File {path: $__path}) CREATE (f)-[:DEFINES]->(:${def.name} {${def.columns.map((c) => `${c.name}: ${cast(c, '$')}`).join(', ')}}) RETURN count(*) AS made`
}

/**
 * Prepares what an update's first part (the history's rows) runs, while the opened graph waits
 * for them: the deletions of the re-walked files' symbols, the new commits, symbols, documents
 * and their edges. ~0.1 s of statements prepared off the update's path.
 */
async function warmDelta({ conn }: DeltaSession): Promise<void> {
  const statements = [DELETE_SYMBOLS, DELETE_SYMBOL_VECTORS, DELETE_SYMBOL_DOCS, SHIFT_TOPO]
  for (const def of TABLES) {
    if (def.name === 'Symbol') statements.push(insertStatement(def), symbolWithFileStatement(def))
    else if (def.name === 'Doc' || def.name === 'Commit') statements.push(insertStatement(def))
    else if (def.kind === 'rel' && ['CONTAINS', 'TOUCHED', 'AUTHORED_BY', 'PARENT'].includes(def.name)) statements.push(createRelStatement(def))
    else if (def.kind === 'rel' && ['CHANGED', 'BLAMED_ON'].includes(def.name)) statements.push(insertStatement(def))
  }
  for (const statement of statements) await prepare(conn, statement)
}

/** Symbols one CREATE each (full-text indexed), each with its file's DEFINES edge where the delta has one. */
async function insertSymbols(conn: Connection, def: TableDef, rows: ReadonlyArray<Record<string, unknown>>, definedIn: Map<string, string>, defined: Set<string>): Promise<void> {
  const alone = await prepare(conn, insertStatement(def))
  const withFile = await prepare(conn, symbolWithFileStatement(def))
  for (const row of insertRows(def, rows)) {
    const id = String(row.id)
    const path = definedIn.get(id)
    if (path === undefined) {
      await execute(conn, alone, row)
      continue
    }
    const out = await execute(conn, withFile, { ...row, __path: path })
    if (Number(out[0]?.made ?? 0) !== 1) throw new Error(`DEFINES: no File ${path} for Symbol ${id}`)
    defined.add(id)
  }
}

/** Checkpoints the applied deltas; the row counts after them, as analyze reports them. */
async function finishDelta({ conn }: DeltaSession): Promise<Record<string, number>> {
  await run(conn, 'CHECKPOINT', {})
  const counts: Record<string, number> = {}
  for (const [name, statement] of Object.entries(COUNTS)) {
    const result = await conn.query(statement)
    const rows = await (Array.isArray(result) ? result[0] : result).getAll()
    for (const r of Array.isArray(result) ? result : [result]) r.close()
    counts[name] = Number(rows[0].n)
  }
  return counts
}

async function closeDelta({ db, conn }: DeltaSession): Promise<void> {
  await conn.close()
  await db.close()
}

/** One step of an update's graph delta (src/graph/delta-writer.ts sends them, in order). */
export type DeltaOp = { op: 'open'; from: string; to: string } | { op: 'apply'; delta: Partial<GraphDelta> } | { op: 'finish' } | { op: 'close' }

/** A file's size and SHA-256, read in chunks (git/git's graph is 551 MB). */
function hashFile(file: string): [number, string] {
  const hash = createHash('sha256')
  const chunk = Buffer.allocUnsafe(8 << 20)
  const fd = openSync(file, 'r')
  let size = 0
  try {
    for (let n: number; (n = readSync(fd, chunk, 0, chunk.length, size)) > 0; size += n) hash.update(chunk.subarray(0, n))
  } finally {
    closeSync(fd)
  }
  return [size, hash.digest('hex')]
}

/** What finishing a delta gives: the row counts, and the graph file's size and SHA-256 once closed. */
export interface DeltaFinish {
  counts: Record<string, number>
  graph: [number, string]
}

/**
 * Runs delta steps one at a time, in the order given, whatever the previous one gave: open copies
 * the previous graph and opens the copy, finish checkpoints, closes and hashes it, close closes
 * it when finish did not (a failed step).
 */
export function deltaRunner(): (op: DeltaOp) => Promise<unknown> {
  let session: DeltaSession | null = null
  let openedPath: string | null = null
  let queue: Promise<unknown> = Promise.resolve()
  const opened = () => session ?? Promise.reject(new Error('the graph delta was used before the graph was opened'))
  const step = async (op: DeltaOp): Promise<unknown> => {
    switch (op.op) {
      case 'open':
        copyFileSync(op.from, op.to)
        session = await openDelta(op.to)
        openedPath = op.to
        await warmDelta(session)
        return null
      case 'apply':
        return applyDelta(await opened(), op.delta)
      case 'finish': {
        // checkpointed, closed and hashed here: the caller's manifest need not read the graph again
        const counts = await finishDelta(await opened())
        const open = session!
        session = null
        await closeDelta(open)
        return { counts, graph: hashFile(openedPath!) }
      }
      case 'close': {
        const open = session
        session = null
        return open ? closeDelta(open) : null
      }
    }
  }
  return (op) => {
    const result = queue.then(() => step(op))
    queue = result.catch(() => {})
    return result
  }
}
