import { createHash, randomUUID, timingSafeEqual } from 'node:crypto'
import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http'
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
  /** A session with no request for this long is closed; its id then gets 404 and the client starts a new one. */
  idleTimeoutMs: number
  /** Live sessions at most; a new client beyond them evicts the least recently used one. */
  maxSessions: number
  /** Called once listening, with the URL of the MCP endpoint. */
  onListening?: (url: string) => void
}

interface Session {
  transport: StreamableHTTPServerTransport
  server: McpServer
  lastActive: number
  /** Requests still open (a GET event stream stays open while its client listens). */
  inFlight: number
}

/**
 * Streamable HTTP on `/mcp`, one MCP session per client (the transport keeps session ids). Every
 * session has its own McpServer (its client's roots decide its default repository); the indexes
 * are shared, so a session costs no database. Clients that go away without DELETE are not waited
 * for: an idle session expires, and the session count is capped by evicting the least recently
 * used. An unknown or expired session id gets 404, which tells a client to initialize again.
 */
export async function serveHttp(make: () => McpServer, options: HttpOptions): Promise<Server> {
  // insertion order is recency: a request moves its session to the end
  const sessions = new Map<string, Session>()
  const authorized = bearerCheck(options.token)
  const fail = (res: ServerResponse, status: number, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
  }
  const end = (sid: string) => {
    const session = sessions.get(sid)
    if (!session) return
    sessions.delete(sid)
    void session.server.close().catch(() => {})
  }
  const idle = (s: Session, now: number) => s.inFlight === 0 && now - s.lastActive >= options.idleTimeoutMs
  const sweep = () => {
    const now = Date.now()
    for (const [sid, s] of sessions) if (idle(s, now)) end(sid)
  }
  /** Room for one more: the least recently used idle session goes, else the least recently used. */
  const makeRoom = () => {
    while (sessions.size >= options.maxSessions) {
      let victim: string | undefined
      for (const [sid, s] of sessions) {
        if (s.inFlight === 0) {
          victim = sid
          break
        }
      }
      end(victim ?? sessions.keys().next().value!)
    }
  }
  const timer = setInterval(sweep, Math.max(50, Math.min(options.idleTimeoutMs / 2, 60_000)))
  timer.unref()

  const http = createHttpServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost')
      if (url.pathname !== '/mcp') return fail(res, 404, 'not found: the MCP endpoint is /mcp')
      if (!authorized(req.headers.authorization)) return fail(res, 401, 'unauthorized: send Authorization: Bearer <token>')
      const id = req.headers['mcp-session-id']
      if (id !== undefined) {
        const sid = String(id)
        const session = sessions.get(sid)
        if (!session || idle(session, Date.now())) {
          end(sid)
          return fail(res, 404, 'session not found (it expired or was closed): start a new session with an initialize request')
        }
        sessions.delete(sid)
        sessions.set(sid, session)
        session.inFlight++
        res.once('close', () => {
          session.inFlight--
          session.lastActive = Date.now()
        })
        return await session.transport.handleRequest(req, res)
      }
      if (req.method !== 'POST') return fail(res, 400, 'no session: start with an initialize request (POST)')
      const server = make()
      const port = (http.address() as { port: number }).port
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        // a web page must not reach a loopback server through DNS rebinding
        ...(isLoopback(options.host) ? { enableDnsRebindingProtection: true, allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`] } : {}),
        onsessioninitialized: (sid) => {
          makeRoom()
          sessions.set(sid, { transport, server, lastActive: Date.now(), inFlight: 0 })
        },
      })
      transport.onclose = () => {
        if (transport.sessionId) end(transport.sessionId)
      }
      await server.connect(transport)
      await transport.handleRequest(req, res)
      // not an initialize request: the SDK refused it and no session was made
      if (!transport.sessionId) await server.close().catch(() => {})
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
    clearInterval(timer)
    for (const sid of [...sessions.keys()]) end(sid)
  })
  return http
}

/**
 * Whether an Authorization header carries the token: the scheme is case-insensitive (RFC 7235)
 * and spaces around it are ignored; the token itself is compared in constant time (as digests,
 * so its length does not show either).
 */
export function bearerCheck(token: string | undefined): (header: string | undefined) => boolean {
  if (token === undefined) return () => true
  const expected = digest(token)
  return (header) => {
    const match = /^\s*bearer\s+(.*?)\s*$/i.exec(header ?? '')
    return match !== null && timingSafeEqual(digest(match[1]), expected)
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest()

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1'
}
