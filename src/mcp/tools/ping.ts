import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { indexInfo, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerPingTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'ping',
    {
      title: 'Index status',
      description: 'Is the index there and fresh: indexed HEAD, commits behind the working HEAD, counts. Call it when answers look outdated.',
      inputSchema: { repo: repoArg },
      outputSchema: {
        repo: z.string(),
        version: z.string().describe('gitwhy version'),
        index: indexInfo,
        built_at: z.string(),
        counts: z.record(z.string(), z.number()),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const index = await reader.indexInfo()
        const counts = reader.meta.counts
        const lines = [`${reader.repo}: ${indexLine(index)}, built ${reader.meta.createdAt}`, Object.entries(counts).map(([k, v]) => `${v} ${k.replace(/_/g, ' ')}`).join(' · ')]
        return { lines, data: { repo: reader.repo, version: ctx.version, index, built_at: reader.meta.createdAt, counts } }
      }),
  )
}
