import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { query, queryLines } from '../../services/query.js'
import { indexInfo, limitArg, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerQueryTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'query',
    {
      title: 'Find code by words',
      description:
        'Full-text search (BM25) over symbol names split into words (camelCase, snake_case), signatures, doc comments and paths; hits grouped by community. Call it to find where something is implemented when you do not know the name.',
      inputSchema: {
        text: z.string().max(1000).describe('words, e.g. "parse url" or an identifier'),
        limit: limitArg(20),
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        query: z.string(),
        words: z.string(),
        index: indexInfo,
        groups: z.array(record('{kind: community, id, label, score, hits: [{id, qualified_name, kind, path, start_line, signature, exported, score}]}')),
        total: z.number(),
        truncated: z.number(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await query({ reader, text: args.text, limit: args.limit })
        return { lines: [...queryLines(r), indexLine(r.index)], data: { repo: reader.repo, ...r } }
      }),
  )
}
