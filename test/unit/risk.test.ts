import { describe, expect, it } from 'vitest'
import { backtest, DEFAULT_RISK_MODEL, fileRiskFeatures, hotspots, hotspotScores, isFix, precisionAtTop, riskOf, rocAuc, type RiskFeatures } from '../../src/analytics/risk.js'
import type { ActivityStats, AnalyticsInput } from '../../src/analytics/types.js'
import { DEFAULT_ANALYTICS_CONFIG } from '../../src/analytics/types.js'
import { DAY, HEAD, history, seeded, type History } from './analytics-fixtures.js'

/** The formula tests use the seed's 40 / 30 / 30 weights; the calibrated defaults are checked by bench/backtest.mjs. */
const SEED = { ...DEFAULT_RISK_MODEL, weights: { ownership: 40, hotspot: 30, cochange: 30 } }

const cfg = DEFAULT_ANALYTICS_CONFIG

function stat(revisions: number, recent: number, churn = 0): ActivityStats {
  return { revisions, recent_revisions: recent, churn, authors: 1, first_change: null, last_change: null }
}

describe('hotspots', () => {
  it('ranks by recent × ln(1 + total); the inactive follow by total revisions', () => {
    const ranked = hotspots(
      new Map([
        ['never', stat(0, 0)],
        ['steady', stat(100, 3)], // 3 · ln 101 = 13.85
        ['older', stat(50, 0)],
        ['burst', stat(10, 10)], // 10 · ln 11 = 23.98
        ['old', stat(200, 0)],
        ['hot', stat(20, 10)], // 10 · ln 21 = 30.45
      ]),
    )
    expect(ranked.map((h) => h.key)).toEqual(['hot', 'burst', 'steady', 'old', 'older', 'never'])
    expect(ranked[0].score).toBeCloseTo(10 * Math.log(21), 10)
    expect(ranked.map((h) => h.percentile)).toEqual([5 / 6, 4 / 6, 3 / 6, 0, 0, 0])
  })

  it('hotspotScores gives every key the score and percentile of its rank, without ranking', () => {
    const random = seeded(7)
    for (let round = 0; round < 40; round++) {
      const stats = new Map<string, ActivityStats>()
      const n = 1 + Math.floor(random() * 300)
      // few distinct values: many ties, many zeros
      for (let i = 0; i < n; i++) stats.set(`k${Math.floor(random() * 1e6)}`, stat(Math.floor(random() * 12), Math.floor(random() * 4), Math.floor(random() * 5)))
      const ranked = new Map(hotspots(stats).map((h) => [h.key, h]))
      const { score, percentile } = hotspotScores(stats)
      ;[...stats.keys()].forEach((key, i) => {
        expect(score[i]).toBe(ranked.get(key)!.score)
        expect(percentile[i]).toBe(ranked.get(key)!.percentile)
      })
    }
  })

  it('equal scores share a percentile and fall back to revisions, churn, key', () => {
    const ranked = hotspots(new Map([['b', stat(4, 2, 9)], ['a', stat(4, 2, 9)], ['c', stat(4, 2, 50)], ['d', stat(1, 1)]]))
    expect(ranked.map((h) => [h.key, h.percentile])).toEqual([['c', 0.25], ['a', 0.25], ['b', 0.25], ['d', 0]])
  })
})

const calm: RiskFeatures = {
  revisions: 3,
  recent_revisions: 0,
  recent_days: 90,
  bus_factor: 3,
  dominant_share: 0.4,
  owner: 'a@x',
  owner_inactive_days: 2,
  ghost: false,
  hotspot_percentile: 0,
  cochange_breadth: 0,
}

