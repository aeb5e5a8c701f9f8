/**
 * The analytics' input history as columns: every commit's changeset, the renames and the
 * ownership, with each path, symbol id, email and category interned once in one string table and
 * the per-commit lists as flat arrays of numbers. An update reads it from analytics.json, adds its
 * commits, swaps the re-walked files' symbol histories and computes the analytics from it without
 * building an object per commit and per touched file (on vuejs/core that was ~60,000 objects and
 * the garbage of a 6.9 MB JSON.parse, most of the update's analytics phase). A full build computes
 * from the same columns, so both take one code path; the object form (AnalyticsCache, stats.ts and
 * cochange.ts over Change objects) stays the reference the tests hold this to.
 */
import type { GraphData } from '../graph/types.js'
import type { CommitCategory } from '../services/types.js'
import type { AnalyticsCache, CompactAnalyticsCache, StoredAnalyticsColumns } from './cache.js'
import type { ChangeWithSymbolLines } from './stats.js'
import { coChangeOfSets, withoutEnclosing } from './cochange.js'
import { countsAsRevision, DAY } from './stats.js'
import type { ActivityStats, AnalyticsConfig, AnalyticsInput, AnalyticsOutput, Change } from './types.js'

export class AnalyticsColumns {
  readonly strings: string[] = []
  private ids = new Map<string, number>()
  /** Per commit, newest first. */
  sha: string[] = []
  /**
   * The number columns are arrays while a build pushes into them, typed arrays as analytics.bin
   * reads them (and as an update joins the two): read by index either way.
   */
  time: Floats = []
  author: Ints = []
  category: Ints = []
  /** The subjects as a list (as a build pushes them), or null while they are still the text analytics.bin held. */
  private subjectList: string[] | null = []
  private subjectText: SubjectText | null = null
  /** Commit i's files are the entries fileStart[i] .. fileStart[i + 1] - 1 of the flat columns. */
  fileStart: Ints = [0]
  filePath: Ints = []
  additions: Ints = []
  deletions: Ints = []
  symbolStart: Ints = [0]
  symbol: Ints = []
  /** The symbol's lines in that commit (ChangeWithSymbolLines.symbolLines), -1 for none. */
  symbolLines: Ints = []
  renamePath: number[] = []
  renameFrom: number[] = []
  renameSha: string[] = []
  ownership: AnalyticsCache['ownership'] = Object.create(null)
  /**
   * An update's history (withUpdate): the history it was made from, how many new commits come
   * first, and per commit 1 where its symbols differ from that history's (a new commit, or one
   * whose symbols were dropped or added).
   */
  updated?: { from: AnalyticsColumns; fresh: number; symbolsChanged: Uint8Array }

  get length(): number {
    return this.sha.length
  }

  /** Every subject, newest first (decoded once when they were read as one text). */
  get subject(): string[] {
    if (this.subjectList === null) {
      const { text, end } = this.subjectText!
      const list: string[] = new Array<string>(end.length)
      for (let i = 0; i < end.length; i++) list[i] = text.toString('utf8', i === 0 ? 0 : end[i - 1], end[i])
      this.subjectList = list
      this.subjectText = null
    }
    return this.subjectList
  }

  /** Commit i's subject (one decoded, not the whole list). */
  subjectAt(i: number): string {
    if (this.subjectList !== null) return this.subjectList[i]
    const { text, end } = this.subjectText!
    return text.toString('utf8', i === 0 ? 0 : end[i - 1], end[i])
  }

  id(s: string): number {
    let i = this.ids.get(s)
    if (i === undefined) {
      i = this.strings.length
      this.ids.set(s, i)
      this.strings.push(s)
    }
    return i
  }

  /** The id of a string already in the table, else undefined (nothing is added). */
  known(s: string): number | undefined {
    return this.ids.get(s)
  }

  /** Append one commit (after those already in: callers add newest first). */
  push(c: ChangeWithSymbolLines): void {
    const time = growable(this, 'time')
    const author = growable(this, 'author')
    const category = growable(this, 'category')
    const filePath = growable(this, 'filePath')
    const additions = growable(this, 'additions')
    const deletions = growable(this, 'deletions')
    const symbol = growable(this, 'symbol')
    const symbolLines = growable(this, 'symbolLines')
    this.sha.push(c.sha)
    time.push(c.time)
    author.push(this.id(c.author))
    category.push(this.id(c.category))
    this.subject.push(c.subject)
    for (const f of c.files) {
      filePath.push(this.id(f.path))
      additions.push(f.additions)
      deletions.push(f.deletions)
    }
    growable(this, 'fileStart').push(filePath.length)
    const lines = c.symbolLines
    for (const s of c.symbols) {
      symbol.push(this.id(s))
      symbolLines.push(lines !== undefined && Object.hasOwn(lines, s) ? lines[s] : -1)
    }
    growable(this, 'symbolStart').push(symbol.length)
  }

  /**
   * An empty history over this one's string table, shared, not copied (~40,000 strings on
   * prettier): what either adds is appended for both, the ids already given never change, and
   * toCompact keeps only the strings a history uses.
   */
  private emptyLike(): AnalyticsColumns {
    const out = new AnalyticsColumns()
    ;(out as { strings: string[] }).strings = this.strings
    out.ids = this.ids
    return out
  }

