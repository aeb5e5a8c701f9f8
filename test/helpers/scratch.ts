import { rmSync } from 'node:fs'

/** vitest's global setup: the run's scratch directory (vitest.config.ts) goes when the run ends. */
export default function setup(): () => void {
  const scratch = process.env.GITWHY_TEST_SCRATCH
  return () => {
    if (scratch && /gitwhy-test-/.test(scratch)) rmSync(scratch, { recursive: true, force: true, maxRetries: 3 })
  }
}
