import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { ServerContext } from '../context.js'
import { answerTimeline, pageArgs, timelineOutput } from './trajectory.js'

export function registerGlobalTrajectoryTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'global_trajectory',
    {
      title: 'Edit trajectory of the repository',
      description: 'Every recorded uncommitted snapshot of the repository, newest first (optionally since the last consolidate checkpoint or in one session).',
      inputSchema: {
        since_consolidate: z.boolean().optional().describe('only since the last checkpoint'),
        session: z.string().min(1).max(100).optional().describe('session id'),
        ...pageArgs,
      },
      outputSchema: timelineOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => answerTimeline(ctx, args, { sinceConsolidate: args.since_consolidate, session: args.session }),
  )
}
