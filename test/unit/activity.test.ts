import { describe, expect, it } from 'vitest'
import { activityStats, ghosts, headPaths, lastActivity, ownershipOf } from '../../src/analytics/stats.js'
import { DEFAULT_ANALYTICS_CONFIG } from '../../src/analytics/types.js'
import { DAY, HEAD, history } from './analytics-fixtures.js'

const cfg = DEFAULT_ANALYTICS_CONFIG

/** headPaths as plain objects: sha → { path in commit: HEAD path }. */
function resolved(input: Parameters<typeof headPaths>[0]): Record<string, Record<string, string>> {
  return Object.fromEntries([...headPaths(input)].map(([sha, m]) => [sha, Object.fromEntries(m)]))
}

describe('headPaths', () => {
  it('follows a chain of renames forward to the HEAD path', () => {
    const input = history()
      .commit({ daysAgo: 60, files: ['x.ts'] }) // c0000
      .commit({ daysAgo: 50, files: ['y.ts'], renames: [['x.ts', 'y.ts']] }) // c0001
      .commit({ daysAgo: 30, files: ['y.ts'] }) // c0002
      .commit({ daysAgo: 20, files: ['z.ts'], renames: [['y.ts', 'z.ts']] }) // c0003
      .commit({ daysAgo: 10, files: ['z.ts', 'gone.ts'] }) // c0004
      .build({ files: ['z.ts'] })
    expect(resolved(input)).toEqual({
      c0000: { 'x.ts': 'z.ts' },
      c0001: { 'y.ts': 'z.ts' },
      c0002: { 'y.ts': 'z.ts' },
      c0003: { 'z.ts': 'z.ts' },
      c0004: { 'z.ts': 'z.ts' }, // gone.ts leads to no present file
    })
  })

  it('splits a name reused after a rename-away at the rename; swaps apply at once', () => {
    const input = history()
      .commit({ daysAgo: 90, files: ['a.ts', 'p.ts', 'q.ts'] }) // c0000
      .commit({ daysAgo: 80, files: ['b.ts'], renames: [['a.ts', 'b.ts']] }) // c0001
      .commit({ daysAgo: 70, files: ['p.ts', 'q.ts'], renames: [['p.ts', 'q.ts'], ['q.ts', 'p.ts']] }) // c0002
      .commit({ daysAgo: 60, files: ['a.ts'] }) // c0003: a new a.ts
      .build({ files: ['a.ts', 'b.ts', 'p.ts', 'q.ts'] })
    expect(resolved(input)).toEqual({
      c0000: { 'a.ts': 'b.ts', 'p.ts': 'q.ts', 'q.ts': 'p.ts' },
      c0001: { 'b.ts': 'b.ts' },
      c0002: { 'p.ts': 'p.ts', 'q.ts': 'q.ts' },
      c0003: { 'a.ts': 'a.ts' },
    })
  })

  it('one source renamed to two files follows the smaller HEAD path; unknown rename commits are ignored', () => {
    const input = history()
      .commit({ daysAgo: 90, files: ['s.ts', 'k.ts'] }) // c0000
      .commit({ daysAgo: 80, files: ['d2.ts', 'd1.ts'], renames: [['s.ts', 'd1.ts'], ['s.ts', 'd2.ts']] }) // c0001
      .build({ files: ['d1.ts', 'd2.ts', 'n.ts'] })
    input.renames.push({ path: 'n.ts', from: 'k.ts', sha: 'not-indexed' })
    expect(resolved(input).c0000).toEqual({ 's.ts': 'd1.ts' })
    input.renames.reverse()
    expect(resolved(input).c0000).toEqual({ 's.ts': 'd1.ts' })
  })

  it('a rename target name held by an older, deleted file does not inherit that file', () => {
    const input = history()
      .commit({ daysAgo: 90, files: ['t.ts', 's.ts'] }) // c0000: the first t.ts, deleted later
      .commit({ daysAgo: 80, files: ['t.ts'] }) // c0001: deletes it
      .commit({ daysAgo: 60, files: ['t.ts'], renames: [['s.ts', 't.ts']] }) // c0002
      .build({ files: ['t.ts'] })
    expect(resolved(input)).toEqual({ c0000: { 's.ts': 't.ts' }, c0001: {}, c0002: { 't.ts': 't.ts' } })
  })
})

