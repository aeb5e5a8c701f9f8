/**
 * An update's analytics from the previous pass's state (src/analytics/column-update.ts) against
 * the full pass over the updated history: over random histories and chains of random updates
 * (new commits with renames, files deleted and re-created at HEAD, symbols re-walked, dropped and
 * added, HEAD's time moved either way), the stats, the co-change pairs and the state left for the
 * next update are the full pass's, in the same order.
 */
import { deserialize, serialize } from 'node:v8'
import { describe, expect, it } from 'vitest'
import type { AnalyticsCache, StoredAnalyticsColumns } from '../../src/analytics/cache.js'
import { updatedColumnAnalytics, type PreviousAnalytics } from '../../src/analytics/column-update.js'
import { AnalyticsColumns, columnAnalyticsWithState, type AnalyticsState, type ColumnResult } from '../../src/analytics/columns.js'
import type { ChangeWithSymbolLines } from '../../src/analytics/stats.js'
import { DEFAULT_ANALYTICS_CONFIG, type AnalyticsInput, type CoChange } from '../../src/analytics/types.js'
import type { GraphData } from '../../src/graph/types.js'
import type { CommitCategory } from '../../src/services/types.js'
import { seeded } from './analytics-fixtures.js'

const CATEGORIES: CommitCategory[] = ['normal', 'normal', 'normal', 'micro', 'merge', 'bot', 'formatting', 'revert', 'mega', 'initial']
const HEAD_TIME = 1_700_000_000
const DAY = 86_400
const CONFIG = { ...DEFAULT_ANALYTICS_CONFIG, minRevisions: 2, minShared: 2, minConfidence: 0.1, maxChangesetSize: 8 }
const PATHS = Array.from({ length: 16 }, (_, i) => `src/f${i}.ts`)
const AUTHORS = ['a@x', 'b@x', 'c@x', 'd@x']

type Input = Omit<AnalyticsInput, 'changes' | 'renames' | 'ownership'>

interface Repo {
  columns: AnalyticsColumns
  input: Input
  previous: PreviousAnalytics
  commits: number
}

function symbolsOf(r: () => number, path: string, generation: number): Input['symbols'] {
  const out: Input['symbols'] = []
  const n = Math.floor(r() * 4)
  for (let i = 0; i < n; i++) {
    // most keep their ids from one walk to the next; some are new
    const name = r() < 0.8 ? `s${i}` : `s${i}g${generation}`
    out.push({ id: `${path}#${name}`, path, qualified_name: name, parent: i > 0 && r() < 0.4 ? `${path}#${out[0].qualified_name}` : null })
  }
  return out
}

function commit(r: () => number, sha: string, time: number, paths: string[], symbolPool: string[]): ChangeWithSymbolLines {
  const pick = <T>(list: T[]): T => list[Math.floor(r() * list.length)]
  const big = r() < 0.08
  const nFiles = big ? 9 + Math.floor(r() * 4) : 1 + Math.floor(r() * 5)
  const files = Array.from({ length: nFiles }, () => ({ path: pick(paths), additions: Math.floor(r() * 20), deletions: Math.floor(r() * 10) }))
  const symbols = symbolPool.length === 0 ? [] : Array.from({ length: Math.floor(r() * (r() < 0.15 ? 12 : 5)) }, () => pick(symbolPool))
  const symbolLines: Record<string, number> = {}
  for (const s of symbols) if (r() < 0.8) symbolLines[s] = Math.floor(r() * 15)
  return { sha, time, author: pick(AUTHORS), category: pick(CATEGORIES), subject: sha, files, symbols, symbolLines: r() < 0.1 ? undefined : symbolLines }
}

