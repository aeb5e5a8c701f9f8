/**
 * Text-level editing of one TOML table (e.g. Codex's `[mcp_servers.gitwhy]`), with no TOML
 * dependency. A scanner finds the table headers and the `key = value` entries with their offsets
 * (following multi-line strings, arrays and inline tables, so a line inside a value is never
 * taken for a header), and rejects text it cannot read. Edits touch only the table's own lines:
 * adding writes a new table after the last table of the same family (or at the end); updating
 * replaces the lines of the keys whose values differ and keeps any other key the user put there;
 * removing takes the table and its sub-tables, and every other byte of the file stays as it was.
 *
 * Kept hand-written (checked 2026-11): smol-toml and @iarna/toml parse and stringify but drop
 * comments and layout; the layout-preserving ones are young single-maintainer projects with a few
 * thousand downloads a month (@decimalturn/toml-patch, @shopify/toml-patch, and
 * @rainbowatcher/toml-edit-js, a WASM build of Rust's toml_edit); @taplo/lib formats whole files.
 */

export type TomlKey = string[]

export interface TomlEntry {
  key: TomlKey
  /** Start of the entry's line. */
  start: number
  /** After the line break that ends the entry (or the end of the text). */
  end: number
  /** The value's source text. */
  value: string
}

export interface TomlTable {
  key: TomlKey
  /** `[[array of tables]]` */
  array: boolean
  /** Start of the header line. */
  start: number
  /** After the header line's line break. */
  headerEnd: number
  /** Start of the next header line, or the end of the text. */
  end: number
  entries: TomlEntry[]
}

export interface TomlLayout {
  /** Entries before the first header. */
  rootEntries: TomlEntry[]
  tables: TomlTable[]
}

export class TomlSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
  ) {
    super(`${reason} at line ${line}`)
    this.name = 'TomlSyntaxError'
  }
}

/** The table is defined in a form this editor does not rewrite (dotted keys, an inline table). */
export class TomlFormError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TomlFormError'
  }
}

const BARE_KEY = /[A-Za-z0-9_-]+/y
const BARE_VALUE = /[0-9A-Za-z_+\-.:]+(?: \d\d:\d\d[0-9:.+\-Zz]*)?/y

