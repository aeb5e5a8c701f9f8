import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { RootsListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { UserError } from '../errors.js'
import { noteRepo, noteRows, traceToolCall, tracing } from '../trace.js'
import { IndexPool } from '../services/index-pool.js'
import { liveRegistered } from '../services/registry.js'
import { gitwhyDir, resolveRepo } from '../services/workspace.js'
import { fitAnswer, type ToolAnswer } from './budget.js'
import { compactData, type JsonSchema } from './compact.js'
import { toolError, type ServerContext, type SessionIndexes } from './context.js'
import { registerPrompts } from './prompts/index.js'
import { registerResources } from './resources/index.js'
import { registerTools } from './tools/index.js'

export interface ServerOptions {
  /** Where the server was started (`--repo`, GITWHY_REPO or the working directory). */
  startDir: string
  version: string
  /**
   * The open indexes, shared by every session of an HTTP server so that a session holds no
   * database of its own; a server made without one opens its own (stdio: one client per process).
   */
  pool?: IndexPool
  /** Tool groups to serve (src/mcp/tools/index.ts); the default set when absent. */
  tools?: readonly string[]
}

/** The gitwhy MCP server: tools, resources and prompts over the index pool. Transports only connect it. */
export function createServer(options: ServerOptions): { server: McpServer; pool: IndexPool } {
  const server = new McpServer(
    { name: 'gitwhy', version: options.version },
    {
      instructions:
        'gitwhy answers why code is the way it is from an index of the git history: which commits, PRs and issues wrote or changed given lines, a file\'s full history through renames, what changed recently, and what is risky, owned by whom and coupled to what. Call evidence_for before editing or when code looks odd, context to see a symbol\'s callers, callees and history, impact before a non-trivial change, and detect_changes before committing or opening a PR; answers cite SHAs and PR numbers.',
    },
  )
  const pool = options.pool ?? new IndexPool()
  // the default repository depends on this client's roots, so it is resolved per session
  const defaultRoot = defaultRootResolver(server, options.startDir)
  const indexes: SessionIndexes = {
    root: async (repo, needsIndex = true) => {
      const root = await (repo === undefined || repo === '' ? defaultRoot(needsIndex) : pool.root(repo))
      noteRepo(root)
      return root
    },
    use: async (repo, fn) => pool.use(await indexes.root(repo), fn),
  }
  const context: ServerContext = {
    pool: indexes,
    version: options.version,
    answer: (repo, fn, offset) => fitted(() => indexes.use(repo, fn), offset),
    answerRoot: async (repo, fn, offset) => fitted(async () => fn(await indexes.root(repo, false)), offset),
  }
  compactStructuredContent(server)
  registerTools(server, context, options.tools)
  compactToolList(server)
  if (tracing()) traceToolCalls(server, () => defaultRoot(false))
  registerResources(server, context)
  registerPrompts(server, context)
  return { server, pool }
}


async function fitted(fn: () => Promise<ToolAnswer>, offset: number | undefined): Promise<CallToolResult> {
  try {
    const answer = await fn()
    if ('list' in answer) noteRows(() => answer.list.reduce((n, key) => n + ((answer.data as Record<string, unknown[] | undefined>)[key]?.length ?? 0), 0))
    const { text, data } = fitAnswer(answer, offset)
    return { content: [{ type: 'text', text }], structuredContent: data as Record<string, unknown> }
  } catch (error) {
    return toolError(error)
  }
}

/**
 * GITWHY_TRACE: a span per tools/call (src/trace.ts), invalid arguments and unknown tools
 * included: the tool's name, start, duration, the arguments' and the result's bytes (the result as
 * the client gets it), the rows of a list answer, whether the reader's cache answered, and the
 * error of a failed call. The span goes to the repository the call resolved, else to the one the
 * server runs in. (The handler map is the SDK's internals, pinned at 1.32, as for compactToolList.)
 */
function traceToolCalls(server: McpServer, fallbackRepo: () => Promise<string | null>): void {
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, RequestHandler> })._requestHandlers
  const call = handlers?.get('tools/call')
  if (!handlers || !call) return
  handlers.set('tools/call', (request, extra) => {
    const params = (request as { params?: { name?: unknown; arguments?: unknown } }).params ?? {}
    const argsBytes = Buffer.byteLength(JSON.stringify(params.arguments ?? {}))
    return traceToolCall(
      String(params.name).slice(0, 200),
      () => call(request, extra),
      (result, error) => {
        const failed = error !== undefined ? ((error as Error)?.message ?? String(error)) : result?.isError ? errorText(result as CallToolResult) : undefined
        return { sizes: { args_bytes: argsBytes, ...(result ? { result_bytes: Buffer.byteLength(JSON.stringify(result)) } : {}) }, ...(failed !== undefined ? { error: failed } : {}) }
      },
      fallbackRepo,
    )
  })
}

/** An error result's message: its text's first line. */
function errorText(result: CallToolResult): string {
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
  return text.split('\n')[0].slice(0, 1000)
}