describe('riskOf', () => {
  it('a file with shared ownership, no recent activity and no co-change is LOW with no reasons', () => {
    expect(riskOf(calm)).toEqual({ level: 'LOW', score: 0, reasons: [], factors: { ownership: 0, hotspot: 0, cochange: 0 } })
  })

  it('bus factor 1 at 92 %: ownership factor (0.92 − 0.5) / 0.5 = 0.84, score 0.4 · 0.84', () => {
    const r = riskOf({ ...calm, bus_factor: 1, dominant_share: 0.92 }, SEED)
    expect(r.score).toBeCloseTo(0.336, 10)
    expect(r.level).toBe('MEDIUM')
    expect(r.reasons).toEqual(['one author owns 92 % of the lines (bus factor 1)'])
  })

  it('a ghost owner maxes the ownership factor and says how long they have been gone', () => {
    const r = riskOf({ ...calm, bus_factor: 1, dominant_share: 0.85, ghost: true, owner_inactive_days: 400 }, SEED)
    expect(r.factors.ownership).toBe(1)
    expect(r.score).toBeCloseTo(0.4, 10)
    expect(r.reasons).toEqual(['one author owns 85 % of the lines (bus factor 1)', 'its main owner has been inactive for 400 days'])
  })

  it('hotspot and co-change reasons; biggest contribution first; HIGH when they add up', () => {
    const r = riskOf({ ...calm, recent_revisions: 14, hotspot_percentile: 0.95, cochange_breadth: 7 }, SEED)
    // 0.3 · 0.95 + 0.3 · 0.7 = 0.495
    expect(r.score).toBeCloseTo(0.495, 10)
    expect(r.level).toBe('MEDIUM')
    expect(r.reasons).toEqual(['changed 14 times in the last 90 days (top 5 % of files)', 'often changes together with 7 other files'])
    // a symbol's percentile and partners are among symbols
    expect(riskOf({ ...calm, recent_revisions: 14, hotspot_percentile: 0.95, cochange_breadth: 7 }, SEED, 'symbol').reasons).toEqual([
      'changed 14 times in the last 90 days (top 5 % of symbols)',
      'often changes together with 7 other symbols',
    ])
    const all = riskOf({ ...calm, recent_revisions: 14, hotspot_percentile: 0.95, cochange_breadth: 12, bus_factor: 1, dominant_share: 1 }, SEED)
    // 0.4 + 0.285 + 0.3
    expect(all.score).toBeCloseTo(0.985, 10)
    expect(all.level).toBe('HIGH')
    expect(all.reasons).toEqual([
      'one author owns 100 % of the lines (bus factor 1)',
      'often changes together with 12 other files',
      'changed 14 times in the last 90 days (top 5 % of files)',
    ])
  })

  it('a factor adding under 0.05 gets no reason; singular wording', () => {
    expect(riskOf({ ...calm, cochange_breadth: 1 }, SEED).reasons).toEqual([])
    expect(riskOf({ ...calm, cochange_breadth: 2 }, SEED).reasons).toEqual(['often changes together with 2 other files'])
    expect(riskOf({ ...calm, recent_revisions: 1, hotspot_percentile: 0.999 }, { ...DEFAULT_RISK_MODEL, weights: { ownership: 0, hotspot: 1, cochange: 0 } }).reasons).toEqual([
      'changed once in the last 90 days (top 1 % of files)',
    ])
  })

  it('ownership reasons are knowledge risk: shown from a factor of 0.5 even at weight 0 (the default)', () => {
    expect(DEFAULT_RISK_MODEL.weights.ownership).toBe(0)
    const owned = (share: number) => riskOf({ ...calm, bus_factor: 1, dominant_share: share }).reasons
    expect(owned(0.7)).toEqual([])
    expect(owned(0.8)).toEqual(['one author owns 80 % of the lines (bus factor 1)'])
    expect(riskOf({ ...calm, bus_factor: 1, dominant_share: 0.6, ghost: true, owner_inactive_days: 400 }).reasons).toEqual([
      'one author owns 60 % of the lines (bus factor 1)',
      'its main owner has been inactive for 400 days',
    ])
  })

  it('thresholds: score ≥ 0.3 is MEDIUM, ≥ 0.6 is HIGH (default model)', () => {
    const only = (hotspot: number) => riskOf({ ...calm, hotspot_percentile: hotspot }, { ...DEFAULT_RISK_MODEL, weights: { ownership: 0, hotspot: 1, cochange: 0 } })
    expect([0.29, 0.3, 0.59, 0.6].map((p) => only(p).level)).toEqual(['LOW', 'MEDIUM', 'MEDIUM', 'HIGH'])
  })
})

