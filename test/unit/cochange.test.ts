import { describe, expect, it } from 'vitest'
import { coChange, fileCoChange, symbolCoChange } from '../../src/analytics/cochange.js'
import { DEFAULT_ANALYTICS_CONFIG } from '../../src/analytics/types.js'
import { history } from './analytics-fixtures.js'

const loose = { minRevisions: 1, minShared: 1, minDegree: 0, maxChangesetSize: 30 }
const cs = (...items: string[]) => ({ items, include: true })

describe('coChange: code-maat coupling', () => {
  it('computes degree, confidence and support as hand-computed', () => {
    // changesets {a,b} {a,b,c} {a} {b,c} {a,c}: revs a=4, b=3, c=3; 5 changesets
    // a–b shared 2: degree 100·2/((4+3)/2) = 57.142… → 57.1; conf 2/4 and 2/3; support 2/5
    // a–c shared 2: the same numbers
    // b–c shared 2: degree 100·2/((3+3)/2) = 66.666… → 66.7; conf 2/3 both; support 2/5
    const out = coChange([cs('a', 'b'), cs('a', 'b', 'c'), cs('a'), cs('b', 'c'), cs('a', 'c')], loose)
    expect(out).toEqual([
      { a: 'b', b: 'c', shared: 2, degree: 66.7, confidence_ab: 2 / 3, confidence_ba: 2 / 3, support: 0.4 },
      { a: 'a', b: 'b', shared: 2, degree: 57.1, confidence_ab: 0.5, confidence_ba: 2 / 3, support: 0.4 },
      { a: 'a', b: 'c', shared: 2, degree: 57.1, confidence_ab: 0.5, confidence_ba: 2 / 3, support: 0.4 },
    ])
  })

  it('orders each pair a < b and dedupes items within a changeset', () => {
    const out = coChange([cs('z', 'y', 'z'), cs('y', 'z')], loose)
    expect(out).toEqual([{ a: 'y', b: 'z', shared: 2, degree: 100, confidence_ab: 1, confidence_ba: 1, support: 1 }])
  })

  it('excluded changesets and those over the size cap count for nothing, not even revisions', () => {
    const big = Array.from({ length: 31 }, (_, i) => `f${String(i).padStart(2, '0')}`)
    // a and b together twice; a alone once more only in an excluded / oversized changeset
    const out = coChange([cs('a', 'b'), cs('a', 'b'), { items: ['a'], include: false }, { items: ['a', ...big], include: true }], loose)
    expect(out).toEqual([{ a: 'a', b: 'b', shared: 2, degree: 100, confidence_ab: 1, confidence_ba: 1, support: 1 }])
    // exactly at the cap still counts
    const atCap = coChange([{ items: big.slice(0, 30), include: true }], { ...loose, maxChangesetSize: 30 })
    expect(atCap).toHaveLength((30 * 29) / 2)
  })

  it('respects every threshold (inclusive)', () => {
    // a and b: 10 revisions each, 3 shared → degree 30
    const sets = [...Array.from({ length: 3 }, () => cs('a', 'b')), ...Array.from({ length: 7 }, () => cs('a')), ...Array.from({ length: 7 }, () => cs('b'))]
    expect(coChange(sets, { ...loose, minDegree: 30 })).toHaveLength(1)
    expect(coChange(sets, { ...loose, minDegree: 30.1 })).toHaveLength(0)
    expect(coChange(sets, { ...loose, minShared: 3 })).toHaveLength(1)
    expect(coChange(sets, { ...loose, minShared: 4 })).toHaveLength(0)
    expect(coChange(sets, { ...loose, minRevisions: 10 })).toHaveLength(1)
    expect(coChange(sets, { ...loose, minRevisions: 11 })).toHaveLength(0)
    // minRevisions applies to each item, not to their average (stricter than code-maat)
    const uneven = [...Array.from({ length: 4 }, () => cs('a', 'b')), ...Array.from({ length: 6 }, () => cs('b'))]
    expect(coChange(uneven, { ...loose, minRevisions: 5 })).toHaveLength(0)
    expect(coChange(uneven, { ...loose, minRevisions: 4 })).toHaveLength(1)
  })

  it('sorts by degree desc, shared desc, then a, b', () => {
    const sets = [
      ...Array.from({ length: 4 }, () => cs('p', 'q')), // p–q: 100, shared 4
      ...Array.from({ length: 2 }, () => cs('m', 'n')), // m–n: 100, shared 2
      ...Array.from({ length: 2 }, () => cs('c', 'd')), // c–d: 100, shared 2
      cs('x', 'y'), cs('x'), // x–y: 66.7
    ]
    expect(coChange(sets, loose).map((p) => `${p.a}-${p.b}`)).toEqual(['p-q', 'c-d', 'm-n', 'x-y'])
  })
})

