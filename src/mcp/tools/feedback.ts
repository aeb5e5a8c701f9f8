import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { feedbackLines, giveFeedback } from '../../services/feedback.js'
import type { ServerContext } from '../context.js'
import { record, repoArg } from '../schemas.js'

export function registerFeedbackTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'feedback',
    {
      title: 'Rate an answer',
      description:
        'Say whether a why answer helped: up or down on its answer_id. Later answers about the same or overlapping code, or a similar question, rank the commits it cited higher (up) or lower (down), and say so in their reasons.',
      inputSchema: {
        answer_id: z.string().max(100).describe('the answer_id of a why answer'),
        vote: z.enum(['up', 'down']).describe('up: it helped; down: it did not'),
        note: z.string().max(2000).optional().describe('what was right or wrong'),
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        answer_id: z.string(),
        vote: z.string(),
        note: z.string().nullable(),
        answer: record('{kind, target, cited}'),
        votes: record('{up, down}: on this answer, this vote included'),
        recorded_at: z.string(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await giveFeedback({ repo: reader.repo, id: args.answer_id, vote: args.vote, note: args.note })
        return { lines: feedbackLines(r), data: { repo: reader.repo, ...r } }
      }),
  )
}
