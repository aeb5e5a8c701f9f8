#!/usr/bin/env node
import { existsSync } from 'node:fs'
import module from 'node:module'

// Node 22.1+ keeps compiled code between runs (a no-op on Node 20, which has no such cache)
module.enableCompileCache?.()

const [command, ...rest] = process.argv.slice(2)
// a build run again with fewer malloc arenas (src/runtime/reexec.ts): killed with its parent
const parent = Number(process.env.GITWHY_RERUN_PARENT)
if (parent > 0) setInterval(() => process.ppid !== parent && process.kill(process.pid, 'SIGKILL'), 100).unref()
if (command === 'mcp' && !rest.some((a) => a === '--help' || a === '-h')) {
  // Agents start the MCP server at every session: skip oclif's start-up (see src/mcp/main.ts).
  const bundled = new URL('../dist/bundle/mcp.mjs', import.meta.url)
  const { main } = await import(existsSync(bundled) ? bundled.href : new URL('../dist/mcp/main.js', import.meta.url).href)
  process.exitCode = await main(rest)
} else if (command === 'hook' && rest.length === 1 && rest[0] === 'claude') {
  // `hook claude` runs inside an agent's tool call with a ~200 ms budget: skip oclif's start-up.
  try {
    const bundled = new URL('../dist/bundle/hook.mjs', import.meta.url)
    await (await import(existsSync(bundled) ? bundled.href : new URL('../dist/hook/claude.js', import.meta.url).href)).runClaudeHook()
  } catch {
    process.exit(0)
  }
} else if (!(command === 'analyze' ? await analyzeFast(rest) : await cliFast(command, rest))) {
  // a forced build with embeddings: fewer malloc arenas (analyzeFast decides for the others)
  const rerun = command === 'analyze' && rest.includes('--embeddings') && rest.includes('--force') && !rest.some((a) => a === '--help' || a === '-h') ? await rerunWithMallocArenas([command, ...rest]) : null
  if (rerun !== null) process.exitCode = rerun
  else {
    const { execute } = await import('@oclif/core')
    await execute({ dir: import.meta.url })
  }
}

/** runtime/reexec.ts: null when it does not apply (or the module is missing: run here). */
async function rerunWithMallocArenas(argv) {
  try {
    return await (await import(new URL('../dist/runtime/reexec.js', import.meta.url).href)).rerunWithMallocArenas(argv)
  } catch {
    return null
  }
}

/** A no-op `analyze` answered without oclif's start-up (see src/fast/analyze.ts); false: oclif runs it. */
async function analyzeFast(argv) {
  try {
    const bundled = new URL('../dist/bundle/analyze.mjs', import.meta.url)
    return await (await import(existsSync(bundled) ? bundled.href : new URL('../dist/fast/analyze.js', import.meta.url).href)).analyzeFast(argv)
  } catch {
    return false
  }
}

/**
 * A read command answered without oclif's start-up (see src/fast/cli.ts); false: oclif runs it.
 * cliFast reports the errors of an answer itself: what reaches the catch (a missing chunk, an
 * unreadable spec) was thrown before anything was printed, so oclif can still answer.
 */
async function cliFast(command, argv) {
  try {
    const bundled = new URL('../dist/bundle/cli.mjs', import.meta.url)
    return await (await import(existsSync(bundled) ? bundled.href : new URL('../dist/fast/cli.js', import.meta.url).href)).cliFast(command, argv)
  } catch {
    return false
  }
}
