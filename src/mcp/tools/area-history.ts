import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { renderEvidence } from '../../render.js'
import { history } from '../../services/history.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import { evidenceItem, indexInfo, limitArg, pagedLimit, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerAreaHistoryTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'area_history',
    {
      title: 'History of a file or directory',
      description:
        'Every commit that touched a file (following its renames, like git log --follow) or anything under a directory, newest first, with PRs and issues. Call it to learn how an area evolved or who worked on it, e.g. "what happened to src/auth/ lately?".',
      inputSchema: {
        path: z.string().describe('file or directory path, relative to the repo root ("." for everything)'),
        limit: limitArg(20),
        offset: offsetArg,
        include_renames: z.boolean().default(true).describe('follow a file through its earlier names (default true)'),
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        target: z.object({ path: z.string(), kind: z.enum(['file', 'directory']), follow_renames: z.boolean() }),
        index: indexInfo,
        evidence: z.array(evidenceItem),
        total: z.number().describe('commits before the limit'),
        truncated: z.boolean().describe('history cut (shallow clone or --max-commits)'),
        page: pageInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await history({ reader, path: args.path, limit: pagedLimit(args), followRenames: args.include_renames })
        return listAnswer({ repo: reader.repo, ...r }, ['evidence'], (d) =>
            [
              `${d.target.kind} ${d.target.path}: ${d.total} commits${d.truncated ? ' (history cut: older commits missing)' : ''}`,
              ...renderEvidence(d.evidence, d.total, 'limit: 0 for all').map((l) => `  ${l}`),
              indexLine(d.index),
            ],
        )
      }, args.offset),
  )
}
