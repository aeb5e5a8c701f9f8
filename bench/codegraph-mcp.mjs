#!/usr/bin/env node
// gitwhy code graph through MCP: warm latency of `context` and `impact` (issue 11: p95 < 30 ms).
//
//   node bench/codegraph-mcp.mjs <indexed-repo> [--symbols N] [--rounds N] [--seed S] [--json]
//
// Starts the built `gitwhy mcp --tools all` over stdio with the SDK's real Client,
// samples N symbols that have callers (default 30, by a seeded random pick from the CALLS edges),
// warms the server with one call per symbol, then calls context and impact (up, depth 3) on each
// symbol --rounds times (default 3) and reports p50 / p95 / max per tool: `first`, the first call
// of each tool on each symbol (the server is warm, the answer is not: every query runs), and
// `repeat`, the later rounds (a long-lived server answers a repeated question from its memo).
// Build first (`npm run build`); the repository needs `gitwhy analyze` first.

import { join } from 'node:path'
import { BIN, ROOT, benchArgs } from './lib.mjs'

const { Client } = await import(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js'))
const { StdioClientTransport } = await import(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js'))

const { opt, repo, json } = benchArgs('node bench/codegraph-mcp.mjs <indexed-repo> [--symbols N] [--rounds N] [--seed S] [--json]')
const N = Number(opt('symbols', 30))
const ROUNDS = Number(opt('rounds', 3))
let seed = Number(opt('seed', 1))
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))]
  return { n: s.length, p50: +at(0.5).toFixed(1), p95: +at(0.95).toFixed(1), max: +s[s.length - 1].toFixed(1) }
}

const client = new Client({ name: 'gitwhy-bench', version: '1' })
await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--tools', 'all'], cwd: repo, stderr: 'ignore' }))
const call = async (name, args) => {
  const t0 = performance.now()
  const r = await client.callTool({ name, arguments: args })
  const ms = performance.now() - t0
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content?.[0]?.text}`)
  return ms
}
const rows = (await client.callTool({ name: 'cypher', arguments: { statement: "MATCH (a:Symbol)-[:CALLS]->(s:Symbol) WHERE s.name <> '<module>' AND NOT s.id CONTAINS '~' RETURN DISTINCT s.id AS id, s.path + ':' + s.qualified_name AS target", max_rows: 100000 } })).structuredContent.rows
// targets a PATH:NAME names alone (a file may define two nested functions of one name), each
// called once to warm the server
const ids = []
const tried = new Set()
while (ids.length < N && tried.size < rows.length) {
  const t = rows[Math.floor(random() * rows.length)].target
  if (tried.has(t)) continue
  tried.add(t)
  // warms the server (Kuzu's pages, the resolver) without answering this symbol's own questions
  const r = await client.callTool({ name: 'risk', arguments: { target: t } }).catch(() => ({ isError: true }))
  if (!r.isError) ids.push(t)
}
const first = { context: [], impact: [] }
for (const id of ids) {
  first.context.push(await call('context', { target: id }))
  first.impact.push(await call('impact', { target: id }))
}
const times = { context: [], impact: [] }
for (let r = 0; r < ROUNDS; r++) {
  for (const id of ids) {
    times.context.push(await call('context', { target: id }))
    times.impact.push(await call('impact', { target: id }))
  }
}
await client.close()
const out = { repo, symbols: ids.length, rounds: ROUNDS, first: { context: stats(first.context), impact: stats(first.impact) }, repeat: { context: stats(times.context), impact: stats(times.impact) } }
const line = (s) => `p50 ${s.p50} ms  p95 ${s.p95} ms  max ${s.max} ms`
if (json) console.log(JSON.stringify(out, null, 2))
else console.log(`${repo}: ${ids.length} symbols, warm server\n  first   context ${line(out.first.context)}\n          impact  ${line(out.first.impact)}\n  repeat  context ${line(out.repeat.context)} (${ROUNDS} rounds)\n          impact  ${line(out.repeat.impact)}`)
