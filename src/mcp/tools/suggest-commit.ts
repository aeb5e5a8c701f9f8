import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { suggestCommit, suggestCommitLines } from '../../services/suggest-commit.js'
import type { ServerContext } from '../context.js'
import { indexInfo, record, repoArg } from '../schemas.js'
import { indexLine } from '../text.js'

export function registerSuggestCommitTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'suggest_commit_message',
    {
      title: 'Suggest a commit message',
      description:
        'A conventional-commit message for the staged change: type from the change (tests, docs, CI, deps, new exported API) and from how earlier commits to the same code were labelled (decided_by says which), scope from the community or folder, subject naming the changed symbols, body listing them per file.',
      inputSchema: {
        scope: z.enum(['staged', 'worktree']).default('staged').describe('staged (what git commit records) or worktree (every uncommitted change)'),
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        mode: z.string(),
        message: z.string(),
        subject: z.string(),
        body: z.string(),
        type: z.string(),
        scope: z.string().nullable(),
        decided_by: z.string().describe('change, history or change+history'),
        reasons: z.array(z.string()),
        change: record('{type, reason}'),
        history: record('{commits, labelled, types, majority, examples}'),
        scope_from: z.string().nullable(),
        files: z.array(record('{path, status, old_path, kind, mapped, added, changed, removed, exported, dependencies}')),
        writer: z.string(),
        llm: record('{provider, model, cached} | {declined}').nullable(),
        index: indexInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await suggestCommit({ reader, staged: args.scope === 'staged', worktree: args.scope === 'worktree' })
        const { message, notes } = suggestCommitLines(r)
        return { lines: [...message, '', ...notes, indexLine(r.index)], data: { repo: reader.repo, ...r } }
      }),
  )
}
