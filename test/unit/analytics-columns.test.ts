/**
 * The columns (src/analytics/columns.ts) against the object form they replace in analyze: the
 * stats and co-change over random histories equal stats.ts's and cochange.ts's, the stored form
 * reads back as it was written, and an update's history equals replaceSymbolHistories's.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { deserialize, serialize } from 'node:v8'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  ANALYTICS_FILE,
  ANALYTICS_OUT_FILE,
  emptyActivityTable,
  loadAnalyticsCache,
  loadAnalyticsColumns,
  loadOwnership,
  loadStoredActivity,
  loadStoredAnalytics,
  replaceSymbolHistories,
  saveAnalyticsCache,
  saveStoredAnalytics,
  type ActivityTable,
  type AnalyticsCache,
  type CompactAnalyticsCache,
  type StoredAnalyticsColumns,
  ANALYTICS_BIN,
  OWNERSHIP_FILE,
} from '../../src/analytics/cache.js'
import { writeManifest } from '../../src/services/index-integrity.js'
import type { ActivityRow } from '../../src/graph/types.js'
import { structureKey } from '../../src/analytics/build.js'
import { fileCoChange, symbolCoChange } from '../../src/analytics/cochange.js'
import { AnalyticsColumns, columnAnalytics } from '../../src/analytics/columns.js'
import { activityStats, type ChangeWithSymbolLines } from '../../src/analytics/stats.js'
import { DEFAULT_ANALYTICS_CONFIG, type AnalyticsInput } from '../../src/analytics/types.js'
import type { GraphData } from '../../src/graph/types.js'
import type { CommitCategory } from '../../src/services/types.js'

/** mulberry32: a small seeded generator, so a failure replays. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const CATEGORIES: CommitCategory[] = ['normal', 'normal', 'normal', 'micro', 'merge', 'bot', 'formatting', 'revert', 'mega', 'initial']
const HEAD_TIME = 1_700_000_000

interface World {
  cache: AnalyticsCache
  input: Omit<AnalyticsInput, 'changes' | 'renames' | 'ownership'>
}

/** A history over a few paths (renamed, deleted, re-created) and symbols (nested, repeated within a commit). */
function world(seed: number, commits = 120): World {
  const r = random(seed)
  const pick = <T>(list: T[]): T => list[Math.floor(r() * list.length)]
  const paths = Array.from({ length: 14 }, (_, i) => `src/f${i}.ts`)
  const present = paths.filter(() => r() < 0.7)
  const symbols: AnalyticsInput['symbols'] = []
  for (const p of present) {
    const n = Math.floor(r() * 4)
    for (let i = 0; i < n; i++) symbols.push({ id: `${p}#s${i}`, path: p, qualified_name: `s${i}`, parent: i > 0 && r() < 0.4 ? `${p}#s0` : null })
  }
  const symbolPool = [...symbols.map((s) => s.id), 'gone.ts#old', 'src/f1.ts#removed']
  const authors = ['a@x', 'b@x', 'c@x', 'd@x']
  const changes: ChangeWithSymbolLines[] = []
  const renames: AnalyticsCache['renames'] = []
  for (let i = 0; i < commits; i++) {
    const sha = `c${seed}-${i}`
    const big = r() < 0.05
    const nFiles = big ? 31 + Math.floor(r() * 5) : Math.floor(r() * 6)
    const files = Array.from({ length: nFiles }, () => ({ path: big ? `${pick(paths)}${Math.floor(r() * 40)}` : pick(paths), additions: Math.floor(r() * 20), deletions: Math.floor(r() * 10) }))
    const syms = Array.from({ length: Math.floor(r() * (r() < 0.1 ? 40 : 5)) }, () => pick(symbolPool))
    const symbolLines: Record<string, number> = {}
    for (const s of syms) if (r() < 0.8) symbolLines[s] = Math.floor(r() * 15)
    changes.push({ sha, time: HEAD_TIME - Math.floor(r() * 400 * 86_400), author: pick(authors), category: pick(CATEGORIES), subject: `subject ${i}`, files, symbols: syms, symbolLines: r() < 0.1 ? undefined : symbolLines })
    if (r() < 0.15) renames.push({ path: pick(paths), from: r() < 0.5 ? pick(paths) : `old/${pick(paths)}`, sha })
    if (r() < 0.03) renames.push({ path: pick(paths), from: pick(paths), sha })
  }
  const ownership: AnalyticsCache['ownership'] = Object.create(null)
  for (const p of present) ownership[p] = [[pick(authors), 3]]
  return { cache: { changes, renames, ownership }, input: { headTime: HEAD_TIME, files: present.map((path) => ({ path, language: 'typescript' })), symbols } }
}

