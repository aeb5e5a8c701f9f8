#!/usr/bin/env node
// gitwhy MCP answer sizes: how many characters an agent pays for each tool's answer, each
// resource and tools/list, on an indexed repository, with the SDK's real Client over stdio.
//
//   node bench/answer-sizes.mjs <indexed-repo> [--cli PATH/bin/run.js] [--json]
//
// For every tool: the characters of the text content, of the structured content (JSON as sent)
// and of the whole result as it goes over the wire. For tools/list: the total and the share of the
// output schemas. For the JSON resources: the characters of the document. The questions are
// picked from the index itself (the busiest file, its busiest symbol, its directory, the
// newest PR), so any repository works; pass --cli to measure another build (e.g. main's).

import { dirname, join, resolve } from 'node:path'
import { benchArgs, ROOT } from './lib.mjs'

const { Client } = await import(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js'))
const { StdioClientTransport } = await import(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js'))

const { args, opt, repo } = benchArgs('node bench/answer-sizes.mjs <indexed-repo> [--cli PATH] [--json]')
const cli = resolve(opt('cli', join(ROOT, 'bin/run.js')))

const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp'], cwd: repo, stderr: 'ignore', env: { ...process.env } })
const client = new Client({ name: 'gitwhy-answer-sizes', version: '1' })
await client.connect(transport)

const listing = await client.listTools()
const outputSchemas = listing.tools.reduce((n, t) => n + (t.outputSchema ? JSON.stringify(t.outputSchema).length : 0), 0)

const rows = async (statement) => {
  const r = await client.callTool({ name: 'cypher', arguments: { statement, limit: 0 } })
  if (r.isError) throw new Error(r.content[0].text)
  return r.structuredContent.rows
}
const SOURCE = 'f.present AND NOT f.is_test AND EXISTS { MATCH (f)-[:DEFINES]->(:Symbol) }'
const [busy] = await rows(`MATCH (c:Commit)-[:TOUCHED]->(f:File) WHERE ${SOURCE} RETURN f.path AS path, count(c) AS n ORDER BY n DESC, path LIMIT 1`)
const [symbol] = await rows(`MATCH (f:File)-[:DEFINES]->(s:Symbol)<-[:CHANGED]-(c:Commit) WHERE f.path = '${busy.path.replace(/'/g, "\\'")}' RETURN s.qualified_name AS name, s.start_line AS a, s.end_line AS b, count(c) AS n ORDER BY n DESC, name LIMIT 1`)
const [second] = await rows(`MATCH (c:Commit)-[:TOUCHED]->(f:File) WHERE ${SOURCE} AND f.path <> '${busy.path.replace(/'/g, "\\'")}' RETURN f.path AS path, count(c) AS n ORDER BY n DESC, path LIMIT 1`)
const [head] = await rows('MATCH (c:Commit) RETURN c.sha AS sha, c.committer_date AS date ORDER BY c.committer_date DESC LIMIT 1')
const [pr] = await rows('MATCH (c:Commit)-[:PART_OF]->(p:PullRequest) RETURN p.number AS number, max(c.committer_date) AS d ORDER BY d DESC LIMIT 1')
const [issue] = await rows('MATCH (c:Commit)-[:REFERENCES]->(i:Issue) RETURN i.number AS number, max(c.committer_date) AS d ORDER BY d DESC LIMIT 1')
const dir = dirname(busy.path)
const since = new Date(new Date(head.date).getTime() - 30 * 86400_000).toISOString().slice(0, 10)

const calls = [
  ['evidence_for', { path: busy.path, line_start: symbol.a, line_end: symbol.b }],
  ['area_history', { path: busy.path }],
  ['catchup', { since }],
  ['cypher', { statement: 'MATCH (c:Commit) RETURN c.short AS short, c.subject AS subject ORDER BY c.committer_date DESC LIMIT 20' }],
  ['list_repos', {}],
  ['ping', {}],
  ['risk', { target: busy.path }],
  ['related', { target: busy.path }],
  ['hotspots', {}],
  ['ownership', { target: dir }],
  ['detect_changes', { files: [busy.path, second.path] }],
]
const tools = []
for (const [name, a] of calls) {
  if (!listing.tools.some((t) => t.name === name)) continue
  const r = await client.callTool({ name, arguments: a })
  const text = r.content.filter((c) => c.type === 'text').reduce((n, c) => n + c.text.length, 0)
  const structured = r.structuredContent ? JSON.stringify(r.structuredContent).length : 0
  tools.push({ tool: name, args: a, error: r.isError === true, text, structured, total: JSON.stringify(r).length })
}
const resources = []
for (const uri of [`gitwhy://commit/${head.sha}`, ...(pr ? [`gitwhy://pr/${pr.number}`] : []), ...(issue ? [`gitwhy://issue/${issue.number}`] : []), 'gitwhy://repo/overview', 'gitwhy://communities', 'gitwhy://community/c1']) {
  try {
    const r = await client.readResource({ uri })
    resources.push({ uri, chars: r.contents.reduce((n, c) => n + (c.text?.length ?? 0), 0) })
  } catch (error) {
    resources.push({ uri, error: error.message })
  }
}
await client.close()

const doc = { repo, cli, tools_list: { chars: JSON.stringify(listing).length, output_schemas: outputSchemas }, tools, resources }
if (args.includes('--json')) process.stdout.write(JSON.stringify(doc, null, 2) + '\n')
else {
  const pad = (s, n) => String(s).padEnd(n)
  console.log(`tools/list: ${doc.tools_list.chars} chars, output schemas ${doc.tools_list.output_schemas}`)
  console.log(`${pad('tool', 16)}${pad('text', 8)}${pad('struct', 8)}${pad('total', 8)}args`)
  for (const t of tools) console.log(`${pad(t.tool, 16)}${pad(t.text, 8)}${pad(t.structured, 8)}${pad(t.total, 8)}${JSON.stringify(t.args)}${t.error ? ' (error)' : ''}`)
  for (const r of resources) console.log(`${pad(r.uri.length > 40 ? r.uri.slice(0, 40) + '…' : r.uri, 44)}${r.error ? `error: ${r.error}` : r.chars}`)
}