export function scanToml(text: string): TomlLayout {
  let pos = 0
  const tables: TomlTable[] = []
  const rootEntries: TomlEntry[] = []
  const seen = new Set<string>()

  const lineOf = (at: number) => text.slice(0, at).split('\n').length
  const fail = (reason: string, at = pos): never => {
    throw new TomlSyntaxError(reason, lineOf(at))
  }
  const blanks = () => {
    while (text[pos] === ' ' || text[pos] === '\t') pos++
  }
  /** Blanks, line breaks and comments (inside arrays and inline tables). */
  const space = () => {
    for (;;) {
      blanks()
      if (text[pos] === '\n' || text[pos] === '\r') pos++
      else if (text[pos] === '#') skipComment()
      else return
    }
  }
  const skipComment = () => {
    const nl = text.indexOf('\n', pos)
    pos = nl < 0 ? text.length : nl
  }
  /** Blanks, an optional comment, then a line break or the end of the text. */
  const endOfLine = () => {
    blanks()
    if (text[pos] === '#') skipComment()
    if (text[pos] === '\r') pos++
    if (pos < text.length && text[pos] !== '\n') fail(`unexpected ${JSON.stringify(text[pos])}`)
    if (pos < text.length) pos++
  }

  const basicString = (): string => {
    const start = pos
    pos++
    while (pos < text.length && text[pos] !== '"') {
      if (text[pos] === '\n') fail('unterminated string')
      pos += text[pos] === '\\' ? 2 : 1
    }
    if (pos >= text.length) fail('unterminated string', start)
    pos++
    return decodeBasic(text.slice(start + 1, pos - 1), lineOf(start))
  }
  const literalString = (): string => {
    const start = pos
    const close = text.indexOf("'", pos + 1)
    const nl = text.indexOf('\n', pos + 1)
    if (close < 0 || (nl >= 0 && nl < close)) fail('unterminated string', start)
    pos = close + 1
    return text.slice(start + 1, close)
  }

  const key = (): TomlKey => {
    const parts: string[] = []
    for (;;) {
      blanks()
      if (text[pos] === '"') parts.push(basicString())
      else if (text[pos] === "'") parts.push(literalString())
      else {
        BARE_KEY.lastIndex = pos
        const m = BARE_KEY.exec(text)
        if (!m) fail(pos >= text.length ? 'unexpected end of file, expected a key' : `expected a key, found ${JSON.stringify(text[pos])}`)
        parts.push(m![0])
        pos += m![0].length
      }
      blanks()
      if (text[pos] !== '.') return parts
      pos++
    }
  }

  const value = (): void => {
    const start = pos
    if (text.startsWith('"""', pos) || text.startsWith("'''", pos)) {
      const quote = text.slice(pos, pos + 3)
      pos += 3
      for (;;) {
        if (pos >= text.length) fail('unterminated multi-line string', start)
        if (quote === '"""' && text[pos] === '\\') {
          pos += 2
          continue
        }
        if (text.startsWith(quote, pos)) {
          pos += 3
          // up to two quotes right before the closing delimiter belong to the content
          for (let extra = 0; extra < 2 && text[pos] === quote[0]; extra++) pos++
          return
        }
        pos++
      }
    }
    if (text[pos] === '"') return void basicString()
    if (text[pos] === "'") return void literalString()
    if (text[pos] === '[') {
      pos++
      for (;;) {
        space()
        if (pos >= text.length) fail(`unterminated array (it starts at line ${lineOf(start)})`)
        if (text[pos] === ']') return void pos++
        value()
        space()
        if (text[pos] === ',') pos++
        else if (text[pos] !== ']') fail(`expected "," or "]" in the array starting at line ${lineOf(start)}`)
      }
    }
    if (text[pos] === '{') {
      pos++
      for (;;) {
        space()
        if (pos >= text.length) fail(`unterminated inline table (it starts at line ${lineOf(start)})`)
        if (text[pos] === '}') return void pos++
        key()
        if (text[pos] !== '=') fail('expected "=" in the inline table')
        pos++
        blanks()
        value()
        space()
        if (text[pos] === ',') pos++
        else if (text[pos] !== '}') fail(`expected "," or "}" in the inline table starting at line ${lineOf(start)}`)
      }
    }
    BARE_VALUE.lastIndex = pos
    const m = BARE_VALUE.exec(text)
    if (!m) fail(pos >= text.length || text[pos] === '\n' ? 'missing value' : `unexpected ${JSON.stringify(text[pos])}, expected a value`)
    pos += m![0].length
  }

  let current: TomlEntry[] = rootEntries
  if (text.startsWith('\uFEFF')) pos = 1
  while (pos < text.length) {
    const lineStart = pos
    blanks()
    const c = text[pos]
    if (c === '\n' || c === '\r' || c === '#' || pos >= text.length) {
      endOfLine()
      continue
    }
    if (c === '[') {
      const array = text[pos + 1] === '['
      pos += array ? 2 : 1
      const k = key()
      if (text[pos] !== ']' || (array && text[pos + 1] !== ']')) fail(`expected "${array ? ']]' : ']'}" to close the table header`)
      pos += array ? 2 : 1
      endOfLine()
      const id = JSON.stringify(k)
      if (!array && seen.has(id)) fail(`table [${k.join('.')}] is defined twice`, lineStart)
      seen.add(id)
      if (tables.length > 0) tables[tables.length - 1].end = lineStart
      const table: TomlTable = { key: k, array, start: lineStart, headerEnd: pos, end: text.length, entries: [] }
      tables.push(table)
      current = table.entries
      continue
    }
    const k = key()
    if (text[pos] !== '=') fail(`expected "=" after the key ${k.join('.')}`)
    pos++
    blanks()
    const valueStart = pos
    value()
    const valueEnd = pos
    endOfLine()
    current.push({ key: k, start: lineStart, end: pos, value: text.slice(valueStart, valueEnd) })
  }
  return { rootEntries, tables }
}

function decodeBasic(raw: string, line: number): string {
  return raw.replace(/\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))/g, (all, u4: string | undefined, u8: string | undefined, c: string | undefined) => {
    if (u4 || u8) return String.fromCodePoint(parseInt((u4 ?? u8)!, 16))
    const map: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\', e: '\x1b' }
    if (c !== undefined && c in map) return map[c]
    throw new TomlSyntaxError(`invalid escape ${all}`, line)
  })
}

