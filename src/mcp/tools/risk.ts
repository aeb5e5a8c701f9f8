import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { askList, risk } from '../../services/risk.js'
import { indexInfo, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerRiskTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'risk',
    {
      title: 'Is this risky to touch',
      description:
        'LOW/MEDIUM/HIGH risk of changing a file or symbol, with reasons (bus factor, inactive owner, hotspot, co-change breadth) and who to ask. Call it before a non-trivial edit, e.g. "is it safe to refactor Router.route?".',
      inputSchema: { target: z.string().describe('file path or symbol (Class.method, path:Name)'), repo: repoArg },
      outputSchema: {
        repo: z.string(),
        target: record('{kind: file|symbol, path, ...}'),
        index: indexInfo,
        level: z.enum(['LOW', 'MEDIUM', 'HIGH']),
        score: z.number(),
        reasons: z.array(z.string()),
        factors: record('{ownership, hotspot, cochange} 0..1'),
        features: record('bus_factor, dominant_share, ghost, hotspot_percentile, cochange_breadth, ...'),
        contributors: z.array(record('{name, email, share, last_active}: the largest owners of its lines')),
        ask: z.array(record('{name, email, share, last_active}: who to ask, owners weighted by how recently they committed')),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await risk({ reader, target: args.target })
        const t = r.target
        const lines = [
          `${r.level} (${r.score.toFixed(2)}) ${t.kind === 'symbol' ? `${t.qualified_name} in ${t.path}` : t.path}`,
          ...r.reasons.map((x) => `- ${x}`),
          ...(r.ask.length ? [`ask: ${askList(r.ask)}`] : []),
          indexLine(r.index),
        ]
        return { lines, data: { repo: reader.repo, ...r } }
      }),
  )
}
