import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { related } from '../../services/analytics.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import { indexInfo, limitArg, pagedLimit, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerRelatedTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'related',
    {
      title: 'What changes with it',
      description:
        'Files or symbols that usually change in the same commits as this one, with how often and example commits. Call it after an edit to find what else may need changing, e.g. "what usually changes with src/router.ts?".',
      inputSchema: { target: z.string().describe('file path or symbol (Class.method, path:Name)'), limit: limitArg(10), offset: offsetArg, repo: repoArg },
      outputSchema: {
        repo: z.string(),
        target: record('{kind: file|symbol, path, ...}'),
        index: indexInfo,
        related: z.array(record('{key, path, qualified_name?, shared, degree, confidence, reverse_confidence, support, examples: commits}')),
        page: pageInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await related({ reader, target: args.target, limit: pagedLimit(args) })
        const t = r.target
        const name = t.kind === 'symbol' ? t.qualified_name : t.path
        return listAnswer({ repo: reader.repo, ...r }, ['related'], (d) => {
          const lines = d.related.map(
            (x) => `${x.qualified_name ? `${x.qualified_name} (${x.path})` : x.path}: ${x.shared} shared commits, ${(x.confidence * 100).toFixed(0)} % of ${name}'s changes, ${(x.reverse_confidence * 100).toFixed(0)} % of its own, e.g. ${x.examples.map((c) => `${c.short} ${c.subject}`).join('; ')}`,
          )
          return [`${name}: ${lines.length ? 'usually changes with' : 'no co-change above the thresholds'}`, ...lines.map((l) => `- ${l}`), indexLine(d.index)]
        })
      }, args.offset),
  )
}
