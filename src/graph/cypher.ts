/**
 * `gitwhy cypher`: ad-hoc read-only Cypher. Two lines of defence: a token-level guard refusing
 * anything that could write, load files, change settings or span several statements, and a
 * database opened read-only so Kuzu itself refuses a write that slips past the guard.
 */
import { UserError } from '../errors.js'
import { QueryParamError, type GraphStore, type JsonValue } from './store.js'

/** Clauses and commands that write data, change the schema or touch files, refused anywhere. */
const REFUSED_KEYWORDS = new Set([
  'CREATE', 'MERGE', 'SET', 'DELETE', 'DETACH', 'REMOVE', 'DROP', 'ALTER', 'COPY', 'LOAD', 'ATTACH',
  'INSTALL', 'UNINSTALL', 'IMPORT', 'EXPORT',
])

/**
 * Statements that only exist at the start of a statement. Refused there only, so that
 * `MATCH (commit:Commit)` stays a read.
 */
const REFUSED_STATEMENTS = new Set(['BEGIN', 'COMMIT', 'ROLLBACK', 'CHECKPOINT', 'TRANSACTION', 'USE'])

/**
 * Procedures that only read (Kuzu 0.11 built-ins). Anything else after CALL is refused: the
 * write procedures (create_fts_index, drop_projected_graph, ...) and `CALL setting=value`.
 */
const READ_PROCEDURES = new Set([
  'table_info', 'show_tables', 'show_connection', 'db_version', 'show_functions', 'current_setting',
  'show_indexes', 'show_attached_databases', 'show_official_extensions', 'show_loaded_extensions',
  'show_projected_graphs', 'projected_graph_info', 'show_warnings', 'query_fts_index',
  'query_vector_index', 'storage_info', 'stats_info', 'bm_info', 'file_info', 'show_sequences',
  'show_types',
])

const READ_ONLY_REMEDY = 'ask with MATCH / OPTIONAL MATCH / WITH / UNWIND / RETURN (tables and properties: `gitwhy schema`); the index is rebuilt only by `gitwhy analyze`'

function refuse(what: string): never {
  throw new UserError(`refused ${what}: \`gitwhy cypher\` is read-only`, READ_ONLY_REMEDY, 'write_refused')
}

export interface CypherToken {
  kind: 'word' | 'symbol'
  text: string
  /** The non-blank character just before the token: "." marks a property, "$" a parameter, ":" a label. */
  prev: string
}

/**
 * Split a statement into words and symbols, skipping string literals ('...', "..." with
 * backslash escapes), backtick-quoted names and comments (// to end of line, /* ... *\/).
 */
export function tokenizeCypher(statement: string): CypherToken[] {
  const tokens: CypherToken[] = []
  const n = statement.length
  let i = 0
  let prev = ''
  while (i < n) {
    const ch = statement[i]
    if (/\s/.test(ch)) {
      i++
      continue
    }
    if (ch === '/' && statement[i + 1] === '/') {
      const end = statement.indexOf('\n', i + 2)
      i = end === -1 ? n : end + 1
      continue
    }
    if (ch === '/' && statement[i + 1] === '*') {
      const end = statement.indexOf('*/', i + 2)
      i = end === -1 ? n : end + 2
      continue
    }
    if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1
      while (j < n && statement[j] !== ch) j += ch !== '`' && statement[j] === '\\' ? 2 : 1
      i = j + 1
      prev = ch
      continue
    }
    if (/[A-Za-z_]/.test(ch)) {
      let j = i + 1
      while (j < n && /[A-Za-z0-9_]/.test(statement[j])) j++
      tokens.push({ kind: 'word', text: statement.slice(i, j), prev })
      prev = 'a'
      i = j
      continue
    }
    if (/[0-9]/.test(ch)) {
      let j = i + 1
      while (j < n && /[0-9A-Za-z_.]/.test(statement[j])) j++
      i = j
      prev = '0'
      continue
    }
    tokens.push({ kind: 'symbol', text: ch, prev })
    prev = ch
    i++
  }
  return tokens
}

