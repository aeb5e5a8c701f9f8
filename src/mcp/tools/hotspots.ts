import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { hotspots, type ActivityItem } from '../../services/analytics.js'
import { indexInfo, limitArg, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../server.js'
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
        limit: limitArg(10),
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        index: indexInfo,
        as_of: z.string(),
        formula: z.string(),
        files: z.array(record('{path, score, percentile, revisions, recent_revisions, churn, authors, last_change}')),
        symbols: z.array(record('same, plus qualified_name, kind, start_line')),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await hotspots({ reader, path: args.path, level: args.level, limit: args.limit, allFiles: args.all_files })
        const lines = [
          ...(r.files.length ? ['files:', ...r.files.map((i) => `- ${line(i)}`)] : []),
          ...(r.symbols.length ? ['symbols:', ...r.symbols.map((i) => `- ${line(i)}`)] : []),
          `as of ${r.as_of.slice(0, 10)}; ${r.formula}`,
          indexLine(r.index),
        ]
        return { lines, data: { repo: reader.repo, ...r } }
      }),
  )
}