/** Tools whose structured content is data as such (a query's rows), never compacted. */
const VERBATIM_TOOLS = new Set(['cypher'])

/**
 * Every tool registered from here on answers with compacted structured content (compact.ts),
 * following its output schema as tools/list gives it.
 */
function compactStructuredContent(server: McpServer): void {
  const register = server.registerTool.bind(server) as (...args: unknown[]) => unknown
  ;(server as unknown as { registerTool: (...args: unknown[]) => unknown }).registerTool = (name: unknown, config: unknown, callback: unknown) => {
    const shape = (config as { outputSchema?: Record<string, z.ZodType> }).outputSchema
    if (!shape || VERBATIM_TOOLS.has(String(name))) return register(name, config, callback)
    const schema = z.toJSONSchema(z.object(shape), { io: 'output', unrepresentable: 'any' }) as JsonSchema
    const wrapped = async (...args: unknown[]) => {
      const result = (await (callback as (...a: unknown[]) => Promise<CallToolResult>)(...args)) as CallToolResult
      return result.structuredContent && !result.isError ? { ...result, structuredContent: compactData(result.structuredContent, schema) as Record<string, unknown> } : result
    }
    return register(name, config, wrapped)
  }
}

type RequestHandler = (request: unknown, extra: unknown) => Promise<Record<string, unknown>>

/**
 * Every agent session pays for tools/list in context, so the SDK's listing is trimmed of what no
 * client needs: the `$schema` URL of every schema, the default task-support note,
 * `additionalProperties: false` in output schemas, and constraints that allow anything anyway. (The handler map is the SDK's internals, pinned
 * at 1.32; if it moves, the listing is simply left as the SDK makes it.)
 */
function compactToolList(server: McpServer): void {
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, RequestHandler> })._requestHandlers
  const list = handlers?.get('tools/list')
  if (!handlers || !list) return
  const strip = (value: unknown, output: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => strip(v, output))
    if (!value || typeof value !== 'object') return value
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      if (k === '$schema' || (output && k === 'additionalProperties' && v === false)) continue
      // no-ops in JSON Schema: keys are strings, {} allows anything, no properties lists none
      if (k === 'propertyNames' && JSON.stringify(v) === '{"type":"string"}') continue
      if ((k === 'additionalProperties' || k === 'properties') && JSON.stringify(v) === '{}') continue
      out[k] = strip(v, output)
    }
    return out
  }
  handlers.set('tools/list', async (request, extra) => {
    const result = await list(request, extra)
    const tools = (result.tools as Array<Record<string, unknown>>).map(({ execution, inputSchema, outputSchema, ...tool }) => ({
      ...tool,
      inputSchema: strip(inputSchema, false),
      ...(outputSchema ? { outputSchema: strip(outputSchema, true) } : {}),
      ...(execution && (execution as { taskSupport?: string }).taskSupport !== 'forbidden' ? { execution } : {}),
    }))
    return { ...result, tools }
  })
}

const hasIndex = (root: string) => existsSync(path.join(gitwhyDir(root), 'meta.json'))

async function gitRoot(dir: string): Promise<string | null> {
  try {
    return await resolveRepo(dir)
  } catch {
    return null
  }
}

/**
 * The repository a call means when it names none: the one the server was started in if it is
 * indexed, else the first indexed workspace root the client reports, else the only registered
 * repository. A user-level registration starts the server outside any repository, so the
 * client's roots are what usually decide.
 */
function defaultRootResolver(server: McpServer, startDir: string): (needsIndex: boolean) => Promise<string> {
  let cached: string | null = null
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    cached = null
  })
  return async (needsIndex) => {
    // the work tree's tools (the edit trajectory) record where the server runs, indexed or not: never
    // another repository that happens to be the only one indexed
    if (!needsIndex) {
      const here = await gitRoot(startDir)
      if (here) return here
    }
    if (cached) return cached
    const start = await gitRoot(startDir)
    const candidates: string[] = start ? [start] : []
    if (server.server.getClientCapabilities()?.roots) {
      try {
        const { roots } = await server.server.listRoots(undefined, { timeout: 2000 })
        for (const r of roots) {
          if (!r.uri.startsWith('file:')) continue
          const root = await gitRoot(fileURLToPath(r.uri))
          if (root && !candidates.includes(root)) candidates.push(root)
        }
      } catch {
        // a client that announces roots but does not answer: go on without them
      }
    }
    const registered = liveRegistered()
    if (registered.length === 1 && !candidates.includes(registered[0].path)) candidates.push(registered[0].path)
    const indexed = candidates.find(hasIndex)
    if (indexed) return (cached = indexed)
    if (start) return start // not indexed: the error for it says to run analyze there
    throw new UserError(
      `no default repository: the server was started in ${startDir}, which is not in a git repository`,
      registered.length
        ? `pass repo with one of: ${registered.map((r) => r.name).join(', ')}`
        : 'index a repository first (`gitwhy analyze /path/to/repo`), or pass repo as a path',
      'no_default_repo',
    )
  }
}
