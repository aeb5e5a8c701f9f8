import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { landedIn, timeline, type LandedLookup, type TimelineOptions } from '../../services/trajectory.js'
import { timelineLines } from '../../views/trajectory.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import type { ServerContext } from '../context.js'
import { limitArg, pagedLimit, record, repoArg } from '../schemas.js'

export const snapshotItem = record('{id, kind: auto|baseline|consolidate, time, session, intent, summary, files: [{path, status, added, removed, before, after, ranges}], symbols: [{id, qualified_name, added, removed}], reverts: [id], reverted_by: [id], landed_in?: sha|null}')

/** What trajectory and global_trajectory answer: a page of the timeline. */
export const timelineOutput = { repo: z.string(), target: z.string().nullable(), since_consolidate: z.string().nullable(), snapshots: z.array(snapshotItem), total: z.number(), page: pageInfo }

export const pageArgs = { limit: limitArg(20), offset: offsetArg, repo: repoArg }

export function answerTimeline(ctx: ServerContext, args: { limit: number; offset?: number; repo?: string }, options: TimelineOptions): Promise<CallToolResult> {
  // the index, when there is one, says which snapshots landed in a commit
  const landed: LandedLookup = (ids) => ctx.pool.use(args.repo, (reader) => landedIn(reader)(ids))
  return ctx.answerRoot(args.repo, async (root) => listAnswer(await timeline(root, { ...options, limit: pagedLimit(args) }, landed), ['snapshots'], timelineLines), args.offset)
}

export function registerTrajectoryTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'trajectory',
    {
      title: 'Edit trajectory of a path or symbol',
      description: 'Uncommitted edits recorded by the trajectory recorder for a file, directory or symbol, newest first: time, intent, summary, and which snapshots undid which (tried, then undone).',
      inputSchema: {
        target: z.string().min(1).max(1000).describe('path, directory, path:Name or qualified name'),
        since_consolidate: z.boolean().optional().describe('only since the last checkpoint'),
        ...pageArgs,
      },
      outputSchema: timelineOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => answerTimeline(ctx, args, { target: args.target, sinceConsolidate: args.since_consolidate }),
  )
}
