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
      title: 'What an uncommitted change touches',
      description:
        'Maps a diff to the code graph: changed symbols (by line ranges at the indexed HEAD), their callers outside the change (may break), tests among them, communities, risk, and co-changed files missing from the change. Default: all uncommitted changes. Call it before committing.',
      inputSchema: {
        scope: z.enum(['worktree', 'staged', 'base']).default('worktree').describe('worktree: all uncommitted; staged; base: HEAD since base'),
        base: z.string().optional().describe('ref for scope base (default origin/HEAD, main or master)'),
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
        owners_to_ask: z.array(record('{name, email, lines, files}')),
        summary: record('{files, high, medium, low, new_files, symbols, callers}'),
        page: pageInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await contextForPr({ reader, staged: args.scope === 'staged', worktree: args.scope === 'worktree', base: args.scope === 'base' ? args.base : undefined, limit: args.limit })
        return listAnswer({ repo: reader.repo, ...r }, ['files', 'callers', 'missing_co_changes'], (d) => [...detectChangesLines(d), indexLine(r.index)])
      }, args.offset),
  )
}
