import { createHash } from 'node:crypto'
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { UserError } from '../errors.js'

/**
 * Damage detection for an index directory. At build time `manifest.json` records the size and
 * checksum (CRC-32; SHA-256 in indexes built before 2026-11-27, still accepted) of every file the
 * directory holds (its own SHA-256 goes into meta.json). Readers check
 * what is cheap on every open (the manifest against meta.json, every file's size) and
 * every file they read in full against its hash as they read it (a shard, dag.json, the analytics
 * caches); diffs.bin is read in sections, each of which must lie inside the file and parse.
 * analyze, status and doctor hash everything. Only node's fs and crypto here: the Claude hook
 * loads this module on its 200 ms budget.
 */
export const MANIFEST = 'manifest.json'

/** [size in bytes, checksum (fileChecksum)] by path relative to the index directory, with forward slashes. */
export interface Manifest {
  files: Record<string, [number, string]>
}

export function damagedIndex(dir: string, what: string): UserError {
  return new UserError(
    `the index is damaged: ${what} (in ${dir})`,
    'run `gitwhy analyze --force` to rebuild it (a plain `gitwhy analyze` repairs it too)',
    'index_damaged',
  )
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex')
}

/** CRC-32 as zlib computes it, for a Node without `zlib.crc32` (before 20.15): table-driven. */
let table: Int32Array | null = null
export function crc32js(data: Uint8Array, value = 0): number {
  if (!table) {
    table = new Int32Array(256)
    for (let n = 0; n < 256; n++) {
      let c = n
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
      table[n] = c
    }
  }
  let c = ~value
  for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]) & 0xff] ^ (c >>> 8)
  return ~c >>> 0
}

const crc32: (data: Uint8Array, value?: number) => number = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32 ?? crc32js

/**
 * A manifest's checksum of a file's bytes, given in parts (`update` as often as needed, then
 * `digest`): CRC-32, 8 hex digits. It detects damage (a truncated, overwritten or edited file),
 * not forgery: whoever can write the file can write the manifest beside it. SHA-256 was used
 * before, at a quarter of the speed (60 ms on a 126 MB graph, hashed on every update).
 */
export function fileChecksum(): { update(data: Uint8Array): void; digest(): string } {
  let value = 0
  return {
    update(data) {
      value = crc32(data, value)
    },
    digest: () => checksumHex(value),
  }
}

/**
 * A file's bytes [start, end) through fileChecksum's CRC-32, read in chunks (git/git's graph is
 * 551 MB): the number, to be combined (crc32Combine) with the rest's, or given as fileChecksum's hex.
 */
export function crc32OfRange(file: string, start: number, end: number): number {
  const fd = openSync(file, 'r')
  try {
    return crc32OfFd(fd, file, start, end)
  } finally {
    closeSync(fd)
  }
}

function crc32OfFd(fd: number, file: string, start: number, end: number): number {
  const chunk = scratch(Math.min(CRC_CHUNK, Math.max(1, end - start)))
  let value = 0
  for (let at = start, n = 0; at < end; at += n) {
    n = readSync(fd, chunk, 0, Math.min(chunk.length, end - at), at)
    if (n <= 0) throw new Error(`${file} ends at ${at}, before ${end}`)
    value = crc32(chunk.subarray(0, n), value)
  }
  return value
}

/** The part of a file one read and one CRC-32 take (crc32OfRange), and one claim of a shared checksum. */
const CRC_CHUNK = 8 << 20

/**
 * A file's CRC-32 taken by several threads at once, each claiming the next chunk not taken
 * (crc32Chunks) until none is left, then joined in order (crc32OfChunks). An update's graph (490
 * MB on git/git) is hashed so by the graph's thread as soon as it is closed and by the main thread
 * once it has saved its own files: split in halves, whichever thread came free first waited for
 * the other's half. `[0]`: the next chunk to claim, `[1]`: chunks done, `[2 + i]`: chunk i's CRC.
 */
export function sharedChecksum(size: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * (2 + Math.ceil(size / CRC_CHUNK))))
}

/** Claims and checksums chunks of a sharedChecksum until none is left (another thread may be doing the same). */
export function crc32Chunks(file: string, size: number, shared: Int32Array): void {
  const chunks = shared.length - 2
  let fd = -1
  try {
    for (let i = Atomics.add(shared, 0, 1); i < chunks; i = Atomics.add(shared, 0, 1)) {
      if (fd < 0) fd = openSync(file, 'r')
      const start = i * CRC_CHUNK
      Atomics.store(shared, 2 + i, crc32OfFd(fd, file, start, Math.min(size, start + CRC_CHUNK)) | 0)
      Atomics.add(shared, 1, 1)
    }
  } finally {
    if (fd >= 0) closeSync(fd)
  }
}

