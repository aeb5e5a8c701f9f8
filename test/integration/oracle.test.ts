/**
 * gitwhy against plain git: for every scenario repository, after `analyze`, every evidence and
 * history answer must equal what git blame / git log -L / git log --follow / git log -- PATH say.
 *
 * `git log -L` diffs without the indent heuristic while git blame (and gitwhy) use it; files whose
 * history diffs depend on the heuristic are excluded from the -L comparison (blame is compared
 * everywhere). The scenario fixtures keep lines unique so that almost nothing is excluded.
 *
 * Reproduce the random walk with GITWHY_RANDOM_SEED=<seed>.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { UserError } from '../../src/errors.js'
import {
  assertNoMismatches, checkDirHistory, checkFileBlame, checkFileHistory, checkFileLineLog, checkSymbol, gatherFacts, guarded,
  type RepoFacts,
} from '../helpers/compare.js'
import { createRepo } from '../helpers/repo.js'
import { SCENARIOS, randomScenario, type Scenario, type ScenarioBuilder } from '../helpers/scenarios.js'
import { services, type Services } from '../helpers/services.js'

const RANDOM_SEED = Number(process.env.GITWHY_RANDOM_SEED ?? 20240601)

const builders: Array<[string, ScenarioBuilder]> = [
  ...Object.entries(SCENARIOS),
  [`random walk (seed ${RANDOM_SEED})`, () => randomScenario(RANDOM_SEED)],
]

for (const [name, build] of builders) {
  describe(`oracle: ${name}`, () => {
    let scenario: Scenario
    let facts: RepoFacts
    let svc: Services

    beforeAll(async () => {
      scenario = build()
      facts = gatherFacts(scenario.repo)
      svc = await services()
      await svc.analyze({ repo: scenario.repo.dir })
    })
    afterAll(() => scenario?.cleanup())

    test('blame: every line, windows of 3 and the whole file equal git blame -L', async () => {
      const mismatches: string[] = []
      for (const path of facts.files) mismatches.push(...(await guarded(`evidence ${path}`, () => checkFileBlame(svc, facts, path))))
      assertNoMismatches(`${name} (${scenario.notes})`, mismatches)
    })

    test('line history: blame ∪ history equals git log -L on selected ranges', async () => {
      const mismatches: string[] = []
      let seed = RANDOM_SEED
      for (const path of facts.files) mismatches.push(...(await guarded(`evidence ${path}`, () => checkFileLineLog(svc, facts, path, seed++))))
      assertNoMismatches(`${name} (${scenario.notes}); skipped as indent-heuristic-sensitive: ${[...facts.heuristicSensitive].join(', ') || 'none'}`, mismatches)
    })

    test('symbols: evidence({ symbol }) targets the symbol and answers as for its range', async () => {
      const mismatches: string[] = []
      for (const sym of facts.symbols) mismatches.push(...(await checkSymbol(svc, facts, sym)))
      assertNoMismatches(`${name}: symbols ${facts.symbols.map((s) => s.qualifiedName).join(', ') || '(none)'}`, mismatches)
    })

    test('history: every file equals git log --follow (and plain git log with followRenames: false)', async () => {
      const mismatches: string[] = []
      for (const path of facts.files) mismatches.push(...(await guarded(`history ${path}`, () => checkFileHistory(svc, facts, path))))
      assertNoMismatches(`${name} (${scenario.notes})`, mismatches)
    })

    test('history: every directory equals git log -- DIR', async () => {
      const mismatches: string[] = []
      for (const dir of facts.dirs) mismatches.push(...(await guarded(`history ${dir}/`, () => checkDirHistory(svc, facts, dir))))
      assertNoMismatches(`${name} (${scenario.notes})`, mismatches)
    })

    if (name === 'linear') {
      test('an unknown path is a UserError', async () => {
        await expect(svc.evidence({ repo: scenario.repo.dir, path: 'src/nope.ts', lineStart: 1, lineEnd: 1 })).rejects.toBeInstanceOf(UserError)
        await expect(svc.history({ repo: scenario.repo.dir, path: 'no/such/dir' })).rejects.toBeInstanceOf(UserError)
      })
    }
  })
}

describe('oracle: empty repository (no commits)', () => {
  test('analyze gives a UserError or an empty index, never a bug', async () => {
    const repo = createRepo()
    try {
      const svc = await services()
      let summary: unknown
      try {
        summary = await svc.analyze({ repo: repo.dir })
      } catch (e) {
        expect(e, `analyze threw a non-UserError: ${String(e)}`).toBeInstanceOf(UserError)
        expect((e as UserError).remedy.length).toBeGreaterThan(0)
        return
      }
      const commits = findCount(summary, 'commits')
      if (commits !== undefined) expect(commits).toBe(0)
    } finally {
      repo.cleanup()
    }
  })
})

/** A numeric `key` (or a `key` array's length) anywhere two levels deep in a summary object. */
function findCount(value: unknown, key: string, depth = 2): number | undefined {
  if (value === null || typeof value !== 'object') return undefined
  const record = value as Record<string, unknown>
  const v = record[key]
  if (typeof v === 'number') return v
  if (typeof v === 'bigint') return Number(v)
  if (Array.isArray(v)) return v.length
  if (depth === 0) return undefined
  for (const child of Object.values(record)) {
    const found = findCount(child, key, depth - 1)
    if (found !== undefined) return found
  }
  return undefined
}
