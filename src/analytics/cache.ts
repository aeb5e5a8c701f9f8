import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { deserialize, serialize } from 'node:v8'
import type { ActivityRow, CoChangeRow, GraphData } from '../graph/types.js'
import { blameOwners } from '../history/hunk-mapper.js'
import { fileImports } from '../codegraph/resolve.js'
import { installedLanguageRegistry } from '../parse/registry.js'
import { symbolIds, type IndexedFile } from '../services/index-layout.js'
import { damagedIndex, listsFile, parseIndexJson, readIndexFile, readIndexJson } from '../services/index-integrity.js'
import type { CommitCategory } from '../services/types.js'
import type { ChangeWithSymbolLines } from './stats.js'
import type { AnalyticsInput, Change } from './types.js'
import { AnalyticsColumns, type AnalyticsState, type SubjectText } from './columns.js'

/**
 * The analytics part of an index. What they are computed from (every commit's changeset, the
 * renames, each file's line ownership at HEAD) is kept beside the graph in `analytics.json`, so an
 * update recomputes them exactly as a full build would, without re-reading the history.
 */
export const ANALYTICS_FILE = 'analytics.json'
/** What an index holds now in place of analytics.json: its columns (analytics.bin) and the ownership (ownership.json). */
export const ANALYTICS_BIN = 'analytics.bin'
export const OWNERSHIP_FILE = 'ownership.json'

export interface AnalyticsCache {
  changes: ChangeWithSymbolLines[]
  renames: AnalyticsInput['renames']
  ownership: AnalyticsInput['ownership']
}

export function saveAnalyticsCache(dir: string, cache: AnalyticsCache | AnalyticsColumns): void {
  const columns = cache instanceof AnalyticsColumns ? cache : AnalyticsColumns.fromCache(cache)
  writeFileSync(path.join(dir, ANALYTICS_BIN), serialize(columns.toStored({ compact: false })))
  writeFileSync(path.join(dir, OWNERSHIP_FILE), JSON.stringify(columns.ownership))
}

/** The state the last analytics pass left for an update's (columns.ts, column-update.ts). */
export const ANALYTICS_STATE_FILE = 'analytics-state.bin'

export function saveAnalyticsState(dir: string, state: AnalyticsState): void {
  writeFileSync(path.join(dir, ANALYTICS_STATE_FILE), serialize(state))
}

/**
 * The state of the index's last analytics pass; undefined when there is none (an index built
 * before it was kept) or it cannot be read: the update then makes the full pass, as before.
 */
export function loadAnalyticsState(dir: string): AnalyticsState | undefined {
  const data = readIndexFile(dir, ANALYTICS_STATE_FILE)
  if (!data) return undefined
  try {
    const state = deserialize(data) as AnalyticsState
    return isState(state) ? state : undefined
  } catch {
    return undefined
  }
}

function isState(s: AnalyticsState): boolean {
  const slots = (t: AnalyticsState['files']) =>
    typeof t === 'object' &&
    t !== null &&
    Array.isArray(t.keys) &&
    [t.revisions, t.recent, t.authors, t.coRevisions].every((col) => col instanceof Int32Array && col.length === t.keys.length) &&
    [t.churn, t.first, t.last].every((col) => col instanceof Float64Array && col.length === t.keys.length) &&
    Number.isInteger(t.changesets)
  return typeof s === 'object' && s !== null && s.format === 1 && typeof s.config === 'string' && typeof s.headTime === 'number' && Number.isInteger(s.commits) && s.counted instanceof Uint8Array && s.counted.length === s.commits && slots(s.files) && slots(s.symbols)
}

/**
 * The inputs as columns: from analytics.bin and ownership.json, or from either format of
 * analytics.json (an index written before them; an update writes the new files).
 */
