import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { catchup, renderCatchup } from '../../services/catchup.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import { commitRef, indexInfo, limitArg, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerCatchupTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'catchup',
    {
      title: 'What changed since a date',
      description:
        'What changed since a date: commits grouped by PR, merges, bots and formatting sweeps reduced to counts. Call it at the start of a session or after time away.',
      inputSchema: {
        since: z.string().describe('ISO date (2025-01-31) or relative: "7 days ago", "2 weeks ago", "3d", "yesterday"'),
        limit: limitArg(50),
        offset: offsetArg,
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        since: z.string(),
        index: indexInfo,
        total: z.number(),
        by_category: z.record(z.string(), z.number()),
        pull_requests: z.array(record('{number, title, url, last_activity, commits: [commit], other_commits}')),
        commits: z.array(commitRef).describe('commits in no PR'),
        reduced: record('{merge, bot, formatting}: counted, not listed'),
        shown: z.number(),
        truncated: z.boolean(),
        more_pull_requests: z.number(),
        newest_indexed: z.string().nullable(),
        note: z.string().nullable().describe('index older than since'),
        page: pageInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await catchup({ reader, since: args.since, limit: args.limit })
        return listAnswer({ repo: reader.repo, ...r }, ['pull_requests', 'commits'], (d) => [...renderCatchup(d), indexLine(d.index)])
      }, args.offset),
  )
}
