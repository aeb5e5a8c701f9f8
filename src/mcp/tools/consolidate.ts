import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { consolidate } from '../../services/trajectory.js'
import { snapshotLine } from '../../views/trajectory.js'
import type { ServerContext } from '../context.js'
import { repoArg } from '../schemas.js'
import { snapshotItem } from './trajectory.js'

export function registerConsolidateTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'consolidate',
    {
      title: 'Consolidate the trajectory',
      description: 'Write a [CONSOLIDATE] checkpoint summing up the work so far (what is pending is snapshotted with it); trajectory answers can then start there (since_consolidate).',
      inputSchema: { summary: z.string().min(1).max(2000).describe('what the work so far did'), repo: repoArg },
      outputSchema: { repo: z.string(), checkpoint: snapshotItem },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async (args) =>
      ctx.answerRoot(args.repo, async (root) => {
        const r = await consolidate(root, args.summary)
        return { lines: [snapshotLine(r.checkpoint)], data: r }
      }),
  )
}
