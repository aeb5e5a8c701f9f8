/** The trajectory's pure parts: revert detection over journal records, and the shadow commits' messages. */
import { describe, expect, test } from 'vitest'
import type { SnapshotFile, SnapshotRecord, SnapshotSymbol } from '../../src/trajectory/journal.js'
import { commitMessage, revertedBy } from '../../src/trajectory/snapshot.js'

const file = (path: string, before: string | null, after: string | null): SnapshotFile => ({ path, status: before === null ? 'A' : after === null ? 'D' : 'M', added: 1, removed: 1, before, after, ranges: [] })
const symbol = (id: string, before: string | null, after: string | null): SnapshotSymbol => ({ id, path: id.split('#')[0], qualified_name: id.split('#')[1], kind: 'function', added: 1, removed: 1, before, after })
const record = (id: string, files: SnapshotFile[], symbols: SnapshotSymbol[] = [], reverts: string[] = []): SnapshotRecord => ({ id, kind: 'auto', time: '2026-01-01T00:00:00.000Z', session: 's-1', intent: null, summary: id, files, symbols, reverts })

describe('revertedBy', () => {
  test('a symbol back to its content before a snapshot reverts that snapshot and the later ones that changed it', () => {
    const journal = [
      record('s1', [file('a.ts', 'f0', 'f1')], [symbol('a.ts#f', 'h0', 'h1')]),
      record('s2', [file('b.ts', 'b0', 'b1')], [symbol('b.ts#g', 'g0', 'g1')]),
      record('s3', [file('a.ts', 'f1', 'f2')], [symbol('a.ts#f', 'h1', 'h2')]),
    ]
    expect(revertedBy(journal, [file('a.ts', 'f2', 'f0')], [symbol('a.ts#f', 'h2', 'h0')]).sort()).toEqual(['s1', 's3'])
    // back to the state after s1 only undoes s3
    expect(revertedBy(journal, [file('a.ts', 'f2', 'f1')], [symbol('a.ts#f', 'h2', 'h1')])).toEqual(['s3'])
    // a new content undoes nothing
    expect(revertedBy(journal, [file('a.ts', 'f2', 'f9')], [symbol('a.ts#f', 'h2', 'h9')])).toEqual([])
  })

  test('a symbol added and then removed: the removal reverts the addition', () => {
    const journal = [record('s1', [file('a.ts', 'f0', 'f1')], [symbol('a.ts#helper', null, 'h1')])]
    expect(revertedBy(journal, [file('a.ts', 'f1', 'f0')], [symbol('a.ts#helper', 'h1', null)])).toEqual(['s1'])
  })

  test('files count where no symbol changed (a file without a grammar, or lines between symbols)', () => {
    const journal = [record('s1', [file('notes.md', 'm0', 'm1')]), record('s2', [file('notes.md', 'm1', 'm2')])]
    expect(revertedBy(journal, [file('notes.md', 'm2', 'm0')], [])).toEqual(['s2', 's1'])
    // a file whose symbols changed is judged by its symbols only
    const withSymbols = [record('s1', [file('a.ts', 'f0', 'f1')], [symbol('a.ts#f', 'h0', 'h1')])]
    expect(revertedBy(withSymbols, [file('a.ts', 'f1', 'f0')], [symbol('a.ts#g', 'x0', 'x1')])).toEqual([])
  })
})

describe('commitMessage', () => {
  test('[AUTO-TRJ] or [CONSOLIDATE], then the trailers; control characters escaped, commas in lists encoded', () => {
    const r = { ...record('s1', [file('a,b.ts', 'f0', 'f1')], [symbol('a,b.ts#f', 'h0', 'h1')], ['0123abcd']), intent: 'fix\nthe timeout' }
    expect(commitMessage(r)).toBe(
      '[AUTO-TRJ] s1\n\nTrajectory-Session: s-1\nTrajectory-Kind: auto\nTrajectory-Intent: fix\\nthe timeout\nTrajectory-Files: a%2Cb.ts\nTrajectory-Symbols: a%2Cb.ts#f\nTrajectory-Reverts: 0123abcd\n',
    )
    expect(commitMessage({ ...record('c1', []), kind: 'consolidate', summary: 'implemented login' })).toBe('[CONSOLIDATE] implemented login\n\nTrajectory-Session: s-1\nTrajectory-Kind: consolidate\n')
  })
})
