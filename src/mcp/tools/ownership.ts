import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { ownership } from '../../services/analytics.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import { indexInfo, limitArg, pagedLimit, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerOwnershipTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'ownership',
    {
      title: 'Who owns this',
      description: 'Authors by share of the lines they wrote as they are now (blame), and the bus factor, for a file, directory or symbol. Call it to find who to ask or review, e.g. "who knows src/auth/ best?".',
      inputSchema: { target: z.string().describe('file, directory or symbol'), limit: limitArg(10), offset: offsetArg, repo: repoArg },
      outputSchema: {
        repo: z.string(),
        target: record('{kind: file|directory|symbol, path, ...}'),
        index: indexInfo,
        lines: z.number(),
        owners: z.array(record('{name, email, emails, lines, share, last_active}')),
        bus_factor: z.number().describe('fewest authors owning over half the lines'),
        page: pageInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await ownership({ reader, target: args.target, limit: pagedLimit(args) })
        const t = r.target
        return listAnswer({ repo: reader.repo, ...r }, ['owners'], (d) =>
          [
            `${t.kind === 'symbol' ? `${t.qualified_name} (${t.path})` : t.path || '.'}: ${d.lines} lines, bus factor ${d.bus_factor}`,
            ...d.owners.map((o) => `- ${o.name} <${o.email}> ${(o.share * 100).toFixed(1)} % (${o.lines} lines)${o.last_active ? `, last commit ${o.last_active.slice(0, 10)}` : ''}`),
            indexLine(d.index),
          ],
        )
      }, args.offset),
  )
}