  static fromCache(cache: AnalyticsCache): AnalyticsColumns {
    const out = new AnalyticsColumns()
    for (const c of cache.changes) out.push(c)
    out.addRenames(cache.renames)
    out.ownership = cache.ownership
    return out
  }

  addRenames(renames: AnalyticsCache['renames']): void {
    for (const r of renames) {
      this.renamePath.push(this.id(r.path))
      this.renameFrom.push(this.id(r.from))
      this.renameSha.push(r.sha)
    }
  }

  static fromCompact(c: CompactAnalyticsCache | StoredAnalyticsColumns): AnalyticsColumns {
    const out = new AnalyticsColumns()
    for (const s of c.strings) {
      if (typeof s !== 'string' || out.ids.has(s)) throw new Error('not a string table')
      out.id(s)
    }
    const sha = typeof c.sha === 'string' ? splitShas(c.sha) : c.sha
    const n = sha.length
    const subjects = Array.isArray(c.subject) ? c.subject : subjectText(c.subject, n)
    if ([c.time, c.author, c.category, c.fileCount, c.symbolCount, c.filePath, c.additions, c.deletions, c.symbol, c.symbolLines].some((col) => !isColumn(col))) throw new Error('not a column')
    const columns = [c.time, c.author, c.category, c.fileCount, c.symbolCount, Array.isArray(subjects) ? subjects : subjects.end]
    if (columns.some((col) => col.length !== n)) throw new Error('commit columns of different lengths')
    // each commit's first entries: the counts summed (typed: no array grown by 82,000 pushes)
    const fileStart = new Int32Array(n + 1)
    const symbolStart = new Int32Array(n + 1)
    let files = 0
    let symbols = 0
    for (let i = 0; i < n; i++) {
      fileStart[i + 1] = files += c.fileCount[i]
      symbolStart[i + 1] = symbols += c.symbolCount[i]
    }
    out.fileStart = fileStart
    out.symbolStart = symbolStart
    if (c.filePath.length !== files || c.additions.length !== files || c.deletions.length !== files) throw new Error('file columns of different lengths')
    if (c.symbol.length !== symbols || c.symbolLines.length !== symbols) throw new Error('symbol columns of different lengths')
    if (c.renameFrom.length !== c.renamePath.length || c.renameSha.length !== c.renamePath.length) throw new Error('rename columns of different lengths')
    // a rename's commit by index is that commit's own sha string (one string, hashed once)
    const renameSha = c.renameSha.map((at) => {
      if (typeof at === 'string') return at
      if (!(Number.isInteger(at) && at >= 0 && at < n)) throw new Error('a rename of a commit out of the list')
      return sha[at]
    })
    const m = out.strings.length
    for (const col of [c.author, c.category, c.filePath, c.symbol, c.renamePath, c.renameFrom]) if (!indexesBelow(col, m)) throw new Error('a string index out of the table')
    Object.assign(out, {
      sha,
      time: c.time,
      author: c.author,
      category: c.category,
      subjectList: Array.isArray(subjects) ? subjects : null,
      subjectText: Array.isArray(subjects) ? null : subjects,
      filePath: c.filePath,
      additions: c.additions,
      deletions: c.deletions,
      symbol: c.symbol,
      symbolLines: c.symbolLines,
      renamePath: c.renamePath,
      renameFrom: c.renameFrom,
      renameSha,
      // analytics.bin's are in ownership.json (its reader sets them)
      ownership: 'ownership' in c ? c.ownership : Object.create(null),
    })
    return out
  }

  /**
   * The stored form: the string table rebuilt in order of first use, so equal histories give the
   * same bytes (an update's table would otherwise keep the ids of symbols it dropped).
   */
  toCompact(): CompactAnalyticsCache {
    const c = this.toStored()
    const plain = (col: ArrayLike<number>) => Array.from(col)
    return {
      ...c,
      format: 3,
      sha: this.sha,
      subject: this.subject,
      time: plain(c.time),
      author: plain(c.author),
      category: plain(c.category),
      fileCount: plain(c.fileCount),
      filePath: plain(c.filePath),
      additions: plain(c.additions),
      deletions: plain(c.deletions),
      symbolCount: plain(c.symbolCount),
      symbol: plain(c.symbol),
      symbolLines: plain(c.symbolLines),
      ownership: this.ownership,
    }
  }

