/**
 * Bulk loader: builds a fresh Kuzu database from GraphData with one CSV + COPY per table.
 *
 * CSV dialect (RFC 4180, checked against Kuzu 0.11.3): every STRING field is double-quoted with
 * embedded quotes doubled, and COPY runs with QUOTE='"', ESCAPE='"' so backslashes are ordinary
 * characters. Kuzu treats a quoted "" as NULL by default, which would turn every empty commit body
 * into null, so NULL_STRINGS names a sentinel instead (Kuzu matches it quoted or not, hence one
 * no real value is expected to equal; the writer refuses a value that does). PARALLEL=FALSE
 * because the parallel reader rejects quoted newlines (commit bodies, signatures); measured, the
 * serial reader was no slower than the parallel one on tables without newlines either.
 * AUTO_DETECT=FALSE keeps Kuzu from sniffing a different dialect from a sample.
 *
 * Strings go to the file as UTF-8; a lone UTF-16 surrogate (not representable in UTF-8) becomes
 * U+FFFD. TIMESTAMP values are normalised to UTC ISO strings here (Kuzu also parses offsets, but an
 * unparseable date becomes NULL instead of failing the whole load).
 */
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs'
import { tmpdir, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import kuzu from 'kuzu'
import type { Connection, Database } from 'kuzu'
import { createFtsStatement, createVectorIndexStatement, FTS_INDEXES, VECTOR_INDEX, vectorIndexRows, renderDDL, TABLES, tableDef, tableDefs, tableLabel, type ColumnDef, type ColumnType, type TableDef } from './schema.js'
import type { GraphData } from './types.js'
import { collectGarbage } from '../runtime/gc.js'
import { countRels, type GraphRels } from './delta.js'

/** 256 MB: enough for bulk loads of large histories without reserving most of RAM (Kuzu's default). */
export const BUFFER_POOL_BYTES = 256 * 1024 * 1024

/**
 * The bulk load's buffer pool: 256 MB, or more where a table's CSV is big. Kuzu builds a node
 * table's COPY in the pool: measured on git/git's commit messages, an 8 MB CSV needs 33–40 MB and
 * a 100 MB one 321–384 MB of pool on its own (git/git's Doc table failed on 256 MB), and every
 * table of the schema holds some pages besides. So 64 MB + 5× the largest CSV, capped at half the
 * machine's memory; the pool is address space until pages are used.
 */
export function loadBufferPoolBytes(largestCsvBytes: number, floor = BUFFER_POOL_BYTES, vectorBytes = 0): number {
  return Math.max(floor, Math.min(64 * 1024 * 1024 + 5 * largestCsvBytes + VECTOR_POOL_FACTOR * vectorBytes, Math.floor(totalmem() / 2)))
}

/**
 * Pool bytes per byte of vectors: their COPY holds them in the pool beside the full-text indexes
 * built before, and the vector index reads them all again. git/git's 97,000 documents (200 MB of
 * 512-wide vectors) failed on the pool the CSVs alone asked for ("the buffer pool is full").
 */
const VECTOR_POOL_FACTOR = 3
/** The vectors' width assumed before any is made (the bundled model's is 512). */
const ASSUMED_DIMENSIONS = 1024

/** A table of at least this many rows is checkpointed right after its COPY. */
const CHECKPOINT_ROWS = 20_000

export const CSV_NULL = '\u2400gitwhy:null\u2400'

export interface WriteGraphOptions {
  /** Parent directory for the temporary CSV directory (default: the OS temp dir). */
  tmpDir?: string
  /** Called before each phase: "schema", then each table name, then "checkpoint". */
  onPhase?: (name: string) => void
  /**
   * DocVector's rows: `data` holds one `dimensions`-wide vector per Doc, in row order (row i =
   * data[i*dimensions…]). Loaded from a NumPy file (a CSV of floats is ~10× slower to write and
   * parse), then the vector index is built if there are `vectorIndexRows` of them. Absent: no vectors (the default; analyze --embeddings adds them).
   * A function is called once every other table is loaded and indexed: analyze's embedding
   * finishes while Kuzu loads the rest.
   */
  vectors?: GraphVectors | (() => Promise<GraphVectors | undefined>)
  /** The vectors' width when `vectors` is a function that has not given them yet: the pool reserves their pages (absent: ASSUMED_DIMENSIONS; 0: it will give none). */
  vectorDimensions?: number
  /** The buffer pool's least size (default BUFFER_POOL_BYTES); a big table raises it (loadBufferPoolBytes). */
  bufferPoolFloor?: number
  /**
   * Empty each of `data`'s tables once its CSV is written, and collect the garbage before Kuzu
   * starts: on git/git the heap holds ~0.9 GB then, of which ~60 MB is live afterwards.
   */
  release?: boolean
  /** Kuzu's threads (default: one a core). One lays the tables out the same way every time (a test that needs their layout). */
  threads?: number
  /** The least vectors that get a vector index (default vectorIndexRows(): schema.ts says why). */
  vectorIndexRows?: number
}

export interface GraphVectors {
  dimensions: number
  data: Float32Array
  /** The Doc row of each vector, in order (absent: 0, 1, 2, …: every document has one). */
  rows?: number[]
}

export interface TableLoadStats {
  rows: number
  ms: number
}

export interface WriteGraphResult {
  ms: number
  /** Rows per relationship table, counted once loaded. */
  rels: GraphRels
  tables: Record<string, TableLoadStats>
}

/**
 * Create a NEW database at dbPath (it must not exist) holding exactly `data`. On failure the
 * partial database is removed; the temporary CSVs are always removed.
 */
export async function writeGraph(dbPath: string, data: GraphData, options: WriteGraphOptions = {}): Promise<WriteGraphResult> {
  const started = performance.now()
  // one vector per document (counted before `release` empties the table)
  const vectorRows = options.vectors ? data.docs.length : 0
  if (existsSync(dbPath) || existsSync(`${dbPath}.wal`)) {
    throw new Error(`writeGraph needs a fresh path, but ${dbPath} already exists`)
  }
  mkdirSync(dirname(dbPath), { recursive: true })
  const tmpParent = options.tmpDir ?? tmpdir()
  mkdirSync(tmpParent, { recursive: true })
  const csvDir = mkdtempSync(join(tmpParent, 'gitwhy-load-'))
  const phase = options.onPhase ?? (() => {})
  const tables: Record<string, TableLoadStats> = {}

  // Every CSV first: the pool is sized by the largest, since Kuzu holds a node table's whole
  // COPY in the buffer pool (git/git's 100 MB Doc CSV fails on a 256 MB pool, loads on 512 MB).
  const otherTables = TABLES.filter((def) => def.name !== VECTOR_INDEX.table)
  const csvs = new Map<TableDef, { file: string; rows: number; ms: number }>()
  let largest = 0
  try {
    for (const def of otherTables) {
      const rows = data[def.rows] as unknown as ReadonlyArray<Record<string, unknown>> | undefined
      if (!rows || rows.length === 0) continue
      const t0 = performance.now()
      const file = join(csvDir, `${def.kind}-${TABLES.indexOf(def)}.csv`)
      writeCsv(file, def, rows)
      largest = Math.max(largest, statSync(file).size)
      csvs.set(def, { file, rows: rows.length, ms: performance.now() - t0 })
      if (options.release) (data as unknown as Record<string, unknown[]>)[def.rows] = []
    }
  } catch (error) {
    rmSync(csvDir, { recursive: true, force: true })
    throw error
  }
  // compacting: little is live by now (~70 MB on git/git), and the pages go back before Kuzu's peak
  if (options.release) collectGarbage({ compact: true })
  // the vectors' pages are reserved now: the pool cannot grow later
  const dimensions = typeof options.vectors === 'object' ? options.vectors.dimensions : options.vectorDimensions ?? ASSUMED_DIMENSIONS
  const db: Database = new kuzu.Database(dbPath, loadBufferPoolBytes(largest, options.bufferPoolFloor, vectorRows * dimensions * 4), true, false)
  let conn: Connection | undefined
  let rels: GraphRels = {}
  let ok = false
  try {
    await db.init()
    conn = new kuzu.Connection(db, options.threads)
    phase('schema')
    // the vector table's width is the model's: created last, once the vectors are there
    const vectorTable = TABLES.filter((def) => def.name === VECTOR_INDEX.table)
    for (const ddl of renderDDL(otherTables)) await run(conn, ddl)
    for (const def of otherTables) {
      const csv = csvs.get(def)
      const t0 = performance.now()
      if (csv) {
        phase(tableLabel(def))
        await run(conn, copyStatement(def.name, csv.file, tableDefs(def.name).length > 1 && def.kind === 'rel' ? { from: def.from.table, to: def.to.table } : undefined)).catch((error: unknown) => {
          throw new Error(`COPY ${tableLabel(def)} (${csv.rows} rows) failed: ${error instanceof Error ? error.message : String(error)}`)
        })
        rmSync(csv.file, { force: true })
        // What a COPY wrote stays dirty in the buffer pool until a checkpoint, and a dirty page
        // cannot be evicted: checkpointed, a big table's pages make room for the next table's.
        if (csv.rows >= CHECKPOINT_ROWS) await run(conn, 'CHECKPOINT')
      }
      tables[tableLabel(def)] = { rows: csv?.rows ?? 0, ms: Math.round(performance.now() - t0 + (csv?.ms ?? 0)) }
    }
    for (const ix of FTS_INDEXES) await run(conn, createFtsStatement(ix))
    const vectors = typeof options.vectors === 'function' ? await options.vectors() : options.vectors
    for (const ddl of renderDDL(vectorTable, vectors?.dimensions)) await run(conn, ddl)
    const t0 = performance.now()
    if (vectors && vectors.data.length > 0) {
      phase(VECTOR_INDEX.table)
      const count = vectors.data.length / vectors.dimensions
      const rowsFile = join(csvDir, 'vector-rows.npy')
      const dataFile = join(csvDir, 'vector-data.npy')
      writeNpy(rowsFile, '<i8', [count], BigInt64Array.from({ length: count }, (_, i) => BigInt(vectors.rows?.[i] ?? i)))
      writeNpy(dataFile, '<f4', [count, vectors.dimensions], vectors.data)
      await run(conn, `COPY ${VECTOR_INDEX.table} FROM (${cypherString(rowsFile)}, ${cypherString(dataFile)}) BY COLUMN`)
      if (count >= (options.vectorIndexRows ?? vectorIndexRows())) {
        phase('vector index')
        await run(conn, createVectorIndexStatement())
      }
    }
    tables[tableLabel(vectorTable[0])] = { rows: vectors ? vectors.data.length / vectors.dimensions : 0, ms: Math.round(performance.now() - t0) }
    phase('checkpoint')
    await run(conn, 'CHECKPOINT')
    // where the first update's ledger starts (IndexMeta.graphRels)
    rels = Object.fromEntries(await countRels(conn))
    ok = true
  } finally {
    if (conn !== undefined) await conn.close()
    await db.close()
    rmSync(csvDir, { recursive: true, force: true })
    if (!ok) {
      rmSync(dbPath, { recursive: true, force: true })
      rmSync(`${dbPath}.wal`, { force: true })
    }
  }
  // in schema order, whatever the load order
  return { ms: Math.round(performance.now() - started), rels, tables: Object.fromEntries(TABLES.map((def) => [tableLabel(def), tables[tableLabel(def)]])) }
}

async function run(conn: Connection, statement: string): Promise<void> {
  const result = await conn.query(statement)
  for (const r of Array.isArray(result) ? result : [result]) r.close()
}

/** A NumPy .npy file (format 1.0, C order) of little-endian numbers: what Kuzu's COPY … BY COLUMN reads. */
function writeNpy(file: string, descr: '<i8' | '<f4', shape: number[], values: BigInt64Array | Float32Array): void {
  const prefix = 10
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`
  header = header.padEnd(Math.ceil((prefix + header.length + 1) / 64) * 64 - prefix - 1, ' ') + '\n'
  const head = Buffer.alloc(prefix)
  head.write('\x93NUMPY', 0, 'latin1')
  head[6] = 1
  head.writeUInt16LE(header.length, 8)
  const fd = openSync(file, 'w')
  try {
    writeSync(fd, head)
    writeSync(fd, Buffer.from(header, 'latin1'))
    writeSync(fd, new Uint8Array(values.buffer, values.byteOffset, values.byteLength))
  } finally {
    closeSync(fd)
  }
}

function cypherString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}

export function copyStatement(table: string, file: string, pair?: { from: string; to: string }): string {
  const options = [
    // a relationship table with several FROM/TO pairs is loaded one pair at a time
    ...(pair ? [`from=${cypherString(pair.from)}`, `to=${cypherString(pair.to)}`] : []),
    'HEADER=TRUE',
    "DELIM=','",
    `QUOTE='"'`,
    `ESCAPE='"'`,
    'AUTO_DETECT=FALSE',
    'PARALLEL=FALSE',
    `NULL_STRINGS=[${cypherString(CSV_NULL)}]`,
  ]
  return `COPY ${table} FROM ${cypherString(file)} (${options.join(', ')})`
}

interface CsvColumn {
  name: string
  type: ColumnType
  field: string
}

function csvColumns(def: TableDef): CsvColumn[] {
  const own = def.columns.map((c: ColumnDef) => ({ name: c.name, type: c.type, field: c.field ?? c.name }))
  if (def.kind === 'node') return own
  const keyType = (table: string): ColumnType => {
    const target = tableDef(table)
    return target.columns[0].type
  }
  return [
    { name: 'from', type: keyType(def.from.table), field: def.from.field },
    { name: 'to', type: keyType(def.to.table), field: def.to.field },
    ...own,
  ]
}

const CHUNK_CHARS = 1 << 22

function writeCsv(file: string, def: TableDef, rows: ReadonlyArray<Record<string, unknown>>): void {
  const columns = csvColumns(def)
  const fd = openSync(file, 'w')
  try {
    let chunk = columns.map((c) => c.name).join(',') + '\n'
    const fields = new Array<string>(columns.length)
    for (const row of rows) {
      for (let i = 0; i < columns.length; i++) {
        const col = columns[i]
        fields[i] = encodeCell(row[col.field], col.type, def.name, col.name)
      }
      chunk += fields.join(',') + '\n'
      if (chunk.length >= CHUNK_CHARS) {
        writeSync(fd, chunk)
        chunk = ''
      }
    }
    if (chunk.length > 0) writeSync(fd, chunk)
  } finally {
    closeSync(fd)
  }
}

/**
 * An ISO 8601 UTC instant as `Date.prototype.toISOString` writes it, one that V8 reads back as
 * the same string: days up to the 28th (a 31st of April or a hour 24 it moves to the next day).
 */
const ISO_UTC = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/

function encodeCell(value: unknown, type: ColumnType, table: string, column: string): string {
  // Kuzu 0.11 applies NULL_STRINGS to STRING columns only; an empty field is null for the others
  // (a STRING keeps the sentinel so that "" stays an empty string)
  if (value === null || value === undefined) return type === 'STRING' ? CSV_NULL : ''
  switch (type) {
    case 'STRING': {
      const s = typeof value === 'string' ? value : String(value)
      if (s === CSV_NULL) throw new Error(`${table}.${column}: value equals the CSV null sentinel`)
      // most strings hold no quote: no regex over them (rails/rails' 393,000 TOUCHED rows 480 -> 380 ms)
      return s.includes('"') ? `"${s.replace(/"/g, '""')}"` : `"${s}"`
    }
    case 'INT64': {
      if (typeof value === 'bigint') return value.toString()
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        throw new Error(`${table}.${column}: expected an integer, got ${JSON.stringify(value)}`)
      }
      return String(value)
    }
    case 'BOOLEAN':
      return value === true ? 'true' : 'false'
    case 'DOUBLE': {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`${table}.${column}: expected a finite number, got ${JSON.stringify(value)}`)
      return String(value)
    }
    case 'TIMESTAMP': {
      // git's dates come as UTC ISO strings already (gitTimeToIso): written as they are, not parsed
      // and formatted again (rails/rails' 99,000 commits 500 -> 300 ms)
      if (typeof value === 'string' && ISO_UTC.test(value)) return value
      const ms = value instanceof Date ? value.getTime() : Date.parse(String(value))
      return Number.isNaN(ms) ? '' : new Date(ms).toISOString()
    }
    case 'FLOAT[]':
      throw new Error(`${table}.${column}: vectors are loaded from a NumPy file, not CSV`)
  }
}
