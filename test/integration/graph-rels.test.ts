/**
 * An update checks its graph's relationship rows against a ledger (src/graph/delta.ts, RelLedger)
 * that starts from the previous graph's counts. Those are recorded when a graph is written (a
 * build's load, an update's finish: IndexMeta.graphRels), so the copy an update opens is not
 * counted first. The record must be the graph's true counts, and it must be what the check uses.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import kuzu from 'kuzu'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { countRels } from '../../src/graph/delta.js'
import { analyze } from '../../src/services/analyze.js'
import { linearScenario, tsClass, type Scenario } from '../helpers/scenarios.js'

describe('recorded relationship counts', () => {
  let scenario: Scenario
  const metaFile = () => join(scenario.repo.dir, '.gitwhy', 'meta.json')
  const meta = () => JSON.parse(readFileSync(metaFile(), 'utf8')) as { indexDir: string; graphRels?: Record<string, number> }
  const edit = (n: number) => {
    scenario.repo.write('src/greeter.ts', tsClass('Greeter', { greet: [`const greeting = input + ${n}`, 'return greeting'] }))
    scenario.repo.commit(`greet +${n}`)
  }
  /** The active graph's rows per relationship table, counted. */
  const counted = async (): Promise<Record<string, number>> => {
    const db = new kuzu.Database(join(scenario.repo.dir, '.gitwhy', meta().indexDir, 'graph.kuzu'), 64 * 1024 * 1024, true, true)
    const conn = new kuzu.Connection(db)
    try {
      return Object.fromEntries(await countRels(conn))
    } finally {
      await conn.close()
      await db.close()
    }
  }

  beforeAll(async () => {
    scenario = linearScenario()
    await analyze({ repo: scenario.repo.dir })
  }, 120_000)
  afterAll(() => scenario?.cleanup())

  test('a build and an update record their graph’s counts', async () => {
    const built = meta().graphRels
    expect(built?.BLAMED_ON).toBeGreaterThan(0)
    expect(built).toEqual(await counted())
    edit(1)
    expect((await analyze({ repo: scenario.repo.dir })).mode).toBe('incremental')
    expect(meta().graphRels).toEqual(await counted())
  }, 120_000)

  test('the update’s check starts from the record: a wrong one is caught, and the index rebuilt', async () => {
    const m = meta()
    writeFileSync(metaFile(), JSON.stringify({ ...m, graphRels: { ...m.graphRels, BLAMED_ON: m.graphRels!.BLAMED_ON + 1 } }))
    edit(2)
    const warnings: string[] = []
    const summary = await analyze({ repo: scenario.repo.dir, onWarning: (w) => warnings.push(w) })
    expect(summary.mode).toBe('full')
    expect(warnings).toEqual([expect.stringMatching(/^rebuilt the index instead of updating it: the updated graph lost rows: BLAMED_ON has \d+, expected \d+$/)])
    expect(meta().graphRels).toEqual(await counted())
  }, 120_000)

  test('an index from before the record is counted when the update opens it', async () => {
    const { graphRels: _, ...m } = meta()
    writeFileSync(metaFile(), JSON.stringify(m))
    edit(3)
    expect((await analyze({ repo: scenario.repo.dir })).mode).toBe('incremental')
    expect(meta().graphRels).toEqual(await counted())
  }, 120_000)
})