describe('fileCoChange', () => {
  it('two files always changed together have degree 100', () => {
    const input = history().repeat(6, { daysAgo: 1, files: ['src/a.ts', 'src/b.ts'] }).commit({ daysAgo: 50, files: ['src/c.ts'] }).build({ files: ['src/a.ts', 'src/b.ts', 'src/c.ts'] })
    expect(fileCoChange(input, DEFAULT_ANALYTICS_CONFIG)).toEqual([{ a: 'src/a.ts', b: 'src/b.ts', shared: 6, degree: 100, confidence_ab: 1, confidence_ba: 1, support: 6 / 7 }])
  })

  it('a mass-formatting commit and a commit over the size cap create no coupling', () => {
    const others = Array.from({ length: 30 }, (_, i) => `gen/f${i}.ts`)
    const input = history()
      .repeat(5, { daysAgo: 1, files: ['a.ts'] })
      .repeat(5, { daysAgo: 1.5, files: ['b.ts'] })
      .repeat(5, { daysAgo: 10, category: 'formatting', files: ['a.ts', 'b.ts'] })
      .repeat(5, { daysAgo: 20, category: 'mega', files: ['a.ts', 'b.ts', ...others] })
      .build({ files: ['a.ts', 'b.ts', ...others] })
    expect(fileCoChange(input, { ...DEFAULT_ANALYTICS_CONFIG, minRevisions: 1, minShared: 1, minDegree: 0 })).toEqual([])
    // with a cap that lets the big commits in, they do couple (so the cap is what kept them out)
    expect(fileCoChange(input, { ...DEFAULT_ANALYTICS_CONFIG, maxChangesetSize: 32 }).some((p) => p.a === 'a.ts' && p.b === 'b.ts')).toBe(true)
  })

  it('merges and bots neither couple files nor count as their revisions', () => {
    const input = history()
      .repeat(5, { daysAgo: 1, files: ['a.ts', 'b.ts'] })
      .repeat(5, { daysAgo: 10, category: 'merge', files: ['a.ts', 'c.ts'] })
      .repeat(5, { daysAgo: 20, category: 'bot', author: 'bot@example.com', files: ['a.ts', 'c.ts'] })
      .build({ files: ['a.ts', 'b.ts', 'c.ts'] })
    expect(fileCoChange(input, DEFAULT_ANALYTICS_CONFIG)).toEqual([{ a: 'a.ts', b: 'b.ts', shared: 5, degree: 100, confidence_ab: 1, confidence_ba: 1, support: 1 }])
  })

  it('follows renames to the HEAD path, and a reused old name is another file', () => {
    const input = history()
      .repeat(3, { daysAgo: 100, files: ['lib/old.ts', 'util.ts'] })
      .commit({ daysAgo: 50, files: ['src/new.ts', 'util.ts'], renames: [['lib/old.ts', 'src/new.ts']] })
      .commit({ daysAgo: 10, files: ['src/new.ts', 'util.ts'] })
      // a new lib/old.ts after the rename-away, changed with other.ts
      .repeat(5, { daysAgo: 5, files: ['lib/old.ts', 'other.ts'] })
      .build({ files: ['src/new.ts', 'util.ts', 'lib/old.ts', 'other.ts'] })
    expect(fileCoChange(input, DEFAULT_ANALYTICS_CONFIG).map((p) => [p.a, p.b, p.shared, p.degree])).toEqual([
      ['lib/old.ts', 'other.ts', 5, 100],
      ['src/new.ts', 'util.ts', 5, 100],
    ])
  })
})

describe('symbolCoChange', () => {
  const symbols = [
    { id: 'a.ts#parse', path: 'a.ts', qualified_name: 'parse', parent: null },
    { id: 'b.ts#render', path: 'b.ts', qualified_name: 'render', parent: null },
    { id: 'c.ts#Store', path: 'c.ts', qualified_name: 'Store', parent: null },
    { id: 'c.ts#Store.get', path: 'c.ts', qualified_name: 'Store.get', parent: 'c.ts#Store' },
    { id: 'c.ts#Store.get.inner', path: 'c.ts', qualified_name: 'Store.get.inner', parent: 'c.ts#Store.get' },
  ]

  it('couples symbols across files and drops a symbol paired with its enclosing symbol', () => {
    const input = history()
      .repeat(5, { daysAgo: 1, files: ['a.ts', 'b.ts'], symbols: ['a.ts#parse', 'b.ts#render'] })
      .repeat(5, { daysAgo: 20, files: ['c.ts'], symbols: ['c.ts#Store', 'c.ts#Store.get', 'c.ts#Store.get.inner'] })
      .repeat(2, { daysAgo: 30, category: 'bot', files: ['a.ts', 'c.ts'], symbols: ['a.ts#parse', 'c.ts#Store.get'] })
      .build({ files: ['a.ts', 'b.ts', 'c.ts'], symbols })
    expect(symbolCoChange(input, DEFAULT_ANALYTICS_CONFIG)).toEqual([
      { a: 'a.ts#parse', b: 'b.ts#render', shared: 5, degree: 100, confidence_ab: 1, confidence_ba: 1, support: 0.5 },
    ])
  })

  it('ignores symbol ids that are not HEAD symbols', () => {
    const input = history().repeat(5, { daysAgo: 1, symbols: ['a.ts#parse', 'gone#x'] }).build({ files: ['a.ts'], symbols })
    expect(symbolCoChange(input, { ...DEFAULT_ANALYTICS_CONFIG, minRevisions: 1, minShared: 1 })).toEqual([])
  })
})