const CONFIG = { ...DEFAULT_ANALYTICS_CONFIG, minRevisions: 2, minShared: 2, minConfidence: 0.1 }

function reference({ cache, input }: World) {
  const full: AnalyticsInput = { ...input, changes: cache.changes, renames: cache.renames, ownership: cache.ownership }
  const { fileStats, symbolStats } = activityStats(full, CONFIG)
  return { fileStats, symbolStats, fileCoChange: fileCoChange(full, CONFIG), symbolCoChange: symbolCoChange(full, CONFIG) }
}

describe('analytics columns', () => {
  it('compute what stats.ts and cochange.ts compute from the object form', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const w = world(seed)
      const expected = reference(w)
      expect(expected.fileCoChange.length + expected.symbolCoChange.length, `seed ${seed} has pairs`).toBeGreaterThanOrEqual(0)
      expect(columnAnalytics(AnalyticsColumns.fromCache(w.cache), w.input, CONFIG), `seed ${seed}`).toEqual(expected)
    }
  })

  it('find pairs in the random histories (the comparison above is not vacuous)', () => {
    const pairs = Array.from({ length: 20 }, (_, i) => reference(world(i + 1))).reduce((n, o) => n + o.fileCoChange.length + o.symbolCoChange.length, 0)
    expect(pairs).toBeGreaterThan(20)
  })

  it('read back as written, through JSON', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const w = world(seed)
      const written = JSON.stringify(AnalyticsColumns.fromCache(w.cache).toCompact())
      const read = AnalyticsColumns.fromCompact(JSON.parse(written) as CompactAnalyticsCache)
      expect(JSON.stringify(read.toCompact())).toBe(written)
      expect(columnAnalytics(read, w.input, CONFIG)).toEqual(reference(w))
      // the object form back: the symbols' lines as symbolLines gives them
      const back = read.toCache()
      back.changes.forEach((c, i) => {
        const original = w.cache.changes[i]
        expect(c.files).toEqual(original.files)
        expect(c.symbols).toEqual(original.symbols)
        for (const s of c.symbols) expect(c.symbolLines?.[s]).toBe(original.symbolLines?.[s])
      })
      expect(back.renames).toEqual(w.cache.renames)
    }
  })

  it('read back as written, through analytics.bin (typed arrays, v8.serialize)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const w = world(seed)
      const columns = AnalyticsColumns.fromCache(w.cache)
      const stored = columns.toStored()
      expect(stored.format).toBe(5)
      expect(stored.filePath).toBeInstanceOf(Int32Array)
      expect(Array.isArray(stored.subject)).toBe(false)
      const read = AnalyticsColumns.fromCompact(deserialize(serialize(stored)) as StoredAnalyticsColumns)
      read.ownership = w.cache.ownership
      expect(read.filePath).toBeInstanceOf(Int32Array)
      expect(JSON.stringify(read.toCompact())).toBe(JSON.stringify(columns.toCompact()))
      expect(columnAnalytics(read, w.input, CONFIG)).toEqual(reference(w))
      expect(read.toCache().changes).toEqual(columns.toCache().changes)
    }
    // format 4 (the subjects a list of strings) reads the same
    const w = world(7)
    const four = { ...AnalyticsColumns.fromCache(w.cache).toStored(), format: 4 as const, subject: w.cache.changes.map((c) => c.subject) }
    expect(AnalyticsColumns.fromCompact(deserialize(serialize(four)) as StoredAnalyticsColumns).toCache().changes).toEqual(AnalyticsColumns.fromCache(w.cache).toCache().changes)
    // subjects in any script, one empty, and one with a lone surrogate (which UTF-8 cannot hold: the list is kept)
    const odd = ['héllo wörld', '', '修复 bug 🐛', 'plain']
    // (and two halves of one pair, ending one subject and starting the next: each lone, joined one)
    for (const subjects of [odd, [...odd, 'broken \ud800 half'], [...odd, 'ends \ud83d', '\ude00 starts']]) {
      const cache = { ...w.cache, changes: w.cache.changes.slice(0, subjects.length).map((c, i) => ({ ...c, subject: subjects[i] })) }
      const stored = AnalyticsColumns.fromCache(cache).toStored()
      expect(stored.format).toBe(subjects.length === odd.length ? 5 : 4)
      const read = AnalyticsColumns.fromCompact(deserialize(serialize(stored)) as StoredAnalyticsColumns)
      expect(read.subjectAt(2)).toBe(subjects[2])
      expect(read.subject).toEqual(subjects)
      // an update's new subjects go before the stored text
      const fresh: ChangeWithSymbolLines[] = [{ sha: 'n1', time: HEAD_TIME + 5, author: 'e@x', category: 'normal', subject: 'nouveau ✓', files: [], symbols: [] }]
      const updated = AnalyticsColumns.fromCompact(deserialize(serialize(stored)) as StoredAnalyticsColumns).withUpdate(fresh, new Set(), [], [])
      expect(updated.subjectAt(0)).toBe('nouveau ✓')
      expect(updated.subjectsBySha(new Set(['n1', cache.changes[1].sha]))).toEqual(new Map([['n1', 'nouveau ✓'], [cache.changes[1].sha, subjects[1]]]))
      expect(AnalyticsColumns.fromCompact(deserialize(serialize(updated.toStored({ compact: false }))) as StoredAnalyticsColumns).subject).toEqual(['nouveau ✓', ...subjects])
    }
    // a damaged text: an end past it
    const bad = AnalyticsColumns.fromCache(w.cache).toStored()
    const text = bad.subject as { text: Buffer; end: Int32Array }
    text.end[text.end.length - 1] = text.text.length + 1
    expect(() => AnalyticsColumns.fromCompact(bad)).toThrow()
    // no commits at all
    const none = AnalyticsColumns.fromCompact(deserialize(serialize(new AnalyticsColumns().toStored())) as StoredAnalyticsColumns)
    expect(none.length).toBe(0)
  })

  it("name a rename's commit by its index, keep the sha of a commit not in the list, and read format 2's shas alike", () => {
    const w = world(4)
    const renames = [...w.cache.renames, { path: 'src/f3.ts', from: 'src/f8.ts', sha: 'not-a-listed-commit' }]
    const compact = AnalyticsColumns.fromCache({ ...w.cache, renames }).toCompact()
    expect(compact.format).toBe(3)
    expect(compact.renameSha.slice(0, -1).every((at) => typeof at === 'number')).toBe(true)
    expect(compact.renameSha.map((at) => (typeof at === 'number' ? compact.sha[at] : at))).toEqual(renames.map((r) => r.sha))
    const format2 = { ...compact, format: 2 as const, renameSha: renames.map((r) => r.sha) }
    for (const stored of [compact, format2]) {
      const read = AnalyticsColumns.fromCompact(JSON.parse(JSON.stringify(stored)) as CompactAnalyticsCache)
      expect(read.toCache().renames).toEqual(renames)
      expect(columnAnalytics(read, w.input, CONFIG)).toEqual(reference({ cache: { ...w.cache, renames }, input: w.input }))
    }
    expect(() => AnalyticsColumns.fromCompact({ ...compact, renameSha: compact.renameSha.map(() => compact.sha.length) })).toThrow()
    expect(() => AnalyticsColumns.fromCompact({ ...compact, renameSha: compact.renameSha.map(() => -1) })).toThrow()
  })

  it('refuse a damaged table', () => {
    const compact = AnalyticsColumns.fromCache(world(3).cache).toCompact()
    expect(() => AnalyticsColumns.fromCompact({ ...compact, filePath: compact.filePath.slice(1) })).toThrow()
    expect(() => AnalyticsColumns.fromCompact({ ...compact, symbol: compact.symbol.map(() => compact.strings.length) })).toThrow()
    expect(() => AnalyticsColumns.fromCompact({ ...compact, time: [] })).toThrow()
    const stored = AnalyticsColumns.fromCache(world(3).cache).toStored()
    expect(() => AnalyticsColumns.fromCompact({ ...stored, filePath: stored.filePath.subarray(1) })).toThrow()
    expect(() => AnalyticsColumns.fromCompact({ ...stored, time: 'x' as unknown as Float64Array })).toThrow()
    expect(() => AnalyticsColumns.fromCompact({ ...stored, sha: stored.sha.slice(41) })).toThrow()
  })

  it("give an update's history as replaceSymbolHistories does", () => {
    const ways = new Set<string>()
    for (let seed = 1; seed <= 30; seed++) {
      const w = world(seed)
      const r = random(seed * 7)
      const fresh: ChangeWithSymbolLines[] = [0, 1].map((i) => ({ sha: `new${i}`, time: HEAD_TIME + i, author: 'e@x', category: 'normal', subject: 'new', files: [{ path: 'src/f1.ts', additions: 2, deletions: 1 }], symbols: [], symbolLines: {} }))
      // the symbols of two files are re-walked: theirs go, their new histories come
      // (every fifth: every symbol of the history, so that most of the table goes unused)
      const gone = new Set(seed % 5 === 0 ? w.cache.changes.flatMap((c) => c.symbols) : w.input.symbols.filter((s) => s.path === 'src/f1.ts' || s.path === 'src/f2.ts').map((s) => s.id))
      const shas = [...fresh, ...w.cache.changes].map((c) => c.sha)
      const changed: GraphData['changed'] = Array.from({ length: 25 }, () => ({ sha: shas[Math.floor(r() * shas.length)], symbol: `src/f${1 + Math.floor(r() * 2)}.ts#n${Math.floor(r() * 5)}`, added: Math.floor(r() * 9), removed: Math.floor(r() * 4) })) as GraphData['changed']
      const renames = [{ path: 'src/f3.ts', from: 'src/f9.ts', sha: 'new0' }]
      const expected: AnalyticsCache = { changes: replaceSymbolHistories([...fresh, ...w.cache.changes], gone, changed), renames: [...renames, ...w.cache.renames], ownership: w.cache.ownership }
      // as analytics.json's arrays read them, and as analytics.bin's typed arrays do
      const asJson = AnalyticsColumns.fromCompact(JSON.parse(JSON.stringify(AnalyticsColumns.fromCache(w.cache).toCompact())) as CompactAnalyticsCache)
      const asBin = AnalyticsColumns.fromCompact(deserialize(serialize(AnalyticsColumns.fromCache(w.cache).toStored())) as StoredAnalyticsColumns)
      for (const stored of [asJson, asBin]) {
        const updated = stored.withUpdate(fresh, gone, changed, renames)
        updated.ownership = w.cache.ownership
        expect(JSON.stringify(updated.toCompact()), `seed ${seed}`).toBe(JSON.stringify(AnalyticsColumns.fromCache(expected).toCompact()))
        // as analyze writes it (the table kept as it is while few of its strings went unused), read back
        const written = updated.toStored({ compact: false })
        const back = AnalyticsColumns.fromCompact(deserialize(serialize(written)) as StoredAnalyticsColumns)
        back.ownership = w.cache.ownership
        expect(JSON.stringify(back.toCompact()), `seed ${seed}: analytics.bin as written`).toBe(JSON.stringify(AnalyticsColumns.fromCache(expected).toCompact()))
        const unused = written.strings.length - new Set([...written.author, ...written.category, ...written.filePath, ...written.symbol, ...written.renamePath, ...written.renameFrom]).size
        expect(unused * 8, `seed ${seed}: at most an eighth of the table unused`).toBeLessThanOrEqual(written.strings.length)
        if (written.strings !== updated.strings) expect(unused).toBe(0)
        ways.add(written.strings === updated.strings ? 'kept' : 'compacted')
        const input = { ...w.input, headTime: HEAD_TIME + 1 }
        expect(columnAnalytics(updated, input, CONFIG)).toEqual(reference({ cache: expected, input }))
      }
    }
    // the table was written both ways
    expect([...ways].sort()).toEqual(['compacted', 'kept'])
  })
})

