import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { renderEvidence } from '../../render.js'
import { pickaxe } from '../../services/pickaxe.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import { indexInfo, limitArg, pagedLimit, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerPickaxeTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'pickaxe',
    {
      title: 'Search the history',
      description:
        'Commits that added or removed a string (git log -S), changed a line matching a regex (-G) or whose message matches (--grep), newest first. E.g. "when was retryDelay introduced?".',
      inputSchema: {
        pattern: z.string().describe('string or regex'),
        mode: z.enum(['string', 'regex', 'message']).default('string').describe('string: -S; regex: -G (RE2); message: --grep'),
        ignore_case: z.boolean().optional().describe('ignore case'),
        path: z.string().optional().describe('file or directory'),
        limit: limitArg(20),
        offset: offsetArg,
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        query: record('{pattern, mode, regex, path}'),
        index: indexInfo,
        commits: z.array(record('evidence item + files (whose diff matched)')),
        total: z.number(),
        truncated: z.boolean(),
        page: pageInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await pickaxe({ reader, pattern: args.pattern, mode: args.mode, ignoreCase: args.ignore_case, path: args.path, limit: pagedLimit(args) })
        return listAnswer({ repo: reader.repo, ...r }, ['commits'], (d) => [
          `${d.total} commits (${d.query.mode} ${JSON.stringify(d.query.pattern)}${d.query.path ? ` in ${d.query.path}` : ''})${d.truncated ? ', history cut' : ''}`,
          ...renderEvidence(d.commits, d.total, 'limit: 0 for all').map((l) => `  ${l}`),
          indexLine(d.index),
        ])
      }, args.offset),
  )
}
