import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { snapshotDetail } from '../../services/trajectory.js'
import { detailLines } from '../../views/trajectory.js'
import type { ServerContext } from '../context.js'
import { repoArg } from '../schemas.js'
import { snapshotItem } from './trajectory.js'

export function registerSnapshotTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'snapshot',
    {
      title: 'One trajectory snapshot',
      description: "One recorded snapshot (id from trajectory): its record and its diff against the snapshot before.",
      inputSchema: { id: z.string().min(4).max(40).describe('snapshot id or prefix'), repo: repoArg },
      outputSchema: { repo: z.string(), snapshot: snapshotItem, diff: z.string(), truncated: z.boolean() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answerRoot(args.repo, async (root) => {
        const d = await snapshotDetail(root, args.id)
        return { lines: detailLines(d), data: d }
      }),
  )
}
