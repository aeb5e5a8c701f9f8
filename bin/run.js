#!/usr/bin/env node
import { existsSync } from 'node:fs'

const [command, ...rest] = process.argv.slice(2)
// Agents start the MCP server at every session: skip oclif's start-up (see src/mcp/main.ts).
if (command === 'mcp' && !rest.some((a) => a === '--help' || a === '-h')) {
  const bundled = new URL('../dist/bundle/mcp.mjs', import.meta.url)
  const { main } = await import(existsSync(bundled) ? bundled.href : new URL('../dist/mcp/main.js', import.meta.url).href)
  process.exitCode = await main(rest)
} else {
  const { execute } = await import('@oclif/core')
  await execute({ dir: import.meta.url })
}
