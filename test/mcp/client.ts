/**
 * A real MCP client (the SDK's Client) against the built CLI: `gitwhy mcp` over stdio, or over
 * Streamable HTTP after reading the listening URL from the server's stderr.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { BIN } from '../cli/cli.js'
import { compactData, type JsonSchema } from '../../src/mcp/compact.js'

export interface ConnectOptions {
  cwd: string
  env?: NodeJS.ProcessEnv
  args?: string[]
  /** Workspace roots the client announces (file paths). */
  roots?: string[]
  /** `--tools` for the server: every group unless a test asks for another set (null: the default set). */
  tools?: string | null
}

const toolsArgs = (opts: ConnectOptions) => (opts.tools === null ? [] : ['--tools', opts.tools ?? 'all'])

function serverEnv(env: NodeJS.ProcessEnv | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env ?? process.env)) if (v !== undefined && k !== 'GITWHY_REPO') out[k] = v
  return out
}

export async function connectStdio(opts: ConnectOptions): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...toolsArgs(opts), ...(opts.args ?? [])], cwd: opts.cwd, env: serverEnv(opts.env), stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  const client = new Client({ name: 'gitwhy-test', version: '1.0.0' }, opts.roots ? { capabilities: { roots: { listChanged: true } } } : {})
  if (opts.roots) {
    const { ListRootsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js')
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: opts.roots!.map((p) => ({ uri: `file://${p}`, name: p })) }))
  }
  await client.connect(transport)
  return { client, stderr: () => stderr }
}

/** Start `gitwhy mcp --http --port 0` and wait for its URL. */
export async function startHttpServer(opts: ConnectOptions): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void>; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', ...toolsArgs(opts), ...(opts.args ?? [])], { cwd: opts.cwd, env: serverEnv(opts.env), stdio: ['ignore', 'ignore', 'pipe'] })
  let err = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the HTTP server did not start: ${err}`)), 20_000)
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /on (http:\/\/\S+)/.exec(err)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    })
    child.on('exit', (code) => reject(new Error(`the HTTP server exited with ${code}: ${err}`)))
  })
  const stop = async () => {
    if (child.exitCode !== null) return
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await exited
  }
  return { url, child, stop, stderr: () => err }
}

export async function connectHttp(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'gitwhy-test-http', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
  return client
}

export function text(result: CallToolResult | Awaited<ReturnType<Client['callTool']>>): string {
  const content = (result as CallToolResult).content
  return content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
}

export function structured<T = any>(result: Awaited<ReturnType<Client['callTool']>>): T {
  return (result as CallToolResult).structuredContent as T
}

/**
 * A CLI --json document as the MCP tool answers it: the tool's structured content is the same
 * document plus `repo`, compacted along the tool's listed output schema (src/mcp/compact.ts).
 */
export async function asAgentSees(client: Client, tool: string, doc: object): Promise<unknown> {
  const { tools } = await client.listTools()
  return compactData(doc, tools.find((t) => t.name === tool)!.outputSchema as JsonSchema)
}
