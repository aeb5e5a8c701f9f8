/**
 * `gitwhy cypher`: ad-hoc read-only Cypher. Three lines of defence, each enough on its own for
 * the files a query could reach:
 * 1. a token-level guard refusing anything that could write, load files, change settings or span
 *    several statements;
 * 2. a word scan, independent of the tokenizer, refusing the file, database and extension
 *    statements (LOAD, COPY, ATTACH, ...) wherever their letters appear outside a string, a
 *    comment or a backtick-quoted name, whatever precedes them;
 * 3. a database opened read-only, so Kuzu itself refuses a write that slips past both. (Kuzu
 *    0.11.3 has no setting or database option that forbids file access: read-only mode still
 *    runs LOAD FROM, COPY ... TO, EXPORT DATABASE and ATTACH, hence layers 1 and 2.)
 * Strings, backtick names and comments are found by one scanner that follows Kuzu's lexer
 * (src/antlr4/Cypher.g4) and refuses what that lexer would not read the same way.
 */
import { UserError } from '../errors.js'
import { QueryParamError, type GraphStore, type JsonValue } from './store.js'

/** Clauses and commands that write data, change the schema or touch files, refused anywhere. */
const REFUSED_KEYWORDS = new Set([
  'CREATE', 'MERGE', 'SET', 'DELETE', 'DETACH', 'REMOVE', 'DROP', 'ALTER', 'COPY', 'LOAD', 'ATTACH',
  'INSTALL', 'UNINSTALL', 'UPDATE', 'IMPORT', 'EXPORT',
])

/**
 * Statements that only exist at the start of a statement. Refused there only, so that
 * `MATCH (commit:Commit)` stays a read.
 */
const REFUSED_STATEMENTS = new Set(['BEGIN', 'COMMIT', 'ROLLBACK', 'CHECKPOINT', 'TRANSACTION', 'USE', 'COMMENT'])

/**
 * The second layer: statements that reach files, other databases or the network, which a
 * read-only database still runs. Matched on letters alone: any non-letter before them (a digit,
 * a dot, a backslash, an odd space) counts as a boundary, and only an ASCII letter, digit or
 * underscore after them makes them part of a longer name, as in Kuzu's lexer.
 */
const FILE_STATEMENT = /(?<![A-Za-z])(LOAD|COPY|ATTACH|INSTALL|UNINSTALL|UPDATE|EXPORT|IMPORT)(?![A-Za-z0-9_])/i

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

function refuse(what: string, remedy = READ_ONLY_REMEDY): never {
  throw new UserError(`refused ${what}: \`gitwhy cypher\` is read-only`, remedy, 'write_refused')
}

function unreadable(what: string, offset: number, remedy: string): never {
  throw new UserError(`Cypher query failed: ${what} at offset ${offset}`, remedy, 'cypher_error')
}

/** The escapes Kuzu's lexer accepts in a string literal (besides \uXXXX and \UXXXXXXXX). */
const STRING_ESCAPES = new Set(['\\', "'", '"', 'b', 'B', 'f', 'F', 'n', 'N', 'r', 'R', 't', 'T'])

/** Index just past the string literal opening at `i`, as Kuzu's StringLiteral rule reads it. */
function stringEnd(s: string, i: number): number {
  const quote = s[i]
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === quote) return j + 1
    if (s[j] !== '\\') continue
    const escaped = s[j + 1]
    if (STRING_ESCAPES.has(escaped)) j++
    else if ((escaped === 'u' || escaped === 'U') && /^[0-9A-Fa-f]{4}$/.test(s.slice(j + 2, j + 6))) j += 5
    else unreadable(`bad escape \\${escaped ?? ''} in a string`, j, 'in strings write \\\\ \\\' \\" \\n \\r \\t \\b \\f or \\uXXXX; pass awkward values with --param name=value')
  }
  return unreadable('unterminated string', i, `close the string with ${quote}`)
}