export function loadAnalyticsColumns(dir: string): AnalyticsColumns {
  const stored = readIndexFile(dir, ANALYTICS_BIN)
  if (stored) {
    const ownership = loadOwnership(dir)
    try {
      const columns = AnalyticsColumns.fromCompact(deserialize(stored) as StoredAnalyticsColumns)
      columns.ownership = ownership
      return columns
    } catch {
      throw damagedIndex(dir, `${ANALYTICS_BIN} cannot be read`)
    }
  }
  const cache = readIndexJson<AnalyticsCache | CompactAnalyticsCache>(dir, ANALYTICS_FILE)
  if (!cache) throw damagedIndex(dir, `${ANALYTICS_BIN} is missing`)
  try {
    return isCompact(cache) ? AnalyticsColumns.fromCompact(cache) : AnalyticsColumns.fromCache(cache)
  } catch {
    throw damagedIndex(dir, `${ANALYTICS_FILE} cannot be read`)
  }
}

export function loadAnalyticsCache(dir: string): AnalyticsCache {
  if (listsFile(dir, ANALYTICS_BIN)) return loadAnalyticsColumns(dir).toCache()
  const cache = readIndexJson<AnalyticsCache | CompactAnalyticsCache>(dir, ANALYTICS_FILE)
  if (!cache) throw damagedIndex(dir, `${ANALYTICS_BIN} is missing`)
  if (!isCompact(cache)) return cache
  try {
    return AnalyticsColumns.fromCompact(cache).toCache()
  } catch {
    throw damagedIndex(dir, `${ANALYTICS_FILE} cannot be read`)
  }
}

/**
 * analytics.json as written: columns of numbers over one table of strings (paths, symbol ids,
 * emails, categories) instead of an object per commit and per file. The object form (the first
 * format, which an index built before this one still holds: loadAnalyticsCache reads both) spelled
 * every path and symbol id out at every commit that touched it: 6.9 MB on vuejs/core, whose parse
 * and garbage were most of an update's analytics phase; this is a quarter of that (1.8 MB), and
 * the analytics are computed over its ids (columns.ts).
 * `ownership` stays an object and stays last (loadOwnership reads it alone).
 */
export interface CompactAnalyticsCache {
  /** 3 since renameSha names commits by index; a format-2 file (every rename's sha spelled out) reads the same. */
  format: 2 | 3
  strings: string[]
  /** Per commit, newest first (the order of AnalyticsCache.changes). */
  sha: string[]
  time: number[]
  /** Indexes into `strings`. */
  author: number[]
  category: number[]
  subject: string[]
  /** How many of the flat file (symbol) columns below each commit takes, in commit order. */
  fileCount: number[]
  filePath: number[]
  additions: number[]
  deletions: number[]
  symbolCount: number[]
  symbol: number[]
  /** The symbol's lines in that commit (symbolLines), -1 for none. */
  symbolLines: number[]
  renamePath: number[]
  renameFrom: number[]
  /**
   * The commit of each rename: its index in `sha` (the first commit with that sha), or the sha
   * itself where no commit has it. prettier's 27,800 renames spelled their shas out in 1.2 MB.
   */
  renameSha: Array<number | string>
  ownership: AnalyticsCache['ownership']
}

/**
 * analytics.bin (v8.serialize): CompactAnalyticsCache's columns, the numbers in typed arrays and
 * the shas one per line of one string; the ownership is in ownership.json.
 */
export interface StoredAnalyticsColumns extends Omit<CompactAnalyticsCache, 'format' | 'sha' | 'subject' | 'time' | 'author' | 'category' | 'fileCount' | 'filePath' | 'additions' | 'deletions' | 'symbolCount' | 'symbol' | 'symbolLines' | 'ownership'> {
  /** 5 since the subjects are one UTF-8 text (SubjectText); format 4's list of strings reads the same. */
  format: 4 | 5
  sha: string
  subject: string[] | SubjectText
  time: Float64Array
  author: Int32Array
  category: Int32Array
  fileCount: Int32Array
  filePath: Int32Array
  additions: Int32Array
  deletions: Int32Array
  symbolCount: Int32Array
  symbol: Int32Array
  symbolLines: Int32Array
}

function isCompact(cache: AnalyticsCache | CompactAnalyticsCache): cache is CompactAnalyticsCache {
  const format = (cache as CompactAnalyticsCache).format
  return format === 2 || format === 3
}

const OWNERSHIP_KEY = Buffer.from('"ownership":{')

/**
 * The lines each author owns at HEAD per file (the OWNED_BY edges), without parsing the
 * changesets that make up nearly all of the file (6.9 of 7 MB on vuejs/core). The key cannot
 * occur earlier: inside a string its quotes would be escaped, and a path named `ownership` in the
 * ownership itself is followed by `[`. Anything else falls back to reading the whole file.
 */
