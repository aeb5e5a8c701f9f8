import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { rename, renameLines } from '../../services/rename.js'
import { indexInfo, limitArg, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

/**
 * Plan only: the server stays read-only (every tool is readOnlyHint), so the agent applies the
 * edits with its own editing tools, under its client's approval, or a person runs
 * `gitwhy rename --apply`.
 */
export function registerRenameTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'rename',
    {
      title: 'Plan a rename from the code graph',
      description:
        'Plan for renaming a symbol: edits {path, line, column, old, new} at its definition and every reference the graph resolves (calls, imports, re-exports, subclasses), and text hits the graph does not explain, to review. Writes nothing: apply the edits yourself.',
      inputSchema: {
        target: z.string().describe('symbol (Class.method, path:Name)'),
        new_name: z.string().max(200).describe('new identifier'),
        min_confidence: z.number().min(0).max(1).optional().describe('lowest call confidence edited (default 0.5)'),
        limit: limitArg(50).describe('max review hits, 0 = all'),
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        target: record('{kind: symbol, id, qualified_name, path, ...}'),
        index: indexInfo,
        old_name: z.string(),
        new_name: z.string(),
        min_confidence: z.number(),
        edits: z.array(record('{path, line, column (1-based, UTF-16), old, new, source}')),
        review: z.array(record('{path, line, column, text, why: text|low-confidence}')),
        truncated: record('{review}'),
        summary: record('{files, edits, review}'),
        applied: z.boolean(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await rename({ reader, target: args.target, newName: args.new_name, minConfidence: args.min_confidence, limit: args.limit })
        return { lines: [...renameLines(r).slice(0, -1), 'nothing written: apply these edits with your editing tools', indexLine(r.index)], data: { repo: reader.repo, ...r } }
      }),
  )
}