  /**
   * analytics.bin's form (v8.serialize): toCompact's columns as typed arrays and the shas as one
   * string, without the ownership (ownership.json). git/git's 82,000 commits: serialized in ~15 ms
   * and read back in ~40, where analytics.json's JSON took ~0.1 and ~0.25 s, and its 1.3 million
   * numbers were objects for the garbage collector to copy.
   */
  toStored(options: { compact?: boolean } = {}): StoredAnalyticsColumns {
    const n = this.length
    // the table as it is when few of its strings went unused (an update's dropped symbols): no
    // second table to build over every entry (~40 ms of git/git's update); compacted past an eighth
    const compact = options.compact !== false || this.unusedStrings() * 8 > this.strings.length
    const remap = new Int32Array(this.strings.length).fill(-1)
    const strings: string[] = compact ? [] : this.strings
    const id = compact
      ? (i: number): number => {
          let j = remap[i]
          if (j < 0) {
            j = remap[i] = strings.length
            strings.push(this.strings[i])
          }
          return j
        }
      : (i: number): number => i
    const author = new Int32Array(n)
    const category = new Int32Array(n)
    const fileCount = new Int32Array(n)
    const symbolCount = new Int32Array(n)
    const filePath = new Int32Array(this.filePath.length)
    const symbol = new Int32Array(this.symbol.length)
    for (let i = 0; i < n; i++) {
      fileCount[i] = this.fileStart[i + 1] - this.fileStart[i]
      symbolCount[i] = this.symbolStart[i + 1] - this.symbolStart[i]
    }
    if (compact) {
      for (let i = 0; i < n; i++) {
        author[i] = id(this.author[i])
        category[i] = id(this.category[i])
        for (let k = this.fileStart[i]; k < this.fileStart[i + 1]; k++) filePath[k] = id(this.filePath[k])
        for (let k = this.symbolStart[i]; k < this.symbolStart[i + 1]; k++) symbol[k] = id(this.symbol[k])
      }
    } else {
      author.set(this.author)
      category.set(this.category)
      filePath.set(this.filePath)
      symbol.set(this.symbol)
    }
    const renamePath = this.renamePath.map((_, r) => id(this.renamePath[r]))
    const renameFrom = this.renameFrom.map((_, r) => id(this.renameFrom[r]))
    // a rename's commit by its (newest) index: the renames' shas looked up, not every commit's
    const commitAt = new Map<string, number>()
    for (const sha of this.renameSha) commitAt.set(sha, -1)
    for (let i = n - 1; i >= 0; i--) if (commitAt.has(this.sha[i])) commitAt.set(this.sha[i], i)
    const renameSha = this.renameSha.map((sha) => {
      const at = commitAt.get(sha)!
      return at < 0 ? sha : at
    })
    const subject = this.subjectText ?? encodeSubjects(this.subjectList!)
    return {
      format: Array.isArray(subject) ? 4 : 5,
      strings,
      sha: oneByte(this.sha.join('\n')),
      time: this.time instanceof Float64Array ? this.time.slice() : Float64Array.from(this.time),
      author,
      category,
      subject,
      fileCount,
      filePath,
      additions: ints(this.additions),
      deletions: ints(this.deletions),
      symbolCount,
      symbol,
      symbolLines: ints(this.symbolLines),
      renamePath,
      renameFrom,
      renameSha,
    }
  }

  /** The strings of the table no commit, file entry, symbol entry or rename names. */
  private unusedStrings(): number {
    const used = new Uint8Array(this.strings.length)
    for (const col of [this.author, this.category, this.filePath, this.symbol, this.renamePath, this.renameFrom]) {
      for (let k = 0; k < col.length; k++) used[col[k]] = 1
    }
    let unused = 0
    for (let i = 0; i < used.length; i++) unused += 1 - used[i]
    return unused
  }

  /**
   * sha → the commit's author and category (the last commit of a sha, as a map built from the
   * object form has it), of these shas only (an update's blame names a few hundred of 12,000).
   */
  authorsBySha(shas: Iterable<string>): Map<string, { author: string; category: string }> {
    const wanted = new Set(shas)
    const out = new Map<string, { author: string; category: string }>()
    for (let i = 0, n = this.length; i < n; i++) if (wanted.has(this.sha[i])) out.set(this.sha[i], { author: this.strings[this.author[i]], category: this.strings[this.category[i]] })
    return out
  }

  /** sha → the commit's subject (the last commit of a sha, as a map built from the list has it), of these shas only. */
  subjectsBySha(shas: ReadonlySet<string>): Map<string, string> {
    const out = new Map<string, string>()
    for (let i = 0, n = this.length; i < n; i++) if (shas.has(this.sha[i])) out.set(this.sha[i], this.subjectAt(i))
    return out
  }

  /** The object form (risk's backtest and the tests read it). */
  toCache(): AnalyticsCache {
    const s = this.strings
    const changes: ChangeWithSymbolLines[] = []
    for (let i = 0, n = this.length; i < n; i++) {
      const files: Change['files'] = []
      for (let k = this.fileStart[i]; k < this.fileStart[i + 1]; k++) files.push({ path: s[this.filePath[k]], additions: this.additions[k], deletions: this.deletions[k] })
      const symbols: string[] = []
      const symbolLines: Record<string, number> = {}
      for (let k = this.symbolStart[i]; k < this.symbolStart[i + 1]; k++) {
        symbols.push(s[this.symbol[k]])
        if (this.symbolLines[k] >= 0) symbolLines[s[this.symbol[k]]] = this.symbolLines[k]
      }
      changes.push({ sha: this.sha[i], time: this.time[i], author: s[this.author[i]], category: s[this.category[i]] as CommitCategory, subject: this.subjectAt(i), files, symbols, symbolLines })
    }
    const renames = this.renamePath.map((p, r) => ({ path: s[p], from: s[this.renameFrom[r]], sha: this.renameSha[r] }))
    return { changes, renames, ownership: this.ownership }
  }