describe('fileRiskFeatures', () => {
  it('joins ownership, ghost, hotspot percentile and co-change breadth per present file', () => {
    const input = history()
      .repeat(6, { daysAgo: 5, author: 'hot@x', files: ['hot.ts', 'pair.ts'] })
      .commit({ daysAgo: 400, author: 'gone@x', files: ['old.ts'] })
      .build({
        files: ['hot.ts', 'pair.ts', 'old.ts'],
        ownership: { 'hot.ts': [['hot@x', 9], ['b@x', 1]], 'old.ts': [['gone@x', 50]], 'pair.ts': [['hot@x', 1], ['b@x', 1]] },
      })
    const f = fileRiskFeatures(input, cfg)
    expect([...f.keys()]).toEqual(['hot.ts', 'old.ts', 'pair.ts'])
    expect(f.get('hot.ts')).toEqual({
      revisions: 6,
      recent_revisions: 6,
      recent_days: 90,
      bus_factor: 1,
      dominant_share: 0.9,
      owner: 'hot@x',
      owner_inactive_days: 5,
      ghost: false,
      hotspot_percentile: 1 / 3, // tied with pair.ts: of three files, one (old.ts) scores lower
      cochange_breadth: 1,
    })
    expect(f.get('old.ts')).toMatchObject({ bus_factor: 1, dominant_share: 1, ghost: true, owner_inactive_days: 400, hotspot_percentile: 0, cochange_breadth: 0 })
    expect(f.get('pair.ts')).toMatchObject({ bus_factor: 2, dominant_share: 0.5, ghost: false })
  })
})

describe('isFix', () => {
  it('matches fix and bug subjects and reverts, not merges, bots or look-alikes', () => {
    const yes = ['fix: crash on empty input', 'fix(parser): handle CRLF', 'Fixes #12', 'Fixed the race', 'hotfix for login', 'Bugfix in cache', 'Regression in 2.1', 'bug: off by one', 'fix!: drop node 16']
    const no = ['Add prefix option', 'fixture update', 'fixup! add x', 'debugging output', 'Feature: debug panel']
    for (const s of yes) expect(isFix({ category: 'normal', subject: s }), s).toBe(true)
    for (const s of no) expect(isFix({ category: 'normal', subject: s }), s).toBe(false)
    expect(isFix({ category: 'revert', subject: 'Revert "Add x"' })).toBe(true)
    expect(isFix({ category: 'merge', subject: 'Merge pull request #3 from a/fix-bug' })).toBe(false)
    expect(isFix({ category: 'bot', subject: 'fix(deps): update dependency x' })).toBe(false)
  })
})

describe('rocAuc and precisionAtTop', () => {
  it('Mann–Whitney AUC with ties counted ½', () => {
    expect(rocAuc([3, 2, 1], [true, false, false])).toBe(1)
    expect(rocAuc([1, 2, 3], [true, false, false])).toBe(0)
    expect(rocAuc([1, 1, 1, 1], [true, false, true, false])).toBe(0.5)
    // positives 0.9, 0.5; negatives 0.5, 0.1: pairs (0.9>0.5) (0.9>0.1) (0.5=0.5 → ½) (0.5>0.1) = 3.5 / 4
    expect(rocAuc([0.9, 0.5, 0.5, 0.1], [true, true, false, false])).toBe(0.875)
    expect(rocAuc([1, 2], [false, false])).toBeNull()
    expect(rocAuc([1, 2], [true, true])).toBeNull()
  })

  it('precision at the top ceil(10 %), ties at the cut shared pro rata', () => {
    const scores = Array.from({ length: 25 }, (_, i) => 25 - i) // k = ceil(2.5) = 3
    const labels = scores.map((_, i) => i === 0 || i === 2 || i === 10)
    expect(precisionAtTop(scores, labels, 0.1)).toBeCloseTo(2 / 3, 10)
    // 10 items, k = 1, the top two tie and one of them is positive: expected ½
    expect(precisionAtTop([5, 5, 1, 1, 1, 1, 1, 1, 1, 1], [true, false, false, false, false, false, false, false, false, false], 0.1)).toBe(0.5)
    expect(precisionAtTop([], [], 0.1)).toBeNull()
  })
})

