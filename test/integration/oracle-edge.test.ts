/**
 * The oracle suite (test/helpers/oracle-suite.ts) on the edge-case scenarios: slidable hunks where
 * the indent heuristic matters, a shallow clone, a submodule, and a seeded random walk.
 *
 * Reproduce another random walk with GITWHY_RANDOM_SEED=<seed>.
 */
import { describeOracle, RANDOM_SEED } from '../helpers/oracle-suite.js'
import { ambiguousScenario, randomScenario, shallowScenario, submoduleScenario } from '../helpers/scenarios.js'

describeOracle('ambiguous', ambiguousScenario)
describeOracle('shallow', shallowScenario)
describeOracle('submodule', submoduleScenario)
describeOracle(`random walk (seed ${RANDOM_SEED})`, () => randomScenario(RANDOM_SEED))
