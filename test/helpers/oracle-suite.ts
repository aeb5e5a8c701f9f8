/**
 * One oracle suite per scenario: analyze once, then compare every evidence and history answer with
 * git. See test/integration/oracle.test.ts for what is compared and why.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { UserError } from '../../src/errors.js'
import {
  assertNoMismatches, checkDirHistory, checkFileBlame, checkFileHistory, checkFileLineLog, checkSymbol, gatherFacts, guarded,
  type RepoFacts,
} from './compare.js'
import type { Scenario, ScenarioBuilder } from './scenarios.js'
import { services, sharedServices, type Services, type SharedServices } from './services.js'

export const RANDOM_SEED = Number(process.env.GITWHY_RANDOM_SEED ?? 20240601)

export function describeOracle(name: string, build: ScenarioBuilder): void {
describe(`oracle: ${name}`, () => {
  let scenario: Scenario
  let facts: RepoFacts
  /** Opens the index for every query, as the CLI does. */
  let svc: Services
  /** Shares one open index reader across queries (for the hundreds of range queries). */
  let shared: SharedServices

  beforeAll(async () => {
    scenario = build()
    facts = gatherFacts(scenario.repo)
    svc = await services()
    shared = sharedServices()
    await svc.analyze({ repo: scenario.repo.dir })
  })
  afterAll(async () => {
    await shared?.close()
    scenario?.cleanup()
  })

  test('blame: every line, windows of 3 and the whole file equal git blame -L', async () => {
    const mismatches: string[] = []
    for (const path of facts.files) mismatches.push(...(await guarded(`evidence ${path}`, () => checkFileBlame(shared, facts, path))))
    assertNoMismatches(`${name} (${scenario.notes})`, mismatches)
  })

  test('line history: blame ∪ history equals git log -L on selected ranges', async () => {
    const mismatches: string[] = []
    let seed = RANDOM_SEED
    for (const path of facts.files) mismatches.push(...(await guarded(`evidence ${path}`, () => checkFileLineLog(shared, facts, path, seed++))))
    assertNoMismatches(`${name} (${scenario.notes}); skipped as indent-heuristic-sensitive: ${[...facts.heuristicSensitive].join(', ') || 'none'}`, mismatches)
  })

  test('symbols: evidence({ symbol }) targets the symbol and answers as for its range', async () => {
    const mismatches: string[] = []
    for (const sym of facts.symbols) mismatches.push(...(await checkSymbol(shared, facts, sym)))
    assertNoMismatches(`${name}: symbols ${facts.symbols.map((s) => s.qualifiedName).join(', ') || '(none)'}`, mismatches)
  })

  test('history: every file equals git log --follow (and plain git log with followRenames: false)', async () => {
    const mismatches: string[] = []
    for (const path of facts.files) mismatches.push(...(await guarded(`history ${path}`, () => checkFileHistory(shared, facts, path))))
    assertNoMismatches(`${name} (${scenario.notes})`, mismatches)
  })

  test('history: every directory equals git log -- DIR', async () => {
    const mismatches: string[] = []
    for (const dir of facts.dirs) mismatches.push(...(await guarded(`history ${dir}/`, () => checkDirHistory(shared, facts, dir))))
    assertNoMismatches(`${name} (${scenario.notes})`, mismatches)
  })

  test('a fresh index reader per query (the CLI path) answers as the shared reader', async () => {
    const mismatches: string[] = []
    for (const path of facts.files.slice(0, 3)) {
      const n = facts.lineCounts.get(path) ?? 0
      if (n === 0) continue
      const q = { repo: scenario.repo.dir, path, lineStart: 1, lineEnd: n, limit: 0 }
      if (JSON.stringify(await svc.evidence(q)) !== JSON.stringify(await shared.evidence(q))) mismatches.push(`evidence ${path}:1-${n} differs`)
      const h = { repo: scenario.repo.dir, path, limit: 0 }
      if (JSON.stringify(await svc.history(h)) !== JSON.stringify(await shared.history(h))) mismatches.push(`history ${path} differs`)
    }
    assertNoMismatches(name, mismatches)
  })

  if (name === 'linear') {
    test('an unknown path is a UserError', async () => {
      await expect(svc.evidence({ repo: scenario.repo.dir, path: 'src/nope.ts', lineStart: 1, lineEnd: 1 })).rejects.toBeInstanceOf(UserError)
      await expect(svc.history({ repo: scenario.repo.dir, path: 'no/such/dir' })).rejects.toBeInstanceOf(UserError)
    })
  }
})
}