  /**
   * An update's history: `fresh` (the new commits, newest first, no symbols yet) before these,
   * `gone` symbols dropped from every commit and the `changed` rows (the re-walked files' symbol
   * histories) added to their commits, as replaceSymbolHistories does to the object form.
   */
  withUpdate(fresh: ChangeWithSymbolLines[], gone: ReadonlySet<string>, changed: GraphData['changed'], renames: AnalyticsCache['renames']): AnalyticsColumns {
    const out = this.emptyLike()
    const added = new Map<string, GraphData['changed']>()
    for (const ch of changed) {
      const list = added.get(ch.sha)
      if (list) list.push(ch)
      else added.set(ch.sha, [ch])
    }
    // the last commit of a sha takes its rows, as replaceSymbolHistories's map does
    const lastOf = new Map<string, number>()
    const all = fresh.length + this.length
    const shaAt = (i: number) => (i < fresh.length ? fresh[i].sha : this.sha[i - fresh.length])
    for (let i = 0; i < all; i++) if (added.has(shaAt(i))) lastOf.set(shaAt(i), i)
    const dropped = new Uint8Array(this.strings.length)
    for (const id of gone) {
      const i = this.ids.get(id)
      if (i !== undefined) dropped[i] = 1
    }
    const symbol = growable(out, 'symbol')
    const symbolLines = growable(out, 'symbolLines')
    const symbolStart = growable(out, 'symbolStart')
    const appendRows = (rows: GraphData['changed'] | undefined) => {
      if (!rows) return
      for (const r of rows) {
        symbol.push(out.id(r.symbol))
        symbolLines.push(r.added + r.removed)
      }
      symbolStart[symbolStart.length - 1] = symbol.length
      lastLines(symbol, symbolLines, symbolStart[symbolStart.length - 2], symbol.length)
    }
    fresh.forEach((c, i) => {
      const kept = { ...c, symbols: c.symbols.filter((id) => !gone.has(id)) }
      out.push(kept)
      if (lastOf.get(c.sha) === i) appendRows(added.get(c.sha))
    })
    // the stored commits: their per-commit and file columns as they are, their symbols filtered
    const n = fresh.length
    const files = out.filePath.length
    out.sha = out.sha.concat(this.sha)
    out.time = joined(out.time, this.time, Float64Array)
    out.author = joined(out.author, this.author, Int32Array)
    out.category = joined(out.category, this.category, Int32Array)
    if (this.subjectList !== null) out.subjectList = out.subject.concat(this.subjectList)
    else {
      // the stored subjects stay one text: the new ones' before it
      const fresh = encodeSubjects(out.subject)
      if (Array.isArray(fresh)) out.subjectList = fresh.concat(this.subject)
      else {
        out.subjectText = joinedText(fresh, this.subjectText!)
        out.subjectList = null
      }
    }
    out.filePath = joined(out.filePath, this.filePath, Int32Array)
    out.additions = joined(out.additions, this.additions, Int32Array)
    out.deletions = joined(out.deletions, this.deletions, Int32Array)
    const m = this.length
    const fileStart = new Int32Array(n + m + 1)
    fileStart.set(out.fileStart)
    for (let i = 1; i <= m; i++) fileStart[n + i] = this.fileStart[i] + files
    out.fileStart = fileStart
    // the symbol columns typed and sized once (the new commits' entries, the stored ones, the rows
    // added), not arrays grown by ~100,000 pushes
    const capacity = symbol.length + this.symbol.length + changed.length
    const sym = new Int32Array(capacity)
    const lines = new Int32Array(capacity)
    sym.set(symbol)
    lines.set(symbolLines)
    let len = symbol.length
    const starts = new Int32Array(n + m + 1)
    starts.set(symbolStart)
    const appendAt = new Uint8Array(m)
    for (const [sha, at] of lastOf) if (at >= n && this.sha[at - n] === sha) appendAt[at - n] = 1
    const symbolsChanged = new Uint8Array(all)
    symbolsChanged.fill(1, 0, n)
    for (let i = 0; i < m; i++) {
      const from = len
      for (let k = this.symbolStart[i]; k < this.symbolStart[i + 1]; k++) {
        if (dropped[this.symbol[k]]) {
          symbolsChanged[i + n] = 1
          continue
        }
        sym[len] = this.symbol[k]
        lines[len++] = this.symbolLines[k]
      }
      if (appendAt[i] === 1) {
        for (const r of added.get(this.sha[i])!) {
          sym[len] = out.id(r.symbol)
          lines[len++] = r.added + r.removed
        }
        lastLines(sym, lines, from, len)
        symbolsChanged[i + n] = 1
      }
      starts[n + i + 1] = len
    }
    out.symbol = sym.slice(0, len)
    out.symbolLines = lines.slice(0, len)
    out.symbolStart = starts
    out.updated = { from: this, fresh: n, symbolsChanged }
    out.addRenames(renames)
    for (let r = 0; r < this.renamePath.length; r++) {
      out.renamePath.push(this.renamePath[r])
      out.renameFrom.push(this.renameFrom[r])
      out.renameSha.push(this.renameSha[r])
    }
    return out
  }
}

/**
 * The subjects as analytics.bin holds them: one UTF-8 text and each subject's end in it (bytes),
 * not 82,000 strings (git/git) for v8.deserialize to make and the collector to copy, when an
 * update reads a few hundred of them.
 */