export function loadOwnership(dir: string): AnalyticsCache['ownership'] {
  if (listsFile(dir, OWNERSHIP_FILE)) {
    const ownership = readIndexJson<AnalyticsCache['ownership']>(dir, OWNERSHIP_FILE)
    if (typeof ownership !== 'object' || ownership === null || Array.isArray(ownership)) throw damagedIndex(dir, `${OWNERSHIP_FILE} cannot be read`)
    return ownership
  }
  const data = readIndexFile(dir, ANALYTICS_FILE)
  if (!data) throw damagedIndex(dir, `${ANALYTICS_FILE} is missing`)
  const at = data.indexOf(OWNERSHIP_KEY)
  if (at >= 0 && data[data.length - 1] === 0x7d) {
    try {
      return JSON.parse(data.subarray(at + OWNERSHIP_KEY.length - 1, data.length - 1).toString('utf8')) as AnalyticsCache['ownership']
    } catch {
      // not the last member: read it whole below
    }
  }
  return parseIndexJson<AnalyticsCache>(dir, ANALYTICS_FILE, data.toString('utf8')).ownership
}

/** Every commit's changeset from the graph's rows, newest first (the rows' order). */
export function changesFromRows(rows: Pick<GraphData, 'commits' | 'touched' | 'changed'>): ChangeWithSymbolLines[] {
  const files = new Map<string, Change['files']>()
  for (const t of rows.touched) {
    let list = files.get(t.sha)
    if (!list) files.set(t.sha, (list = []))
    list.push({ path: t.path, additions: t.additions, deletions: t.deletions })
  }
  const symbols = new Map<string, string[]>()
  const symbolLines = new Map<string, Record<string, number>>()
  for (const c of rows.changed) addSymbol(symbols, symbolLines, c)
  return rows.commits.map((c) => ({
    sha: c.sha,
    time: Math.floor(Date.parse(c.committer_date) / 1000),
    author: c.author_email,
    category: c.category as CommitCategory,
    subject: c.subject,
    files: files.get(c.sha) ?? [],
    symbols: symbols.get(c.sha) ?? [],
    symbolLines: symbolLines.get(c.sha) ?? {},
  }))
}

function addSymbol(symbols: Map<string, string[]>, lines: Map<string, Record<string, number>>, c: GraphData['changed'][number]): void {
  let list = symbols.get(c.sha)
  if (!list) symbols.set(c.sha, (list = []))
  list.push(c.symbol)
  let counts = lines.get(c.sha)
  if (!counts) lines.set(c.sha, (counts = {}))
  counts[c.symbol] = c.added + c.removed
}

/**
 * The cached changes with the symbol line histories of some files replaced (an update re-walks
 * the files its commits touched): `gone` symbols are dropped everywhere, `changed` rows added.
 */
export function replaceSymbolHistories(changes: ChangeWithSymbolLines[], gone: ReadonlySet<string>, changed: GraphData['changed']): ChangeWithSymbolLines[] {
  const out = changes.map((c) => {
    const symbolLines: Record<string, number> = {}
    for (const [id, n] of Object.entries(c.symbolLines ?? {})) if (!gone.has(id)) symbolLines[id] = n
    return { ...c, symbols: c.symbols.filter((id) => !gone.has(id)), symbolLines }
  })
  const bySha = new Map(out.map((c) => [c.sha, c]))
  for (const ch of changed) {
    const c = bySha.get(ch.sha)
    if (!c) continue
    c.symbols.push(ch.symbol)
    c.symbolLines![ch.symbol] = ch.added + ch.removed
  }
  return out
}

