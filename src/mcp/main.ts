import { parseArgs } from 'node:util'
import { UserError, isUserError } from '../errors.js'
import { printable, printableLines } from '../render.js'
import { packageVersion } from '../setup/launcher.js'
import { createServer } from './server.js'
import { isLoopback, serveHttp, serveStdio } from './transports.js'

export interface McpOptions {
  http: boolean
  port: number
  host: string
  token?: string
  repo?: string
}

/** The `gitwhy mcp` flags, once: the oclif command shows them in --help, `main` parses them. */
export const MCP_FLAGS = {
  http: { type: 'boolean', description: 'serve Streamable HTTP on /mcp instead of stdio' },
  port: { type: 'string', description: 'HTTP port (0 = any free port)', default: '7410' },
  host: { type: 'string', description: 'HTTP address to bind; anything but loopback requires a token', default: '127.0.0.1' },
  token: { type: 'string', description: 'bearer token HTTP clients must send (env GITWHY_MCP_TOKEN)' },
  repo: { type: 'string', description: 'default repository (else GITWHY_REPO, the working directory, the client\'s roots, the only indexed one)' },
} as const

/** Serve until the client goes away (stdio) or a signal arrives (HTTP). */
export async function runMcp(options: McpOptions): Promise<void> {
  const startDir = options.repo ?? process.env.GITWHY_REPO ?? process.cwd()
  const version = packageVersion()
  const make = () => createServer({ startDir, version })
  // checked even for stdio, so that a typo is not silently ignored
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) throw new UserError(`invalid --port ${options.port}`, 'pass a port between 0 and 65535 (0 = any free port)', 'bad_option')
  if (!options.http) return serveStdio(make)
  if (!isLoopback(options.host) && !options.token) {
    throw new UserError(`refusing to serve the index on ${options.host} without authentication`, 'pass --token <secret> (or set GITWHY_MCP_TOKEN), or bind to 127.0.0.1', 'insecure_bind')
  }
  const http = await serveHttp(make, { host: options.host, port: options.port, token: options.token, onListening: (url) => process.stderr.write(`gitwhy MCP server on ${url}\n`) }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') throw new UserError(`port ${options.port} is in use`, 'pass another --port (or --port 0 for any free one)', 'port_in_use')
    throw error
  })
  await new Promise<void>((resolve) => {
    const stop = () => http.close(() => resolve())
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
}

/**
 * `gitwhy mcp` without oclif: bin/run.js calls this directly, because an agent starts the server
 * at the beginning of every session and oclif's start-up alone costs ~150 ms.
 */
export async function main(argv: string[]): Promise<number> {
  try {
    const { values } = parseArgs({ args: argv, options: MCP_FLAGS, strict: true, allowPositionals: false })
    await runMcp({ http: values.http ?? false, port: Number(values.port), host: values.host ?? '127.0.0.1', token: values.token ?? process.env.GITWHY_MCP_TOKEN, repo: values.repo })
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
