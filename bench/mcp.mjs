#!/usr/bin/env node
// gitwhy MCP benchmark: how fast an agent gets answers from `gitwhy mcp` on an indexed repository,
// compared with plain git answering the same questions.
//
//   node bench/mcp.mjs <indexed-repo> [--files N] [--starts N] [--seed S] [--json]
//
// Measures, with the SDK's real Client over stdio:
//   - server start + initialize (spawn → initialize result), median and max of --starts runs
//   - the tools/list payload in characters
//   - evidence_for (a symbol's lines) and area_history (its file) on N sampled files: the first
//     call for each file (cold caches of a warm server) and repeated calls (warm), p50 / p95
//   - the same questions to plain git (`git blame -L`, `git log -L`, `git log --follow`) for ratios
// Build first (`npm run build`); the repository needs `gitwhy analyze` first.

import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, benchArgs } from './lib.mjs'

const { Client } = await import(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js'))
const { StdioClientTransport } = await import(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js'))

const { args, opt, repo } = benchArgs('node bench/mcp.mjs <indexed-repo> [--files N] [--starts N] [--seed S] [--json]')
const FILES = Number(opt('files', 40))
const STARTS = Number(opt('starts', 10))
let seed = Number(opt('seed', 1))
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))]
  return { n: s.length, p50: +at(0.5).toFixed(2), p95: +at(0.95).toFixed(2), max: +s[s.length - 1].toFixed(2) }
}

async function connect() {
  const t0 = performance.now()
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'bin/run.js'), 'mcp'], cwd: repo, stderr: 'ignore' })
  const client = new Client({ name: 'gitwhy-bench', version: '1' })
  await client.connect(transport)
  return { client, ms: performance.now() - t0 }
}

// start + initialize
const starts = []
for (let i = 0; i < STARTS; i++) {
  const { client, ms } = await connect()
  starts.push(ms)
  await client.close()
}

const { client } = await connect()
const listing = JSON.stringify(await client.listTools())

// sample files that have symbols, through the server itself
const rows = (await client.callTool({ name: 'cypher', arguments: { statement: 'MATCH (f:File)-[:DEFINES]->(s:Symbol) WHERE f.present RETURN f.path AS path, s.qualified_name AS name, s.start_line AS a, s.end_line AS b ORDER BY path, a' } })).structuredContent.rows
const byFile = new Map()
for (const r of rows) if (!byFile.has(r.path)) byFile.set(r.path, r)
const pool = [...byFile.values()]
const sample = []
while (sample.length < Math.min(FILES, pool.length)) sample.push(pool.splice(Math.floor(random() * pool.length), 1)[0])

const time = async (name, args) => {
  const t = performance.now()
  const r = await client.callTool({ name, arguments: args })
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content[0].text}`)
  return performance.now() - t
}
const cold = { evidence_for: [], area_history: [] }
const warm = { evidence_for: [], area_history: [] }
for (const s of sample) {
  cold.evidence_for.push(await time('evidence_for', { path: s.path, line_start: s.a, line_end: s.b }))
  cold.area_history.push(await time('area_history', { path: s.path }))
}
for (let round = 0; round < 3; round++) {
  for (const s of sample) {
    warm.evidence_for.push(await time('evidence_for', { path: s.path, line_start: s.a, line_end: s.b }))
    warm.area_history.push(await time('area_history', { path: s.path }))
  }
}
// history analytics (issue 4): the first call per file, on a warm server
const analytics = { risk: [], related: [], ownership: [], hotspots: [], detect_changes: [] }
for (const s of sample) {
  analytics.risk.push(await time('risk', { target: s.path }))
  analytics.related.push(await time('related', { target: s.path }))
  analytics.ownership.push(await time('ownership', { target: s.path }))
}
for (let i = 0; i < 10; i++) analytics.hotspots.push(await time('hotspots', { limit: 10 }))
for (let i = 0; i + 3 <= sample.length; i += 3) analytics.detect_changes.push(await time('detect_changes', { files: sample.slice(i, i + 3).map((s) => s.path) }))
await client.close()

// plain git answering the same questions (one process per question, as an agent would run it)
const gitTimes = { blame: [], log_L: [], log_follow: [] }
for (const s of sample.slice(0, Math.min(15, sample.length))) {
  for (const [key, argv] of [
    ['blame', ['blame', '--porcelain', '-L', `${s.a},${s.b}`, 'HEAD', '--', s.path]],
    ['log_L', ['log', '--no-patch', '--format=%H', '-L', `${s.a},${s.b}:${s.path}`, 'HEAD']],
    ['log_follow', ['log', '--follow', '--format=%H', 'HEAD', '--', s.path]],
  ]) {
    const t = performance.now()
    spawnSync('git', argv, { cwd: repo, stdio: 'ignore' })
    gitTimes[key].push(performance.now() - t)
  }
}

const meta = JSON.parse(readFileSync(join(repo, '.gitwhy', 'meta.json'), 'utf8'))
const result = {
  repo,
  commits: meta.counts.commits,
  files_sampled: sample.length,
  start_initialize_ms: stats(starts),
  tools_list_chars: listing.length,
  evidence_for_ms: { first_call_per_file: stats(cold.evidence_for), warm: stats(warm.evidence_for) },
  area_history_ms: { first_call_per_file: stats(cold.area_history), warm: stats(warm.area_history) },
  analytics_ms: Object.fromEntries(Object.entries(analytics).map(([k, v]) => [k, stats(v)])),
  git_ms: { blame_L: stats(gitTimes.blame), log_L: stats(gitTimes.log_L), log_follow: stats(gitTimes.log_follow) },
}
result.ratios = {
  blame_plus_log_L_over_evidence_for_warm: +((result.git_ms.blame_L.p50 + result.git_ms.log_L.p50) / result.evidence_for_ms.warm.p50).toFixed(1),
  log_follow_over_area_history_warm: +(result.git_ms.log_follow.p50 / result.area_history_ms.warm.p50).toFixed(1),
}
if (args.includes('--json')) process.stdout.write(JSON.stringify(result, null, 2) + '\n')
else {
  const f = (s) => `p50 ${s.p50} ms · p95 ${s.p95} ms · max ${s.max} ms (n=${s.n})`
  console.log(`${repo}: ${result.commits} commits, ${sample.length} files sampled`)
  console.log(`server start + initialize   ${f(result.start_initialize_ms)}`)
  console.log(`tools/list                  ${result.tools_list_chars} characters`)
  console.log(`evidence_for, first call    ${f(result.evidence_for_ms.first_call_per_file)}`)
  console.log(`evidence_for, warm          ${f(result.evidence_for_ms.warm)}`)
  console.log(`area_history, first call    ${f(result.area_history_ms.first_call_per_file)}`)
  console.log(`area_history, warm          ${f(result.area_history_ms.warm)}`)
  for (const [k, v] of Object.entries(result.analytics_ms)) console.log(`${k.padEnd(28)}${f(v)}`)
  console.log(`git blame -L                ${f(result.git_ms.blame_L)}`)
  console.log(`git log -L                  ${f(result.git_ms.log_L)}`)
  console.log(`git log --follow            ${f(result.git_ms.log_follow)}`)
  console.log(`ratios (p50): blame+log -L / evidence_for ${result.ratios.blame_plus_log_L_over_evidence_for_warm}×, log --follow / area_history ${result.ratios.log_follow_over_area_history_warm}×`)
}
