/**
 * Kuzu reuses only part of the space an update frees, so an updated graph file grows (vuejs/core's,
 * 92 MB built, was 206 MB after ~100 one-commit updates), and with it what every update copies,
 * opens and hashes. An update whose previous graph has outgrown its build (IndexMeta.graphBuiltBytes)
 * loads the graph afresh instead, says so, and the updates after it are incremental again.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { linearScenario, tsClass, type Scenario } from '../helpers/scenarios.js'

describe('an outgrown graph', () => {
  let scenario: Scenario
  const meta = () => JSON.parse(readFileSync(join(scenario.repo.dir, '.gitwhy', 'meta.json'), 'utf8')) as { indexDir: string; graphBuiltBytes?: number }
  const graphBytes = () => statSync(join(scenario.repo.dir, '.gitwhy', meta().indexDir, 'graph.kuzu')).size
  const edit = (n: number) => {
    scenario.repo.write('src/greeter.ts', tsClass('Greeter', { greet: [`const greeting = input + ${n}`, 'return greeting'] }))
    scenario.repo.commit(`greet +${n}`)
  }

  beforeAll(async () => {
    scenario = linearScenario()
    await analyze({ repo: scenario.repo.dir })
  }, 120_000)
  afterAll(() => scenario?.cleanup())

  test('a build records its graph’s size, and an update carries it', async () => {
    expect(meta().graphBuiltBytes).toBe(graphBytes())
    const built = meta().graphBuiltBytes
    edit(10)
    const summary = await analyze({ repo: scenario.repo.dir })
    expect(summary.mode).toBe('incremental')
    expect(meta().graphBuiltBytes).toBe(built)
  }, 120_000)

  test('an update over a graph past 1.5 times its build size rebuilds, with a warning', async () => {
    const m = meta()
    // as if the graph had been built at half its size, less a byte
    writeFileSync(join(scenario.repo.dir, '.gitwhy', 'meta.json'), JSON.stringify({ ...m, graphBuiltBytes: Math.floor(graphBytes() / 1.5) - 1 }))
    edit(11)
    const warnings: string[] = []
    const summary = await analyze({ repo: scenario.repo.dir, onWarning: (w) => warnings.push(w) })
    expect(summary.mode).toBe('full')
    expect(warnings).toEqual([expect.stringMatching(/^rebuilt the index: its graph had grown to \d+ MB from \d+ MB at its last full build/)])
    expect(meta().graphBuiltBytes).toBe(graphBytes())

    edit(12)
    expect((await analyze({ repo: scenario.repo.dir })).mode).toBe('incremental')
  }, 120_000)

  test('just under the limit stays incremental', async () => {
    const m = meta()
    writeFileSync(join(scenario.repo.dir, '.gitwhy', 'meta.json'), JSON.stringify({ ...m, graphBuiltBytes: Math.ceil(graphBytes() / 1.5) }))
    edit(13)
    expect((await analyze({ repo: scenario.repo.dir })).mode).toBe('incremental')
  }, 120_000)
})