/** Lines owned at HEAD per author, from one file's blame (commit index per line; ~index past the cut). */
export function ownershipFromBlame(blame: ArrayLike<number>, lines: number, shas: readonly string[], emailOf: (sha: string) => string | undefined): Array<[string, number]> {
  const counts = new Map<string, number>()
  for (const [c, n] of blameOwners(blame, 0, lines, shas.length).owners) {
    const email = emailOf(shas[c])
    if (email !== undefined) counts.set(email, (counts.get(email) ?? 0) + n)
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
}

/** `code`: the code graph analyze built from these files, when it has one (its imports and calls are the communities' structure). */
export function analyticsInput(cache: AnalyticsCache, files: IndexedFile[], headTime: number, code?: Pick<AnalyticsInput, 'imports' | 'calls'>): AnalyticsInput {
  return { ...headInput(files, headTime, code), changes: cache.changes, renames: cache.renames, ownership: cache.ownership }
}

/** The input but the history's part (which columns.ts holds): HEAD's files, symbols, imports and calls. */
export function headInput(files: IndexedFile[], headTime: number, code?: Pick<AnalyticsInput, 'imports' | 'calls'>): Omit<AnalyticsInput, 'changes' | 'renames' | 'ownership'> {
  const symbols: AnalyticsInput['symbols'] = []
  for (const f of files) {
    const ids = symbolIds(f)
    f.symbols.forEach((s, i) => symbols.push({ id: ids[i], path: f.path, qualified_name: s.qualifiedName, parent: s.parentIndex === null ? null : ids[s.parentIndex] }))
  }
  return { headTime, files: files.map((f) => ({ path: f.path, language: f.language })), symbols, imports: code?.imports ?? resolveImports(files), calls: code?.calls ?? [] }
}

/** The files' imports resolved to indexed files (sorted, without duplicates): the same IMPORTS edges the graph holds. */
export function resolveImports(files: IndexedFile[]): Array<{ from: string; to: string }> {
  return fileImports(files, installedLanguageRegistry())
}

/**
 * The activity columns of every file (or symbol) as columns: `key` (the path or id) and one array
 * per ActivityRow field, in ActivityRow's order. analytics-out.json held an object per row before
 * (5,500 on vuejs/core, a third of an update's analytics phase to read, compare and write).
 */
export type ActivityTable = { key: string[] } & { [K in keyof ActivityRow]: Array<ActivityRow[K]> }

const ACTIVITY_FIELDS = ['revisions', 'recent_revisions', 'churn', 'authors', 'first_change', 'last_change', 'hotspot', 'hotspot_percentile', 'cochange_partners'] as const satisfies ReadonlyArray<keyof ActivityRow>

export function emptyActivityTable(): ActivityTable {
  return { key: [], revisions: [], recent_revisions: [], churn: [], authors: [], first_change: [], last_change: [], hotspot: [], hotspot_percentile: [], cochange_partners: [] }
}

export function activityAt(t: ActivityTable, i: number): ActivityRow {
  return {
    revisions: t.revisions[i],
    recent_revisions: t.recent_revisions[i],
    churn: t.churn[i],
    authors: t.authors[i],
    first_change: t.first_change[i],
    last_change: t.last_change[i],
    hotspot: t.hotspot[i],
    hotspot_percentile: t.hotspot_percentile[i],
    cochange_partners: t.cochange_partners[i],
  }
}

/** Row i of `a` and row j of `b` hold the same values. */
export function sameActivity(a: ActivityTable, i: number, b: ActivityTable, j: number): boolean {
  for (const f of ACTIVITY_FIELDS) if (a[f][i] !== b[f][j]) return false
  return true
}

function isActivityTable(t: unknown): t is ActivityTable {
  if (typeof t !== 'object' || t === null) return false
  const table = t as Record<string, unknown>
  const key = table.key
  return Array.isArray(key) && ACTIVITY_FIELDS.every((f) => Array.isArray(table[f]) && (table[f] as unknown[]).length === key.length)
}

/** The first format's rows (an object per key) as a table. */
function tableOf(rows: Record<string, ActivityRow>): ActivityTable {
  const t = emptyActivityTable()
  for (const [key, row] of Object.entries(rows)) {
    t.key.push(key)
    for (const f of ACTIVITY_FIELDS) (t[f] as unknown[]).push(row[f])
  }
  return t
}

function rowsOf(t: ActivityTable): Record<string, ActivityRow> {
  const rows: Record<string, ActivityRow> = Object.create(null)
  t.key.forEach((key, i) => (rows[key] = activityAt(t, i)))
  return rows
}

/**
 * The analytics as stored in the graph, kept beside it in `analytics-out.json`: an update writes
 * only the rows that differ from these.
 */
export interface StoredAnalytics {
  files: ActivityTable
  symbols: ActivityTable
  fileCoChanged: CoChangeRow[]
  symbolCoChanged: CoChangeRow[]
  communities: GraphData['communities']
  memberOf: GraphData['memberOf']
  communityKey: string
  /** structureKey (build.ts) of the code graph the communities were computed with (absent before it was kept). */
  structureKey?: string
}

export const ANALYTICS_OUT_FILE = 'analytics-out.json'

export function saveStoredAnalytics(dir: string, stored: StoredAnalytics): void {
  // files, then symbols, first: loadStoredActivity parses one of them alone
  const { files, symbols, ...rest } = stored
  writeFileSync(path.join(dir, ANALYTICS_OUT_FILE), JSON.stringify({ files, symbols, ...rest }))
}

const FILES_START = Buffer.from('{"files":')
const TABLE_START = Buffer.from('{"files":{"key":[')
const FILES_END = Buffer.from('}},"symbols":{')
const SYMBOLS_END = Buffer.from('}},"fileCoChanged":[')
const TABLE_FILES_END = Buffer.from(']},"symbols":{"key":[')
const TABLE_SYMBOLS_END = Buffer.from(']},"fileCoChanged":[')

/**
 * The activity rows of every file or of every symbol, without parsing the rest of
 * analytics-out.json (a file's answer needs a tenth of it on vuejs/core). As tables (the
 * format written now) a member ends with `]}` and the next one's key, which can only be that: a
 * quote inside a string is escaped. As rows (the first format) a row is flat (no object inside
 * it), so `}}` followed by the next member's key can only close the member. Anything else falls
 * back to reading the whole file.
 */
export function loadStoredActivity(dir: string, part: 'files' | 'symbols'): Record<string, ActivityRow> {
  const data = readIndexFile(dir, ANALYTICS_OUT_FILE)
  if (!data) throw damagedIndex(dir, `${ANALYTICS_OUT_FILE} is missing`)
  const tables = data.subarray(0, TABLE_START.length).equals(TABLE_START)
  const [startLength, filesEndMark, symbolsEndMark] = tables ? [FILES_START.length, TABLE_FILES_END, TABLE_SYMBOLS_END] : [FILES_START.length, FILES_END, SYMBOLS_END]
  const filesEnd = data.indexOf(filesEndMark)
  const symbolsEnd = filesEnd < 0 ? -1 : data.indexOf(symbolsEndMark, filesEnd)
  if (data.subarray(0, FILES_START.length).equals(FILES_START) && symbolsEnd > 0) {
    // the member's value: from its `{` to the `}` that closes it
    const at = tables ? filesEnd + ']},"symbols":'.length : filesEnd + FILES_END.length - 1
    const [from, to] = part === 'files' ? [startLength, filesEnd + 2] : [at, symbolsEnd + 2]
    try {
      const value: unknown = JSON.parse(data.subarray(from, to).toString('utf8'))
      if (tables && isActivityTable(value)) return rowsOf(value)
      if (!tables && typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, ActivityRow>
    } catch {
      // another layout: read it whole below
    }
  }
  const whole = parseIndexJson<Record<string, unknown>>(dir, ANALYTICS_OUT_FILE, data.toString('utf8'))[part]
  return isActivityTable(whole) ? rowsOf(whole) : (whole as Record<string, ActivityRow>)
}

/** The stored analytics, from either format (rows of the first are read as tables). */
export function loadStoredAnalytics(dir: string): StoredAnalytics {
  const stored = readIndexJson<Omit<StoredAnalytics, 'files' | 'symbols'> & { files: unknown; symbols: unknown }>(dir, ANALYTICS_OUT_FILE)
  if (!stored) throw damagedIndex(dir, `${ANALYTICS_OUT_FILE} is missing`)
  const table = (t: unknown): ActivityTable => {
    if (isActivityTable(t)) return t
    if (typeof t === 'object' && t !== null && !Array.isArray(t)) return tableOf(t as Record<string, ActivityRow>)
    throw damagedIndex(dir, `${ANALYTICS_OUT_FILE} cannot be read`)
  }
  return { ...stored, files: table(stored.files), symbols: table(stored.symbols) }
}
