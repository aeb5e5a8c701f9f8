/**
 * `gitwhy mcp --http` with the SDK's Streamable HTTP client, the bearer-token rule for
 * non-loopback binds, and the server answering a stream of calls while `gitwhy analyze` rebuilds
 * and then updates the same index underneath it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { runCli, runJson, startCli, type CliOptions } from '../cli/cli.js'
import { asAgentSees, connectHttp, connectStdio, startHttpServer, structured, text } from './client.js'

let repo: TestRepo
let opts: CliOptions

beforeAll(async () => {
  repo = createRepo()
  // enough history and files that a forced rebuild takes a while
  for (let i = 0; i < 60; i++) {
    for (let f = 0; f < 4; f++) {
      const lines = Array.from({ length: 30 }, (_, n) => `export function f${f}_${n}(): number { return ${n === i % 30 ? i + 1000 : n} }`)
      repo.write(`src/mod${f}.ts`, lines.join('\n') + '\n')
    }
    repo.commit(`Change ${i} (#${100 + i})`)
  }
  opts = { cwd: repo.dir, env: { ...repo.env(), GITWHY_HOME: mkdtempSync(join(tmpdir(), 'gitwhy-mcp-home-')) } }
  await runJson(['analyze', '--repo', repo.dir], opts)
})
afterAll(() => repo?.cleanup())

describe('gitwhy mcp --http', () => {
  test('a Streamable HTTP client on 127.0.0.1 lists and calls tools', async () => {
    const server = await startHttpServer({ cwd: repo.dir, env: opts.env })
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      const client = await connectHttp(server.url)
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toContain('evidence_for')
      const result = await client.callTool({ name: 'evidence_for', arguments: { path: 'src/mod1.ts', line_start: 5, line_end: 5 } })
      expect(result.isError).toBeFalsy()
      const cli = (await runJson(['evidence', 'src/mod1.ts:5', '--limit', '20', '--repo', repo.dir], opts)).json
      expect(structured(result)).toEqual(await asAgentSees(client, 'evidence_for', { repo: repo.dir, ...cli }))
      // a second client gets its own session
      const second = await connectHttp(server.url)
      expect(structured(await second.callTool({ name: 'ping', arguments: {} })).repo).toBe(repo.dir)
      await second.close()
      await client.close()
    } finally {
      await server.stop()
    }
  })

  test('binding beyond loopback needs a token; with one, requests without it get 401', async () => {
    const refused = await runCli(['mcp', '--http', '--host', '0.0.0.0', '--port', '0'], opts)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/without authentication[\s\S]*fix: set GITWHY_MCP_TOKEN or pass --token-file/)

    const server = await startHttpServer({ cwd: repo.dir, env: opts.env, args: ['--host', '0.0.0.0', '--token', 's3cret'] })
    try {
      expect(server.stderr()).toMatch(/warning: --token is visible to other users in `ps`/)
      const url = server.url.replace('0.0.0.0', '127.0.0.1')
      const anonymous = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) })
      expect(anonymous.status).toBe(401)
      const client = await connectHttp(url, { authorization: 'Bearer s3cret' })
      expect(structured(await client.callTool({ name: 'ping', arguments: {} })).repo).toBe(repo.dir)
      await client.close()
    } finally {
      await server.stop()
    }
  })

  test('the token from a file or GITWHY_MCP_TOKEN (not in ps); the Bearer scheme in any case, with spaces', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gitwhy-token-'))
    const file = join(dir, 'token')
    writeFileSync(file, '  s3cret\n')
    const server = await startHttpServer({ cwd: repo.dir, env: opts.env, args: ['--host', '0.0.0.0', '--token-file', file] })
    try {
      const url = server.url.replace('0.0.0.0', '127.0.0.1')
      expect(server.stderr()).not.toMatch(/warning/)
      for (const authorization of ['bearer s3cret', '  BEARER   s3cret  ', 'BeArEr\ts3cret']) expect((await initialize(url, { authorization })).status).toBe(200)
      for (const authorization of ['Bearer s3cre', 'Bearer s3cret2', 'Basic s3cret', 's3cret', 'Bearer ', 'Bearers3cret']) expect((await initialize(url, { authorization })).status).toBe(401)
      const client = await connectHttp(url, { authorization: 'bearer s3cret' })
      expect(structured(await client.callTool({ name: 'ping', arguments: {} })).repo).toBe(repo.dir)
      await client.close()
    } finally {
      await server.stop()
    }

    const fromEnv = await startHttpServer({ cwd: repo.dir, env: { ...opts.env, GITWHY_MCP_TOKEN: 'envtoken' }, args: ['--host', '0.0.0.0'] })
    try {
      const url = fromEnv.url.replace('0.0.0.0', '127.0.0.1')
      expect(fromEnv.stderr()).not.toMatch(/warning/)
      expect((await initialize(url, { authorization: 'Bearer envtoken' })).status).toBe(200)
      expect((await initialize(url)).status).toBe(401)
    } finally {
      await fromEnv.stop()
    }

    const missing = await runCli(['mcp', '--http', '--host', '0.0.0.0', '--port', '0', '--token-file', join(dir, 'nope')], opts)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/cannot read the token file .*nope: ENOENT[\s\S]*fix:/)
    writeFileSync(file, ' \n')
    const empty = await runCli(['mcp', '--http', '--port', '0', '--token-file', file], opts)
    expect(empty.code).toBe(1)
    expect(empty.stderr).toMatch(/token file .* is empty[\s\S]*fix:/)
  })

  test('abandoned sessions hold no database and are capped: the oldest are evicted, new clients keep working', async () => {
    const server = await startHttpServer({ cwd: repo.dir, env: opts.env })
    try {
      const ids: string[] = []
      for (let i = 0; i < 300; i++) {
        const { status, id } = await initialize(server.url)
        expect(status).toBe(200)
        // the first sessions open the index before they are abandoned (each opened its own database before)
        if (i < 30) expect(await rpc(server.url, id!, 'tools/call', { name: 'cypher', arguments: { statement: 'MATCH (c:Commit) RETURN count(*) AS n' } })).toBe(200)
        ids.push(id!)
      }
      const client = await connectHttp(server.url)
      const risk = await client.callTool({ name: 'risk', arguments: { target: 'src/mod1.ts' } })
      expect(risk.isError, text(risk)).toBeFalsy()
      const rows = await client.callTool({ name: 'cypher', arguments: { statement: 'MATCH (c:Commit) RETURN count(*) AS n' } })
      expect(rows.isError, text(rows)).toBeFalsy()
      // 256 live sessions at most (the client above is one): the 45 least recently used are gone
      const statuses = []
      for (const id of ids) statuses.push(await rpc(server.url, id, 'ping'))
      expect(statuses.slice(0, 45).every((s) => s === 404)).toBe(true)
      expect(statuses.slice(45).every((s) => s === 200)).toBe(true)
      await client.close()
    } finally {
      await server.stop()
    }
  }, 120_000)

  test('an idle session expires (404) and the client initializes again; a listening client stays', async () => {
    // long enough that the first ping is in time on a loaded machine, short enough to wait out
    const server = await startHttpServer({ cwd: repo.dir, env: opts.env, args: ['--session-timeout', '2'] })
    try {
      const listening = await connectHttp(server.url)
      const { id } = await initialize(server.url)
      expect(await rpc(server.url, id!, 'ping')).toBe(200)
      await new Promise((r) => setTimeout(r, 4000))
      expect(await rpc(server.url, id!, 'ping')).toBe(404)
      const again = await initialize(server.url)
      expect(again.status).toBe(200)
      expect(await rpc(server.url, again.id!, 'ping')).toBe(200)
      // an SDK client keeps its event stream open: a live client is not idle
      const result = await listening.callTool({ name: 'cypher', arguments: { statement: 'MATCH (c:Commit) RETURN count(*) AS n' } })
      expect(result.isError, text(result)).toBeFalsy()
      // SIGTERM with a client's event stream still open: the server ends (it used to wait forever)
      await server.stop()
      await listening.close().catch(() => {})
    } finally {
      await server.stop()
    }
  })

  test('an unknown flag is one clear error, exit 1', async () => {
    const r = await runCli(['mcp', '--htp'], opts)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/error: .*--htp[\s\S]*fix:/)
  })
})

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

/** A raw initialize request, as a client that will never come back sends it. */
async function initialize(url: string, headers: Record<string, string> = {}): Promise<{ status: number; id: string | null }> {
  const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'abandoned', version: '1' } }
  const response = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params }) })
  await response.text()
  return { status: response.status, id: response.headers.get('mcp-session-id') }
}