/**
 * 200 files over two years before T = HEAD − 180 days. 30 "risky" files: one author each,
 * changed a dozen times in the 80 days before T, in coupled groups of five. 170 "calm" files:
 * three commits each 400–700 days back by several authors. After T, fixes are planted either
 * mostly in the risky files or uniformly at random; feature commits after T land anywhere.
 */
function synthetic(plant: 'risky' | 'random', seed: number): AnalyticsInput {
  const rng = seeded(seed)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)]
  const files = Array.from({ length: 200 }, (_, i) => `src/f${String(i).padStart(3, '0')}.ts`)
  const risky = files.slice(0, 30)
  const calmFiles = files.slice(30)
  const people = ['p1@x', 'p2@x', 'p3@x', 'p4@x', 'p5@x']
  const h: History = history().commit({ daysAgo: 720, category: 'initial', author: 'p1@x', files: files.map((f) => [f, 1, 0]) })
  for (const f of calmFiles) {
    for (let k = 0; k < 3; k++) h.commit({ daysAgo: 400 + rng() * 300, author: pick(people), files: [[f, 20, 5], [pick(calmFiles), 3, 1]] })
  }
  for (let g = 0; g < 6; g++) {
    const group = risky.slice(g * 5, g * 5 + 5)
    for (let k = 0; k < 12; k++) h.commit({ daysAgo: 181 + rng() * 80, author: `owner${g}@x`, files: group.map((f): [string, number, number] => [f, 30, 10]) })
  }
  const fixed = plant === 'risky' ? [...risky.filter(() => rng() < 0.7), ...calmFiles.filter(() => rng() < 0.02)] : files.filter(() => rng() < 0.12)
  for (const f of fixed) h.commit({ daysAgo: 1 + rng() * 170, author: pick(people), subject: 'fix: wrong result', files: [[f, 2, 2]] })
  for (let k = 0; k < 60; k++) h.commit({ daysAgo: 1 + rng() * 170, author: pick(people), subject: 'feat: more options', files: [[pick(files), 10, 0]] })
  return h.build({ files })
}

