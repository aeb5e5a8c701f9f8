#!/usr/bin/env node
// gitwhy's answers to a change through MCP: warm latency of `query`, `rename` (plan) and
// `detect_changes` (issue 11).
//
//   node bench/answers-mcp.mjs <indexed-repo> [--symbols N] [--rounds N] [--seed S] [--base REF] [--json]
//
// Starts the built `gitwhy mcp --tools graph,code` over stdio with the SDK's real Client, samples
// N symbols that have callers (seeded), warms the server with one call per tool, then per round:
// `query` with each symbol's name split into words, `rename` of each symbol (a plan: nothing is
// written), and `detect_changes` for the work tree and for `--base` (default HEAD~10) once per
// symbol. Reports p50 / p95 / max per tool. Build first; the repository needs `gitwhy analyze`.

import { benchArgs, mcpClient, percentiles, seededRandom } from './lib.mjs'

const { opt, repo, json } = benchArgs('node bench/answers-mcp.mjs <indexed-repo> [--symbols N] [--rounds N] [--seed S] [--base REF] [--json]')
const N = Number(opt('symbols', 20))
const ROUNDS = Number(opt('rounds', 3))
const BASE = opt('base', 'HEAD~10')
const random = seededRandom(Number(opt('seed', 1)))
const { client, timed: call } = await mcpClient(repo, 'history,graph,code')
const rows = (await client.callTool({ name: 'cypher', arguments: { statement: "MATCH (a:Symbol)-[:CALLS]->(s:Symbol) WHERE s.name <> '<module>' AND NOT s.id CONTAINS '~' RETURN DISTINCT s.path + ':' + s.qualified_name AS target, s.name AS name", max_rows: 100000 } })).structuredContent.rows
const picked = []
const tried = new Set()
while (picked.length < N && tried.size < rows.length) {
  const row = rows[Math.floor(random() * rows.length)]
  if (tried.has(row.target)) continue
  tried.add(row.target)
  const r = await client.callTool({ name: 'rename', arguments: { target: row.target, new_name: `${row.name}Renamed` } })
  if (!r.isError) picked.push(row)
}
const words = (name) => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_$]+/g, ' ').toLowerCase()
await call('query', { text: 'warm' })
await call('detect_changes', {})
await call('detect_changes', { scope: 'base', base: BASE })
const times = { query: [], rename: [], detect_changes_worktree: [], detect_changes_base: [] }
for (let r = 0; r < ROUNDS; r++) {
  for (const row of picked) {
    times.query.push(await call('query', { text: words(row.name) }))
    times.rename.push(await call('rename', { target: row.target, new_name: `${row.name}Renamed` }))
    times.detect_changes_worktree.push(await call('detect_changes', {}))
    times.detect_changes_base.push(await call('detect_changes', { scope: 'base', base: BASE }))
  }
}
await client.close()
const out = { repo, symbols: picked.length, rounds: ROUNDS, base: BASE, ...Object.fromEntries(Object.entries(times).map(([k, v]) => [k, percentiles(v)])) }
if (json) console.log(JSON.stringify(out, null, 2))
else {
  console.log(`${repo}: ${picked.length} symbols × ${ROUNDS} rounds, warm`)
  for (const k of Object.keys(times)) console.log(`  ${k.padEnd(24)} p50 ${out[k].p50} ms  p95 ${out[k].p95} ms  max ${out[k].max} ms`)
}
