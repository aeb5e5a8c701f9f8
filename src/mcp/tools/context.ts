import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { context, contextLines } from '../../services/codegraph.js'
import { indexInfo, limitArg, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

const symbols = z.array(record('{id, qualified_name, kind, path, start_line}'))
const calls = z.array(record('{id, qualified_name, kind, path, start_line, lines, confidence, reason}'))

export function registerContextTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'context',
    {
      title: 'Callers, callees, imports, heritage and history of a symbol',
      description:
        'A symbol or file in the code graph: callers and callees (how each call was resolved, a confidence), imports and importers, what it extends/implements and its subtypes, its community and execution flows, and its history in one line (last change, revisions, owners, risk). Call it before editing a function to see who depends on it.',
      inputSchema: {
        target: z.string().describe('symbol (Class.method, path:Name) or file path'),
        min_confidence: z.number().min(0).max(1).optional().describe('lowest call confidence kept (default 0.5; guesses by name ≤ 0.4)'),
        limit: limitArg(30),
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        target: record('{kind: file|symbol, path, ...}'),
        index: indexInfo,
        definition: record('{signature, exported, end_line}').nullable(),
        callers: calls,
        callees: calls,
        imports: z.array(z.string()),
        importers: z.array(z.string()),
        extends: symbols,
        implements: symbols,
        subtypes: symbols,
        community: record('{id, label}').nullable(),
        flows: z.array(record('{id, label, kind, entry, steps, step}')),
        history: record('{last_change, revisions, owners, risk, risk_score}'),
        truncated: record('items left out per list'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await context({ reader, target: args.target, limit: args.limit, minConfidence: args.min_confidence })
        return { lines: [...contextLines(r), indexLine(r.index)], data: { repo: reader.repo, ...r } }
      }),
  )
}