describe('analytics files of either format', () => {
  const index = (files: Record<string, string>): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gitwhy-analytics-'))
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text)
    writeManifest(dir)
    return dir
  }
  const row = (n: number): ActivityRow => ({ revisions: n, recent_revisions: 1, churn: 10 * n, authors: 2, first_change: '2023-01-01T00:00:00.000Z', last_change: n > 1 ? '2023-02-01T00:00:00.000Z' : null, hotspot: n / 3, hotspot_percentile: 0.5, cochange_partners: n - 1 })
  const rows = { files: { 'a.ts': row(1), 'b.ts': row(2) }, symbols: { 'a.ts#f': row(3), 'a.ts#g': row(4) } }
  const rest = { fileCoChanged: [], symbolCoChanged: [], communities: [], memberOf: [], communityKey: 'k' }

  it('analytics-out.json: tables (now) and rows (an index built before) read alike', () => {
    const table = (r: Record<string, ActivityRow>): ActivityTable => {
      const t = emptyActivityTable()
      for (const [key, v] of Object.entries(r)) {
        t.key.push(key)
        for (const f of Object.keys(v) as Array<keyof ActivityRow>) (t[f] as unknown[]).push(v[f])
      }
      return t
    }
    const now = index({})
    saveStoredAnalytics(now, { files: table(rows.files), symbols: table(rows.symbols), ...rest })
    writeManifest(now)
    const before = index({ [ANALYTICS_OUT_FILE]: JSON.stringify({ ...rows, ...rest }) })
    for (const dir of [now, before]) {
      expect({ ...loadStoredActivity(dir, 'files') }).toEqual(rows.files)
      expect({ ...loadStoredActivity(dir, 'symbols') }).toEqual(rows.symbols)
      expect(loadStoredAnalytics(dir)).toEqual({ files: table(rows.files), symbols: table(rows.symbols), ...rest })
    }
  })

  it('analytics.bin with ownership.json (now), and analytics.json as columns or objects (indexes built before), read alike', () => {
    const w = world(5)
    const now = index({})
    saveAnalyticsCache(now, w.cache)
    writeManifest(now)
    expect(existsSync(path.join(now, ANALYTICS_BIN)) && existsSync(path.join(now, OWNERSHIP_FILE)) && !existsSync(path.join(now, ANALYTICS_FILE))).toBe(true)
    const columns = index({ [ANALYTICS_FILE]: JSON.stringify(AnalyticsColumns.fromCache(w.cache).toCompact()) })
    const before = index({ [ANALYTICS_FILE]: JSON.stringify(w.cache) })
    for (const dir of [now, columns, before]) {
      expect(columnAnalytics(loadAnalyticsColumns(dir), w.input, CONFIG)).toEqual(reference(w))
      expect(loadOwnership(dir)).toEqual(w.cache.ownership)
      expect(loadAnalyticsCache(dir).changes.map((c) => c.sha)).toEqual(w.cache.changes.map((c) => c.sha))
    }
  })
})

