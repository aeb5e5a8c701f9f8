/**
 * Pure streaming parsers for `git log -p -U0 -M` / `git diff-tree --stdin -p -U0 -M` output.
 *
 * Input is decoded as latin1 (one char per byte) so no byte sequence is lost; paths and commit
 * text are decoded (UTF-8, else Windows-1252: see decode.ts) where they leave the parser.
 * Records are separated by a header line starting with \x01 (content lines start with '+', '-',
 * ' ' or '\', so the marker is unambiguous).
 */

import { decodeBytes, decodeLatin1 } from './decode.js'

export type FileStatus = 'A' | 'D' | 'M' | 'R'

export interface FileDiff {
  path: string
  /** The path in the parent (equals `path` unless renamed). */
  oldPath: string
  status: FileStatus
  binary: boolean
  /** Hunks, flat, 0-based half-open: [oldStart, oldEnd, newStart, newEnd, ...], sorted. */
  hunks: number[]
  additions: number
  deletions: number
  /** Only whitespace changed (all removed and added text equal once whitespace is dropped). */
  whitespaceOnly: boolean
  /**
   * The hunks' removed and added lines with their `-`/`+`, in hunk order, joined by `\n` (no
   * `\ No newline` markers), as git wrote them (decodeBytes reads them): only when the parser was
   * asked to keep text. Bytes, not a string: the patch store keeps them as they are (git/git's
   * history is ~0.5 GB of them, decoded and encoded again for nothing before).
   */
  text?: Uint8Array
}

/** Blob ids of a file from the --raw section: [old, new]. */
export type BlobIds = [string, string]

export interface DiffRecord {
  /** The header text after the \x01 marker, up to the \x02 terminator (latin1). */
  header: string
  files: FileDiff[]
  /** Blob ids per file (same order as `files`), when the output had a --raw section. */
  oids: Array<BlobIds | undefined>
  /** File modes per file ([old, new], e.g. "100644"), for raw-only output. */
  modes?: Array<[string, string]>
}

/**
 * A flat copy of a string. Slices of the big chunk strings would otherwise keep the whole chunk
 * alive for as long as the slice lives (V8 sliced strings): copying what we keep is what holds
 * the parser's memory to the size of the data it returns.
 */
function flat(s: string): string {
  return Buffer.from(s, 'latin1').toString('latin1')
}

const interned = new Map<string, string>()

/** Paths repeat across thousands of diffs: keep one flat copy of each (paths are decoded text). */
function internPath(s: string): string {
  return interned.get(s) ?? keep(Buffer.from(s, 'utf8').toString('utf8'))
}

function keep(flatPath: string): string {
  if (interned.size > 200_000) interned.clear()
  interned.set(flatPath, flatPath)
  return flatPath
}

/**
 * The path in the bytes [start, end) of `buf`, never quoted (`git ls-tree -z`), interned: an ASCII
 * listing's bytes as they are (a fresh string, flat already: no copy of a copy, ~10 ms of an
 * update's 10,000 paths on prettier), any other's decoded as unquotePath decodes.
 */
export function pathAt(buf: Buffer, start: number, end: number, ascii: boolean): string {
  const s = ascii ? buf.toString('latin1', start, end) : decodeBytes(buf.subarray(start, end))
  return interned.get(s) ?? keep(s)
}

/** Undo git's C-style quoting of a path ("a/\303\274.txt") and decode it (see decode.ts). */
export function unquotePath(raw: string): string {
  if (!raw.startsWith('"')) return internPath(decodeLatin1(raw))
  const bytes: number[] = []
  for (let i = 1; i < raw.length - 1; i++) {
    const c = raw[i]
    if (c !== '\\') {
      bytes.push(raw.charCodeAt(i) & 0xff)
      continue
    }
    const n = raw[++i]
    if (n >= '0' && n <= '7') {
      bytes.push(parseInt(raw.slice(i, i + 3), 8))
      i += 2
    } else {
      const map: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '\\': 92, '"': 34 }
      bytes.push(map[n] ?? n.charCodeAt(0))
    }
  }
  return internPath(decodeBytes(Buffer.from(bytes)))
}

/** A path of a raw line, the bytes [start, end) of `buf`, decoded as unquotePath decodes it (not interned). */
function pathOfBytes(buf: Buffer, start: number, end: number): string {
  if (buf[start] === 34 /* " */) return unquotePath(buf.toString('latin1', start, end))
  for (let i = start; i < end; i++) if (buf[i] > 0x7f) return decodeBytes(buf.subarray(start, end))
  return buf.toString('latin1', start, end)
}

