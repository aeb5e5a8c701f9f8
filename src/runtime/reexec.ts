import { spawn } from 'node:child_process'
import { constants } from 'node:os'

/** glibc's malloc arenas a build runs with (its default: 8 per core). */
export const MALLOC_ARENAS = '2'

/** The rerun child's environment names its parent: it follows the parent if that one is killed. */
export const RERUN_PARENT_ENV = 'GITWHY_RERUN_PARENT'

/**
 * Runs this gitwhy command again in a child process with MALLOC_ARENA_MAX set, when it is a build
 * with embeddings (the caller knows) on Linux and the variable is not set yet; resolves with the
 * child's exit code, or null when it does not apply (the caller goes on in this process).
 *
 * Why: glibc gives each thread that allocates its own malloc arena (up to 8 per core), and what a
 * thread frees stays in its arena. The embedding workers' onnxruntime threads come and go beside
 * Kuzu's and libuv's, and their freed memory stayed resident: prettier with embeddings peaked at
 * 1.13-1.23 GB, 0.86-0.87 GB with two arenas, no slower (without embeddings, on rails/rails, the
 * same either way). glibc reads the variable when the process starts, so it takes a new process
 * (~60 ms). This one waits for it, signals forwarded; killed outright (SIGKILL), the child notices
 * within 100 ms (bin/run.js) and kills itself, as if it had been killed too.
 */
export async function rerunWithMallocArenas(argv: readonly string[], script = process.argv[1]): Promise<number | null> {
  if (process.platform !== 'linux' || process.env.MALLOC_ARENA_MAX !== undefined || !script) return null
  const child = spawn(process.execPath, [...process.execArgv, script, ...argv], { stdio: 'inherit', env: { ...process.env, MALLOC_ARENA_MAX: MALLOC_ARENAS, [RERUN_PARENT_ENV]: String(process.pid) } })
  // passed on, and this process waits for the child to stop (Ctrl-C reaches both: analyze stops at the first)
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']
  const handlers = signals.map((s) => [s, () => child.kill(s)] as const)
  for (const [s, h] of handlers) process.on(s, h)
  try {
    return await new Promise<number | null>((resolve) => {
      // not started (no pid): the caller runs the command itself
      child.on('error', () => resolve(child.pid === undefined ? null : 1))
      child.on('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)))
    })
  } finally {
    for (const [s, h] of handlers) process.off(s, h)
  }
}
