import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { ownership } from '../../services/analytics.js'
import { indexInfo, limitArg, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../server.js'
import { indexLine } from '../text.js'

export function registerOwnershipTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'ownership',
    {
      title: 'Who owns this',
      description: 'Authors by share of the lines they wrote as they are now (blame), and the bus factor, for a file, directory or symbol. Call it to find who to ask or review, e.g. "who knows src/auth/ best?".',
      inputSchema: { target: z.string().describe('file, directory or symbol'), limit: limitArg(10), repo: repoArg },
      outputSchema: {
        repo: z.string(),
        target: record('{kind: file|directory|symbol, path, ...}'),
        index: indexInfo,
        lines: z.number(),
        owners: z.array(record('{name, email, lines, share, last_active}')),
        bus_factor: z.number().describe('fewest authors owning over half the lines'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await ownership({ reader, target: args.target, limit: args.limit })
        const t = r.target
        const lines = [
          `${t.kind === 'symbol' ? `${t.qualified_name} (${t.path})` : t.path || '.'}: ${r.lines} lines, bus factor ${r.bus_factor}`,
          ...r.owners.map((o) => `- ${o.name} <${o.email}> ${(o.share * 100).toFixed(1)} % (${o.lines} lines)${o.last_active ? `, last commit ${o.last_active.slice(0, 10)}` : ''}`),
          indexLine(r.index),
        ]
        return { lines, data: { repo: reader.repo, ...r } }
      }),
  )
}