function previousOf(result: ColumnResult, state: AnalyticsState): PreviousAnalytics {
  const rows = (pairs: CoChange[]) => pairs.map((c) => ({ a: c.a, b: c.b, shared: c.shared, degree: c.degree, confidence: c.confidence_ab, reverse_confidence: c.confidence_ba }))
  // as analytics-state.bin and analytics-out.json read them back
  return { state: deserialize(serialize(state)) as AnalyticsState, ...(JSON.parse(JSON.stringify({ fileCoChanged: rows(result.fileCoChange), symbolCoChanged: rows(result.symbolCoChange) })) as Omit<PreviousAnalytics, 'state'>) }
}

function built(seed: number): Repo {
  const r = seeded(seed)
  const present = PATHS.filter(() => r() < 0.7)
  const symbols = present.flatMap((p) => symbolsOf(r, p, 0))
  const pool = [...symbols.map((s) => s.id), 'gone.ts#old', 'src/f1.ts#removed']
  const changes: ChangeWithSymbolLines[] = []
  const renames: AnalyticsCache['renames'] = []
  for (let i = 0; i < 80; i++) {
    const sha = `c${seed}-${i}`
    changes.push(commit(r, sha, HEAD_TIME - Math.floor(r() * 300 * DAY), PATHS, pool))
    if (r() < 0.12) renames.push({ path: PATHS[Math.floor(r() * PATHS.length)], from: PATHS[Math.floor(r() * PATHS.length)], sha })
  }
  changes.sort((a, b) => b.time - a.time)
  const columns = stored(AnalyticsColumns.fromCache({ changes, renames, ownership: {} }))
  const input: Input = { headTime: HEAD_TIME, files: present.map((path) => ({ path, language: 'typescript' })), symbols }
  const full = columnAnalyticsWithState(columns, input, CONFIG)
  return { columns, input, previous: previousOf(full.result, full.state), commits: changes.length }
}

/** Through analytics.bin's form, as an update reads the previous history. */
function stored(columns: AnalyticsColumns): AnalyticsColumns {
  return AnalyticsColumns.fromCompact(deserialize(serialize(columns.toStored())) as StoredAnalyticsColumns)
}

/** One random update of `repo`: its history, HEAD and the replaced symbols. */
function update(repo: Repo, r: () => number, step: number): { columns: AnalyticsColumns; input: Input; replaced: string[] } {
  const pick = <T>(list: T[]): T => list[Math.floor(r() * list.length)]
  let present = repo.input.files.map((f) => f.path)
  // HEAD's files: one deleted, one added (maybe a path the history had), or neither
  if (r() < 0.3 && present.length > 2) present = present.filter((p) => p !== pick(present))
  if (r() < 0.3) present = [...new Set([...present, pick(PATHS)])]
  // the new commits (newest first), each a day or so apart; HEAD's time moves forward, or back
  const moved = r() < 0.2 ? -Math.floor(r() * 60 * DAY) : Math.floor(r() * 120 * DAY)
  const headTime = repo.input.headTime + moved
  const n = 1 + Math.floor(r() * 3)
  const fresh: ChangeWithSymbolLines[] = []
  for (let i = 0; i < n; i++) fresh.push(commit(r, `u${step}-${i}`, headTime - i * DAY, present, []))
  const renames: AnalyticsCache['renames'] = r() < 0.3 ? [{ path: pick(present), from: pick(PATHS), sha: fresh[n - 1].sha }] : []
  // the files the new commits touched (or renamed) are walked again; a deleted file's symbols go
  const walked = new Set([...fresh.flatMap((c) => c.files.map((f) => f.path)), ...renames.map((x) => x.path)].filter((p) => present.includes(p)))
  const kept = repo.input.symbols.filter((s) => present.includes(s.path) && !walked.has(s.path))
  const rewalked = [...walked].flatMap((p) => symbolsOf(r, p, step + 1))
  const symbols = [...kept, ...rewalked]
  const replaced = repo.input.symbols.filter((s) => walked.has(s.path) || (!present.includes(s.path) && r() < 0.5)).map((s) => s.id)
  const shas = [...fresh.map((c) => c.sha), ...repo.columns.sha]
  const changed = Array.from({ length: rewalked.length === 0 ? 0 : 2 + Math.floor(r() * 12) }, () => ({ sha: pick(shas), symbol: pick(rewalked).id, added: Math.floor(r() * 9), removed: Math.floor(r() * 4) })) as GraphData['changed']
  // new symbols in the new commits' own entries
  for (const c of fresh) c.symbols = rewalked.length > 0 && r() < 0.7 ? [pick(rewalked).id] : []
  const gone = new Set(replaced)
  const columns = repo.columns.withUpdate(fresh, gone, changed, renames)
  return { columns, input: { headTime, files: [...present].sort().map((path) => ({ path, language: 'typescript' })), symbols }, replaced: [...gone, ...changed.map((c) => c.symbol)] }
}

