import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { UserError } from '../../errors.js'
import { setIntent } from '../../services/trajectory.js'
import type { ServerContext } from '../context.js'
import { record, repoArg } from '../schemas.js'

export function registerSetIntentTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'set_intent',
    {
      title: 'Set the edit intent',
      description: 'Say what the coming edits are for; every following trajectory snapshot is stamped with it until changed or cleared (it survives restarts).',
      inputSchema: { intent: z.string().max(500).optional().describe('one sentence, e.g. "fix the login timeout"'), clear: z.boolean().optional().describe('clear it instead'), repo: repoArg },
      outputSchema: { repo: z.string(), intent: record('{text, set_at}').nullable() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answerRoot(args.repo, async (root) => {
        if (args.clear === true && args.intent !== undefined) throw new UserError('pass intent or clear, not both', 'intent: "…" sets it, clear: true clears it', 'bad_option')
        if (args.clear !== true && args.intent === undefined) throw new UserError('no intent given', 'pass intent: "what the edits are for", or clear: true', 'bad_option')
        const r = await setIntent(root, args.clear === true ? null : args.intent!)
        return { lines: [r.intent ? `intent: "${r.intent.text}" (stamps every following snapshot)` : 'intent cleared'], data: r }
      }),
  )
}
