/**
 * The manifest's checksums (index-integrity.ts): CRC-32 now, SHA-256 in older indexes. Both must
 * verify a file as written and refuse one byte changed; the JavaScript CRC-32 (for a Node without
 * zlib.crc32) must give zlib's numbers, in one part or many.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import zlib from 'node:zlib'
import { afterEach, describe, expect, test } from 'vitest'
import { checksumHex, crc32Chunks, crc32Combine, crc32js, crc32OfChunks, crc32OfRange, fileChecksum, manifestOf, MANIFEST, readIndexFile, sha256, sharedChecksum, verifyAll, writeManifest } from '../../src/services/index-integrity.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function indexDir(files: Record<string, Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gitwhy-checksum-'))
  dirs.push(dir)
  for (const [name, data] of Object.entries(files)) writeFileSync(join(dir, name), data)
  return dir
}

describe('manifest checksums', () => {
  test('the JavaScript CRC-32 equals zlib.crc32, whole and in parts', () => {
    for (const size of [0, 1, 7, 1000, 65_537]) {
      const data = randomBytes(size)
      const whole = zlib.crc32(data)
      expect(crc32js(data)).toBe(whole)
      const cut = Math.floor(size / 3)
      expect(crc32js(data.subarray(cut), crc32js(data.subarray(0, cut)))).toBe(whole)
    }
    expect(crc32js(Buffer.from('123456789'))).toBe(0xcbf43926)
  })

  test("two halves' checksums combine into the whole's, as two threads take them of a file", () => {
    for (const size of [0, 1, 2, 9, 1000, 65_537, 300_001]) {
      const data = randomBytes(size)
      const whole = zlib.crc32(data)
      for (const cut of new Set([0, 1, Math.floor(size / 2), size - 1, size].filter((c) => c >= 0 && c <= size))) {
        expect(crc32Combine(zlib.crc32(data.subarray(0, cut)), zlib.crc32(data.subarray(cut)), size - cut), `size ${size} cut ${cut}`).toBe(whole)
      }
      const dir = indexDir({ f: data })
      const half = Math.floor(size / 2)
      expect(crc32Combine(crc32OfRange(join(dir, 'f'), 0, half), crc32OfRange(join(dir, 'f'), half, size), size - half)).toBe(whole)
      expect(checksumHex(crc32OfRange(join(dir, 'f'), 0, size))).toBe(checksumHex(whole))
    }
    expect(() => crc32OfRange(join(indexDir({ f: Buffer.alloc(10) }), 'f'), 5, 20)).toThrow(/ends at 10/)
  })

  test("a shared checksum: chunks claimed by two threads, joined in order, are the whole file's", () => {
    // 8 MB chunks: none, one short, one whole, several with a short last
    for (const size of [0, 5, 8 << 20, (8 << 20) * 2 + 12_345]) {
      const data = randomBytes(size)
      const file = join(indexDir({ f: data }), 'f')
      const chunks = Math.ceil(size / (8 << 20))
      // one thread takes them all
      const alone = sharedChecksum(size)
      crc32Chunks(file, size, alone)
      expect(crc32OfChunks(alone, size), `size ${size}`).toBe(zlib.crc32(data))
      if (chunks < 2) continue
      // another thread claimed the first chunk and is still on it: this one takes the rest
      const shared = sharedChecksum(size)
      Atomics.store(shared, 0, 1)
      crc32Chunks(file, size, shared)
      expect(Atomics.load(shared, 1)).toBe(chunks - 1)
      expect(() => crc32OfChunks(shared, size)).toThrow(/parts/)
      Atomics.store(shared, 2, zlib.crc32(data.subarray(0, 8 << 20)) | 0)
      Atomics.add(shared, 1, 1)
      expect(crc32OfChunks(shared, size)).toBe(zlib.crc32(data))
    }
    const short = sharedChecksum(100)
    expect(() => crc32Chunks(join(indexDir({ f: Buffer.alloc(10) }), 'f'), 100, short)).toThrow(/ends at 10/)
  })

  test('a checksum taken in parts is the checksum of the whole', () => {
    const data = randomBytes(100_000)
    const parts = fileChecksum()
    for (let at = 0; at < data.length; at += 8192) parts.update(data.subarray(at, at + 8192))
    const whole = fileChecksum()
    whole.update(data)
    expect(parts.digest()).toBe(whole.digest())
    expect(parts.digest()).toMatch(/^[0-9a-f]{8}$/)
  })

  test('a new manifest records CRC-32s; a changed byte is damage', () => {
    const data = randomBytes(5000)
    const dir = indexDir({ 'a.bin': data })
    const hash = writeManifest(dir)
    const [size, sum] = manifestOf(dir, hash).files['a.bin']
    expect(size).toBe(5000)
    expect(sum).toBe(zlib.crc32(data).toString(16).padStart(8, '0'))
    expect(readIndexFile(dir, 'a.bin')).toEqual(data)
    const changed = Buffer.from(data)
    changed[2500] ^= 1
    writeFileSync(join(dir, 'a.bin'), changed)
    expect(verifyAll(dir, hash)).toEqual(['a.bin does not match its checksum'])
  })

  test("an older index's SHA-256 entries still verify, and still catch damage", () => {
    const data = randomBytes(3000)
    const dir = indexDir({ 'a.bin': data })
    const text = JSON.stringify({ files: { 'a.bin': [data.length, sha256(data)] } })
    writeFileSync(join(dir, MANIFEST), text)
    expect(verifyAll(dir, sha256(text))).toEqual([])
    expect(readIndexFile(dir, 'a.bin')).toEqual(data)
    const changed = Buffer.from(data)
    changed[0] ^= 0x80
    writeFileSync(join(dir, 'a.bin'), changed)
    expect(verifyAll(dir, sha256(text))).toEqual(['a.bin does not match its checksum'])
  })
})