describe('activityStats', () => {
  const ada = 'ada@example.com'
  const bob = 'bob@example.com'
  const cy = 'cy@example.com'
  const input = history()
    .commit({ daysAgo: 400, author: ada, category: 'initial', files: [['old/a.ts', 10, 0], ['b.ts', 5, 0]] })
    .commit({ daysAgo: 200, author: bob, files: [['a.ts', 3, 2]], renames: [['old/a.ts', 'a.ts']], symbols: ['a.ts#f'] })
    .commit({ daysAgo: 100, author: ada, files: [['a.ts', 1, 1]], symbols: ['a.ts#g'], symbolLines: { 'a.ts#g': 1 } })
    .commit({ daysAgo: 90, author: ada, files: [['c.ts', 7, 0]] }) // exactly at the window's edge: not recent
    .commit({ daysAgo: 89, author: cy, files: [['a.ts', 4, 0], ['gone.ts', 9, 9]], symbols: ['a.ts#f'] })
    .commit({ daysAgo: 30, author: bob, category: 'merge', files: [['a.ts', 100, 100]], symbols: ['a.ts#f'] })
    .commit({ daysAgo: 20, author: 'ci@example.com', category: 'bot', files: [['a.ts', 1, 1]] })
    .commit({ daysAgo: 10, author: ada, category: 'formatting', files: [['a.ts', 50, 50]] })
    .commit({ daysAgo: 5, author: cy, category: 'micro', files: [['a.ts', 1, 0], ['b.ts', 2, 2]], symbols: ['a.ts#f'] })
    .build({
      files: ['a.ts', 'b.ts', 'c.ts', 'd.ts'],
      symbols: [
        { id: 'a.ts#f', path: 'a.ts', qualified_name: 'f', parent: null },
        { id: 'a.ts#g', path: 'a.ts', qualified_name: 'g', parent: null },
        { id: 'b.ts#h', path: 'b.ts', qualified_name: 'h', parent: null },
      ],
    })
  const { fileStats, symbolStats } = activityStats(input, cfg)

  it('counts revisions, recent, churn, authors, first and last per HEAD file (renames followed; merge, bot, formatting left out)', () => {
    expect(Object.fromEntries(fileStats)).toEqual({
      // initial (10, as old/a.ts) + 5 + 2 + 4 + 1
      'a.ts': { revisions: 5, recent_revisions: 2, churn: 22, authors: 3, first_change: HEAD - 400 * DAY, last_change: HEAD - 5 * DAY },
      'b.ts': { revisions: 2, recent_revisions: 1, churn: 9, authors: 2, first_change: HEAD - 400 * DAY, last_change: HEAD - 5 * DAY },
      'c.ts': { revisions: 1, recent_revisions: 0, churn: 7, authors: 1, first_change: HEAD - 90 * DAY, last_change: HEAD - 90 * DAY },
      'd.ts': { revisions: 0, recent_revisions: 0, churn: 0, authors: 0, first_change: null, last_change: null },
    })
    expect([...fileStats.keys()]).toEqual(['a.ts', 'b.ts', 'c.ts', 'd.ts'])
  })

  it('the recent window follows recentDays', () => {
    expect(activityStats(input, { recentDays: 91 }).fileStats.get('c.ts')?.recent_revisions).toBe(1)
    expect(activityStats(input, { recentDays: 500 }).fileStats.get('a.ts')?.recent_revisions).toBe(5)
  })

  it('symbol churn: exact lines when given, else the file churn of that commit', () => {
    expect(Object.fromEntries(symbolStats)).toEqual({
      // commits at 200 (5 lines of a.ts), 89 (4), 5 (1); the merge at 30 is left out
      'a.ts#f': { revisions: 3, recent_revisions: 2, churn: 10, authors: 2, first_change: HEAD - 200 * DAY, last_change: HEAD - 5 * DAY },
      // exact: 1 line, though the commit changed 2 lines of a.ts
      'a.ts#g': { revisions: 1, recent_revisions: 0, churn: 1, authors: 1, first_change: HEAD - 100 * DAY, last_change: HEAD - 100 * DAY },
      'b.ts#h': { revisions: 0, recent_revisions: 0, churn: 0, authors: 0, first_change: null, last_change: null },
    })
  })

  it('lastActivity: newest commit per author of any category but bot', () => {
    expect(Object.fromEntries(lastActivity(input))).toEqual({ [ada]: HEAD - 10 * DAY, [bob]: HEAD - 30 * DAY, [cy]: HEAD - 5 * DAY })
  })
})

