#!/usr/bin/env node
// gitwhy MCP under load: many calls at once, over stdio and over Streamable HTTP (127.0.0.1 only).
//
//   node bench/mcp-load.mjs <indexed-repo> [--calls N] [--sessions N] [--json]
//
// For each transport, from a cold server (no database open yet): N `tools/call` at once (over
// HTTP spread over --sessions sessions), round-robin over the graph and history tools with
// arguments taken from the index itself; failures, p50 / p95 / max latency, and the server's RSS
// before and after (read from /proc). Then a second burst on the warm server. Stops by itself.
// Build first (`npm run build`); the repository needs `gitwhy analyze` first.

import { join } from 'node:path'
import { BIN, ROOT, benchArgs, rssMb as rss, startHttpServer } from './lib.mjs'

const sdk = (p) => import(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm', p))
const { Client } = await sdk('client/index.js')
const { StdioClientTransport } = await sdk('client/stdio.js')
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js')

const { opt, repo, json } = benchArgs('node bench/mcp-load.mjs <indexed-repo> [--calls N] [--sessions N] [--json]')
const CALLS = Number(opt('calls', 100))
const SESSIONS = Number(opt('sessions', 10))

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))]
  return { p50: +at(0.5).toFixed(1), p95: +at(0.95).toFixed(1), max: +s[s.length - 1].toFixed(1) }
}
const rssMb = (pid) => Math.round(rss(pid))

/** Real targets from the index: its busiest source files and the directory of the first. */
async function callArgs(client) {
  const rows = await client.callTool({ name: 'cypher', arguments: { statement: 'MATCH (f:File) WHERE f.present AND f.language IS NOT NULL AND f.revisions > 2 RETURN f.path AS p ORDER BY f.revisions DESC LIMIT 20' } })
  const files = (rows.structuredContent?.rows ?? []).map((r) => r.p)
  if (files.length === 0) throw new Error('no indexed source files with history')
  const dir = files[0].includes('/') ? files[0].slice(0, files[0].lastIndexOf('/')) : '.'
  return (i) => {
    const file = files[i % files.length]
    return [
      ['evidence_for', { path: file, line_start: 1, line_end: 20 }],
      ['area_history', { path: file, limit: 20 }],
      ['risk', { target: file }],
      ['related', { target: file }],
      ['ownership', { target: dir }],
      ['hotspots', { path: dir }],
      ['cypher', { statement: 'MATCH (c:Commit)-[:TOUCHED]->(f:File {path: $p}) RETURN count(c) AS n', params: { p: file } }],
      ['detect_changes', { files: [file] }],
    ][i % 8]
  }
}

async function burst(clients, pick, n) {
  const latencies = []
  let failures = 0
  const errors = new Map()
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const [name, a] = pick(i)
      const t0 = performance.now()
      try {
        const r = await clients[i % clients.length].callTool({ name, arguments: a })
        if (r.isError) throw new Error(r.content?.[0]?.text?.split('\n')[0] ?? 'isError')
      } catch (error) {
        failures++
        const key = `${name}: ${String(error.message).slice(0, 120)}`
        errors.set(key, (errors.get(key) ?? 0) + 1)
      }
      latencies.push(performance.now() - t0)
    }),
  )
  return { calls: n, failures, ...stats(latencies), errors: Object.fromEntries(errors) }
}

async function stdioRun() {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--tools', 'all'], cwd: repo, stderr: 'ignore' })
  const client = new Client({ name: 'gitwhy-load', version: '1' })
  await client.connect(transport)
  const pid = transport.pid
  const before = rssMb(pid)
  // the argument lookup opens the database: the cold burst goes to a fresh server instead
  const probe = new Client({ name: 'gitwhy-load-probe', version: '1' })
  const probeTransport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--tools', 'all'], cwd: repo, stderr: 'ignore' })
  await probe.connect(probeTransport)
  const pick = await callArgs(probe)
  await probe.close()
  const cold = await burst([client], pick, CALLS)
  const afterCold = rssMb(pid)
  const warm = await burst([client], pick, CALLS)
  const after = rssMb(pid)
  // where the time goes: each tool alone, one call at a time, on the warm server
  const perTool = {}
  for (let i = 0; i < 8 * 5; i++) {
    const [name, a] = pick(i)
    const t0 = performance.now()
    await client.callTool({ name, arguments: a })
    ;(perTool[name] ??= []).push(performance.now() - t0)
  }
  await client.close()
  return { transport: 'stdio', rss_mb: { before, after_cold: afterCold, after }, cold, warm, alone: Object.fromEntries(Object.entries(perTool).map(([k, v]) => [k, stats(v)])) }
}

async function httpRun() {
  const { url, child, stop } = await startHttpServer(repo, 'all')
  try {
    const before = rssMb(child.pid)
    const clients = []
    for (let i = 0; i < SESSIONS; i++) {
      const c = new Client({ name: `gitwhy-load-${i}`, version: '1' })
      await c.connect(new StreamableHTTPClientTransport(new URL(url)))
      clients.push(c)
    }
    const probe = new Client({ name: 'gitwhy-load-probe', version: '1' })
    await probe.connect(new StreamableHTTPClientTransport(new URL(url)))
    const pick = await callArgs(probe)
    const cold = await burst(clients, pick, CALLS)
    const warm = await burst(clients, pick, CALLS)
    const after = rssMb(child.pid)
    await Promise.all([...clients, probe].map((c) => c.close()))
    return { transport: 'http', sessions: SESSIONS, rss_mb: { before, after }, first: cold, warm }
  } finally {
    stop()
  }
}

const results = [await stdioRun(), await httpRun()]
if (json) process.stdout.write(JSON.stringify(results, null, 2) + '\n')
else {
  for (const r of results) {
    process.stdout.write(`${r.transport}${r.sessions ? ` (${r.sessions} sessions)` : ''}: RSS ${JSON.stringify(r.rss_mb)} MB\n`)
    for (const [label, b] of Object.entries(r).filter(([k]) => ['cold', 'first', 'warm'].includes(k))) {
      process.stdout.write(`  ${label.padEnd(5)} ${b.calls} calls at once: ${b.failures} failed, p50 ${b.p50} ms, p95 ${b.p95} ms, max ${b.max} ms\n`)
      for (const [e, n] of Object.entries(b.errors)) process.stdout.write(`    ${n}× ${e}\n`)
    }
    if (r.alone) process.stdout.write(`  one call at a time (p50 / p95 ms): ${Object.entries(r.alone).map(([k, v]) => `${k} ${v.p50}/${v.p95}`).join(', ')}\n`)
  }
}
