import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { recorderStatus, startRecorder, stopRecorder } from '../../services/trajectory.js'
import { statusLines } from '../../views/trajectory.js'
import type { ServerContext } from '../context.js'
import { record, repoArg } from '../schemas.js'

export function registerTrajectoryRecorderTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'trajectory_recorder',
    {
      title: 'Start, stop or check the trajectory recorder',
      description: "The background recorder of this repository's edits (one per repository; it outlives this server until stopped): start, stop, or status (running, intent, snapshots).",
      inputSchema: {
        action: z.enum(['start', 'stop', 'status']).describe('what to do'),
        debounce_ms: z.number().int().min(50).max(600_000).optional().describe('quiet period before a snapshot (start; default 2000)'),
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        running: z.boolean(),
        pid: z.number().nullable(),
        started: z.boolean().optional(),
        stopped: z.boolean().optional(),
        intent: record('{text, set_at}').nullable(),
        snapshots: z.number(),
        sessions: z.number(),
        last_snapshot: record('{id, time, summary}').nullable(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answerRoot(args.repo, async (root) => {
        const r = args.action === 'start' ? await startRecorder(root, { debounceMs: args.debounce_ms }) : args.action === 'stop' ? await stopRecorder(root) : recorderStatus(root)
        const head = 'started' in r ? (r.started ? 'recorder started' : 'already running') : 'stopped' in r ? (r.stopped ? 'recorder stopped' : 'no recorder was running') : null
        return { lines: [...(head ? [head] : []), ...statusLines(r)], data: r }
      }),
  )
}
