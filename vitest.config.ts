import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'

// Every temporary directory of a run (the tests', git's, gitwhy's own) goes under one scratch
// directory, removed when the run ends (test/helpers/scratch.ts): the tests made hundreds a run
// and left them behind. The config is evaluated once more in each worker; the first, in the main
// process, names the directory and the workers inherit it.
const scratch = process.env.GITWHY_TEST_SCRATCH ?? mkdtempSync(join(tmpdir(), 'gitwhy-test-'))
process.env.GITWHY_TEST_SCRATCH = scratch
const home = join(scratch, 'home')
mkdirSync(home, { recursive: true })

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/helpers/scratch.ts'],
    // analyze records every index in the user-level registry: never the real one in tests
    env: { GITWHY_HOME: home, TMPDIR: scratch, GITWHY_TEST_SCRATCH: scratch },
  },
})
