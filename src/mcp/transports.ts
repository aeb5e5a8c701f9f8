import { randomUUID, timingSafeEqual } from 'node:crypto'
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { IndexPool } from '../services/index-pool.js'

/** Serve one client over stdin/stdout until the client closes the pipe. */
export async function serveStdio(make: () => { server: McpServer; pool: IndexPool }): Promise<void> {
  const { server, pool } = make()
  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve()
    process.stdin.on('end', () => resolve())
  })
  await server.connect(transport)
  await closed
  await server.close().catch(() => {})
  await pool.close()
}

export interface HttpOptions {
  host: string
  port: number
  /** Required unless the server binds to loopback only. */
  token?: string
  /** Called once listening, with the URL of the MCP endpoint. */
  onListening?: (url: string) => void
}

/**
 * Streamable HTTP on `/mcp`, one MCP session per client (the transport keeps session ids). Every
 * session has its own McpServer; they share nothing but the files on disk.
 */
export async function serveHttp(make: () => { server: McpServer; pool: IndexPool }, options: HttpOptions): Promise<Server> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; close: () => Promise<void> }>()
  const expected = options.token ? Buffer.from(`Bearer ${options.token}`) : null
  const authorized = (req: IncomingMessage) => {
    if (!expected) return true
    const got = Buffer.from(req.headers.authorization ?? '')
    return got.length === expected.length && timingSafeEqual(got, expected)
  }
  const fail = (res: ServerResponse, status: number, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
  }
  const http = createHttpServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost')
      if (url.pathname !== '/mcp') return fail(res, 404, 'not found: the MCP endpoint is /mcp')
      if (!authorized(req)) return fail(res, 401, 'unauthorized: send Authorization: Bearer <token>')
      const id = req.headers['mcp-session-id']
      const existing = typeof id === 'string' ? sessions.get(id) : undefined
      if (existing) return await existing.transport.handleRequest(req, res)
      if (req.method !== 'POST' || id !== undefined) return fail(res, 400, 'no such session: start with an initialize request')
      const { server, pool } = make()
      const port = (http.address() as { port: number }).port
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        // a web page must not reach a loopback server through DNS rebinding
        ...(isLoopback(options.host) ? { enableDnsRebindingProtection: true, allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`] } : {}),
        onsessioninitialized: (sid) => {
          sessions.set(sid, { transport, close: async () => { await server.close().catch(() => {}); await pool.close() } })
        },
      })
      transport.onclose = () => {
        const sid = transport.sessionId
        const s = sid ? sessions.get(sid) : undefined
        if (sid) sessions.delete(sid)
        void s?.close()
      }
      await server.connect(transport)
      await transport.handleRequest(req, res)
    } catch (error) {
      process.stderr.write(`gitwhy mcp: ${(error as Error).stack ?? error}\n`)
      if (!res.headersSent) fail(res, 500, 'internal error')
    }
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(options.port, options.host, () => resolve())
  })
  const address = http.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  options.onListening?.(`http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/mcp`)
  http.on('close', () => {
    for (const s of sessions.values()) void s.close()
  })
  return http
}

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1'
}