function stripPrefix(p: string, prefix: string): string {
  if (p.startsWith('"')) {
    const unq = unquotePath(p)
    return internPath(unq.startsWith(prefix) ? unq.slice(prefix.length) : unq)
  }
  return internPath(decodeLatin1(p.startsWith(prefix) ? p.slice(prefix.length) : p))
}

/** `--- a/path` / `+++ b/path` value: strip git's trailing tab (added when the name has a space). */
function headerPath(rest: string, prefix: string): string | null {
  if (rest.endsWith('\t')) rest = rest.slice(0, -1)
  if (rest === '/dev/null') return null
  return stripPrefix(rest, prefix)
}

/** `diff --git a/X b/X` when both names are equal (no rename): take the half. */
function pathFromDiffGit(line: string): string {
  const rest = line.slice('diff --git '.length)
  if (rest.startsWith('"')) {
    const end = findQuoteEnd(rest, 0)
    return stripPrefix(rest.slice(0, end + 1), 'a/')
  }
  const half = (rest.length - 1) / 2
  return stripPrefix(rest.slice(0, half), 'a/')
}

function findQuoteEnd(s: string, start: number): number {
  for (let i = start + 1; i < s.length; i++) {
    if (s[i] === '\\') i++
    else if (s[i] === '"') return i
  }
  return s.length - 1
}

const HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/

class FileBuilder {
  path = ''
  oldPath = ''
  status: FileStatus = 'M'
  binary = false
  hunks: number[] = []
  additions = 0
  deletions = 0
  // Rolling hashes of the removed and added text with all whitespace dropped.
  removedHash = 0
  addedHash = 0
  /** The hunk lines are kept (in the parser's TextArena). */
  keep = false

  finish(text: Buffer | null): FileDiff {
    let whitespaceOnly = false
    if ((this.additions > 0 || this.deletions > 0) && this.status === 'M' && !this.binary) {
      whitespaceOnly = this.removedHash === this.addedHash
    }
    const diff: FileDiff = {
      path: this.path,
      oldPath: this.oldPath || this.path,
      status: this.status,
      binary: this.binary,
      hunks: this.hunks,
      additions: this.additions,
      deletions: this.deletions,
      whitespaceOnly,
    }
    if (text && !this.binary) diff.text = text
    return diff
  }
}

/** Where kept hunk text is copied: slabs of this size, or one file's text if it is larger. */
const SLAB = 1 << 20

/**
 * The kept hunk lines of the file being read, copied into a slab that the files' texts share:
 * each file's text is a view of one slab, its runs of consecutive lines joined by `\n`. A buffer
 * per run and another per file joining them were most of what the history read allocated
 * (~2 s of rails/rails' read, with the garbage they left).
 */
class TextArena {
  private slab = Buffer.allocUnsafeSlow(SLAB)
  private used = 0
  /** Where the current file's text starts in the slab. */
  private start = 0

  /** Bytes [from, to) of `buf` after the current file's text (and a `\n` between runs). */
  append(buf: Buffer, from: number, to: number): void {
    const gap = this.used > this.start ? 1 : 0
    const need = gap + to - from
    if (this.used + need > this.slab.length) {
      // the file's text so far moves to a new slab with room for this run
      const have = this.used - this.start
      const next = Buffer.allocUnsafeSlow(Math.max(SLAB, 2 * (have + need)))
      this.slab.copy(next, 0, this.start, this.used)
      this.slab = next
      this.start = 0
      this.used = have
    }
    if (gap) this.slab[this.used++] = 10
    this.used += buf.copy(this.slab, this.used, from, to)
  }

  /** The current file's text (null: none), and the next file's starts after it. */
  take(): Buffer | null {
    const text = this.used > this.start ? this.slab.subarray(this.start, this.used) : null
    this.start = this.used
    return text
  }
}

/** Hash of a line's non-whitespace bytes (after its `+`/`-`), the bytes [start, end) of `buf`, chained onto `h`. */
function hashNonSpace(h: number, buf: Buffer, start: number, end: number): number {
  for (let i = start + 1; i < end; i++) {
    const c = buf[i]
    if (c === 32 || c === 9 || c === 13 || c === 10 || c === 11 || c === 12) continue
    h = (Math.imul(h, 31) + c) | 0
  }
  return h
}

/**
 * Incremental parser: feed chunks, get complete records through `onRecord`. Call `end()` after the
 * last chunk.
 */
