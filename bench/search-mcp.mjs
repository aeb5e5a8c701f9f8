#!/usr/bin/env node
// gitwhy search through MCP: warm latency of `search` (issue 12: p95 < 50 ms).
//
//   node bench/search-mcp.mjs <indexed-repo> [--questions N] [--mode hybrid|bm25|vector] [--seed S] [--json]
//
// Starts the built `gitwhy mcp --tools all` over stdio with the SDK's real Client, builds N
// distinct questions (default 50) from a seeded random pick of the index's commit subjects and
// symbol names (each question different, so no answer comes from a memo), makes one search first
// (it loads the embedding model: reported as `cold`), then asks each question once and reports
// p50 / p95 / max. Build first (`npm run build`); the repository needs `gitwhy analyze --embeddings` first (hybrid answers need vectors).

import { benchArgs, mcpClient, percentiles, seededRandom } from './lib.mjs'

const { opt, repo, json } = benchArgs('node bench/search-mcp.mjs <indexed-repo> [--questions N] [--mode hybrid|bm25|vector] [--seed S] [--json]')
const N = Number(opt('questions', 50))
const MODE = String(opt('mode', 'hybrid'))
const random = seededRandom(Number(opt('seed', 1)))
const { client, timed } = await mcpClient(repo, 'all')
const call = (text) => timed('search', { text, mode: MODE, limit: 10 })
const rows = (await client.callTool({ name: 'cypher', arguments: { statement: "MATCH (d:Doc) WHERE d.kind IN ['commit', 'symbol'] RETURN d.title AS t", max_rows: 10000 } })).structuredContent.rows
const questions = new Set()
while (questions.size < N && questions.size < rows.length) {
  const words = rows[Math.floor(random() * rows.length)].t.toLowerCase().split(/\s+/).slice(0, 8)
  // a different wording than the document: its words in reverse order
  const q = words.reverse().join(' ').trim()
  if (q) questions.add(q)
}
const cold = await call('warm up the embedding model')
const times = []
for (const q of questions) times.push(await call(q))
await client.close()
const out = { repo, mode: MODE, questions: questions.size, cold_ms: +cold.toFixed(0), warm: percentiles(times) }
if (json) console.log(JSON.stringify(out, null, 2))
else console.log(`${repo}: ${out.questions} questions, mode ${MODE}\n  cold (loads the model) ${out.cold_ms} ms\n  warm  p50 ${out.warm.p50} ms  p95 ${out.warm.p95} ms  max ${out.warm.max} ms`)
