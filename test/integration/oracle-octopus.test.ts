/** The oracle suite (test/helpers/oracle-suite.ts) on octopus merges and an empty commit. */
import { expect, test } from 'vitest'
import { describeOracle } from '../helpers/oracle-suite.js'
import { octopusScenario } from '../helpers/scenarios.js'

describeOracle('octopus', octopusScenario)

test('the octopus scenario has a merge of four parents and one of three', () => {
  const s = octopusScenario()
  try {
    expect(s.repo.git('log', '--min-parents=3', '--format=%p').trim().split('\n').map((l) => l.split(' ').length)).toEqual([3, 4])
  } finally {
    s.cleanup()
  }
})