export class DiffStreamParser {
  /** The bytes of the unfinished last line. */
  private rest: Buffer | null = null
  /** The current file's run of kept hunk lines in the chunk being read (-1: none). */
  private runStart = -1
  private runEnd = -1
  private record: DiffRecord | null = null
  private file: FileBuilder | null = null
  private headerLines: string[] | null = null
  private inHunk = false
  /** --raw lines of the current record: path -> [old oid, new oid] */
  private raw = new Map<string, BlobIds>()
  /** The kept hunk lines (`keepText`). */
  private readonly text: TextArena | null

  /** --raw lines as FileDiffs (no hunks), for output with no patch section */
  private rawFiles: FileDiff[] = []
  private rawOids: BlobIds[] = []
  private rawModes: Array<[string, string]> = []
  /** Records started so far (the current one is `started - 1`). */
  private started = 0

  /**
   * `keepText`: keep each file's hunk lines (FileDiff.text), for the patch store. `rawOnly`: the
   * output has --raw lines and no patch: each raw line is a file (a type change is a deletion and
   * an addition, as the patch shows it), with no hunks. `rawFilter` (raw-only output): which
   * raw lines of the record numbered `record` (0 = the first) become files; the others are only
   * shown to it, so a huge raw diff costs no objects.
   */
  constructor(
    private readonly onRecord: (record: DiffRecord) => void,
    private readonly keepText = false,
    private readonly rawOnly = false,
    private readonly rawFilter?: (record: number, path: string) => boolean,
  ) {
    this.text = keepText ? new TextArena() : null
  }