/** One request on a session; the HTTP status. */
async function rpc(url: string, id: string, method: string, params: object = {}): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method, params }) })
  const body = await response.text()
  if (response.status === 200 && /"isError":true/.test(body)) throw new Error(`${method} failed: ${body.slice(0, 300)}`)
  return response.status
}

describe('fresh while read', () => {
  test('calls keep succeeding while analyze rebuilds and then updates the index; the server follows each swap', async () => {
    const { client } = await connectStdio({ cwd: repo.dir, env: opts.env })
    try {
      const before = structured(await client.callTool({ name: 'ping', arguments: {} }))
      const calls = [
        { name: 'evidence_for', arguments: { path: 'src/mod2.ts', line_start: 1, line_end: 30 } },
        { name: 'area_history', arguments: { path: 'src', limit: 5 } },
        { name: 'cypher', arguments: { statement: 'MATCH (c:Commit) RETURN count(*) AS n' } },
        { name: 'evidence_for', arguments: { qualified_name: 'f3_7' } },
        { name: 'catchup', arguments: { since: '2000-01-01', limit: 5 } },
      ]
      const failures: string[] = []
      let answered = 0
      let running = true
      const stream = (async () => {
        for (let i = 0; running || i < 10; i++) {
          const call = calls[i % calls.length]
          const result = await client.callTool(call)
          answered++
          if (result.isError) failures.push(`${call.name}: ${text(result)}`)
        }
      })()

      const rebuild = startCli(['analyze', '--force', '--quiet', '--repo', repo.dir], opts)
      const atStart = answered
      expect((await rebuild.done).code).toBe(0)
      // the calls really overlapped the rebuild
      expect(answered - atStart).toBeGreaterThan(0)
      repo.write('src/mod0.ts', 'export const changed = true\n')
      const newer = repo.commit('Replace mod0 (#999)')
      const update = await runJson(['analyze', '--repo', repo.dir], opts)
      expect(update.json.mode).toBe('incremental')
      running = false
      await stream

      expect(failures).toEqual([])
      expect(answered).toBeGreaterThan(10)
      const after = structured(await client.callTool({ name: 'ping', arguments: {} }))
      expect(after.index).toEqual({ head: newer, stale: false, commits_behind: 0 })
      expect(after.built_at).not.toBe(before.built_at)
      const rows = structured(await client.callTool({ name: 'cypher', arguments: { statement: 'MATCH (c:Commit) RETURN count(*) AS n' } })).rows
      expect(rows).toEqual([{ n: 61 }])
    } finally {
      await client.close()
    }
  })
})