describe('backtest', () => {
  it('fixes planted in the risky files: AUC well above 0.5, high precision at 10 %', () => {
    const r = backtest(synthetic('risky', 7), { months: 6, config: cfg })
    expect(r.as_of).toBe(HEAD - 180 * DAY)
    expect(r.horizon_months).toBe(6)
    expect(r.files).toBe(200)
    expect(r.positives).toBeGreaterThan(15)
    expect(r.base_rate).toBeCloseTo(r.positives / 200, 10)
    expect(r.auc).toBeGreaterThan(0.8)
    expect(r.precision_at_10pct).toBeGreaterThan(0.6)
    expect(r.precision_at_10pct! / r.base_rate!).toBeGreaterThan(3)
    expect(r.ranked).toHaveLength(200)
    expect(r.ranked[0].score).toBeGreaterThanOrEqual(r.ranked[199].score)
    // each factor alone carries signal in this history
    expect(r.factor_auc.hotspot).toBeGreaterThan(0.7)
    expect(r.factor_auc.ownership).toBeGreaterThan(0.7)
    expect(r.factor_auc.cochange).toBeGreaterThan(0.7)
  })

  it('fixes planted at random: AUC near 0.5', () => {
    for (const seed of [1, 2, 3]) {
      const r = backtest(synthetic('random', seed), { months: 6, config: cfg })
      expect(r.positives).toBeGreaterThan(10)
      expect(r.auc).toBeGreaterThan(0.3)
      expect(r.auc).toBeLessThan(0.7)
    }
  })

  it('uses only the past for features: scores files present at T and at HEAD, labels only later fixes', () => {
    const input = history()
      .repeat(6, { daysAgo: 200, author: 'a@x', files: ['keep.ts', 'pair.ts'] })
      .commit({ daysAgo: 190, author: 'a@x', subject: 'fix: before T does not count', files: ['pair.ts'] })
      .commit({ daysAgo: 100, author: 'a@x', files: ['renamed.ts'], renames: [['keep.ts', 'renamed.ts']] })
      .commit({ daysAgo: 50, author: 'b@x', subject: 'fix: after T counts', files: ['renamed.ts'] })
      .commit({ daysAgo: 40, author: 'b@x', files: ['new.ts'] }) // born after T: not scored
      .commit({ daysAgo: 30, author: 'bot@x', category: 'bot', subject: 'fix(deps): bump', files: ['pair.ts'] })
      .build({ files: ['renamed.ts', 'pair.ts', 'new.ts'] })
    const r = backtest(input, { months: 6, config: cfg })
    expect(r.ranked.map((f) => [f.path, f.positive])).toEqual([
      ['pair.ts', false],
      ['renamed.ts', true],
    ])
    // as of T pair.ts had 7 revisions (the fix before T among them), renamed.ts 6: pair.ts is the
    // bigger hotspot, so the one positive ranks below the one negative
    expect(r.ranked[0].score).toBeGreaterThan(r.ranked[1].score)
    expect(r.auc).toBe(0)
    expect(r.positives).toBe(1)
  })

  it('scores source files only and counts a fix only where it changed lines of the file', () => {
    const input = history()
      .repeat(6, { daysAgo: 200, author: 'a@x', files: ['src/a.ts', 'CHANGELOG.md', 'package.json', 'src/a.spec.ts'] })
      .repeat(6, { daysAgo: 200, author: 'a@x', files: ['src/b.ts'] })
      .commit({ daysAgo: 50, author: 'b@x', subject: 'fix: release 1.0.1', files: [['package.json', 1, 1], ['CHANGELOG.md', 5, 0], ['src/a.spec.ts', 3, 0], ['src/a.ts', 0, 0]] })
      .commit({ daysAgo: 40, author: 'b@x', subject: 'fix: wrong result', files: [['src/b.ts', 2, 2]] })
      .build({ files: ['src/a.ts', 'src/b.ts', 'CHANGELOG.md', 'package.json', 'src/a.spec.ts'] })
    input.files = input.files.map((f) => (f.path.endsWith('.ts') ? f : { ...f, language: null }))
    const r = backtest(input, { months: 6, config: cfg })
    // docs, manifests and tests are not scored; src/a.ts was in the release commit without a changed line
    expect(r.ranked.map((f) => [f.path, f.positive]).sort()).toEqual([
      ['src/a.ts', false],
      ['src/b.ts', true],
    ])
  })

  it('returns null auc and precision when nothing existed at T', () => {
    const input = history().commit({ daysAgo: 10, files: ['a.ts'] }).build({ files: ['a.ts'] })
    expect(backtest(input, { months: 6, config: cfg })).toMatchObject({ files: 0, positives: 0, base_rate: null, auc: null, precision_at_10pct: null })
  })

  it('takes weights as a parameter', () => {
    const input = synthetic('risky', 7)
    const hotspotOnly = backtest(input, { months: 6, config: cfg, weights: { ownership: 0, hotspot: 1, cochange: 0 } })
    expect(hotspotOnly.auc).toBe(hotspotOnly.factor_auc.hotspot)
  })
})