  /**
   * The output is read as bytes, and only the lines that are not hunk content become strings: a
   * history's patch is mostly `+`/`-` lines, counted, hashed and (with `keepText`) copied in runs
   * of consecutive lines; a merge's raw diff against a distant parent can be a gigabyte of lines
   * the filter drops, of which only the path becomes a string before the filter has seen it.
   */
  push(chunk: Buffer): void {
    let start = 0
    if (this.rest) {
      // the line left unfinished by the last chunk, finished by this one's first bytes
      const nl = chunk.indexOf(10)
      if (nl === -1) {
        this.rest = Buffer.concat([this.rest, chunk])
        return
      }
      const line = Buffer.concat([this.rest, chunk.subarray(0, nl)])
      this.rest = null
      this.bytesLine(line, 0, line.length)
      this.endRun(line)
      start = nl + 1
    }
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.bytesLine(chunk, start, nl)
      start = nl + 1
    }
    // the caller may reuse the chunk's memory: copy the text kept from it and the unfinished line
    this.endRun(chunk)
    if (start < chunk.length) this.rest = Buffer.from(chunk.subarray(start))
  }

  end(): void {
    if (this.rest) {
      this.bytesLine(this.rest, 0, this.rest.length)
      this.endRun(this.rest)
    }
    this.rest = null
    this.flushRecord()
  }

  private bytesLine(buf: Buffer, start: number, end: number): void {
    const c = buf[start]
    const f = this.file
    if (c === 58 /* : */ && !f && this.record && !this.headerLines) return this.rawLine(buf, start, end)
    // raw-only output has no other lines than its headers (and blank ones)
    if (this.rawOnly && c !== 1 && !this.headerLines) return
    if (this.inHunk && f && (c === 43 /* + */ || c === 45) /* - */) {
      if (c === 43) {
        f.additions++
        f.addedHash = hashNonSpace(f.addedHash, buf, start, end)
      } else {
        f.deletions++
        f.removedHash = hashNonSpace(f.removedHash, buf, start, end)
      }
      if (f.keep) {
        if (this.runStart === -1) this.runStart = start
        this.runEnd = end
      }
      return
    }
    this.endRun(buf)
    this.line(buf.toString('latin1', start, end))
  }

  /** The kept hunk lines [runStart, runEnd) of `buf` go to the file as one piece. */
  private endRun(buf: Buffer): void {
    if (this.runStart === -1) return
    if (this.file?.keep) this.text!.append(buf, this.runStart, this.runEnd)
    this.runStart = -1
  }

  private flushFile(): void {
    const text = this.file?.keep ? this.text!.take() : null
    if (this.file && this.record) this.record.files.push(this.file.finish(text))
    this.file = null
    this.inHunk = false
  }

  private flushRecord(): void {
    this.flushFile()
    if (this.record) {
      if (this.rawOnly) {
        this.record.files = this.rawFiles
        this.record.oids = this.rawOids
        this.record.modes = this.rawModes
        this.rawFiles = []
        this.rawOids = []
        this.rawModes = []
      } else if (this.raw.size > 0) {
        this.record.oids = this.record.files.map((f) => this.raw.get(f.path))
        this.raw.clear()
      }
      this.onRecord(this.record)
    }
    this.record = null
  }

  /** `:100644 100644 <old> <new> R100\tsrc\tdst` (paths C-quoted when unusual), the bytes [start, end) of `buf`. */
  private rawLine(buf: Buffer, start: number, end: number): void {
    const tab = buf.indexOf(9, start)
    if (tab === -1 || tab >= end) return
    const last = buf.lastIndexOf(9, end - 1)
    const path = pathOfBytes(buf, last + 1, end)
    if (this.rawOnly && this.rawFilter && !this.rawFilter(this.started - 1, path)) return
    const key = internPath(path)
    const meta = buf.toString('latin1', start + 1, tab).split(' ')
    const oids: BlobIds = [meta[2], meta[3]]
    if (!this.rawOnly) {
      this.raw.set(key, oids)
      return
    }
    const letter = meta[4]?.[0]
    const file = (status: FileStatus, oldPath: string): FileDiff => ({ path: key, oldPath, status, binary: false, hunks: [], additions: 0, deletions: 0, whitespaceOnly: false })
    const modes: [string, string] = [meta[0], meta[1]]
    const add = (f: FileDiff) => {
      this.rawFiles.push(f)
      this.rawOids.push(oids)
      this.rawModes.push(modes)
    }
    if (letter === 'R') add(file('R', internPath(pathOfBytes(buf, tab + 1, last))))
    else if (letter === 'A' || letter === 'D') add(file(letter, key))
    else if (letter === 'T') {
      add(file('D', key))
      add(file('A', key))
    } else add(file('M', key))
  }

  private line(line: string): void {
    if (this.headerLines) {
      const end = line.indexOf('\x02')
      if (end === -1) {
        this.headerLines.push(line)
        return
      }
      this.headerLines.push(line.slice(0, end))
      this.started++
      this.record = { header: flat(this.headerLines.join('\n')), files: [], oids: [] }
      this.headerLines = null
      return
    }
    const c = line.charCodeAt(0)
    if (c === 1) {
      this.flushRecord()
      const body = line.slice(1)
      const end = body.indexOf('\x02')
      if (end === -1) this.headerLines = [body]
      else {
        this.started++
        this.record = { header: flat(body.slice(0, end)), files: [], oids: [] }
      }
      return
    }
    if (!this.record) return
    const f = this.file
    // hunk content (`+`/`-` lines) was taken by bytesLine
    if (this.inHunk && f && (c === 92 /* \ */ || c === 32) /* space */) return
    if (line.startsWith('@@') && f) {
      const m = HUNK_RE.exec(line)
      if (!m) return
      const os = Number(m[1])
      const oc = m[2] === undefined ? 1 : Number(m[2])
      const ns = Number(m[3])
      const nc = m[4] === undefined ? 1 : Number(m[4])
      const o0 = oc === 0 ? os : os - 1
      const n0 = nc === 0 ? ns : ns - 1
      f.hunks.push(o0, o0 + oc, n0, n0 + nc)
      this.inHunk = true
      return
    }
    if (line.startsWith('diff --git ')) {
      this.flushFile()
      const fb = new FileBuilder()
      fb.keep = this.keepText
      fb.path = pathFromDiffGit(line)
      fb.oldPath = fb.path
      this.file = fb
      return
    }
    if (!f) return
    if (line.startsWith('--- ')) {
      const p = headerPath(line.slice(4), 'a/')
      if (p === null) f.status = 'A'
      else f.oldPath = p
      return
    }
    if (line.startsWith('+++ ')) {
      const p = headerPath(line.slice(4), 'b/')
      if (p === null) {
        f.status = 'D'
        f.path = f.oldPath
      } else f.path = p
      return
    }
    if (line.startsWith('rename from ')) {
      f.oldPath = unquotePath(line.slice('rename from '.length))
      f.status = 'R'
      return
    }
    if (line.startsWith('rename to ')) {
      f.path = unquotePath(line.slice('rename to '.length))
      f.status = 'R'
      return
    }
    if (line.startsWith('new file mode')) {
      f.status = 'A'
      return
    }
    if (line.startsWith('deleted file mode')) {
      f.status = 'D'
      return
    }
    if (line.startsWith('Binary files ') || line.startsWith('GIT binary patch')) {
      f.binary = true
    }
  }
}
