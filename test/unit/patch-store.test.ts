import { deflateRawSync } from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { decodeBytes } from '../../src/git/decode.js'
import { deflatePatches, inflatePatches } from '../../src/history/path-index.js'

// The patch store keeps each diff's hunk lines as git wrote them (bytes) and decodes them when
// they are read; an index written before holds JSON sections, which must read the same.
describe('patch store sections', () => {
  test('entries come back as [age, path, decoded text], in order, whatever their bytes', () => {
    let seed = 11
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % n
    }
    const pieces = [Buffer.from('-a\n+b'), Buffer.from('+héllo wörld 中文'), Buffer.from([0x2b, 0xe9, 0x74, 0xe9]), Buffer.from('-\n+'), Buffer.from('+x'.repeat(5000))]
    for (let round = 0; round < 50; round++) {
      const entries: Array<[number, Uint8Array]> = Array.from({ length: 1 + next(20) }, () => [next(1_000_000), Buffer.concat(Array.from({ length: 1 + next(3) }, () => pieces[next(pieces.length)]))])
      const read = inflatePatches(deflatePatches(entries), 'src/a b.ts')
      expect(read).toEqual(entries.map(([age, text]) => [age, 'src/a b.ts', decodeBytes(text)]))
    }
    // not UTF-8: read as Windows-1252, as the parser reads such text
    expect(inflatePatches(deflatePatches([[3, Buffer.from([0x2b, 0xe9, 0x80])]]), 'x')).toEqual([[3, 'x', '+é€']])
  })

  test('a section of an index written before (JSON) reads as it did', () => {
    const old = [[7, 'a.ts', '-x\n+y'], [2, 'a.ts', '+"quoted" \\ ü']]
    expect(inflatePatches(deflateRawSync(Buffer.from(JSON.stringify(old))), 'a.ts')).toEqual(old)
  })

  test('a damaged section does not read', () => {
    const good = deflatePatches([[1, Buffer.from('+abc')], [2, Buffer.from('-de')]])
    expect(inflatePatches(good.subarray(0, good.length - 3), 'p')).toBeNull()
    expect(inflatePatches(Buffer.from('not deflated at all'), 'p')).toBeNull()
    expect(inflatePatches(deflateRawSync(Buffer.from([0, 5, 0, 0, 0])), 'p')).toBeNull()
    expect(inflatePatches(deflateRawSync(Buffer.from([1, 2, 3])), 'p')).toBeNull()
    expect(inflatePatches(deflateRawSync(Buffer.from('[1, 2')), 'p')).toBeNull()
  })
})
