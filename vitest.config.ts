import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    // analyze records every index in the user-level registry: never the real one in tests
    env: { GITWHY_HOME: mkdtempSync(join(tmpdir(), 'gitwhy-home-')) },
  },
})