// ---------------------------------------------------------------- values

/** A TOML string (any of the four kinds), or null when `src` is something else. */
export function parseTomlString(src: string): string | null {
  const s = src.trim()
  if (s.startsWith('"""') && s.endsWith('"""') && s.length >= 6) return decodeBasic(trimFirstNewline(s.slice(3, -3)).replace(/\\\r?\n\s*/g, ''), 0)
  if (s.startsWith("'''") && s.endsWith("'''") && s.length >= 6) return trimFirstNewline(s.slice(3, -3))
  if (/^"(?:[^"\\\n]|\\.)*"$/.test(s)) return decodeBasic(s.slice(1, -1), 0)
  if (/^'[^'\n]*'$/.test(s)) return s.slice(1, -1)
  return null
}

function trimFirstNewline(s: string): string {
  return s.replace(/^\r?\n/, '')
}

/** A TOML array whose items are all strings, or null. */
export function parseTomlStringArray(src: string): string[] | null {
  const s = src.trim()
  if (!s.startsWith('[') || !s.endsWith(']')) return null
  const items: string[] = []
  let i = 1
  const end = s.length - 1
  const space = () => {
    for (;;) {
      while (i < end && /\s/.test(s[i])) i++
      if (s[i] === '#') {
        const nl = s.indexOf('\n', i)
        i = nl < 0 || nl > end ? end : nl
      } else return
    }
  }
  for (;;) {
    space()
    if (i >= end) return items
    const m = /^(?:"""[\s\S]*?"""|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')/.exec(s.slice(i, end))
    if (!m) return null
    const v = parseTomlString(m[0])
    if (v === null) return null
    items.push(v)
    i += m[0].length
    space()
    if (s[i] === ',') i++
    else if (i < end) return null
  }
}

/** A basic TOML string for `s` (JSON's escapes are TOML's, plus DEL). */
export function tomlString(s: string): string {
  return JSON.stringify(s).replace(/\x7f/g, '\\u007f')
}

export type TomlSimpleValue = string | string[]

function renderValue(v: TomlSimpleValue): string {
  return typeof v === 'string' ? tomlString(v) : `[${v.map(tomlString).join(', ')}]`
}

function readValue(src: string, like: TomlSimpleValue): TomlSimpleValue | null {
  return typeof like === 'string' ? parseTomlString(src) : parseTomlStringArray(src)
}

function sameValue(a: TomlSimpleValue | null, b: TomlSimpleValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

function keyText(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k)
}

/** `[a.b]` followed by `key = value` lines. */
export function renderTable(tableKey: TomlKey, values: Record<string, TomlSimpleValue>, eol = '\n'): string {
  return [`[${tableKey.map(keyText).join('.')}]`, ...Object.entries(values).map(([k, v]) => `${keyText(k)} = ${renderValue(v)}`)].join(eol) + eol
}

// ---------------------------------------------------------------- the table

const startsWith = (k: TomlKey, prefix: TomlKey) => prefix.every((p, i) => k[i] === p)
const equalKeys = (a: TomlKey, b: TomlKey) => a.length === b.length && startsWith(a, b)

export interface TableLookup {
  table: TomlTable | null
  /** `[<key>.<sub>]` tables. */
  subtables: TomlTable[]
  layout: TomlLayout
}

/**
 * Find the `[<tableKey>]` table. Throws TomlFormError when the same keys are defined another
 * way (dotted keys in a parent table, an inline table), which this editor leaves to the user.
 */
export function findTable(text: string, tableKey: TomlKey): TableLookup {
  const layout = scanToml(text)
  const scopes: Array<{ key: TomlKey; entries: TomlEntry[] }> = [{ key: [], entries: layout.rootEntries }, ...layout.tables]
  for (const scope of scopes) {
    if (startsWith(scope.key, tableKey)) continue
    for (const e of scope.entries) {
      const full = [...scope.key, ...e.key]
      if (startsWith(full, tableKey) || (startsWith(tableKey, full) && /^\s*\{/.test(e.value))) {
        const where = scope.key.length ? `in [${scope.key.join('.')}]` : 'at the top level'
        throw new TomlFormError(`${tableKey.join('.')} is set by the key "${e.key.join('.')}" ${where} (dotted keys or an inline table), which gitwhy does not edit`)
      }
    }
  }
  for (const t of layout.tables) {
    if (t.array && startsWith(tableKey, t.key)) throw new TomlFormError(`[[${t.key.join('.')}]] is an array of tables, which gitwhy does not edit`)
  }
  return {
    table: layout.tables.find((t) => equalKeys(t.key, tableKey)) ?? null,
    subtables: layout.tables.filter((t) => t.key.length > tableKey.length && startsWith(t.key, tableKey)),
    layout,
  }
}

/** The string / string-array values of `keys` in the table; null for a key missing or of another type. */
export function readTable(text: string, tableKey: TomlKey, like: Record<string, TomlSimpleValue>): Record<string, TomlSimpleValue | null> | null {
  const { table } = findTable(text, tableKey)
  if (!table) return null
  const out: Record<string, TomlSimpleValue | null> = {}
  for (const [k, v] of Object.entries(like)) {
    const e = table.entries.find((x) => equalKeys(x.key, [k]))
    out[k] = e ? readValue(e.value, v) : null
  }
  return out
}

/** After the table's last entry (or its header line when it has none). */
/** Where a table's text ends: its last entry, or its header. */
export function contentEnd(t: TomlTable): number {
  return t.entries.length ? t.entries[t.entries.length - 1].end : t.headerEnd
}

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n'
}

/**
 * Make `[<tableKey>]` hold `values`. Keys already equal are left alone, differing ones have their
 * line replaced, missing ones are added; other keys of the table are kept.
 */
export function setTable(text: string, tableKey: TomlKey, values: Record<string, TomlSimpleValue>): { text: string; status: 'added' | 'updated' | 'unchanged' } {
  const { table, layout } = findTable(text, tableKey)
  const eol = eolOf(text)
  if (!table) {
    // after the last table of the same family ([mcp_servers.*]), else at the end of the file
    const family = layout.tables.filter((t) => startsWith(t.key, tableKey.slice(0, -1)) && tableKey.length > 1)
    const block = renderTable(tableKey, values, eol)
    if (family.length > 0) {
      const at = contentEnd(family[family.length - 1])
      const lead = at > 0 && text[at - 1] !== '\n' ? eol + eol : eol
      return { text: text.slice(0, at) + lead + block + text.slice(at), status: 'added' }
    }
    const lead = text.length === 0 ? '' : text.endsWith('\n') ? (/\n\s*\n$/.test(text) ? '' : eol) : eol + eol
    return { text: text + lead + block, status: 'added' }
  }
  const edits: Array<{ start: number; end: number; text: string }> = []
  let insertAt = contentEnd(table)
  for (const [k, v] of Object.entries(values)) {
    const line = `${keyText(k)} = ${renderValue(v)}`
    const entry = table.entries.find((e) => equalKeys(e.key, [k]))
    if (entry) {
      if (sameValue(readValue(entry.value, v), v)) continue
      const hadEol = text[entry.end - 1] === '\n'
      edits.push({ start: entry.start, end: entry.end, text: line + (hadEol ? eol : '') })
    } else {
      const lead = insertAt > 0 && text[insertAt - 1] !== '\n' ? eol : ''
      edits.push({ start: insertAt, end: insertAt, text: lead + line + eol })
    }
  }
  if (edits.length === 0) return { text, status: 'unchanged' }
  let out = text
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end)
  return { text: out, status: 'updated' }
}

/**
 * Remove `[<tableKey>]` and its sub-tables: each from its header to its last entry, with the blank
 * line before it (the one `setTable` writes), so add-then-remove gives back the original text.
 * Comments and blank lines after the last entry are left for whatever follows.
 */
export function removeTable(text: string, tableKey: TomlKey): { text: string; removed: boolean } {
  const { table, subtables } = findTable(text, tableKey)
  const all = [...(table ? [table] : []), ...subtables].sort((a, b) => b.start - a.start)
  if (all.length === 0) return { text, removed: false }
  let out = text
  for (const t of all) {
    let start = t.start
    const prev = out.lastIndexOf('\n', start - 2)
    if (start >= 1 && /^[ \t\r]*$/.test(out.slice(prev + 1, start - 1))) start = prev + 1
    out = out.slice(0, start) + out.slice(contentEnd(t))
  }
  return { text: out, removed: true }
}