/** The CRC-32 of the whole file from a sharedChecksum whose every chunk is done. */
export function crc32OfChunks(shared: Int32Array, size: number): number {
  const chunks = shared.length - 2
  if (Atomics.load(shared, 1) !== chunks) throw new Error(`the checksum has ${Atomics.load(shared, 1)} of its ${chunks} parts`)
  // the empty prefix's CRC is 0, and combining 0 with a chunk's gives the chunk's
  let value = 0
  for (let i = 0; i < chunks; i++) value = crc32Combine(value, Atomics.load(shared, 2 + i) >>> 0, Math.min(CRC_CHUNK, size - i * CRC_CHUNK))
  return value
}

let scratchBuffer: Buffer | null = null
/**
 * A buffer of at least `size` bytes, the same one for every file hashed in this thread: a new one
 * per file is fresh memory the kernel maps and zeroes page by page (an update hashes a dozen files
 * of up to 18 MB: ~10,000 of git/git's update's ~215,000 page faults).
 */
function scratch(size: number): Buffer {
  if (!scratchBuffer || scratchBuffer.length < size) scratchBuffer = Buffer.allocUnsafe(size)
  return scratchBuffer.subarray(0, size)
}

/** fileChecksum's hex of a CRC-32 value. */
export const checksumHex = (value: number): string => value.toString(16).padStart(8, '0')

/**
 * The CRC-32 of A followed by B from A's and B's and B's length (zlib's crc32_combine: B's length
 * in zero bits applied to A's CRC through powers of the CRC's matrix over GF(2)), so that
 * threads can each checksum parts of a file.
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA >>> 0
  const times = (matrix: Uint32Array, vector: number): number => {
    let sum = 0
    for (let i = 0; vector !== 0; i++, vector >>>= 1) if (vector & 1) sum ^= matrix[i]
    return sum >>> 0
  }
  const square = (out: Uint32Array, matrix: Uint32Array): void => {
    for (let n = 0; n < 32; n++) out[n] = times(matrix, matrix[n])
  }
  const odd = new Uint32Array(32)
  const even = new Uint32Array(32)
  // the operator for one zero bit, then two, then four
  odd[0] = 0xedb88320
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row
  square(even, odd)
  square(odd, even)
  let crc = crcA >>> 0
  let length = lengthB
  // one zero byte (eight bits) first, then doubled for each bit of the length
  for (;;) {
    square(even, odd)
    if (length % 2 === 1) crc = times(even, crc)
    length = Math.floor(length / 2)
    if (length === 0) break
    square(odd, even)
    if (length % 2 === 1) crc = times(odd, crc)
    length = Math.floor(length / 2)
    if (length === 0) break
  }
  return (crc ^ crcB) >>> 0
}

/** A file's size and manifest checksum, read in 8 MB chunks (git/git's graph is 551 MB: read whole, it raised a build's peak by as much). */
export function hashFile(file: string): [number, string] {
  const size = statSync(file).size
  return [size, checksumHex(crc32OfRange(file, 0, size))]
}

function checksumOf(data: Buffer): string {
  const sum = fileChecksum()
  sum.update(data)
  return sum.digest()
}

function walk(dir: string, rel: string, out: string[]): string[] {
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name
    if (e.isDirectory()) walk(dir, r, out)
    else if (r !== MANIFEST) out.push(r)
  }
  return out
}

/**
 * Record every file of a finished index directory; returns the manifest's own hash (for
 * meta.json). With `reuse` (the index an update started from, found intact at its start), a file
 * that is a hard link of that index's file of the same name keeps its recorded hash unread; a
 * file in `hashed` (hashed by whoever wrote and closed it) keeps that hash.
 */
export function writeManifest(dir: string, reuse?: { dir: string; manifest: string }, hashed: Record<string, [number, string]> = {}): string {
  const manifest: Manifest = { files: hashIndexFiles(dir, reuse, hashed) }
  const text = JSON.stringify(manifest)
  writeFileSync(path.join(dir, MANIFEST), text)
  return sha256(text)
}

/**
 * The manifest's entries of an index directory's files (see writeManifest), but those in `skip`:
 * an update hashes its own files while the graph is still being finished on its thread.
 */
export function hashIndexFiles(dir: string, reuse?: { dir: string; manifest: string }, hashed: Record<string, [number, string]> = {}, skip: (rel: string) => boolean = () => false): Record<string, [number, string]> {
  const previous = reuse ? manifestOf(reuse.dir, reuse.manifest).files : {}
  const files: Manifest['files'] = {}
  for (const rel of walk(dir, '', []).sort()) {
    if (skip(rel)) continue
    // hashed by the writer as it closed the file (an update's graph): the size says it is that file still
    if (Object.hasOwn(hashed, rel) && statSync(path.join(dir, rel)).size === hashed[rel][0]) {
      files[rel] = hashed[rel]
      continue
    }
    const old = Object.prototype.hasOwnProperty.call(previous, rel) ? previous[rel] : undefined
    if (old && reuse && sameFile(path.join(dir, rel), path.join(reuse.dir, rel), old[0])) {
      files[rel] = old
      continue
    }
    files[rel] = hashFile(path.join(dir, rel))
  }
  return files
}