describe('structureKey', () => {
  it('hashes the sorted pair lines, as a string sort of them gives', () => {
    const naive = (input: { imports: Array<{ from: string; to: string }>; calls: Array<{ from: string; to: string; confidence: number }> }) => {
      const calls = new Map<string, number>()
      for (const { from, to, confidence } of input.calls) calls.set(`${from}\0${to}`, Math.max(calls.get(`${from}\0${to}`) ?? 0, confidence))
      const imports = new Set(input.imports.map(({ from, to }) => `${from}\0${to}`))
      return createHash('sha1')
        .update(`\n${[...imports].sort().join('\n')}\n`)
        .update([...calls].map(([pair, confidence]) => `${pair}\0${confidence}`).sort().join('\n'))
        .digest('hex')
    }
    for (let seed = 1; seed <= 20; seed++) {
      const r = random(seed)
      // names that are prefixes of each other, and non-ASCII ones, where a sort by code unit matters
      const names = ['a', 'a#b', 'a#b.c', 'ab', 'b', 'é', 'z#x', 'a.ts#f', 'a.ts#f~2', 'A']
      const pick = () => names[Math.floor(r() * names.length)]
      const input = {
        imports: Array.from({ length: 15 }, () => ({ from: pick(), to: pick() })),
        calls: Array.from({ length: 40 }, () => ({ from: pick(), to: pick(), confidence: [0.5, 0.9, 1][Math.floor(r() * 3)] })),
      }
      expect(structureKey(input), `seed ${seed}`).toBe(naive(input))
    }
  })
})
