import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { renderEvidence } from '../../render.js'
import { pickaxe } from '../../services/pickaxe.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import { evidenceItem, indexInfo, limitArg, pagedLimit, repoArg } from '../schemas.js'
import type { ServerContext } from '../server.js'
import { indexLine } from '../text.js'

export function registerPickaxeTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'pickaxe',
    {
      title: 'Search the history',
      description:
        'Commits that added or removed a string (like git log -S), changed lines matching a regex (git log -G), or whose message matches (git log --grep), newest first. Call it to find when something appeared or went away, e.g. "when was retryDelay introduced?".',
      inputSchema: {
        pattern: z.string().describe('the string (or regex with mode regex, or message + regex)'),
        mode: z.enum(['string', 'regex', 'message']).default('string').describe('string: occurrence count changed; regex: a changed line matches (RE2); message: commit messages'),
        regex: z.boolean().optional().describe('message mode: pattern is a regex'),
        ignore_case: z.boolean().optional(),
        path: z.string().optional().describe('limit to a file or directory'),
        limit: limitArg(20),
        offset: offsetArg,
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        query: z.record(z.string(), z.unknown()).describe('{pattern, mode, regex, path}'),
        index: indexInfo,
        commits: z.array(evidenceItem.extend({ files: z.array(z.string()).describe('files whose diff matched') })),
        total: z.number(),
        truncated: z.boolean(),
        page: pageInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await pickaxe({ reader, pattern: args.pattern, mode: args.mode, regex: args.regex, ignoreCase: args.ignore_case, path: args.path, limit: pagedLimit(args) })
        return listAnswer({ repo: reader.repo, ...r }, ['commits'], (d) => [
          `${d.total} commits (${d.query.mode} ${JSON.stringify(d.query.pattern)}${d.query.path ? ` in ${d.query.path}` : ''})${d.truncated ? ', history cut' : ''}`,
          ...renderEvidence(d.commits, d.total, 'limit: 0 for all').map((l) => `  ${l}`),
          indexLine(d.index),
        ])
      }, args.offset),
  )
}
