/**
 * gitwhy against plain git: for every scenario repository, after `analyze`, every evidence and
 * history answer must equal what git blame / git log -L / git log --follow / git log -- PATH say.
 *
 * `git log -L` diffs without the indent heuristic while git blame (and gitwhy) use it; files whose
 * history diffs depend on the heuristic are excluded from the -L comparison (blame is compared
 * everywhere). The scenario fixtures keep lines unique so that almost nothing is excluded.
 *
 * The shared suite is test/helpers/oracle-suite.ts.
 */
import { describe, expect, test } from 'vitest'
import { UserError } from '../../src/errors.js'
import { describeOracle } from '../helpers/oracle-suite.js'
import { createRepo } from '../helpers/repo.js'
import { encodingsScenario, linearScenario, mergesScenario, renamesScenario, revertsScenario } from '../helpers/scenarios.js'
import { services } from '../helpers/services.js'

// The other scenarios (ambiguous hunks, shallow clone, submodule, random walk) are in
// oracle-edge.test.ts, so that the two files run in parallel.
describeOracle('linear', linearScenario)
describeOracle('merges', mergesScenario)
describeOracle('renames', renamesScenario)
describeOracle('reverts', revertsScenario)
describeOracle('encodings', encodingsScenario)

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
