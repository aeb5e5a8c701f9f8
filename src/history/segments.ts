import { closeSync, copyFileSync, fstatSync, openSync, readSync, statSync, writeSync } from 'node:fs'
import path from 'node:path'
import { damagedIndex, manifestOf } from '../services/index-integrity.js'
import { linkOrCopy } from './shards.js'

/**
 * An append-only store of an index (diffs.bin, patches.bin) in segments: `diffs.bin`, then
 * `diffs.1.bin`, `diffs.2.bin`, … Offsets are into the segments laid end to end, and a section
 * never straddles two. A full build writes one segment; an update hard-links every segment but
 * the last, and appends to a copy of the last while it stays under SEGMENT_BYTES (a new segment
 * after that). So an update copies and hashes at most a few MB, not the whole store (prettier's
 * patch store is 131 MB, git/git's several hundred).
 */
export const SEGMENT_BYTES = 8 << 20

/** SEGMENT_BYTES, or GITWHY_SEGMENT_BYTES (tests set it tiny: every update then starts a segment). */
function segmentBytes(): number {
  const set = Number(process.env.GITWHY_SEGMENT_BYTES)
  return Number.isSafeInteger(set) && set > 0 ? set : SEGMENT_BYTES
}

/** The segment files of the store `name` among an index's files, in order. */
export function segmentNames(listed: Iterable<string>, name: string, dir: string): string[] {
  const stem = name.replace(/\.bin$/, '')
  const pattern = new RegExp(`^${stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d+)\\.bin$`)
  const numbers: number[] = []
  let first = false
  for (const rel of listed) {
    if (rel === name) first = true
    const m = pattern.exec(rel)
    if (m) numbers.push(Number(m[1]))
  }
  numbers.sort((a, b) => a - b)
  if (!first || numbers.some((n, i) => n !== i + 1)) throw damagedIndex(dir, `the segments of ${name} are not all there`)
  return [name, ...numbers.map((n) => `${stem}.${n}.bin`)]
}

/** Where each segment of a store starts, laid end to end, by the sizes the manifest records. */
function layout(dir: string, name: string): { names: string[]; starts: number[]; sizes: number[] } {
  const files = manifestOf(dir).files
  const names = segmentNames(Object.keys(files), name, dir)
  const sizes = names.map((n) => files[n][0])
  const starts: number[] = []
  let at = 0
  for (const size of sizes) {
    starts.push(at)
    at += size
  }
  return { names, starts, sizes }
}

/**
 * Reads sections of a store; each must lie inside one segment (anything else is damage, as is a
 * segment whose size is not the manifest's). `close` when done.
 */
export class SegmentReader {
  private readonly names: string[]
  private readonly starts: number[]
  private readonly sizes: number[]
  private readonly fds = new Map<number, number>()

  constructor(
    private readonly dir: string,
    private readonly name: string,
  ) {
    ;({ names: this.names, starts: this.starts, sizes: this.sizes } = layout(dir, name))
  }

  read(offset: number, length: number): Buffer {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) throw this.outside()
    let lo = 0
    let hi = this.starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (this.starts[mid] <= offset) lo = mid
      else hi = mid - 1
    }
    const local = offset - this.starts[lo]
    if (local + length > this.sizes[lo]) throw this.outside()
    const buf = Buffer.alloc(length)
    readSync(this.fd(lo), buf, 0, length, local)
    return buf
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd)
    this.fds.clear()
  }

  private fd(i: number): number {
    let fd = this.fds.get(i)
    if (fd === undefined) {
      try {
        fd = openSync(path.join(this.dir, this.names[i]), 'r')
      } catch {
        throw damagedIndex(this.dir, `${this.names[i]} cannot be opened`)
      }
      this.fds.set(i, fd)
      if (fstatSync(fd).size !== this.sizes[i]) throw damagedIndex(this.dir, `${this.names[i]} has not the size the manifest records`)
    }
    return fd
  }

  private outside(): Error {
    return damagedIndex(this.dir, `a section of ${this.name} lies outside the file`)
  }
}

/**
 * The store `name` of the index in `from`, with `buffers` appended, as the store of the index in
 * `to`; the offset each buffer starts at. Every segment but the last is hard-linked; the last is
 * copied and appended to, or a new segment starts when the last would outgrow SEGMENT_BYTES.
 */
export function appendSegments(from: string, to: string, name: string, buffers: readonly Buffer[]): number[] {
  const { names, starts, sizes } = layout(from, name)
  const last = names.length - 1
  for (let i = 0; i < last; i++) linkOrCopy(path.join(from, names[i]), path.join(to, names[i]))
  const added = buffers.reduce((n, b) => n + b.length, 0)
  // nothing to add (a merge with no first-parent text): the last segment is shared too
  const fresh = sizes[last] > 0 && sizes[last] + added > segmentBytes()
  if (fresh || added === 0) linkOrCopy(path.join(from, names[last]), path.join(to, names[last]))
  if (added === 0) return buffers.map(() => starts[last] + sizes[last])
  const target = fresh ? `${name.replace(/\.bin$/, '')}.${last + 1}.bin` : names[last]
  const file = path.join(to, target)
  if (!fresh) {
    copyFileSync(path.join(from, names[last]), file)
    if (statSync(file).size !== sizes[last]) throw damagedIndex(from, `${names[last]} has not the size the manifest records`)
  }
  let at = fresh ? 0 : sizes[last]
  const base = fresh ? starts[last] + sizes[last] : starts[last]
  const offsets: number[] = []
  const fd = openSync(file, fresh ? 'w' : 'r+')
  try {
    for (const buf of buffers) {
      offsets.push(base + at)
      for (let done = 0; done < buf.length; ) done += writeSync(fd, buf, done, buf.length - done, at + done)
      at += buf.length
    }
  } finally {
    closeSync(fd)
  }
  return offsets
}