/** Throw UserError('write_refused') unless the statement is a single read-only query. */
export function assertReadOnlyCypher(statement: string): void {
  const tokens = tokenizeCypher(statement)
  if (tokens.length === 0) {
    throw new UserError('empty Cypher query', 'pass a query such as `MATCH (c:Commit) RETURN c.sha LIMIT 5`', 'cypher_empty')
  }
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]
    if (token.kind === 'symbol') {
      if (token.text === ';' && tokens.slice(t + 1).some((rest) => rest.text !== ';')) refuse('multiple statements')
      continue
    }
    // n.set, $delete, :Commit, AS create: property, parameter, label and alias names are not clauses.
    if (token.prev === '.' || token.prev === '$' || token.prev === ':') continue
    if (t > 0 && tokens[t - 1].kind === 'word' && tokens[t - 1].text.toUpperCase() === 'AS') continue
    const word = token.text.toUpperCase()
    if (t === 0 && REFUSED_STATEMENTS.has(word)) refuse(word === 'BEGIN' ? 'BEGIN TRANSACTION' : word)
    if (REFUSED_KEYWORDS.has(word)) refuse(word === 'DETACH' && tokens[t + 1] !== undefined ? `DETACH ${tokens[t + 1].text.toUpperCase()}` : word)
    if (word === 'CALL') {
      const next = tokens[t + 1]
      if (next === undefined) refuse('CALL without a procedure')
      if (next.kind === 'symbol' && next.text === '{') continue
      if (next.kind !== 'word') refuse('CALL')
      if (tokens[t + 2]?.text === '=') refuse(`CALL ${next.text}=... (changing a setting)`)
      if (!READ_PROCEDURES.has(next.text.toLowerCase())) refuse(`CALL ${next.text} (not a known read-only procedure)`)
    }
  }
}

export interface CypherOptions {
  params?: Record<string, unknown>
  /** Rows returned at most (0 = no cap); the answer says when there were more. */
  maxRows?: number
  /** Seconds before Kuzu interrupts the query. */
  timeoutSeconds?: number
}

export const CYPHER_DEFAULTS = { maxRows: 1000, timeoutSeconds: 30 } as const

export interface CypherResult {
  rows: Record<string, JsonValue>[]
  /** True when the query had more rows than maxRows. */
  truncated: boolean
}

/**
 * Run a user's query on a store opened read-only, with a row cap and a timeout so that one query
 * cannot wedge a server or exhaust its memory. Query errors (syntax, unknown table, bad parameter,
 * timeout) are the user's to fix, so they come back as UserError.
 */
export async function runCypher(store: GraphStore, statement: string, options: CypherOptions = {}): Promise<CypherResult> {
  if (!store.readOnly) throw new Error('runCypher needs a store opened with { readOnly: true }')
  assertReadOnlyCypher(statement)
  const maxRows = options.maxRows ?? CYPHER_DEFAULTS.maxRows
  const timeoutSeconds = options.timeoutSeconds ?? CYPHER_DEFAULTS.timeoutSeconds
  if (!Number.isInteger(maxRows) || maxRows < 0) throw new UserError(`the row cap must be a whole number ≥ 0, got ${maxRows}`, 'pass 0 for no cap', 'bad_option')
  if (!(timeoutSeconds > 0 && timeoutSeconds <= 3600)) throw new UserError(`the timeout must be between 0 and 3600 seconds, got ${timeoutSeconds}`, 'pass a number of seconds such as 30', 'bad_option')
  try {
    return await store.queryRows(statement, options.params ?? {}, { maxRows: maxRows === 0 ? undefined : maxRows, timeoutMs: Math.ceil(timeoutSeconds * 1000) })
  } catch (error) {
    if (error instanceof QueryParamError) throw new UserError(error.message, 'pass one value type per list, and no empty lists or maps (leave that condition out instead)', 'bad_param')
    const message = error instanceof Error ? error.message : String(error)
    if (/read-only/i.test(message)) refuse('a write (the database is opened read-only)')
    if (/interrupted/i.test(message)) {
      throw new UserError(`Cypher query stopped after ${timeoutSeconds} s`, 'narrow it (a WHERE on an indexed key, a LIMIT, fewer MATCH cross products) or allow more time with --timeout / timeout_seconds', 'cypher_timeout')
    }
    throw new UserError(`Cypher query failed: ${message}`, 'check the query against `gitwhy schema`; pass values with --param name=value', 'cypher_error')
  }
}

/**
 * Parse one `--param name=value`: the value is JSON when it parses as JSON (numbers, booleans,
 * null, quoted strings, lists), else the raw text.
 */
export function parseCypherParam(raw: string): [string, JsonValue] {
  const eq = raw.indexOf('=')
  const name = eq === -1 ? '' : raw.slice(0, eq).trim().replace(/^\$/, '')
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new UserError(`bad --param ${JSON.stringify(raw)}`, 'write it as --param name=value, e.g. --param limit=10', 'bad_param')
  }
  const text = raw.slice(eq + 1)
  try {
    return [name, JSON.parse(text) as JsonValue]
  } catch {
    return [name, text]
  }
}
