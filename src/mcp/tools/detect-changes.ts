import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { contextForPr, detectChangesLines } from '../../services/context-for-pr.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import { indexInfo, limitArg, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerDetectChangesTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'detect_changes',
    {
      title: 'What a change touches',
      description:
        'Maps a change to the code graph and history: per file risk, owners, changed symbols, last PRs; callers outside the change (may break), tests, communities, missing co-changed files, owners to ask. Uncommitted changes by default; scope base for a branch or PR; or files.',
      inputSchema: {
        scope: z.enum(['worktree', 'staged', 'base']).default('worktree').describe('worktree (all uncommitted), staged, or base (base...head)'),
        base: z.string().optional().describe('target branch (default origin/HEAD, main or master)'),
        head: z.string().optional().describe('the change (default HEAD)'),
        files: z.array(z.string().max(4096)).max(10_000).optional().describe('changed files instead of a diff'),
        limit: limitArg(20).describe('max callers and missing files, 0 = all'),
        offset: offsetArg,
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        mode: z.string(),
        base: z.string().nullable(),
        head: z.string().nullable(),
        merge_base: z.string().nullable(),
        index: indexInfo,
        files: z.array(record('{path, status, old_path, indexed, risk, owners, symbols (riskiest 10), more_symbols, last_prs}')),
        callers: z.array(record('{id, qualified_name, kind, path, start_line, calls, lines, confidence}')),
        tests: z.array(z.string()),
        communities: z.array(record('{id, label, symbols}')),
        missing_co_changes: z.array(record('{path, usually_with, degree, shared, confidence}')),
        owners_to_ask: z.array(record('{name, email, lines, files, last_active}')),
        summary: record('{files, high, medium, low, new_files, symbols, callers}'),
        decisions: record('{decisions governing the change, violations its added lines make}'),
        page: pageInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const files = args.files?.length ? args.files : undefined
        const range = !files && args.scope === 'base'
        const r = await contextForPr({ reader, files, staged: !files && args.scope === 'staged', worktree: !files && args.scope === 'worktree', base: range ? args.base : undefined, head: range ? args.head : undefined, limit: args.limit })
        return listAnswer({ repo: reader.repo, ...r }, ['files', 'callers', 'missing_co_changes'], (d) => [...detectChangesLines(d), indexLine(r.index)])
      }, args.offset),
  )
}
