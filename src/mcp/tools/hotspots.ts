import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { hotspots, type ActivityItem } from '../../services/analytics.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import { indexInfo, limitArg, pagedLimit, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

const line = (i: ActivityItem) => `${i.qualified_name ? `${i.qualified_name} (${i.path})` : i.path}: ${i.recent_revisions} recent, ${i.revisions} total, ${i.authors} authors`

export function registerHotspotsTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'hotspots',
    {
      title: 'Where change concentrates',
      description: 'Files and symbols ranked by recent × total activity (merges, bots, formatting excluded). Call it to find the busiest, most bug-prone areas, e.g. "what are the hotspots under src/server?".',
      inputSchema: {
        path: z.string().optional().describe('only under this file or directory'),
        level: z.enum(['file', 'symbol', 'both']).default('both').describe('files, symbols or both'),
        all_files: z.boolean().default(false).describe('include non-source files (lockfiles, CI configs)'),
        include_tests: z.boolean().default(false).describe('include test files and their symbols'),
        limit: limitArg(10),
        offset: offsetArg,
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        index: indexInfo,
        as_of: z.string(),
        formula: z.string(),
        files: z.array(record('{path, score, percentile, revisions, recent_revisions, churn, authors, last_change}')),
        symbols: z.array(record('same, plus qualified_name, kind, start_line')),
        page: pageInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await hotspots({ reader, path: args.path, level: args.level, limit: pagedLimit(args), allFiles: args.all_files, includeTests: args.include_tests })
        return listAnswer({ repo: reader.repo, ...r }, ['files', 'symbols'], (d) =>
          [
            ...(d.files.length ? ['files:', ...d.files.map((i) => `- ${line(i)}`)] : []),
            ...(d.symbols.length ? ['symbols:', ...d.symbols.map((i) => `- ${line(i)}`)] : []),
            `as of ${d.as_of.slice(0, 10)}; ${d.formula}`,
            indexLine(d.index),
          ],
        )
      }, args.offset),
  )
}
