import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { UserError, isUserError } from '../errors.js'
import { printable, printableLines } from '../render.js'
import { packageVersion } from '../setup/launcher.js'
import { IndexPool } from '../services/index-pool.js'
import { createServer } from './server.js'
import { DEFAULT_TOOL_GROUPS, parseToolGroups, TOOL_GROUPS } from './tools/index.js'
import { isLoopback, serveHttp, serveStdio } from './transports.js'

export interface McpOptions {
  http: boolean
  port: number
  host: string
  /** `--token`: works, but other users see it in `ps`. */
  token?: string
  tokenFile?: string
  /** Seconds a session may stay idle. */
  sessionTimeout: number
  maxSessions: number
  repo?: string
  /** `--tools`: comma-separated tool groups, or all. */
  tools?: string
}

/** The `gitwhy mcp` flags, once: the oclif command shows them in --help, `main` parses them. */
export const MCP_FLAGS = {
  http: { type: 'boolean', description: 'serve Streamable HTTP on /mcp instead of stdio' },
  port: { type: 'string', description: 'HTTP port (0 = any free port)', default: '7410' },
  host: { type: 'string', description: 'HTTP address to bind; anything but loopback requires a token', default: '127.0.0.1' },
  'token-file': { type: 'string', description: 'file holding the bearer token HTTP clients must send (or set GITWHY_MCP_TOKEN); preferred to --token' },
  token: { type: 'string', description: 'bearer token on the command line: other users can read it in `ps`, prefer GITWHY_MCP_TOKEN or --token-file' },
  'session-timeout': { type: 'string', description: 'HTTP: seconds after which an idle session is closed (its client starts a new one)', default: '1800' },
  'max-sessions': { type: 'string', description: 'HTTP: live sessions at most; a new client evicts the least recently used', default: '256' },
  tools: { type: 'string', description: `tool groups to serve, comma-separated: ${Object.keys(TOOL_GROUPS).join(', ')}, or all (ping and list_repos always)`, default: DEFAULT_TOOL_GROUPS.join(',') },
  repo: { type: 'string', description: 'default repository (else GITWHY_REPO, the working directory, the client\'s roots, the only indexed one)' },
} as const

/** Serve until the client goes away (stdio) or a signal arrives (HTTP). */
export async function runMcp(options: McpOptions): Promise<void> {
  const startDir = options.repo ?? process.env.GITWHY_REPO ?? process.cwd()
  const version = packageVersion()
  // checked even for stdio, so that a typo is not silently ignored
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) throw new UserError(`invalid --port ${options.port}`, 'pass a port between 0 and 65535 (0 = any free port)', 'bad_option')
  const tools = parseToolGroups(options.tools ?? DEFAULT_TOOL_GROUPS.join(','))
  if (!options.http) return serveStdio(() => createServer({ startDir, version, tools }))
  if (!(options.sessionTimeout > 0)) throw new UserError(`invalid --session-timeout ${options.sessionTimeout}`, 'pass a number of seconds greater than 0 (default 1800)', 'bad_option')
  if (!Number.isInteger(options.maxSessions) || options.maxSessions < 1) throw new UserError(`invalid --max-sessions ${options.maxSessions}`, 'pass a whole number ≥ 1 (default 256)', 'bad_option')
  const token = bearerToken(options)
  if (!isLoopback(options.host) && !token) {
    throw new UserError(`refusing to serve the index on ${options.host} without authentication`, 'set GITWHY_MCP_TOKEN or pass --token-file <file>, or bind to 127.0.0.1', 'insecure_bind')
  }
  // one set of open indexes for every session: a session holds no database of its own
  const pool = new IndexPool()
  const http = await serveHttp(() => createServer({ startDir, version, pool, tools }).server, {
    host: options.host,
    port: options.port,
    token,
    idleTimeoutMs: options.sessionTimeout * 1000,
    maxSessions: options.maxSessions,
    onListening: (url) => process.stderr.write(`gitwhy MCP server on ${url}\n`),
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') throw new UserError(`port ${options.port} is in use`, 'pass another --port (or --port 0 for any free one)', 'port_in_use')
    throw error
  })
  await new Promise<void>((resolve) => {
    const stop = () => {
      http.close(() => resolve())
      // clients holding an event stream open would keep close() waiting forever
      http.closeAllConnections()
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  await pool.close()
}

/** The bearer token: from --token-file, else --token (with a warning: `ps` shows it), else GITWHY_MCP_TOKEN. */
function bearerToken(options: McpOptions): string | undefined {
  if (options.tokenFile !== undefined && options.token !== undefined) throw new UserError('both --token and --token-file given', 'pass one of them (--token-file keeps the token out of `ps`)', 'bad_option')
  if (options.tokenFile !== undefined) {
    let text: string
    try {
      text = readFileSync(options.tokenFile, 'utf8')
    } catch (error) {
      throw new UserError(`cannot read the token file ${options.tokenFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 'pass a readable file holding the token (e.g. created with `umask 077; openssl rand -hex 32 > token`)', 'token_file')
    }
    const token = text.trim()
    if (!token) throw new UserError(`the token file ${options.tokenFile} is empty`, 'write the token into it (e.g. `openssl rand -hex 32 > token`)', 'token_file')
    return token
  }
  if (options.token !== undefined) {
    process.stderr.write('warning: --token is visible to other users in `ps`; set GITWHY_MCP_TOKEN or pass --token-file instead\n')
    return options.token
  }
  return process.env.GITWHY_MCP_TOKEN || undefined
}

/**
 * `gitwhy mcp` without oclif: bin/run.js calls this directly, because an agent starts the server
 * at the beginning of every session and oclif's start-up alone costs ~150 ms.
 */
export async function main(argv: string[]): Promise<number> {
  try {
    const { values } = parseArgs({ args: argv, options: MCP_FLAGS, strict: true, allowPositionals: false })
    await runMcp({
      http: values.http ?? false,
      port: Number(values.port),
      host: values.host ?? '127.0.0.1',
      token: values.token,
      tokenFile: values['token-file'],
      sessionTimeout: Number(values['session-timeout']),
      maxSessions: Number(values['max-sessions']),
      repo: values.repo,
      tools: values.tools,
    })
    return 0
  } catch (error) {
    if (isUserError(error)) {
      process.stderr.write(`error: ${printable(error.message)}\n  fix: ${printable(error.remedy)}\n`)
      return 1
    }
    if ((error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`error: ${printable((error as Error).message)}\n  fix: see \`gitwhy mcp --help\`\n`)
      return 1
    }
    process.stderr.write(`gitwhy bug: ${printableLines(String((error as Error).stack ?? error))}\n`)
    return 2
  }
}