describe('ownershipOf', () => {
  it('60/30/10: bus factor 1, no dominant owner', () => {
    const o = ownershipOf([['c', 10], ['a', 60], ['b', 30]])
    expect(o.owners).toEqual([{ email: 'a', lines: 60, share: 0.6 }, { email: 'b', lines: 30, share: 0.3 }, { email: 'c', lines: 10, share: 0.1 }])
    expect(o.bus_factor).toBe(1)
    expect(o.dominant).toBeNull()
  })

  it('40/40/20: bus factor 2, ties ordered by email', () => {
    const o = ownershipOf([['z', 40], ['y', 40], ['x', 20]])
    expect(o.owners.map((x) => x.email)).toEqual(['y', 'z', 'x'])
    expect(o.bus_factor).toBe(2)
  })

  it('50/50 is bus factor 2 (a majority is more than half); 80 % is dominant; duplicates sum; zeros drop', () => {
    expect(ownershipOf([['a', 50], ['b', 50]]).bus_factor).toBe(2)
    expect(ownershipOf([['a', 60], ['b', 20], ['a', 20], ['c', 0]])).toEqual({
      owners: [{ email: 'a', lines: 80, share: 0.8 }, { email: 'b', lines: 20, share: 0.2 }],
      bus_factor: 1,
      dominant: { email: 'a', share: 0.8 },
    })
    expect(ownershipOf([['a', 79], ['b', 21]]).dominant).toBeNull()
    expect(ownershipOf([])).toEqual({ owners: [], bus_factor: 0, dominant: null })
  })
})

describe('ghosts', () => {
  const input = history()
    .commit({ daysAgo: 200, author: 'gone@example.com', files: ['legacy.ts', 'shared.ts'] })
    .commit({ daysAgo: 3, author: 'here@example.com', files: ['shared.ts'] })
    .commit({ daysAgo: 300, author: 'bot@example.com', category: 'bot', files: ['gen.ts'] })
    .build({
      files: ['legacy.ts', 'shared.ts', 'gen.ts', 'fresh.ts'],
      ownership: {
        'legacy.ts': [['gone@example.com', 100]],
        'shared.ts': [['gone@example.com', 70], ['here@example.com', 30]], // 70 %: not dominant
        'gen.ts': [['bot@example.com', 500]], // a bot has no known activity
        'fresh.ts': [['here@example.com', 10]],
      },
    })

  it('a sole owner who stopped 200 days before HEAD is a ghost at 180 days, not at 365', () => {
    expect(ghosts(input, { ghostDays: 180 })).toEqual([{ path: 'legacy.ts', owner: 'gone@example.com', share: 1, owner_last_active: HEAD - 200 * DAY, inactive_days: 200 }])
    expect(ghosts(input, { ghostDays: 365 })).toEqual([])
    // "more than ghostDays": exactly 200 days is not more than 200
    expect(ghosts(input, { ghostDays: 200 })).toEqual([])
    expect(ghosts(input, { ghostDays: 199 })).toHaveLength(1)
  })
})
