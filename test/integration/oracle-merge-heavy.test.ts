/** The oracle suite (test/helpers/oracle-suite.ts) on a merge-heavy history. */
import { expect, test } from 'vitest'
import { describeOracle } from '../helpers/oracle-suite.js'
import { mergeHeavyScenario } from '../helpers/scenarios.js'

describeOracle('merge-heavy', mergeHeavyScenario)

test('the merge-heavy scenario has what it claims: criss-cross, an octopus, a rename in a second-parent diff', () => {
  const s = mergeHeavyScenario()
  try {
    const merges = s.repo.git('log', '--merges', '--format=%s').trim().split('\n')
    expect(merges.filter((m) => m.startsWith('Merge topic round'))).toHaveLength(5)
    expect(s.repo.git('log', '--min-parents=3', '--format=%s').trim()).toBe('Octopus o1 o2 o3')
    // criss-cross: the last merge of y had two merge bases
    expect(s.repo.git('merge-base', '--all', 'x', 'y').trim().split('\n')).toHaveLength(2)
    const ren = s.repo.git('log', '--grep=^Merge ren', '--format=%H').trim()
    expect(s.repo.git('diff-tree', '-r', '-M', '--name-status', `${ren}^2`, ren)).toMatch(/^R\d+\tlib\/old\.py\tlib\/renamed\.py$/m)
  } finally {
    s.cleanup()
  }
})