/** Index just past the comment opening at `i` (`//` or `/*`), as Kuzu's CypherComment rule reads it. */
function commentEnd(s: string, i: number): number {
  if (s[i + 1] === '/') {
    let j = i + 2
    while (j < s.length && s[j] !== '\n' && s[j] !== '\r') j++
    if (j === s.length) return j
    if (s[j] === '\n' || j + 1 === s.length) return j + 1
    if (s[j + 1] === '\n') return j + 2
    return unreadable('a // comment ending in a lone carriage return', i, 'end // comments with a newline')
  }
  // '/*' ( ~'*' | '*' ~'/' )* '*/': a '*' pairs with the character after it, so `**/` does not close
  let star = false
  for (let j = i + 2; j < s.length; j++) {
    if (star && s[j] === '/') return j + 1
    star = !star && s[j] === '*'
  }
  return unreadable('unterminated /* comment (Kuzu does not close it at **/)', i, 'close the comment with a */ that follows a character other than *')
}

/**
 * The statement with every string literal, backtick-quoted name and comment blanked out (a
 * literal keeps its opening quote so it still separates what is around it; a comment becomes
 * spaces, as it is whitespace to Kuzu). What Kuzu's lexer would not read as a literal or comment
 * exactly here is refused rather than guessed.
 */
export function blankLiterals(statement: string): string {
  let out = ''
  let from = 0
  for (let i = 0; i < statement.length; ) {
    const ch = statement[i]
    let end: number
    if (ch === "'" || ch === '"') end = stringEnd(statement, i)
    else if (ch === '`') {
      end = statement.indexOf('`', i + 1) + 1
      if (end === 0) unreadable('unterminated `name`', i, 'close the name with `')
    } else if (ch === '/' && (statement[i + 1] === '/' || statement[i + 1] === '*')) end = commentEnd(statement, i)
    else {
      i++
      continue
    }
    out += statement.slice(from, i) + (ch === '/' ? ' ' : ch) + ' '.repeat(end - i - 1)
    from = i = end
  }
  return out + statement.slice(from)
}

/** Kuzu's whitespace (Cypher.g4 WHITESPACE): more than JS's \\s (the information separators, U+180E), and not U+FEFF. */
const KUZU_SPACE = /[\t-\r \u001c-\u001f\u00a0\u1680\u180e\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/

interface CypherToken {
  kind: 'word' | 'symbol'
  text: string
  /** The non-blank character just before the token: "." marks a property, "$" a parameter, ":" a label. */
  prev: string
}

/**
 * Split a statement whose literals and comments are blanked into words and symbols. A number is
 * what Kuzu's lexer reads as one: digits, an optional fraction, an optional exponent; a letter
 * right after it starts a new word (`1LOAD` is 1 then LOAD, `0x1F` is 0 then x1F).
 */
function tokenizeCypher(code: string): CypherToken[] {
  const tokens: CypherToken[] = []
  const word = /[A-Za-z_][A-Za-z0-9_]*/y
  const number = /[0-9]+(?:\.[0-9]+)?(?:[eE]-?[0-9]+)?/y
  let prev = ''
  for (let i = 0; i < code.length; ) {
    const ch = code[i]
    if (KUZU_SPACE.test(ch)) {
      i++
      continue
    }
    word.lastIndex = number.lastIndex = i
    const w = word.exec(code)
    if (w) {
      tokens.push({ kind: 'word', text: w[0], prev })
      prev = 'a'
      i += w[0].length
      continue
    }
    const num = number.exec(code)
    if (num) {
      prev = '0'
      i += num[0].length
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
  const code = blankLiterals(statement)
  const tokens = tokenizeCypher(code)
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
  const file = FILE_STATEMENT.exec(code)
  if (file) {
    const name = file[1].toLowerCase()
    refuse(file[1].toUpperCase(), `${READ_ONLY_REMEDY}; if \`${name}\` is a name in your query (a variable, alias or property), quote it in backticks: \`${name}\``)
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
    if (/buffer pool is full/i.test(message)) {
      throw new UserError(`Cypher query needs more memory than a reader holds: ${message}`, 'return fewer or shorter columns (e.g. c.subject, not c.body), add a WHERE or a LIMIT', 'cypher_error')
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
