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

import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const sdk = (p) => import(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm', p))
const { Client } = await sdk('client/index.js')
const { StdioClientTransport } = await sdk('client/stdio.js')
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js')

const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : fallback
}
const repo = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'))
if (!repo || !existsSync(join(repo, '.gitwhy', 'meta.json'))) {
  process.stderr.write('usage: node bench/mcp-load.mjs <indexed-repo> [--calls N] [--sessions N] [--json]\n(run `gitwhy analyze <repo>` first)\n')
  process.exit(1)
}
const CALLS = Number(opt('calls', 100))
const SESSIONS = Number(opt('sessions', 10))

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))]
  return { p50: +at(0.5).toFixed(1), p95: +at(0.95).toFixed(1), max: +s[s.length - 1].toFixed(1) }
}
const rssMb = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Math.round(Number(m[1]) / 1024) : null
}

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
      ['context_for_pr', { files: [file] }],
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
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'bin/run.js'), 'mcp'], cwd: repo, stderr: 'ignore' })
  const client = new Client({ name: 'gitwhy-load', version: '1' })
  await client.connect(transport)
  const pid = transport.pid
  const before = rssMb(pid)
  // the argument lookup opens the database: the cold burst goes to a fresh server instead
  const probe = new Client({ name: 'gitwhy-load-probe', version: '1' })
  const probeTransport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'bin/run.js'), 'mcp'], cwd: repo, stderr: 'ignore' })
  await probe.connect(probeTransport)
  const pick = await callArgs(probe)
  await probe.close()
  const cold = await burst([client], pick, CALLS)
  const afterCold = rssMb(pid)
  const warm = await burst([client], pick, CALLS)
  const after = rssMb(pid)
  await client.close()
  return { transport: 'stdio', rss_mb: { before, after_cold: afterCold, after }, cold, warm }
}

async function httpRun() {
  const child = spawn(process.execPath, [join(ROOT, 'bin/run.js'), 'mcp', '--http', '--port', '0', '--host', '127.0.0.1'], { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] })
  const url = await new Promise((resolveUrl, reject) => {
    let err = ''
    child.stderr.on('data', (d) => {
      err += d
      const m = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)
      if (m) resolveUrl(m[1])
    })
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)))
    setTimeout(() => reject(new Error('server did not start')), 20_000)
  })
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
    child.kill('SIGTERM')
  }
}

const results = [await stdioRun(), await httpRun()]
if (args.includes('--json')) process.stdout.write(JSON.stringify(results, null, 2) + '\n')
else {
  for (const r of results) {
    process.stdout.write(`${r.transport}${r.sessions ? ` (${r.sessions} sessions)` : ''}: RSS ${JSON.stringify(r.rss_mb)} MB\n`)
    for (const [label, b] of Object.entries(r).filter(([k]) => ['cold', 'first', 'warm'].includes(k))) {
      process.stdout.write(`  ${label.padEnd(5)} ${b.calls} calls at once: ${b.failures} failed, p50 ${b.p50} ms, p95 ${b.p95} ms, max ${b.max} ms\n`)
      for (const [e, n] of Object.entries(b.errors)) process.stdout.write(`    ${n}× ${e}\n`)
    }
  }
}
