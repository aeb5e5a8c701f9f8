import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { impact, impactLines, MAX_IMPACT_DEPTH } from '../../services/codegraph.js'
import { indexInfo, limitArg, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerImpactTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'impact',
    {
      title: 'What breaks if this changes',
      description:
        'Blast radius of changing a symbol or file: affected symbols by depth (1 will break, 2 likely, 3 maybe) along calls and heritage, files by imports, tests that reach it, communities and execution flows touched, a risk summary, and hidden coupling (files changing with it that no call or import links). Call it before a refactor or an API change.',
      inputSchema: {
        target: z.string().describe('symbol (Class.method, path:Name) or file path'),
        direction: z.enum(['up', 'down', 'both']).default('up').describe('up: callers (what breaks); down: callees'),
        depth: z.number().int().min(1).max(MAX_IMPACT_DEPTH).default(3).describe('steps: 1 will break, 2 likely, 3+ maybe'),
        min_confidence: z.number().min(0).max(1).optional().describe('lowest call confidence followed (default 0.5)'),
        limit: limitArg(50).describe('max symbols per depth, 0 = all'),
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        target: record('{kind: file|symbol, path, ...}'),
        index: indexInfo,
        direction: z.string(),
        depth: z.number(),
        min_confidence: z.number(),
        summary: record('{level LOW|MEDIUM|HIGH, reasons, affected, files, tests, communities, flows}'),
        by_depth: z.array(record('{depth, label, total, symbols: [{id, qualified_name, path, depth, direction, via, confidence, reason}]}')),
        files: z.array(record('{path, depth, direction}')),
        tests: z.array(z.string()),
        communities: z.array(record('{id, label, symbols}')),
        flows: z.array(record('{id, label, kind, entry, steps, step}')),
        hidden_coupling: z.array(record('{path, shared, degree, confidence}')),
        history: record('{last_change, revisions, owners, risk, risk_score}'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await impact({ reader, target: args.target, direction: args.direction, depth: args.depth, minConfidence: args.min_confidence, limit: args.limit })
        return { lines: [...impactLines(r), indexLine(r.index)], data: { repo: reader.repo, ...r } }
      }),
  )
}
