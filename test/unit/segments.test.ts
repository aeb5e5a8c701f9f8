/**
 * The append-only stores in segments (src/history/segments.ts): an update shares every segment but
 * the last, copies the last while it stays small and starts a new one after that; offsets run
 * across the segments, and a section outside one, or a segment gone, is damage.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { appendSegments, SegmentReader, segmentNames } from '../../src/history/segments.js'
import { writeManifest } from '../../src/services/index-integrity.js'

const roots: string[] = []
afterEach(() => {
  delete process.env.GITWHY_SEGMENT_BYTES
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true })
})

/** An index directory holding `files`, with its manifest. */
function index(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gitwhy-segments-'))
  roots.push(root)
  const dir = join(root, 'index')
  mkdirSync(dir)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  writeManifest(dir)
  return dir
}

function next(from: string, buffers: string[]): { dir: string; offsets: number[] } {
  const dir = join(from, '..', `next-${roots.length}-${Math.random().toString(36).slice(2)}`)
  mkdirSync(dir)
  const offsets = appendSegments(from, dir, 'diffs.bin', buffers.map((b) => Buffer.from(b)))
  writeManifest(dir)
  return { dir, offsets }
}

const read = (dir: string, offset: number, length: number): string => {
  const r = new SegmentReader(dir, 'diffs.bin')
  try {
    return r.read(offset, length).toString()
  } finally {
    r.close()
  }
}

describe('segmented stores', () => {
  test('a small append copies the last segment; a large one starts a new segment and shares the old', () => {
    const first = index({ 'diffs.bin': 'aaaa' })
    const a = next(first, ['bb', 'ccc'])
    expect(a.offsets).toEqual([4, 6])
    expect(readFileSync(join(a.dir, 'diffs.bin'), 'utf8')).toBe('aaaabbccc')
    expect(statSync(join(a.dir, 'diffs.bin')).ino).not.toBe(statSync(join(first, 'diffs.bin')).ino)
    expect(readFileSync(join(first, 'diffs.bin'), 'utf8'), 'the previous index is untouched').toBe('aaaa')

    process.env.GITWHY_SEGMENT_BYTES = '10'
    const b = next(a.dir, ['dd'])
    expect(b.offsets).toEqual([9])
    expect(readFileSync(join(b.dir, 'diffs.1.bin'), 'utf8')).toBe('dd')
    expect(statSync(join(b.dir, 'diffs.bin')).ino, 'the full segment is a hard link').toBe(statSync(join(a.dir, 'diffs.bin')).ino)
    const c = next(b.dir, ['eee'])
    expect(c.offsets).toEqual([11])
    expect(readFileSync(join(c.dir, 'diffs.1.bin'), 'utf8')).toBe('ddeee')
    const d = next(c.dir, ['ffffffff', 'g'])
    expect(d.offsets).toEqual([14, 22])
    expect(segmentNames(Object.keys(JSON.parse(readFileSync(join(d.dir, 'manifest.json'), 'utf8')).files), 'diffs.bin', d.dir)).toEqual(['diffs.bin', 'diffs.1.bin', 'diffs.2.bin'])

    expect([read(d.dir, 0, 4), read(d.dir, 4, 2), read(d.dir, 6, 3), read(d.dir, 9, 2), read(d.dir, 11, 3), read(d.dir, 14, 8), read(d.dir, 22, 1)]).toEqual(['aaaa', 'bb', 'ccc', 'dd', 'eee', 'ffffffff', 'g'])
  })

  test('nothing to append shares every segment', () => {
    const first = index({ 'diffs.bin': 'aaaa' })
    const a = next(first, [])
    expect(a.offsets).toEqual([])
    expect(statSync(join(a.dir, 'diffs.bin')).ino).toBe(statSync(join(first, 'diffs.bin')).ino)
  })

  test('a section across two segments, outside the store, or a segment gone is damage', () => {
    process.env.GITWHY_SEGMENT_BYTES = '4'
    const { dir } = next(index({ 'diffs.bin': 'aaaa' }), ['bbbb'])
    expect(read(dir, 4, 4)).toBe('bbbb')
    expect(() => read(dir, 2, 4)).toThrow(/a section of diffs.bin lies outside the file/)
    expect(() => read(dir, 6, 4)).toThrow(/lies outside the file/)
    expect(() => read(dir, -1, 1)).toThrow(/lies outside the file/)
    writeFileSync(join(dir, 'diffs.1.bin'), 'bb')
    expect(() => read(dir, 4, 2)).toThrow(/diffs.1.bin has not the size the manifest records/)
    rmSync(join(dir, 'diffs.1.bin'))
    expect(() => read(dir, 4, 2)).toThrow(/diffs.1.bin cannot be opened/)
    expect(() => segmentNames(['diffs.bin', 'diffs.2.bin'], 'diffs.bin', dir)).toThrow(/the segments of diffs.bin are not all there/)
  })
})