export interface SubjectText {
  text: Buffer
  end: Int32Array
}

/** The subjects as one text; the list itself when one holds a lone surrogate (UTF-8 cannot keep it). */
function encodeSubjects(list: readonly string[]): SubjectText | string[] {
  const joined = list.join('')
  if (LONE_SURROGATE.test(joined)) return list.slice()
  const end = new Int32Array(list.length)
  let at = 0
  for (let i = 0; i < list.length; i++) end[i] = at += Buffer.byteLength(list[i], 'utf8')
  const text = Buffer.from(joined, 'utf8')
  // two halves of a pair, one ending a subject and one starting the next, join into one character
  return text.length === at ? { text, end } : list.slice()
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** a's subjects then b's. */
function joinedText(a: SubjectText, b: SubjectText): SubjectText {
  const end = new Int32Array(a.end.length + b.end.length)
  end.set(a.end)
  const shift = a.text.length
  for (let i = 0; i < b.end.length; i++) end[a.end.length + i] = b.end[i] + shift
  return { text: Buffer.concat([a.text, b.text]), end }
}

/** A stored SubjectText of n subjects, checked (its ends within the text, in order), its text a Buffer. */
function subjectText(x: unknown, n: number): SubjectText {
  const t = x as Partial<SubjectText> | null
  if (typeof t !== 'object' || t === null || !(t.text instanceof Uint8Array) || !(t.end instanceof Int32Array) || t.end.length !== n) throw new Error('not a subject column')
  const text = Buffer.from(t.text.buffer, t.text.byteOffset, t.text.byteLength)
  const end = t.end
  for (let i = 0, from = 0; i < n; from = end[i++]) if (!(end[i] >= from && end[i] <= text.length)) throw new Error('a subject out of its text')
  return { text, end }
}

type Ints = number[] | Int32Array
type Floats = number[] | Float64Array

/** The number columns analytics.bin holds as typed arrays. */
type NumberColumn = 'time' | 'author' | 'category' | 'filePath' | 'additions' | 'deletions' | 'symbol' | 'symbolLines' | 'fileStart' | 'symbolStart'

/** A number column of `cols` as an array that can grow (a typed one, as read, is copied once). */
function growable(cols: AnalyticsColumns, name: NumberColumn): number[] {
  const col = cols[name]
  if (Array.isArray(col)) return col
  const copy = Array.from(col)
  cols[name] = copy
  return copy
}

/** symbolLines is keyed by id: a symbol listed twice in one commit (entries from .. to - 1) has its last lines at both entries. */
function lastLines(symbol: Ints, lines: Ints, from: number, to: number): void {
  const last = new Map<number, number>()
  for (let k = from; k < to; k++) last.set(symbol[k], lines[k])
  for (let k = from; k < to; k++) lines[k] = last.get(symbol[k])!
}

/** A number column as its own Int32Array (a typed one copied natively: `from` iterates it, slowly before V8 optimises). */
function ints(col: Ints): Int32Array {
  return col instanceof Int32Array ? col.slice() : Int32Array.from(col)
}

/** a's entries then b's: an array when both are, else a typed array of `kind`. */
function joined<T extends Int32Array | Float64Array>(a: number[] | T, b: number[] | T, kind: { new (n: number): T }): number[] | T {
  if (Array.isArray(a) && Array.isArray(b)) return a.concat(b)
  const out = new kind(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

/**
 * Every entry of `col` is an index below m. Indexed, not for…of (an update runs this in V8's
 * baseline tiers, where a typed array's iterator is slow), and a typed column apart from an array
 * (one loop reading both kinds is slower on each).
 */
function indexesBelow(col: ArrayLike<number>, m: number): boolean {
  if (col instanceof Int32Array) return int32sBelow(col, m)
  for (let k = 0; k < col.length; k++) if (!(col[k] >= 0 && col[k] < m)) return false
  return true
}

function int32sBelow(col: Int32Array, m: number): boolean {
  for (let k = 0; k < col.length; k++) if (!(col[k] >= 0 && col[k] < m)) return false
  return true
}

function isColumn(x: unknown): x is ArrayLike<number> {
  return Array.isArray(x) || x instanceof Int32Array || x instanceof Float64Array
}

/**
 * `s` (Latin-1 only: hex and newlines) as a one-byte string. A join holding one two-byte string
 * (a sha sliced from git's output decoded with a non-Latin-1 character in it) is two-byte
 * throughout, v8.serialize writes it so, and the shas split from it when read are two-byte too:
 * git/git's 3.4 million characters of shas were 6.7 MB of its 18 MB analytics.bin, every update.
 */
function oneByte(s: string): string {
  return Buffer.from(s, 'latin1').toString('latin1')
}

/** The shas of one string, a line each (analytics.bin keeps them so: one string, not 82,000). */
function splitShas(lines: string): string[] {
  return lines === '' ? [] : lines.split('\n')
}

/**
 * For every file entry of the columns (fileStart's order): the id of that file's path at HEAD, -1
 * for a gone file. The alias walk of headPathsByChange (stats.ts), over ids. With `counted`, the
 * entries of a commit it marks 0 are left -1 (nobody reads them; their renames still apply).
 */
export function headPathIds(cols: AnalyticsColumns, files: AnalyticsInput['files'], counted?: Uint8Array): Int32Array {
  const s = cols.strings
  const renamesAt = new Map<string, number[]>()
  cols.renameSha.forEach((sha, r) => {
    const list = renamesAt.get(sha)
    if (list) list.push(r)
    else renamesAt.set(sha, [r])
  })
  const alias = new Int32Array(s.length).fill(-1)
  for (const f of files) {
    const id = cols.known(f.path)
    if (id !== undefined) alias[id] = id
  }
  const out = new Int32Array(cols.filePath.length).fill(-1)
  for (let i = 0, n = cols.length; i < n; i++) {
    if (!counted || counted[i] === 1) for (let k = cols.fileStart[i]; k < cols.fileStart[i + 1]; k++) out[k] = alias[cols.filePath[k]]
    const rs = renamesAt.get(cols.sha[i])
    if (!rs) continue
    // from → its HEAD path (-1: none); each source once, the smallest HEAD path among its renames
    const sources = new Map<number, number>()
    for (const r of rs) {
      const head = alias[cols.renamePath[r]]
      const from = cols.renameFrom[r]
      const prev = sources.get(from)
      if (head >= 0 && (prev === undefined || prev < 0 || s[head] < s[prev])) sources.set(from, head)
      else if (prev === undefined) sources.set(from, -1)
    }
    for (const r of rs) alias[cols.renamePath[r]] = -1
    for (const [from, head] of sources) alias[from] = head
  }
  return out
}

/** Per slot: what activity stats count (first and last NaN for none). */
export interface ActivityCounts {
  revisions: Int32Array
  recent: Int32Array
  churn: Float64Array
  authors: Int32Array
  first: Float64Array
  last: Float64Array
}

export interface Accumulators extends ActivityCounts {
  /** the (slot, author) pairs seen */
  seen: PairSet
}

/** A set of ordered pairs of small non-negative integers: open addressing over typed arrays (no garbage). */
class PairSet {
  private first = new Int32Array(4096).fill(-1)
  private second = new Int32Array(4096)
  private size = 0

  /** Adds the pair; true when it was not there. */
  add(a: number, b: number): boolean {
    const mask = this.first.length - 1
    let at = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77)) & mask
    for (;;) {
      const seen = this.first[at]
      if (seen === -1) break
      if (seen === a && this.second[at] === b) return false
      at = (at + 1) & mask
    }
    this.first[at] = a
    this.second[at] = b
    if (++this.size * 2 > this.first.length) this.grow()
    return true
  }

  private grow(): void {
    const { first, second } = this
    this.first = new Int32Array(first.length * 2).fill(-1)
    this.second = new Int32Array(first.length * 2)
    this.size = 0
    for (let at = 0; at < first.length; at++) if (first[at] !== -1) this.add(first[at], second[at])
  }
}

function accumulators(n: number): Accumulators {
  return { revisions: new Int32Array(n), recent: new Int32Array(n), churn: new Float64Array(n), authors: new Int32Array(n), first: new Float64Array(n).fill(NaN), last: new Float64Array(n).fill(NaN), seen: new PairSet() }
}

/** The keys are distinct and in ascending order (`<`, UTF-16 code units: the default sort's order). */
export function inKeyOrder(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (!(keys[i - 1] < keys[i])) return false
  return true
}

export function finishStats(acc: ActivityCounts, keys: string[]): Map<string, ActivityStats> {
  // the default sort compares UTF-16 code units, as `<` does (the order sortedMap gives); the keys are distinct
  const out = new Map<string, ActivityStats>()
  // the slots in key order; the files come sorted already (by path, as analyze lists them): checked, not sorted again
  let order: number[]
  if (inKeyOrder(keys)) order = keys.map((_, i) => i)
  else {
    const slot = new Map(keys.map((k, i) => [k, i]))
    order = keys.slice().sort().map((k) => slot.get(k)!)
  }
  for (const i of order) {
    const first = acc.first[i]
    const last = acc.last[i]
    out.set(keys[i], { revisions: acc.revisions[i], recent_revisions: acc.recent[i], churn: acc.churn[i], authors: acc.authors[i], first_change: Number.isNaN(first) ? null : first, last_change: Number.isNaN(last) ? null : last })
  }
  return out
}

export type ColumnInput = Pick<AnalyticsInput, 'headTime' | 'files' | 'symbols'>

export type ColumnResult = Pick<AnalyticsOutput, 'fileStats' | 'symbolStats' | 'fileCoChange' | 'symbolCoChange'>

/**
 * What a pass leaves for the next update (analytics-state.bin), per file and per symbol slot (in
 * the order of the input's files and symbols) and per commit: an update recomputes only the items
 * its commits can have changed (column-update.ts) and takes the rest from here.
 */
export interface AnalyticsState {
  format: 1
  /** The settings the numbers were counted with (JSON): another one is a full pass. */
  config: string
  headTime: number
  /** The commits of the history counted (its length). */
  commits: number
  /** Per commit: 1 when its file set counted in co-change, 2 when its symbol set did. */
  counted: Uint8Array
  files: SlotState
  symbols: SlotState
}

export interface SlotState extends ActivityCounts {
  keys: string[]
  /** The counted changesets that hold the item (co-change's revisions). */
  coRevisions: Int32Array
  /** The counted changesets (co-change support's denominator). */
  changesets: number
}

/** The settings as the state records them. */
export function stateConfig(config: AnalyticsConfig): string {
  return JSON.stringify([config.recentDays, config.maxChangesetSize, config.minRevisions, config.minShared, config.minDegree, config.minConfidence ?? 0])
}

/** Per commit, 1 when it counts as a revision (a merge, a bot's, a formatting one do not: they add to nothing). */
export function revisionFlags(cols: AnalyticsColumns): Uint8Array {
  const revisionOf = new Map<number, boolean>()
  const revision = new Uint8Array(cols.length)
  for (let i = 0, n = cols.length; i < n; i++) {
    const category = cols.category[i]
    let yes = revisionOf.get(category)
    if (yes === undefined) revisionOf.set(category, (yes = countsAsRevision(cols.strings[category] as CommitCategory)))
    revision[i] = yes ? 1 : 0
  }
  return revision
}

/** A slot per present file (by path) and per HEAD symbol (by id), and the string ids that map to them. */
export interface Slots {
  fileKeys: string[]
  fileSlot: Map<string, number>
  /** string id → file slot (-1: none) */
  fileOf: Int32Array
  symbolKeys: string[]
  symbolSlot: Map<string, number>
  /** string id → symbol slot (-1: none) */
  symbolOf: Int32Array
  /** the file slot of each symbol slot (its last entry's, as a map from id to path keeps it) */
  symbolFile: Int32Array
  parent: Map<string, string | null>
}

export function slotsOf(cols: AnalyticsColumns, input: ColumnInput): Slots {
  const nStrings = cols.strings.length
  const fileKeys: string[] = []
  const fileSlot = new Map<string, number>()
  for (const f of input.files) if (!fileSlot.has(f.path)) fileSlot.set(f.path, fileKeys.push(f.path) - 1)
  const fileOf = new Int32Array(nStrings).fill(-1)
  for (const [p, slot] of fileSlot) {
    const id = cols.known(p)
    if (id !== undefined) fileOf[id] = slot
  }
  const symbolKeys: string[] = []
  const symbolSlot = new Map<string, number>()
  const symbolFileOf: number[] = []
  const parent = new Map<string, string | null>()
  for (const sym of input.symbols) {
    let slot = symbolSlot.get(sym.id)
    if (slot === undefined) symbolSlot.set(sym.id, (slot = symbolKeys.push(sym.id) - 1))
    symbolFileOf[slot] = fileSlot.get(sym.path) ?? -1
    parent.set(sym.id, sym.parent)
  }
  const symbolOf = new Int32Array(nStrings).fill(-1)
  for (const [id, slot] of symbolSlot) {
    const sid = cols.known(id)
    if (sid !== undefined) symbolOf[sid] = slot
  }
  return { fileKeys, fileSlot, fileOf, symbolKeys, symbolSlot, symbolOf, symbolFile: Int32Array.from(symbolFileOf), parent }
}

/** Counted changesets of slots (coChangeOfSets's input), with each slot's count of them. */
export interface SlotSets {
  items: number[]
  starts: number[]
}

export interface PassResult {
  files: Accumulators
  symbols: Accumulators
  fileSets: SlotSets
  symbolSets: SlotSets
  /** Per commit of the pass: as AnalyticsState.counted. */
  counted: Uint8Array
  fileCoRevisions: Int32Array
  symbolCoRevisions: Int32Array
}

/**
 * The pass over the history's commits: each revision's HEAD files (first seen first) with their
 * churn, its distinct HEAD symbols with their lines, into the slots' accumulators and the counted
 * changesets. `only` restricts it to some commits, and the accumulators to some slots (the sets
 * and counts of those commits are whole).
 */
export function analyticsPass(cols: AnalyticsColumns, slots: Slots, heads: Int32Array, revision: Uint8Array, recentFrom: number, config: AnalyticsConfig, only?: { commits: Uint8Array; files: Uint8Array; symbols: Uint8Array }): PassResult {
  const { fileOf, symbolOf, symbolFile } = slots
  const nFiles = slots.fileKeys.length
  const nSymbols = slots.symbolKeys.length
  const files = accumulators(nFiles)
  const symbols = accumulators(nSymbols)
  const add = (acc: Accumulators, slot: number, churn: number, time: number, author: number): void => {
    acc.revisions[slot]++
    if (time > recentFrom) acc.recent[slot]++
    acc.churn[slot] += churn
    if (acc.seen.add(slot, author)) acc.authors[slot]++
    if (!(acc.first[slot] <= time)) acc.first[slot] = time
    if (!(acc.last[slot] >= time)) acc.last[slot] = time
  }
  const fileStamp = new Int32Array(nFiles).fill(-1)
  const fileChurn = new Float64Array(nFiles)
  const symbolStamp = new Int32Array(nSymbols).fill(-1)
  const symbolLines = new Float64Array(nSymbols)
  const fileSets: SlotSets = { items: [], starts: [0] }
  const symbolSets: SlotSets = { items: [], starts: [0] }
  const counted = new Uint8Array(cols.length)
  const fileCoRevisions = new Int32Array(nFiles)
  const symbolCoRevisions = new Int32Array(nSymbols)
  const fileOnly = only?.files
  const symbolOnly = only?.symbols
  const commitOnly = only?.commits
  // scratch lists, emptied per commit (no garbage per commit)
  const touched: number[] = []
  const distinct: number[] = []
  for (let i = 0, n = cols.length; i < n; i++) {
    if (revision[i] === 0 || (commitOnly !== undefined && commitOnly[i] === 0)) continue
    touched.length = 0
    distinct.length = 0
    for (let k = cols.fileStart[i]; k < cols.fileStart[i + 1]; k++) {
      const head = heads[k]
      if (head < 0) continue
      const slot = fileOf[head]
      if (fileStamp[slot] !== i) {
        fileStamp[slot] = i
        fileChurn[slot] = 0
        touched.push(slot)
      }
      fileChurn[slot] += cols.additions[k] + cols.deletions[k]
    }
    const fileCount = cols.fileStart[i + 1] - cols.fileStart[i]
    const time = cols.time[i]
    const author = cols.author[i]
    for (const slot of touched) if (fileOnly === undefined || fileOnly[slot] === 1) add(files, slot, fileChurn[slot], time, author)
    if (fileCount <= config.maxChangesetSize && touched.length > 0) {
      counted[i] |= 1
      for (const slot of touched) {
        fileSets.items.push(slot)
        fileCoRevisions[slot]++
      }
      fileSets.starts.push(fileSets.items.length)
    }

    // symbols: each distinct one once, with the lines of its last entry (symbolLines is keyed by id)
    for (let k = cols.symbolStart[i]; k < cols.symbolStart[i + 1]; k++) {
      const slot = symbolOf[cols.symbol[k]]
      if (slot < 0) continue
      if (symbolStamp[slot] !== i) {
        symbolStamp[slot] = i
        distinct.push(slot)
      }
      symbolLines[slot] = cols.symbolLines[k]
    }
    for (const slot of distinct) {
      if (symbolOnly !== undefined && symbolOnly[slot] === 0) continue
      const exact = symbolLines[slot]
      const file = symbolFile[slot]
      const churn = exact >= 0 ? exact : file >= 0 && fileStamp[file] === i ? fileChurn[file] : 0
      add(symbols, slot, churn, time, author)
    }
    if (fileCount <= config.maxChangesetSize && distinct.length > 0 && distinct.length <= config.maxChangesetSize) {
      counted[i] |= 2
      for (const slot of distinct) {
        symbolSets.items.push(slot)
        symbolCoRevisions[slot]++
      }
      symbolSets.starts.push(symbolSets.items.length)
    }
  }
  return { files, symbols, fileSets, symbolSets, counted, fileCoRevisions, symbolCoRevisions }
}

function slotState(acc: Accumulators, keys: string[], coRevisions: Int32Array, changesets: number): SlotState {
  return { keys, revisions: acc.revisions, recent: acc.recent, churn: acc.churn, authors: acc.authors, first: acc.first, last: acc.last, coRevisions, changesets }
}

/**
 * activityStats, fileCoChange and symbolCoChange (stats.ts, cochange.ts) of the columns' history:
 * the same numbers, in the same order, as those over its object form (the tests hold them to it).
 */
export function columnAnalytics(cols: AnalyticsColumns, input: ColumnInput, config: AnalyticsConfig): ColumnResult {
  return columnAnalyticsWithState(cols, input, config).result
}

/** columnAnalytics, and the state an update starts from. */
export function columnAnalyticsWithState(cols: AnalyticsColumns, input: ColumnInput, config: AnalyticsConfig): { result: ColumnResult; state: AnalyticsState } {
  // a commit that counts as no revision (a merge, a bot's, a formatting one) adds to nothing below:
  // its entries are skipped (a third of prettier's 120,000 file entries, half of git/git's 270,000)
  const revision = revisionFlags(cols)
  const heads = headPathIds(cols, input.files, revision)
  const slots = slotsOf(cols, input)
  const p = analyticsPass(cols, slots, heads, revision, input.headTime - config.recentDays * DAY, config)
  const fileChangesets = p.fileSets.starts.length - 1
  const symbolChangesets = p.symbolSets.starts.length - 1
  return {
    result: {
      fileStats: finishStats(p.files, slots.fileKeys),
      symbolStats: finishStats(p.symbols, slots.symbolKeys),
      fileCoChange: coChangeOfSets(p.fileSets, slots.fileKeys, config, { revs: p.fileCoRevisions }),
      symbolCoChange: withoutEnclosing(coChangeOfSets(p.symbolSets, slots.symbolKeys, config, { revs: p.symbolCoRevisions }), slots.parent),
    },
    state: {
      format: 1,
      config: stateConfig(config),
      headTime: input.headTime,
      commits: cols.length,
      counted: p.counted,
      files: slotState(p.files, slots.fileKeys, p.fileCoRevisions, fileChangesets),
      symbols: slotState(p.symbols, slots.symbolKeys, p.symbolCoRevisions, symbolChangesets),
    },
  }
}
