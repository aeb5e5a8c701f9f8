/**
 * The patch store (`evidence --patch`, `pickaxe`) keeps a merge's first-parent text only where the
 * merge's file differs from every parent's: a file that is some other parent's blob is TREESAME to
 * that parent, so `git log -L` never shows the merge for it and `git log -S/-G` read no merge's
 * diff. Checked against git: every other commit keeps all its text, and a merge keeps a path's text
 * exactly when `git ls-tree` shows the path differently in the merge than in each parent.
 */
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { readHistory } from '../../src/git/history-reader.js'
import { PathIndex } from '../../src/history/path-index.js'
import { analyze } from '../../src/services/analyze.js'
import { gitwhyDir, readMeta } from '../../src/services/workspace.js'
import { mergeHeavyScenario, mergesScenario, octopusScenario, type Scenario } from '../helpers/scenarios.js'

async function check(s: Scenario, mode = 'full') {
  const repo = s.repo
  expect((await analyze({ repo: repo.dir })).mode).toBe(mode)
  const index = PathIndex.open(path.join(gitwhyDir(repo.dir), readMeta(repo.dir)!.indexDir))
  const stored = new Set(index.patches(null).map(([age, p]) => `${index.dag.shas[age]} ${p}`))
  // what git's first-parent diffs hold, text and all (no sink: the text stays on the diffs)
  const commits = await readHistory(repo.dir, { range: ['HEAD'] })
  const entry = (rev: string, p: string) => repo.git('ls-tree', rev, '--', p)
  const expected = new Set<string>()
  let dropped = 0
  let keptOfMerges = 0
  for (const c of commits) {
    for (const d of c.diffs[0] ?? []) {
      if (d.text === undefined) continue
      const differs = c.parents.slice(1).every((p) => entry(c.sha, d.path) !== entry(p, d.path))
      if (c.parents.length > 1 && !differs) {
        dropped++
        continue
      }
      if (c.parents.length > 1) keptOfMerges++
      expected.add(`${c.sha} ${d.path}`)
    }
  }
  expect(stored).toEqual(expected)
  return { dropped, keptOfMerges }
}

describe('the patch store and merges', () => {
  test.each([
    ['merge-heavy', mergeHeavyScenario],
    ['merges', mergesScenario],
    ['octopus', octopusScenario],
  ])('%s: a merge keeps the text of the files it made, not of those a parent had', async (_name, make) => {
    const s = make()
    try {
      const { dropped, keptOfMerges } = await check(s)
      // neither side is empty: the fixture has clean merges and merges that made their own lines
      expect(dropped).toBeGreaterThan(0)
      if (_name !== 'octopus') expect(keptOfMerges).toBeGreaterThan(0)
    } finally {
      s.cleanup()
    }
  }, 120_000)

  test('an update stores the new merges’ text by the same rule', async () => {
    const s = mergesScenario()
    try {
      await check(s)
      const { repo } = s
      const main = repo.git('rev-parse', '--abbrev-ref', 'HEAD').trim()
      repo.branch('late').checkout('late').write('late.txt', 'one\ntwo\n').commit('late: a file')
      repo.checkout(main).write('main-late.txt', 'x\n').commit('main: a file')
      repo.merge('late', { noFF: true })
      const { dropped } = await check(s, 'incremental')
      expect(dropped).toBeGreaterThan(0)
    } finally {
      s.cleanup()
    }
  }, 120_000)
})