describe('analytics of an update from the previous state', () => {
  it("equal the full pass's over the updated history, update after update", () => {
    let incremental = 0
    let total = 0
    for (let seed = 1; seed <= 60; seed++) {
      const r = seeded(seed * 31)
      let repo = built(seed)
      for (let step = 0; step < 4; step++) {
        const u = update(repo, r, step)
        const expected = columnAnalyticsWithState(u.columns, u.input, CONFIG)
        const got = updatedColumnAnalytics(u.columns, u.input, CONFIG, repo.previous, u.replaced, 1)
        total++
        if (got) {
          incremental++
          const where = `seed ${seed} step ${step}`
          expect([...got.result.fileStats.keys()], where).toEqual([...expected.result.fileStats.keys()])
          expect([...got.result.symbolStats.keys()], where).toEqual([...expected.result.symbolStats.keys()])
          expect(got.result, where).toEqual(expected.result)
          expect(got.state, where).toEqual(expected.state)
        }
        // the next update starts from what this one saved (its history read back as analytics.bin)
        const next = got ?? expected
        repo = { columns: stored(u.columns), input: u.input, previous: previousOf(next.result, next.state), commits: u.columns.length }
      }
    }
    // with no share of items too large, only a state that does not fit falls back: none here
    expect(incremental).toBe(total)
  })

  it('find pairs and move the recent window (the comparison is not vacuous)', () => {
    const r = seeded(7)
    let pairs = 0
    let recent = 0
    for (let seed = 1; seed <= 10; seed++) {
      const u = update(built(seed), r, 0)
      const { result } = columnAnalyticsWithState(u.columns, u.input, CONFIG)
      pairs += result.fileCoChange.length + result.symbolCoChange.length
      for (const s of result.fileStats.values()) recent += s.recent_revisions
    }
    expect(pairs).toBeGreaterThan(20)
    expect(recent).toBeGreaterThan(10)
  })

  it('leave a state that does not fit to the full pass', () => {
    const repo = built(3)
    const u = update(repo, seeded(5), 0)
    const previous = (state: Partial<AnalyticsState>): PreviousAnalytics => ({ ...repo.previous, state: { ...repo.previous.state, ...state } })
    expect(updatedColumnAnalytics(u.columns, u.input, CONFIG, repo.previous, u.replaced, 1)).toBeDefined()
    // another history, other settings, a history not made by an update
    expect(updatedColumnAnalytics(u.columns, u.input, CONFIG, previous({ commits: repo.commits - 1 }), u.replaced, 1)).toBeUndefined()
    expect(updatedColumnAnalytics(u.columns, u.input, { ...CONFIG, recentDays: 30 }, repo.previous, u.replaced, 1)).toBeUndefined()
    expect(updatedColumnAnalytics(stored(u.columns), u.input, CONFIG, repo.previous, u.replaced, 1)).toBeUndefined()
    // most items changed: the full pass is as quick
    const all = repo.input.symbols.map((s) => s.id)
    expect(updatedColumnAnalytics(u.columns, u.input, CONFIG, repo.previous, all, 0)).toBeUndefined()
  })
})
