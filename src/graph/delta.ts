import { copyFileSync, statSync } from 'node:fs'
import kuzu from 'kuzu'
import type { Connection, PreparedStatement } from 'kuzu'
import { ACTIVITY_COLUMNS, createVectorIndexStatement, FTS_INDEXES, HAS_VECTOR_INDEX, TABLES, tableDef, tableDefs, VECTOR_INDEX, vectorIndexRows, type ColumnDef, type TableDef } from './schema.js'
import type { ActivityRow, AuthorRow, CoChangeRow, DocRow, FileRow, GraphData, IssueRow, PullRequestRow, SymbolRow } from './types.js'
import { decisionTables, namedEnds, type DecisionGraph } from '../knowledge/decision-rows.js'
import { takeSpareWhenMade } from '../services/graph-spare.js'
import { crc32Chunks, hashFile, sharedChecksum } from '../services/index-integrity.js'

/**
 * A small change applied in place to a copy of the previous graph (an incremental analyze):
 * cheaper than a bulk load when a few commits arrived. The statements are generated from the
 * schema's table definitions; every value goes in as a parameter.
 */
export interface GraphDelta {
  /** Symbols (by id) deleted with every edge of theirs, first: an update's changed and removed symbols. */
  deleteSymbols?: string[]
  /** Existing symbols kept in place whose columns from the file change (lines, signature): set, activity aside. */
  updateSymbols?: SymbolRow[]
  /**
   * Existing symbols kept in place whose history was walked again: their CHANGED and BLAMED_ON
   * rows made equal to these (only the rows that differ are deleted and inserted).
   */
  syncHistory?: { symbols: string[]; changed: GraphData['changed']; blamedOn: GraphData['blamedOn'] }
  /** CONTAINS edges between kept symbols whose child has another parent now (or none). */
  removeContains?: GraphData['contains']
  /** Existing File nodes whose properties change. */
  updateFiles: FileRow[]
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
    /** Co-change edges that stay with other numbers: their properties set (each pair has one edge). */
    setFileCoChanges?: CoChangeRow[]
    setSymbolCoChanges?: CoChangeRow[]
    replaceCommunities: boolean
    ownershipOf: string[]
  }
  /** Code-graph edges that went away or changed (the new ones come in `insert`). */
  codeGraph?: {
    calls: Array<{ from: string; to: string; line: number }>
    /** Calls whose line alone changes (matched by their source, callee, line, confidence and reason), set to `to_line` after the deletions. */
    moveCalls?: Array<{ from: string; to: string; line: number; confidence: number; reason: string; to_line: number }>
    extends: Array<{ from: string; to: string }>
    implements: Array<{ from: string; to: string }>
    imports: Array<{ from: string; to: string }>
    /** Process nodes to delete with their STEP_IN edges (gone or replaced). */
    processes: string[]
  }
  /** Every Snapshot node and its edges go (the trajectory's rows come back in `insert`: user state, reloaded whole). */
  replaceSnapshots?: boolean
  /**
   * The symbol documents of these files are made equal to those `insert.docs` holds for them: one
   * with the same id, search text and hash keeps its row (its other columns set), the rest go with
   * their vectors and the delta's come in. The delta's rows of the kept ones are not inserted, nor
   * their vectors, in this part or a later one.
   */
  syncSymbolDocsOf?: string[]
  /** Doc rows (and their vectors) with these ids go (forge enrichment: `pr:N` and `issue:N` come back in `insert`). */
  removeDocs?: string[]
  /** Existing PullRequest / Issue nodes whose properties change (forge enrichment), set after the inserts. */
  updatePullRequests?: PullRequestRow[]
  updateIssues?: IssueRow[]
  /** Rows to insert. */
  insert: Partial<GraphData>
  /** Every Decision node (and its edges) replaced by these: sent last, once communities and symbols are in place. */
  decisions?: DecisionGraph
}

/**
 * The delta's buffer pool. A delta touches few rows, but on a big history a single edge insert
 * makes Kuzu load whole column chunks of big tables: on git/git (82k commits, a 124 MB graph)
 * adding one PARENT edge fills a 64 MB or a 248 MB pool ("the buffer pool is full"). The pool is
 * reserved address space that only what is touched turns into memory, so it is sized for the
 * biggest histories rather than the typical one.
 */
type RelDef = TableDef & { kind: 'rel' }

const DELTA_BUFFER_POOL_BYTES = 1024 * 1024 * 1024
const BATCH = 2000
/**
 * Relationship rows per COPY. Each COPY checkpoints first and rebuilds the node groups it touches,
 * ~25–35 ms however few its rows: vuejs/core's 4,847 MEMBER_OF rows (an update whose communities
 * changed puts them all back) took 136–160 ms in three COPYs of 2,000 and 79–102 ms in one.
 */
