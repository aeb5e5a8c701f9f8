#!/usr/bin/env node
// `hook claude` runs inside an agent's tool call with a ~200 ms budget: skip oclif's start-up.
if (process.argv.length === 4 && process.argv[2] === 'hook' && process.argv[3] === 'claude') {
  try {
    await (await import('../dist/hook/claude.js')).runClaudeHook()
  } catch {
    process.exit(0)
  }
} else {
  const { execute } = await import('@oclif/core')
  await execute({ dir: import.meta.url })
}
