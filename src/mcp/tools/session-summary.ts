import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { sessionSummary } from '../../services/trajectory.js'
import { summaryLines } from '../../views/trajectory.js'
import type { ServerContext } from '../context.js'
import { record, repoArg } from '../schemas.js'

export function registerSessionSummaryTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'session_summary',
    {
      title: 'Trajectory session summary',
      description: 'One recorded edit session (default: the newest): files and symbols touched, intents, reverts (tried, then undone), checkpoints, net diff.',
      inputSchema: { session: z.string().min(1).max(100).optional().describe('session id'), repo: repoArg },
      outputSchema: {
        repo: z.string(),
        session: z.string(),
        first: z.string(),
        last: z.string(),
        snapshots: z.number(),
        intents: z.array(z.string()),
        files: z.array(record('{path, snapshots, added, removed}')),
        symbols: z.array(record('{id, qualified_name, snapshots}')),
        reverts: z.array(record('{snapshot, undid: [id], summary}')),
        checkpoints: z.array(record('{id, summary}')),
        net: record('{files, added, removed}'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answerRoot(args.repo, async (root) => {
        const s = await sessionSummary(root, args.session)
        return { lines: summaryLines(s), data: s }
      }),
  )
}