const REL_COPY_BATCH = 20_000

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
 * `UNWIND $rows AS r` with these fields of each row named `k_<field>`, for a MATCH whose WHERE
 * compares the nodes' keys with them. Kuzu 0.11.3 plans `MATCH (n:T {key: r.key})` (a row's field)
 * as a cross product of the rows with every node of the table, filtered pair by pair; a key bound
 * by WITH is a hash join of the rows with one scan of the table (`bench/set-rows.mjs`: setting the
 * activity of 5,000 of rails' 50,000 symbols 1,086 → 211 ms). Rails' first update after its build
 * (the recent window moved: 1,156 files and 5,194 symbols set) applied in 1.55 s, ~0.6 s with this
 * and 0.2–0.3 s with ACTIVITY_BATCH.
 */
const unwindKeys = (...fields: string[]) => `UNWIND $rows AS r WITH r, ${fields.map((f) => `r.${f} AS k_${f}`).join(', ')}`

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
function createRelStatement(def: RelDef): string {
  const props = def.columns.length > 0 ? ` {${def.columns.map((c) => `${c.name}: ${cast(c, '$')}`).join(', ')}}` : ''
  return `MATCH (a:${def.from.table} {${primaryKey(def.from.table)}: $__from}), (b:${def.to.table} {${primaryKey(def.to.table)}: $__to}) CREATE (a)-[:${def.name}${props}]->(b) RETURN count(*) AS made`
}

/** The primary key's column of a node table. */
function primaryKey(table: string): string {
  return tableDef(table).columns[0].name
}

/** Up to this many rows, a relationship table's delta goes in one CREATE a row, not by COPY. */
const FEW_RELS = 16

function indexed(def: TableDef): boolean {
  return def.name === VECTOR_INDEX.table || FTS_INDEXES.some((ix) => ix.table === def.name)
}

async function insert(s: DeltaSession, def: TableDef, rows: Array<Record<string, unknown>>): Promise<void> {
  const { conn } = s
  if (def.kind === 'rel') inserted(s, def, rows.length)
  if (def.kind === 'rel' && rows.length > FEW_RELS) {
    // a COPY checkpoints first
    await guardPending(s)
    return void (await runBatched(conn, insertStatement(def), rows, REL_COPY_BATCH))
  }
  if (def.kind === 'node' && !indexed(def)) return void (await runBatched(conn, insertStatement(def), rows))
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

/** Runs a statement over its rows in batches; the sum of what each batch's `n` column gave (a DELETE's count). */
async function runBatched(conn: Connection, statement: string, rows: Array<Record<string, unknown>>, batch = BATCH): Promise<number> {
  let n = 0
  for (let i = 0; i < rows.length; i += batch) {
    const out = await execute(conn, await prepare(conn, statement), { rows: rows.slice(i, i + batch) })
    n += Number(out[0]?.n ?? 0)
  }
  return n
}

/**
 * Row counts after the change, as analyze reports them, in its order: a node count by its query,
 * a relationship table's from the ledger's check (counted anyway).
 */
const COUNTS: Array<[string, { query: string } | { rel: string }]> = [
  ['commits', { query: 'MATCH (n:Commit) RETURN count(*) AS n' }],
  ['symbols', { query: "MATCH (n:Symbol) WHERE n.name <> '<module>' RETURN count(*) AS n" }],
  ['calls', { rel: 'CALLS' }],
  ['imports', { rel: 'IMPORTS' }],
  ['authors', { query: 'MATCH (n:Author) RETURN count(*) AS n' }],
  ['pull_requests', { query: 'MATCH (n:PullRequest) RETURN count(*) AS n' }],
  ['issues', { query: 'MATCH (n:Issue) RETURN count(*) AS n' }],
  ['blamed_on', { rel: 'BLAMED_ON' }],
  ['changed', { rel: 'CHANGED' }],
  ['docs', { query: 'MATCH (n:Doc) RETURN count(*) AS n' }],
  ['decisions', { query: 'MATCH (n:Decision) RETURN count(*) AS n' }],
]

/** An open copy of the graph that deltas are applied to, in order, then finished (or closed). */
export interface DeltaSession {
  db: InstanceType<typeof kuzu.Database>
  conn: Connection
  ledger: RelLedger
  /** Rows of the delta's documents (and vectors) that are not inserted: a stored document stands for each (syncSymbolDocs). */
  keptDocs: Set<number>
  /** Whether the graph may hold snapshots (false: counted none when opened, inserted none since). */
  snapshots: boolean
}

/**
 * What the delta did to each relationship table: the rows it must hold when the delta is finished
 * (counted when the graph was opened, then every deletion and insertion), the tables with
 * deletions that no insertion followed yet, and the guard rows that stand in for those.
 *
 * Kuzu 0.11.3 loses rows on a checkpoint that finds deletions in a relationship table and no
 * insertion: when the rows an earlier update appended are all deleted (the same file changed
 * twice), the checkpoint empties the whole table. On vuejs/core, the second update of a file left
 * BLAMED_ON with its 242 new rows of 13,397. Any insertion into the table before the checkpoint
 * avoids it, and COPY (into any table) checkpoints first. So before anything that checkpoints (a
 * COPY, a checkpoint between parts, the finish; automatic checkpoints are off) a guard row goes
 * into each table with deletions and no insertion since, the guards go after the finish's first
 * checkpoint, and the finished graph is counted against the ledger: a mismatch throws
 * {@link GraphDeltaMismatch} and the caller rebuilds. (A table an insertion follows before that
 * needs no guard: ~2 guards and a second checkpoint fewer on a typical update.)
 */
interface RelLedger {
  /** False only to show what the guards prevent (a test): deletions then go unguarded. */
  guarding: boolean
  expected: Map<string, number>
  /** Relationship tables (one pair of node tables each) with deletions and no insertion since. */
  pending: Set<RelDef>
  guards: Array<{ def: RelDef; from: unknown; to: unknown }>
  /** The tables the delta inserted into or deleted from: the finish counts these (the others' counts are as recorded). */
  touched: Set<string>
  /**
   * Counts of touched tables taken at a checkpoint between parts, while the graph's thread waits
   * for the next part: a table no later part writes keeps it (a checkpoint rewrites only what
   * changed), and the finish counts only the others (~35 ms fewer on git/git's update path).
   */
  counted: Map<string, number>
}

/** The finished graph does not hold the rows the delta meant it to: the caller rebuilds the index. */
export class GraphDeltaMismatch extends Error {
  override name = 'GraphDeltaMismatch'
}

/** One table per relationship name (CO_CHANGED links files and symbols in one table). */
const REL_NAMES = [...new Set(TABLES.filter((d) => d.kind === 'rel').map((d) => d.name))]

/** Every relationship table's rows, in one scan (~10 ms on vuejs/core's graph, where a query per table took ~35). */
export async function countRels(conn: Connection): Promise<Map<string, number>> {
  const counts = new Map(REL_NAMES.map((name) => [name, 0]))
  for (const row of await execute(conn, await prepare(conn, 'MATCH ()-[r]->() RETURN label(r) AS t, count(*) AS n'), {})) counts.set(String(row.t), Number(row.n))
  return counts
}

/** These relationship tables' rows, a query each. */
async function countRelsOf(conn: Connection, names: Iterable<string>): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  for (const name of names) counts.set(name, Number((await execute(conn, await prepare(conn, countStatement(name)), {}))[0].n))
  return counts
}

const countStatement = (rel: string) => `MATCH ()-[r:${rel}]->() RETURN count(*) AS n`

/**
 * A graph's rows per relationship table, as counted when it was written (a load's or a delta's
 * finish): where the next update's ledger starts, so that opening the copy need not count them.
 */
export type GraphRels = Record<string, number>

/** The ledger's start from recorded counts; null when they do not name every table (an index from before). */
function knownRels(rels: GraphRels | undefined): Map<string, number> | null {
  if (!rels || !REL_NAMES.every((name) => Number.isSafeInteger(rels[name]) && rels[name] >= 0)) return null
  return new Map(REL_NAMES.map((name) => [name, rels[name]]))
}

/** The relationship table of that name between these node tables. */
function relDef(name: string, from: string, to: string): RelDef {
  const def = tableDefs(name).find((d): d is RelDef => d.kind === 'rel' && d.from.table === from && d.to.table === to)
  if (!def) throw new Error(`no relationship table ${name} from ${from} to ${to}`)
  return def
}

function inserted(s: DeltaSession, def: RelDef, n: number): void {
  if (n === 0) return
  s.ledger.expected.set(def.name, s.ledger.expected.get(def.name)! + n)
  s.ledger.pending.delete(def)
  written(s, def.name)
}

function deleted(s: DeltaSession, def: RelDef, n: number): void {
  if (n === 0) return
  s.ledger.expected.set(def.name, s.ledger.expected.get(def.name)! - n)
  s.ledger.pending.add(def)
  written(s, def.name)
}

/** A relationship table the delta writes: counted at the finish, unless a checkpoint between parts counts it after this. */
function written(s: DeltaSession, name: string): void {
  s.ledger.touched.add(name)
  s.ledger.counted.delete(name)
}

/** Deletes by a statement that returns how many rows it deleted (`n`), from this table. */
async function deleteCounted(s: DeltaSession, def: RelDef, statement: string, rows: Array<Record<string, unknown>>): Promise<void> {
  if (rows.length > 0) deleted(s, def, await runBatched(s.conn, statement, rows))
}

/**
 * Deletes nodes with their relationships, counted by table. Not DETACH DELETE: in Kuzu 0.11.3 it
 * can leave a relationship behind (on vuejs/core, one of renderer.ts's 224 calls stayed in the
 * table, its caller gone), where deleting the relationships first leaves none.
 */
async function deleteNodes(s: DeltaSession, node: string, where: string, params: Record<string, unknown>): Promise<void> {
  const [outgoing, incoming, nodes] = deleteNodeStatements(node, where)
  for (const row of await execute(s.conn, await prepare(s.conn, outgoing), params)) deleted(s, relDef(String(row.t), node, String(row.o)), Number(row.n))
  for (const row of await execute(s.conn, await prepare(s.conn, incoming), params)) deleted(s, relDef(String(row.t), String(row.o), node), Number(row.n))
  await run(s.conn, nodes, params)
}

/** Deleting nodes `x` where a condition holds: their outgoing relationships, their incoming ones, themselves. */
function deleteNodeStatements(node: string, where: string): [string, string, string] {
  const rels = (pattern: string) => `MATCH ${pattern} WHERE ${where} DELETE r RETURN label(r) AS t, label(o) AS o, count(*) AS n`
  return [rels(`(x:${node})-[r]->(o)`), rels(`(o)-[r]->(x:${node})`), `MATCH (x:${node}) WHERE ${where} DELETE x`]
}

/**
 * A guard row in every table with deletions and no insertion since: between two nodes that no row
 * of the table links yet, with no property set (a real row has them).
 */
async function guardPending(s: DeltaSession): Promise<void> {
  if (s.ledger.guarding) for (const def of s.ledger.pending) {
    const pair = await unlinkedPair(s, def)
    if (!pair) continue
    await createGuard(s, def, pair[0], pair[1])
    s.ledger.guards.push({ def, from: pair[0], to: pair[1] })
  }
  s.ledger.pending.clear()
}

/** Candidates of each end tried for a guard's pair before a search of the whole table. */
const GUARD_CANDIDATES = 8

/**
 * Two nodes the table does not link: a few of each end's nodes, each pair looked up by its keys
 * (an anti-join of a node with a whole table cost ~50 ms a table on vuejs/core's graph, ~0.5 s
 * over one update's guards); a search of the other end's table only when all those are linked.
 */
async function unlinkedPair(s: DeltaSession, def: RelDef): Promise<[unknown, unknown] | null> {
  const [fromKey, toKey] = [primaryKey(def.from.table), primaryKey(def.to.table)]
  const some = async (table: string, key: string) => (await execute(s.conn, await prepare(s.conn, `MATCH (a:${table}) RETURN a.${key} AS k LIMIT ${GUARD_CANDIDATES}`), {})).map((r) => r.k)
  const froms = await some(def.from.table, fromKey)
  if (froms.length === 0) return null
  const tos = await some(def.to.table, toKey)
  const linked = await prepare(s.conn, `MATCH (a:${def.from.table} {${fromKey}: $a})-[:${def.name}]->(b:${def.to.table} {${toKey}: $b}) RETURN count(*) AS n`)
  for (const a of froms) for (const b of tos) if (Number((await execute(s.conn, linked, { a, b }))[0].n) === 0) return [a, b]
  const to = await execute(s.conn, await prepare(s.conn, `MATCH (a:${def.from.table} {${fromKey}: $a}), (b:${def.to.table}) WHERE NOT (a)-[:${def.name}]->(b) RETURN b.${toKey} AS k LIMIT 1`), { a: froms[0] })
  return to.length === 0 ? null : [froms[0], to[0].k]
}

/**
 * Deletes the guard rows: those between its two nodes with no property set (a relationship without
 * properties: any of them). A real row the delta added there since and that looks the same is put
 * back: rows with the same ends and properties are the same row to every query.
 */
async function dropGuards(s: DeltaSession): Promise<void> {
  for (const { def, from, to } of s.ledger.guards) {
    const ends = `(a:${def.from.table} {${primaryKey(def.from.table)}: $a})-[r:${def.name}]->(b:${def.to.table} {${primaryKey(def.to.table)}: $b})`
    const unset = def.columns.map((c) => ` AND r.${c.name} IS NULL`).join('').replace(' AND', ' WHERE')
    written(s, def.name)
    const out = await execute(s.conn, await prepare(s.conn, `MATCH ${ends}${unset} DELETE r RETURN count(*) AS n`), { a: from, b: to })
    const n = Number(out[0]?.n ?? 0)
    // none: it went with a node the delta deleted (a replaced community), counted then
    s.ledger.expected.set(def.name, s.ledger.expected.get(def.name)! - n)
    for (let i = 1; i < n; i++) await createGuard(s, def, from, to)
  }
  s.ledger.guards = []
}

async function createGuard(s: DeltaSession, def: RelDef, from: unknown, to: unknown): Promise<void> {
  written(s, def.name)
  await execute(s.conn, await prepare(s.conn, `MATCH (a:${def.from.table} {${primaryKey(def.from.table)}: $a}), (b:${def.to.table} {${primaryKey(def.to.table)}: $b}) CREATE (a)-[:${def.name}]->(b)`), { a: from, b: to })
  s.ledger.expected.set(def.name, s.ledger.expected.get(def.name)! + 1)
}

async function openDelta(dbPath: string, guarding: boolean, rels?: GraphRels): Promise<DeltaSession> {
  // no automatic checkpoints: one could come between a deletion and its guard (RelLedger)
  const db = new kuzu.Database(dbPath, DELTA_BUFFER_POOL_BYTES, true, false, 0, false)
  await db.init()
  const conn = new kuzu.Connection(db)
  try {
    await conn.init()
    // the copy's relationships as its build counted them (GraphRels), or counted now (~45 ms on prettier)
    const expected = knownRels(rels) ?? (await countRels(conn))
    return { db, conn, ledger: { guarding, expected, pending: new Set(), guards: [], touched: new Set(), counted: new Map() }, keptDocs: new Set(), snapshots: true }
  } catch (error) {
    await conn.close()
    await db.close()
    throw error
  }
}

/**
 * Applies a delta (or a part of one: an update sends what the history gives as soon as it is
 * known, and the analytics and code graph later). Its deletions go before its insertions.
 */
async function applyDelta(s: DeltaSession, delta: Partial<GraphDelta>): Promise<void> {
  const { conn } = s
  if (delta.deleteSymbols && delta.deleteSymbols.length > 0) await deleteNodes(s, 'Symbol', SYMBOLS_BY_ID, { ids: delta.deleteSymbols })
  await deleteCounted(s, relDef('CONTAINS', 'Symbol', 'Symbol'), `${unwindKeys('parent', 'child')} MATCH (x:Symbol)-[e:CONTAINS]->(y:Symbol) WHERE x.id = k_parent AND y.id = k_child DELETE e RETURN count(*) AS n`, (delta.removeContains ?? []).map((r) => ({ ...r })))
  // the kept symbols' history rows that differ go now, those to insert join the delta's own
  const history = delta.syncHistory ? await syncHistory(s, delta.syncHistory) : { changed: [], blamedOn: [] }
  if (delta.updateSymbols && delta.updateSymbols.length > 0) {
    const columns = tableDef('Symbol').columns.filter((c) => c.name !== 'id' && c.name !== 'search' && !ACTIVITY_COLUMNS.some((a) => a.name === c.name))
    await setNodes(conn, 'Symbol', 'id', columns, insertRows(tableDef('Symbol'), delta.updateSymbols as unknown as Array<Record<string, unknown>>))
  }
  if (delta.syncSymbolDocsOf && delta.syncSymbolDocsOf.length > 0) await syncSymbolDocs(s, delta.syncSymbolDocsOf, delta.insert?.docs ?? [])
  if (delta.removeDocs && delta.removeDocs.length > 0) {
    const ids = { ids: delta.removeDocs }
    await run(conn, DELETE_VECTORS_BY_ID, ids)
    await run(conn, DELETE_DOCS_BY_ID, ids)
  }
  if (delta.renameAuthors && delta.renameAuthors.length > 0) {
    // every update's authors are here, most of them unchanged (setNodes then sets nothing)
    await setNodes(conn, 'Author', 'email', tableDef('Author').columns.filter((c) => c.name !== 'email'), delta.renameAuthors.map((a) => ({ ...a })))
  }
  if (delta.updateFiles && delta.updateFiles.length > 0) await setNodes(conn, 'File', 'path', FILE_COLUMNS(), delta.updateFiles.map((f) => activityParams(f)))
  if (delta.activity) {
    await runBatched(conn, SET_ACTIVITY.files, delta.activity.files.map(activityParams), ACTIVITY_BATCH)
    await runBatched(conn, SET_ACTIVITY.symbols, delta.activity.symbols.map(activityParams), ACTIVITY_BATCH)
  }
  const a = delta.analytics
  if (a) {
    await deleteCounted(s, relDef('CO_CHANGED', 'File', 'File'), DELETE_CO_CHANGED.files, a.removeFileCoChanges.map((r) => ({ ...r })))
    await deleteCounted(s, relDef('CO_CHANGED', 'Symbol', 'Symbol'), DELETE_CO_CHANGED.symbols, a.removeSymbolCoChanges.map((r) => ({ ...r })))
    await setCoChanges(s, relDef('CO_CHANGED', 'File', 'File'), SET_CO_CHANGED.files, a.setFileCoChanges)
    await setCoChanges(s, relDef('CO_CHANGED', 'Symbol', 'Symbol'), SET_CO_CHANGED.symbols, a.setSymbolCoChanges)
    if (a.replaceCommunities) await deleteNodes(s, 'Community', 'true', {})
  }
  const ownedBy = a && a.ownershipOf.length > 0 ? await syncOwnership(s, a.ownershipOf, delta.insert?.ownedBy ?? []) : delta.insert?.ownedBy
  // none to replace (an index without trajectory snapshots): ~10 ms of deletes that find nothing
  if (delta.replaceSnapshots && s.snapshots) await deleteNodes(s, 'Snapshot', 'true', {})
  const code = delta.codeGraph
  if (code) {
    await deleteCounted(s, relDef('CALLS', 'Symbol', 'Symbol'), `${unwindKeys('from', 'to')} MATCH (x:Symbol)-[e:CALLS]->(y:Symbol) WHERE x.id = k_from AND y.id = k_to AND e.line = r.line DELETE e RETURN count(*) AS n`, code.calls.map((r) => ({ ...r })))
    await deleteCounted(s, relDef('EXTENDS', 'Symbol', 'Symbol'), `${unwindKeys('from', 'to')} MATCH (x:Symbol)-[e:EXTENDS]->(y:Symbol) WHERE x.id = k_from AND y.id = k_to DELETE e RETURN count(*) AS n`, code.extends.map((r) => ({ ...r })))
    await deleteCounted(s, relDef('IMPLEMENTS', 'Symbol', 'Symbol'), `${unwindKeys('from', 'to')} MATCH (x:Symbol)-[e:IMPLEMENTS]->(y:Symbol) WHERE x.id = k_from AND y.id = k_to DELETE e RETURN count(*) AS n`, code.implements.map((r) => ({ ...r })))
    await deleteCounted(s, relDef('IMPORTS', 'File', 'File'), `${unwindKeys('from', 'to')} MATCH (x:File)-[e:IMPORTS]->(y:File) WHERE x.path = k_from AND y.path = k_to DELETE e RETURN count(*) AS n`, code.imports.map((r) => ({ ...r })))
    if (code.processes.length > 0) await deleteNodes(s, 'Process', 'x.id IN $ids', { ids: code.processes })
    if (code.moveCalls && code.moveCalls.length > 0) await moveCalls(s, code.moveCalls)
  }
  // a symbol goes in with the DEFINES edge from its file, in one statement: a DEFINES COPY after
  // the symbols' CREATEs took 150–220 ms on vuejs/core's graph, however few its rows
  const definedIn = new Map((delta.insert?.defines ?? []).map((d) => [d.symbol, d.path]))
  const defined = new Set<string>()
  const fresh = <T extends { row: number }>(rows: T[] | undefined) => rows?.filter((r) => !s.keptDocs.has(r.row))
  const rowsOf: Partial<GraphData> = {
    ...delta.insert,
    changed: [...(delta.insert?.changed ?? []), ...history.changed],
    blamedOn: [...(delta.insert?.blamedOn ?? []), ...history.blamedOn],
    docs: fresh(delta.insert?.docs),
    docVectors: fresh(delta.insert?.docVectors),
    ownedBy,
  }
  for (const def of TABLES) {
    let rows = rowsOf[def.rows] as ReadonlyArray<Record<string, unknown>> | undefined
    if (!rows || rows.length === 0) continue
    if (def.name === 'Symbol' && def.kind === 'node') {
      await insertSymbols(s, def, rows, definedIn, defined)
      continue
    }
    if (def.name === 'DEFINES') rows = rows.filter((d) => !defined.has(String(d.symbol)))
    if (def.name === 'Snapshot') s.snapshots = true
    if (rows.length > 0) await insert(s, def, insertRows(def, rows))
  }
  if ((rowsOf.docVectors?.length ?? 0) > 0) await indexVectors(conn)
  await updateNodes(conn, 'PullRequest', delta.updatePullRequests)
  await updateNodes(conn, 'Issue', delta.updateIssues)
  if (delta.decisions) await replaceDecisions(s, delta.decisions)
}

/**
 * Each call's edge matched by its source, callee, line, confidence and reason, its line set: the
 * edges of a batch of sources are read first (`x.id IN $froms`) and each is set by the row that
 * names it, so Kuzu matches every edge by the line it had before the statement and a call moving
 * onto another's old line is moved once (test/graph/delta-move-calls.test.ts: thousands of calls
 * to one callee, every one moving onto the next one's line). A statement per source cost ~3–6 ms
 * apiece: vuejs/core's edit in `patchElement` moved 171 calls of 24 sources in 124–150 ms, in one
 * statement 22–29 ms; git/git's 760 calls of 64 sources (an edit at the top of `builtin/log.c`)
 * 453–506 → 224 ms. A batch holds up to MOVE_ROWS rows (each row is compared with every edge of
 * the batch's sources). Every edge must be found: otherwise the graph is not what the update meant.
 */
async function moveCalls(s: DeltaSession, moves: NonNullable<NonNullable<GraphDelta['codeGraph']>['moveCalls']>): Promise<void> {
  // one row per edge key (two calls alike on one line are one row, which sets both), by source
  const bySource = new Map<string, Map<string, Record<string, unknown>>>()
  const params = insertRows(relDef('CALLS', 'Symbol', 'Symbol'), moves)
  moves.forEach((m, i) => {
    const some = bySource.get(m.from) ?? new Map<string, Record<string, unknown>>()
    // as insertRows gives them (a DOUBLE as text), with the line to set
    some.set(`${m.to}\0${m.line}\0${m.confidence}\0${m.reason}`, { ...params[i], to_line: m.to_line })
    bySource.set(m.from, some)
  })
  written(s, 'CALLS')
  const statement = await prepare(s.conn, MOVE_CALLS)
  let found = 0
  let froms: string[] = []
  let rows: Array<Record<string, unknown>> = []
  const flush = async () => {
    if (froms.length > 0) found += Number((await execute(s.conn, statement, { froms, rows }))[0]?.n ?? 0)
    froms = []
    rows = []
  }
  for (const [from, some] of bySource) {
    if (rows.length > 0 && rows.length + some.size > MOVE_ROWS) await flush()
    froms.push(from)
    rows.push(...some.values())
  }
  await flush()
  if (found !== moves.length) throw new GraphDeltaMismatch(`the calls that moved: ${found} found of ${moves.length}`)
}
const MOVE_CALLS = "MATCH (x:Symbol)-[e:CALLS]->(y:Symbol) WHERE x.id IN $froms WITH x, e, y UNWIND $rows AS r WITH x, e, y, r WHERE x.id = r.__from AND y.id = r.__to AND e.line = r.line AND e.confidence = cast(r.confidence, 'DOUBLE') AND e.reason = r.reason SET e.line = r.to_line RETURN count(*) AS n"
/** Rows per moveCalls statement. */
const MOVE_ROWS = 500

/** The vector index a full build would now make, once the update's vectors bring DocVector to vectorIndexRows(). */
async function indexVectors(conn: Connection): Promise<void> {
  const [{ n: vectors }] = await execute(conn, await prepare(conn, `MATCH (v:${VECTOR_INDEX.table}) RETURN count(*) AS n`), {})
  if (Number(vectors) < vectorIndexRows()) return
  const [{ n: indexes }] = await execute(conn, await prepare(conn, HAS_VECTOR_INDEX), {})
  if (Number(indexes) > 0) return
  // not prepared: Kuzu runs it as several statements, which it cannot prepare
  const result = await conn.query(createVectorIndexStatement())
  for (const r of Array.isArray(result) ? result : [result]) r.close()
}

/** What an update's last part (the analytics' rows) runs: an update's File rows, activity, co-change and ownership. */
const FILE_COLUMNS = () => tableDef('File').columns.filter((c) => c.name !== 'path')
const SET_ACTIVITY = {
  files: `${unwindKeys('path')} MATCH (f:File) WHERE f.path = k_path SET ${ACTIVITY_SET('f')}`,
  symbols: `${unwindKeys('id')} MATCH (s:Symbol) WHERE s.id = k_id SET ${ACTIVITY_SET('s')}`,
}
/**
 * Activity rows per SET: each statement scans its table once (unwindKeys), so the thousands an
 * update sets when the recent window moves go in few (rails' first update after its build: 5,194
 * symbols in 2,000-row statements 147 + 98 + 51 ms, in one ~211 ms).
 */
const ACTIVITY_BATCH = 20_000
/**
 * `SET` of every property of a relationship `e` from rows as insertRows gives them (ends as
 * `__from` and `__to`, a DOUBLE as text: Kuzu types a list parameter from its first row, and 2
 * after 26.7 read the other's bits).
 */
const setRelColumns = (def: TableDef) => def.columns.map((c) => `e.${c.name} = ${cast(c)}`).join(', ')
const ENDS = unwindKeys('__from', '__to')
const SET_CO_CHANGED = {
  files: `${ENDS} MATCH (x:File)-[e:CO_CHANGED]->(y:File) WHERE x.path = k___from AND y.path = k___to SET ${setRelColumns(relDef('CO_CHANGED', 'File', 'File'))} RETURN count(*) AS n`,
  symbols: `${ENDS} MATCH (x:Symbol)-[e:CO_CHANGED]->(y:Symbol) WHERE x.id = k___from AND y.id = k___to SET ${setRelColumns(relDef('CO_CHANGED', 'Symbol', 'Symbol'))} RETURN count(*) AS n`,
}

/** Sets the co-change pairs' numbers: every pair must be found once, or the graph is not what the update meant. */
async function setCoChanges(s: DeltaSession, def: RelDef, statement: string, rows: CoChangeRow[] | undefined): Promise<void> {
  if (!rows || rows.length === 0) return
  written(s, def.name)
  const n = await runBatched(s.conn, statement, insertRows(def, rows as unknown as Array<Record<string, unknown>>))
  if (n !== rows.length) throw new GraphDeltaMismatch(`co-change pairs to set: ${n} found of ${rows.length}`)
}
const DELETE_CO_CHANGED = {
  files: `${unwindKeys('a', 'b')} MATCH (x:File)-[e:CO_CHANGED]->(y:File) WHERE x.path = k_a AND y.path = k_b DELETE e RETURN count(*) AS n`,
  symbols: `${unwindKeys('a', 'b')} MATCH (x:Symbol)-[e:CO_CHANGED]->(y:Symbol) WHERE x.id = k_a AND y.id = k_b DELETE e RETURN count(*) AS n`,
}
const OWNERSHIP_OF = 'MATCH (f:File)-[e:OWNED_BY]->(a:Author) WHERE f.path IN $paths RETURN f.path AS path, a.email AS email, e.lines AS lines, e.share AS share'
const OWNER_EDGE = `${ENDS} MATCH (f:File)-[e:OWNED_BY]->(a:Author) WHERE f.path = k___from AND a.email = k___to`
const SET_OWNERSHIP = `${OWNER_EDGE} SET ${setRelColumns(relDef('OWNED_BY', 'File', 'Author'))}`
const DELETE_OWNERSHIP = `${OWNER_EDGE} DELETE e RETURN count(*) AS n`

/**
 * The OWNED_BY rows of these files made equal to the wanted ones (those of `want` on these paths):
 * an author's row that stays has its lines and share set, the others are deleted; the rows to
 * insert are returned (with `want`'s rows on other paths). An edit moves every share of its file,
 * and deleting and inserting the file's rows by COPY checkpointed (COPY does) what the part had
 * written before it: the symbols' full-text index, ~90–130 ms on git/git.
 */
async function syncOwnership(s: DeltaSession, paths: string[], want: GraphData['ownedBy']): Promise<GraphData['ownedBy']> {
  const files = new Set(paths)
  const key = (r: Record<string, unknown>) => `${String(r.path)}\0${String(r.email)}`
  const have = new Map<string, Record<string, unknown>>()
  const stored = await execute(s.conn, await prepare(s.conn, OWNERSHIP_OF), { paths })
  for (const r of stored) have.set(key(r), r)
  // a pair stored twice (no build writes one) is not told apart by a SET: all go, the wanted come back
  const setting = have.size === stored.length
  const set: GraphData['ownedBy'] = []
  const insert: GraphData['ownedBy'] = []
  for (const r of want) {
    const k = key(r)
    const h = setting && files.has(r.path) ? have.get(k) : undefined
    if (!h) {
      insert.push(r)
      continue
    }
    have.delete(k)
    if (Number(h.lines) !== r.lines || Number(h.share) !== r.share) set.push(r)
  }
  const def = relDef('OWNED_BY', 'File', 'Author')
  const gone = setting ? [...have.values()] : [...new Map(stored.map((r) => [key(r), r])).values()]
  await deleteCounted(s, def, DELETE_OWNERSHIP, gone.map((r) => ({ __from: r.path, __to: r.email })))
  if (set.length > 0) {
    written(s, def.name)
    await runBatched(s.conn, SET_OWNERSHIP, insertRows(def, set as unknown as Array<Record<string, unknown>>))
  }
  return insert
}

/**
 * Prepares what an update's last part and its finish run (most of them: a SET of changed strings
 * differs by which), while the graph waits for that part after the checkpoint between parts:
 * ~15–20 ms of statements that the update's last steps would prepare on its path (prettier).
 */
async function warmLastPart({ conn }: DeltaSession): Promise<void> {
  const file = FILE_COLUMNS()
  const statements = [
    readStringsStatement('File', 'path', file.filter((c) => c.type === 'STRING')),
    setStatement('File', 'path', file.filter((c) => c.type !== 'STRING')),
    SET_ACTIVITY.files,
    SET_ACTIVITY.symbols,
    DELETE_CO_CHANGED.files,
    DELETE_CO_CHANGED.symbols,
    SET_CO_CHANGED.files,
    SET_CO_CHANGED.symbols,
    OWNERSHIP_OF,
    SET_OWNERSHIP,
    DELETE_OWNERSHIP,
    createRelStatement(relDef('OWNED_BY', 'File', 'Author')),
    createRelStatement(relDef('CO_CHANGED', 'File', 'File')),
    createRelStatement(relDef('CO_CHANGED', 'Symbol', 'Symbol')),
    'CHECKPOINT',
    ...COUNTS.flatMap(([, how]) => ('query' in how ? [how.query] : [])),
    // the finish's counts of the tables an update writes (countRelsOf)
    ...REL_NAMES.map(countStatement),
  ]
  for (const statement of statements) await prepare(conn, statement)
}

/**
 * SET of existing nodes' `columns` from `rows` (parameters as insertRows gives them), matched by
 * `key`: every column but the strings for every row, a string only where its value changes (the
 * rows grouped by which change, a statement each). Kuzu 0.11.3 writes a SET string out anew at
 * the next checkpoint with its node group's string pages, and does not give the old ones back:
 * setting one symbol's unchanged strings grew vuejs/core's graph file by 4 MB per update and cost
 * ~35 ms more of checkpoint; setting its end line alone, nothing and ~9 ms.
 */
async function setNodes(conn: Connection, table: string, key: string, columns: ColumnDef[], rows: Array<Record<string, unknown>>, known?: Map<string, Record<string, unknown>>): Promise<void> {
  const strings = columns.filter((c) => c.type === 'STRING')
  const others = columns.filter((c) => c.type !== 'STRING')
  // the stored strings by key, when the caller has read them (`known`), else read now
  const stored = known ?? new Map<string, Record<string, unknown>>()
  if (strings.length > 0 && !known) {
    for (const r of await execute(conn, await prepare(conn, readStringsStatement(table, key, strings)), { keys: rows.map((r) => r[key]) })) stored.set(String(r.__key), r)
  }
  const groups = new Map<string, { set: ColumnDef[]; rows: Array<Record<string, unknown>> }>()
  for (const row of rows) {
    const have = stored.get(String(row[key]))
    const set = [...others, ...strings.filter((c) => !have || (have[c.name] ?? null) !== (row[c.name] ?? null))]
    if (set.length === 0) continue
    const signature = set.map((c) => c.name).join(',')
    let group = groups.get(signature)
    if (!group) groups.set(signature, (group = { set, rows: [] }))
    group.rows.push(row)
  }
  for (const { set, rows: some } of groups.values()) await runBatched(conn, setStatement(table, key, set), some)
}

/** What setNodes reads: the stored strings of the rows' nodes. */
const readStringsStatement = (table: string, key: string, strings: ColumnDef[]) =>
  `MATCH (n:${table}) WHERE n.${key} IN $keys RETURN n.${key} AS __key, ${strings.map((c) => `n.${c.name} AS ${c.name}`).join(', ')}`

/** What setNodes sets: these columns of the rows' nodes. */
const setStatement = (table: string, key: string, set: ColumnDef[]) => `${unwindKeys(key)} MATCH (n:${table}) WHERE n.${key} = k_${key} SET ${set.map((c) => `n.${c.name} = ${cast(c)}`).join(', ')}`

/** Every property but the primary key of existing nodes of a table, set from the rows (matched by the key). */
async function updateNodes(conn: Connection, table: 'PullRequest' | 'Issue', rows: ReadonlyArray<PullRequestRow | IssueRow> | undefined): Promise<void> {
  if (!rows || rows.length === 0) return
  const def = tableDef(table)
  const [key, ...columns] = def.columns
  await setNodes(conn, table, key.name, columns, insertRows(def, rows as unknown as Array<Record<string, unknown>>))
}

/**
 * All decisions out, these in: their edges where both ends are in the graph, decided as a full
 * build decides (decisionTables), over the ends the graph has.
 */
async function replaceDecisions(s: DeltaSession, g: DecisionGraph): Promise<void> {
  const { conn } = s
  await deleteNodes(s, 'Decision', 'true', {})
  const named = namedEnds(g)
  const keys = async <T>(statement: string, params: { k?: unknown[] }): Promise<T[]> => params.k?.length === 0 ? [] : (await execute(conn, await prepare(conn, statement), params)).map((r) => r.k as T)
  const files = g.governsDirectory.length > 0 || g.governsFile.length > 0 || g.evidencedByDocument.length > 0 ? await keys<string>('MATCH (f:File) RETURN f.path AS k', {}) : []
  const ends = {
    files,
    symbols: new Set(await keys<string>('MATCH (s:Symbol) WHERE s.id IN $k RETURN s.id AS k', { k: named.symbols })),
    commits: new Set(await keys<string>('MATCH (c:Commit) WHERE c.sha IN $k RETURN c.sha AS k', { k: named.commits })),
    pullRequests: new Set((await keys<number>('MATCH (p:PullRequest) WHERE p.number IN $k RETURN p.number AS k', { k: named.pullRequests })).map(Number)),
    issues: new Set((await keys<number>('MATCH (i:Issue) WHERE i.number IN $k RETURN i.number AS k', { k: named.issues })).map(Number)),
    communities: new Set(await keys<string>('MATCH (c:Community) WHERE c.id IN $k RETURN c.id AS k', { k: named.communities })),
  }
  const rows = decisionTables(g, ends)
  for (const def of TABLES) {
    const table = rows[def.rows] as ReadonlyArray<Record<string, unknown>> | undefined
    if (def.rows === 'decisions' && table && table.length > 0) await runBatched(conn, insertStatement(def), insertRows(def, table))
    else if (table && table.length > 0) await insert(s, def, insertRows(def, table))
  }
}

const SYMBOLS_BY_ID = 'x.id IN $ids'

/**
 * The CHANGED and BLAMED_ON rows of kept symbols made equal to these: the rows are compared as
 * multisets (a row's ends and properties); where a row's count differs, every copy goes and the
 * wanted number come back with the delta's inserts (returned).
 */
async function syncHistory(s: DeltaSession, want: NonNullable<GraphDelta['syncHistory']>): Promise<Pick<GraphData, 'changed' | 'blamedOn'>> {
  if (want.symbols.length === 0) return { changed: [], blamedOn: [] }
  const ids = { ids: want.symbols }
  const changed = await syncRows(
    s,
    relDef('CHANGED', 'Commit', 'Symbol'),
    await execute(s.conn, await prepare(s.conn, 'MATCH (c:Commit)-[e:CHANGED]->(x:Symbol) WHERE x.id IN $ids RETURN c.sha AS sha, x.id AS symbol, e.added AS added, e.removed AS removed'), ids),
    want.changed,
    (r) => `${r.sha}\0${r.symbol}\0${r.added}\0${r.removed}`,
    'MATCH (:Commit {sha: $sha})-[e:CHANGED]->(:Symbol {id: $symbol}) WHERE e.added = $added AND e.removed = $removed DELETE e RETURN count(*) AS n',
  )
  const blamedOn = await syncRows(
    s,
    relDef('BLAMED_ON', 'Symbol', 'Commit'),
    await execute(s.conn, await prepare(s.conn, 'MATCH (x:Symbol)-[e:BLAMED_ON]->(c:Commit) WHERE x.id IN $ids RETURN x.id AS symbol, c.sha AS sha, e.lines AS lines'), ids),
    want.blamedOn,
    (r) => `${r.symbol}\0${r.sha}\0${r.lines}`,
    'MATCH (:Symbol {id: $symbol})-[e:BLAMED_ON]->(:Commit {sha: $sha}) WHERE e.lines = $lines DELETE e RETURN count(*) AS n',
  )
  return { changed, blamedOn }
}

/** Deletes the rows whose count differs from the wanted one (one statement per distinct row); the wanted rows to insert. */
async function syncRows<T extends Record<string, unknown>>(s: DeltaSession, def: RelDef, have: Array<Record<string, unknown>>, want: T[], key: (r: Record<string, unknown>) => string, remove: string): Promise<T[]> {
  const counts = new Map<string, { have: number; row: Record<string, unknown> }>()
  for (const r of have) {
    const k = key(r)
    const c = counts.get(k)
    if (c) c.have++
    else counts.set(k, { have: 1, row: r })
  }
  const wanted = new Map<string, T[]>()
  for (const r of want) {
    const k = key(r)
    const list = wanted.get(k)
    if (list) list.push(r)
    else wanted.set(k, [r])
  }
  const out: T[] = []
  const statement = await prepare(s.conn, remove)
  for (const [k, { have: n, row }] of counts) {
    if ((wanted.get(k)?.length ?? 0) === n) continue
    deleted(s, def, Number((await execute(s.conn, statement, row))[0]?.n ?? 0))
  }
  for (const [k, rows] of wanted) if ((counts.get(k)?.have ?? 0) !== rows.length) out.push(...rows)
  return out
}

const SYMBOL_DOC_COLUMNS = 'd.row AS row, d.id AS id, d.ref AS ref, d.line AS line, d.title AS title, d.text AS text, d.search AS search, d.hash AS hash'
const SYMBOL_DOC_ROWS = "MATCH (d:Doc) WHERE d.kind = 'symbol' AND d.path IN $paths RETURN d.row AS row"
const SYMBOL_DOC_AT = `MATCH (d:Doc {row: $row}) RETURN ${SYMBOL_DOC_COLUMNS}`
const SYMBOL_DOCS_AT = `MATCH (d:Doc) WHERE d.row IN $rows RETURN ${SYMBOL_DOC_COLUMNS}`
/**
 * Up to this many documents are read by key one at a time (~0.45 ms apiece on a just opened
 * copy of git/git's graph), more by one statement over their keys (~0.11 s for 50 of them, ~0.16
 * s for 1,000, ~0.41 s for 5,000).
 */
export const SYMBOL_DOC_LOOKUPS = 250

/**
 * The symbol documents of these files with their columns. A scan that returns the texts reads
 * every document's (git/git's 97,000: ~0.18 s for `builtin/log.c`'s 78 on an update's graph, 0.5
 * s cold for 200 files'); their rows alone take ~10 ms, and then their columns are read by key.
 */
export async function symbolDocsOf(conn: Connection, paths: string[], lookups = SYMBOL_DOC_LOOKUPS): Promise<Array<Record<string, unknown>>> {
  const rows = await execute(conn, await prepare(conn, SYMBOL_DOC_ROWS), { paths })
  if (rows.length > lookups) return execute(conn, await prepare(conn, SYMBOL_DOCS_AT), { rows: rows.map((r) => r.row) })
  const at = await prepare(conn, SYMBOL_DOC_AT)
  const out: Array<Record<string, unknown>> = []
  for (const r of rows) for (const doc of await execute(conn, at, { row: r.row })) out.push(doc)
  return out
}
const DELETE_VECTORS_BY_ROW = 'MATCH (v:DocVector) WHERE v.row IN $rows DELETE v'
const DELETE_DOCS_BY_ROW = 'MATCH (d:Doc) WHERE d.row IN $rows DELETE d'
const SET_DOC_COLUMNS = ['ref', 'line', 'title', 'text']

/**
 * syncSymbolDocsOf: most of an edited file's documents differ from the stored ones by their line
 * at most, and deleting and re-inserting full-text indexed rows is what costs a delta's checkpoint.
 */
async function syncSymbolDocs(s: DeltaSession, paths: string[], docs: ReadonlyArray<DocRow>): Promise<void> {
  const files = new Set(paths)
  const wanted = new Map(docs.filter((d) => d.kind === 'symbol' && files.has(d.path)).map((d) => [d.id, d]))
  const gone: number[] = []
  const set: Array<Record<string, unknown>> = []
  // the stored documents' strings, by row, for setNodes: reading them again scanned every document (~60–115 ms on git/git)
  const stored = new Map<string, Record<string, unknown>>()
  for (const have of await symbolDocsOf(s.conn, paths)) {
    const want = wanted.get(String(have.id))
    if (!want || want.search !== have.search || want.hash !== have.hash || s.keptDocs.has(want.row)) {
      gone.push(Number(have.row))
      continue
    }
    s.keptDocs.add(want.row)
    if (want.ref !== have.ref || want.line !== Number(have.line) || want.title !== have.title || want.text !== have.text) {
      set.push({ row: Number(have.row), ref: want.ref, line: want.line, title: want.title, text: want.text })
      stored.set(String(have.row), have)
    }
  }
  if (gone.length > 0) {
    await run(s.conn, DELETE_VECTORS_BY_ROW, { rows: gone })
    await run(s.conn, DELETE_DOCS_BY_ROW, { rows: gone })
  }
  if (set.length > 0) await setNodes(s.conn, 'Doc', 'row', tableDef('Doc').columns.filter((c) => SET_DOC_COLUMNS.includes(c.name)), set, stored)
}
const DELETE_VECTORS_BY_ID = 'MATCH (d:Doc), (v:DocVector) WHERE d.id IN $ids AND v.row = d.row DELETE v'
const DELETE_DOCS_BY_ID = 'MATCH (d:Doc) WHERE d.id IN $ids DELETE d'

/** A symbol with the DEFINES edge from its file. */
function symbolWithFileStatement(def: TableDef): string {
  return `MATCH (f:File {path: $__path}) CREATE (f)-[:DEFINES]->(:${def.name} {${def.columns.map((c) => `${c.name}: ${cast(c, '$')}`).join(', ')}}) RETURN count(*) AS made`
}

/**
 * Prepares what an update's first part (the history's rows) runs, while the opened graph waits
 * for them: the deletions of the re-walked files' symbols, the new commits, symbols, documents
 * and their edges. ~0.1 s of statements prepared off the update's path.
 */
async function warmDelta(s: DeltaSession): Promise<void> {
  const { conn } = s
  const statements = [...deleteNodeStatements('Symbol', SYMBOLS_BY_ID), SYMBOL_DOC_ROWS, SYMBOL_DOC_AT, SYMBOL_DOCS_AT, DELETE_VECTORS_BY_ROW, DELETE_DOCS_BY_ROW]
  for (const def of TABLES) {
    if (def.name === 'Symbol') statements.push(insertStatement(def), symbolWithFileStatement(def))
    else if (def.name === 'Doc' || def.name === 'Commit') statements.push(insertStatement(def))
    else if (def.kind === 'rel' && ['CONTAINS', 'TOUCHED', 'AUTHORED_BY', 'PARENT'].includes(def.name)) statements.push(createRelStatement(def))
    else if (def.kind === 'rel' && ['CHANGED', 'BLAMED_ON'].includes(def.name)) statements.push(insertStatement(def))
  }
  for (const statement of statements) await prepare(conn, statement)
  s.snapshots = Number((await execute(conn, await prepare(conn, 'MATCH (x:Snapshot) RETURN count(*) AS n'), {}))[0].n) > 0
}

/** Symbols one CREATE each (full-text indexed), each with its file's DEFINES edge where the delta has one. */
async function insertSymbols(s: DeltaSession, def: TableDef, rows: ReadonlyArray<Record<string, unknown>>, definedIn: Map<string, string>, defined: Set<string>): Promise<void> {
  const { conn } = s
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
  inserted(s, relDef('DEFINES', 'File', 'Symbol'), defined.size)
}

/**
 * Checkpoints the applied deltas (then again without the guard rows) and checks every relationship
 * table against the ledger; the row counts after them, as analyze reports them.
 */
async function finishDelta(s: DeltaSession): Promise<{ counts: Record<string, number>; rels: GraphRels }> {
  const { conn } = s
  await guardPending(s)
  await run(conn, 'CHECKPOINT', {})
  if (s.ledger.guards.length > 0) {
    await dropGuards(s)
    await run(conn, 'CHECKPOINT', {})
  }
  // the tables the delta wrote, each counted alone (a table's count(*) is ~5–10 ms on git/git's
  // graph, where one scan of every relationship's label took 0.11–0.27 s); the others cannot
  // have changed, and keep their recorded counts
  await countWritten(s)
  const now = new Map(s.ledger.expected)
  for (const [name, n] of s.ledger.counted) now.set(name, n)
  const wrong = REL_NAMES.filter((name) => now.get(name) !== s.ledger.expected.get(name))
  if (wrong.length > 0) throw new GraphDeltaMismatch(`the updated graph lost rows: ${wrong.map((name) => `${name} has ${now.get(name)}, expected ${s.ledger.expected.get(name)}`).join('; ')}`)
  const counts: Record<string, number> = {}
  for (const [name, how] of COUNTS) counts[name] = 'rel' in how ? now.get(how.rel)! : Number((await execute(conn, await prepare(conn, how.query), {}))[0].n)
  return { counts, rels: Object.fromEntries(now) }
}

/**
 * A checkpoint between parts, while the caller computes the next one: what the parts so far
 * changed is written then, not on the update's path at the end (a checkpoint rewrites the
 * full-text indexes' postings: ~0.1 s on vuejs/core's graph). Guarded as finishDelta's are.
 */
async function checkpointDelta(s: DeltaSession): Promise<void> {
  await guardPending(s)
  await run(s.conn, 'CHECKPOINT', {})
  await countWritten(s)
}

/** Counts the tables the delta wrote that no count has seen since they were last written (RelLedger.counted). */
async function countWritten(s: DeltaSession): Promise<void> {
  const uncounted = [...s.ledger.touched].filter((name) => !s.ledger.counted.has(name))
  for (const [name, n] of await countRelsOf(s.conn, uncounted)) s.ledger.counted.set(name, n)
}

async function closeDelta({ db, conn }: DeltaSession): Promise<void> {
  await conn.close()
  await db.close()
}

/** One step of an update's graph delta (src/graph/delta-writer.ts sends them, in order). */
export type DeltaOp = { op: 'open'; from: string; to: string; rels?: GraphRels } | { op: 'apply'; delta: Partial<GraphDelta> } | { op: 'checkpoint' } | { op: 'finish' } | { op: 'close' }

/** What finishing a delta gives: the row counts, and the graph file's size and checksum once closed. */
export interface DeltaFinish {
  counts: Record<string, number>
  rels: GraphRels
  graph: [number, string]
}

/**
 * What finishing gives when the caller checksums the closed graph with this thread (deltaRunner's
 * `onClosed`): the shared checksum whose chunks both threads took, every one done when this comes.
 */
export interface DeltaFinishShared {
  counts: Record<string, number>
  rels: GraphRels
  size: number
  shared: Int32Array
}

/**
 * Runs delta steps one at a time, in the order given, whatever the previous one gave: open copies
 * the previous graph and opens the copy, finish checkpoints, closes and hashes it (or throws the
 * first failure of a step before it: the graph is not what was meant), close closes it when
 * finish did not.
 */
export function deltaRunner(options: { guards?: boolean; onClosed?: (file: string, size: number, shared: Int32Array) => void } = {}): (op: DeltaOp) => Promise<{ value: unknown; ms: number; at: number }> {
  let session: DeltaSession | null = null
  let openedPath: string | null = null
  let queue: Promise<unknown> = Promise.resolve()
  /** The first step that failed: a finish after it is not attempted. */
  let failed: unknown = null
  const opened = () => session ?? Promise.reject(new Error('the graph delta was used before the graph was opened'))
  const step = async (op: DeltaOp): Promise<unknown> => {
    switch (op.op) {
      case 'open':
        // the spare copy analyze left of the previous graph (graph-spare.ts) is moved, not copied
        // (once made, when its copier is still at it)
        if (!(await takeSpareWhenMade(op.from, op.to))) copyFileSync(op.from, op.to)
        session = await openDelta(op.to, options.guards ?? true, op.rels)
        openedPath = op.to
        await warmDelta(session)
        return null
      case 'apply':
        return applyDelta(await opened(), op.delta)
      case 'checkpoint': {
        const open = await opened()
        await checkpointDelta(open)
        return warmLastPart(open)
      }
      case 'finish': {
        if (failed !== null) throw failed
        // checkpointed, closed and hashed here: the caller's manifest need not read the graph again
        const { counts, rels } = await finishDelta(await opened())
        const open = session!
        session = null
        await closeDelta(open)
        if (!options.onClosed) return { counts, rels, graph: hashFile(openedPath!) } satisfies DeltaFinish
        // checksummed here, chunk by chunk, and by the caller too once it is free (~0.2 s of CPU on git/git's 490 MB)
        const size = statSync(openedPath!).size
        const shared = sharedChecksum(size)
        options.onClosed(openedPath!, size, shared)
        crc32Chunks(openedPath!, size, shared)
        return { counts, rels, size, shared } satisfies DeltaFinishShared
      }
      case 'close': {
        const open = session
        session = null
        return open ? closeDelta(open) : null
      }
    }
  }
  return (op) => {
    const result = queue.then(async () => {
      const started = performance.now()
      try {
        const value = await step(op)
        // `at`: when it started, in epoch milliseconds (a thread's performance.now() has its own origin)
        return { value, ms: performance.now() - started, at: performance.timeOrigin + started }
      } catch (error) {
        failed ??= error
        throw error
      }
    })
    queue = result.catch(() => {})
    return result
  }
}
