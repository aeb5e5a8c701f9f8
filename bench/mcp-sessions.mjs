#!/usr/bin/env node
// gitwhy MCP HTTP sessions: what clients that go away without DELETE cost the server.
//
//   node bench/mcp-sessions.mjs <indexed-repo> [--sessions N] [--calls N] [--json]
//
// Starts the built `gitwhy mcp --http --port 0` on 127.0.0.1, opens N sessions (default 1000)
// with a raw initialize each, makes a graph call (cypher) on the first --calls of them (default
// 100), and abandons them all (no DELETE). Reports the server's RSS before, after and the peak,
// and whether a new client still gets answers from graph tools. Stops the server by itself.
// Build first (`npm run build`); the repository needs `gitwhy analyze` first.

import { benchArgs, rssMb, startHttpServer } from './lib.mjs'

const { opt, repo, json } = benchArgs('node bench/mcp-sessions.mjs <indexed-repo> [--sessions N] [--calls N] [--json]')
const sessions = Number(opt('sessions', 1000))
const calls = Number(opt('calls', 100))

const { url, child, stop } = await startHttpServer(repo)
const rss = () => rssMb(child.pid)
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const post = async (body, id) => {
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...(id ? { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' } : {}) }, body: JSON.stringify(body) })
  return { status: res.status, id: res.headers.get('mcp-session-id'), text: await res.text() }
}
const initialize = () => post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'abandoned', version: '1' } } })
const cypher = (id) => post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'cypher', arguments: { statement: 'MATCH (c:Commit) RETURN count(*) AS n' } } }, id)

// warm up: one session that opens the index, so "before" counts the database once
const warm = await initialize()
await cypher(warm.id)
const before = rss()
let peak = before
let failures = 0
const started = Date.now()
for (let i = 0; i < sessions; i++) {
  const s = await initialize()
  if (s.status !== 200) failures++
  if (i < calls) {
    const r = await cypher(s.id)
    if (r.status !== 200 || r.text.includes('"isError":true')) failures++
  }
  if (i % 50 === 0) peak = Math.max(peak, rss())
}
const elapsed = Date.now() - started
global.gc?.()
await new Promise((r) => setTimeout(r, 1000))
const after = rss()
const fresh = await initialize()
const answer = await cypher(fresh.id)
const works = answer.status === 200 && !answer.text.includes('"isError":true')
stop()

const result = { sessions, graph_calls: calls, failures, new_client_works: works, rss_mb: { before: Math.round(before), peak: Math.round(Math.max(peak, after)), after: Math.round(after) }, seconds: elapsed / 1000 }
if (json) process.stdout.write(JSON.stringify(result, null, 2) + '\n')
else {
  process.stdout.write(`${sessions} sessions opened and abandoned (${calls} with a cypher call) in ${result.seconds} s, ${failures} failures\n`)
  process.stdout.write(`server RSS: ${result.rss_mb.before} MB before, ${result.rss_mb.peak} MB peak, ${result.rss_mb.after} MB after\n`)
  process.stdout.write(`a new client afterwards: ${works ? 'answered' : 'FAILED'}\n`)
}
process.exit(works && failures === 0 ? 0 : 1)