/** Two names of one file (a hard link) of the expected size. */
function sameFile(a: string, b: string, size: number): boolean {
  try {
    const x = statSync(a)
    const y = statSync(b)
    return x.ino === y.ino && x.dev === y.dev && x.size === size
  } catch {
    return false
  }
}

const opened = new Map<string, Manifest>()

function loadManifest(dir: string, expected: string | undefined): Manifest {
  const file = path.join(dir, MANIFEST)
  if (!existsSync(file)) throw damagedIndex(dir, `${MANIFEST} is missing`)
  const text = readFileSync(file)
  if (expected !== undefined && sha256(text) !== expected) throw damagedIndex(dir, `${MANIFEST} does not match the checksum in meta.json`)
  try {
    const m = JSON.parse(text.toString('utf8')) as Manifest
    if (typeof m?.files !== 'object' || m.files === null) throw new Error('no files')
    return m
  } catch {
    throw damagedIndex(dir, `${MANIFEST} cannot be read`)
  }
}

/**
 * The manifest of an index directory. The first open with meta.json's hash checks it; a directory
 * never changes once written, so it is kept for the process's life.
 */
export function manifestOf(dir: string, expected?: string): Manifest {
  let m = opened.get(dir)
  if (!m) {
    m = loadManifest(dir, expected)
    opened.set(dir, m)
  }
  return m
}

/**
 * What every reader checks when it opens an index: the manifest (against meta.json's hash) and
 * the size of every file it lists (a stat each: ~760 files, a few ms, on vuejs/core). Throws the
 * `index_damaged` UserError.
 */
export function checkOnOpen(dir: string, manifestHash: string | undefined): void {
  if (manifestHash === undefined) throw damagedIndex(dir, 'it was built without checksums (by an older gitwhy)')
  const m = manifestOf(dir, manifestHash)
  for (const [rel, [expected]] of Object.entries(m.files)) {
    const size = sizeOf(path.join(dir, rel))
    if (size === null) throw damagedIndex(dir, `${rel} is missing`)
    if (size !== expected) throw damagedIndex(dir, `${rel} has ${size} bytes instead of ${expected}`)
  }
}

/** Hash every file the manifest lists: the problems found (none: the index is intact). */
export function verifyAll(dir: string, manifestHash: string | undefined): string[] {
  let m: Manifest
  try {
    if (manifestHash === undefined) throw damagedIndex(dir, 'it was built without checksums (by an older gitwhy)')
    m = loadManifest(dir, manifestHash)
  } catch (error) {
    return [(error as Error).message]
  }
  const problems: string[] = []
  for (const [rel, [size, hash]] of Object.entries(m.files)) {
    const file = path.join(dir, rel)
    if (sizeOf(file) === null) problems.push(`${rel} is missing`)
    else if (!matches(readFileSync(file), size, hash)) problems.push(`${rel} does not match its checksum`)
  }
  return problems
}

function sizeOf(file: string): number | null {
  try {
    return statSync(file).size
  } catch {
    return null
  }
}

/** The file's bytes have the manifest's size and checksum (a 64-digit one is an older index's SHA-256). */
function matches(data: Buffer, size: number, hash: string): boolean {
  return data.length === size && (hash.length === 64 ? sha256(data) : checksumOf(data)) === hash
}

/**
 * A file of the index read whole and checked against the manifest; null when the build wrote no
 * such file (a shard no key fell in).
 */
export function readIndexFile(dir: string, rel: string): Buffer | null {
  const entry = manifestOf(dir).files[rel]
  const file = path.join(dir, rel)
  if (!entry) {
    if (existsSync(file)) throw damagedIndex(dir, `${rel} is not part of the index`)
    return null
  }
  if (!existsSync(file)) throw damagedIndex(dir, `${rel} is missing`)
  const data = readFileSync(file)
  if (!matches(data, entry[0], entry[1])) throw damagedIndex(dir, `${rel} does not match its checksum`)
  return data
}

/** The index's manifest lists this file (its build wrote it). */
export function listsFile(dir: string, rel: string): boolean {
  return Object.hasOwn(manifestOf(dir).files, rel)
}

/** A JSON file of the index, checked and parsed (any failure is damage); null when the build wrote none. */
export function readIndexJson<T>(dir: string, rel: string): T | null {
  const data = readIndexFile(dir, rel)
  return data === null ? null : parseIndexJson<T>(dir, rel, data.toString('utf8'))
}

export function parseIndexJson<T>(dir: string, rel: string, text: string): T {
  try {
    return JSON.parse(text) as T
  } catch {
    throw damagedIndex(dir, `${rel} cannot be parsed`)
  }
}

/** The files under `folder` the manifest lists (the shards a full scan reads). */
export function listedFiles(dir: string, folder: string): string[] {
  const prefix = `${folder}/`
  return Object.keys(manifestOf(dir).files).filter((rel) => rel.startsWith(prefix))
}
