import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { UserError } from '../../errors.js'
import { renderEvidence } from '../../render.js'
import { evidence } from '../../services/evidence.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import { evidenceItem, indexInfo, limitArg, pagedLimit, repoArg, trajectoryItems } from '../schemas.js'
import { trajectoryAppendix } from '../../views/trajectory.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerEvidenceForTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'evidence_for',
    {
      title: 'Why do these lines exist',
      description:
        'Which commits, PRs and issues made some lines or a symbol what they are: the commits owning the lines now (blame) and the earlier ones that changed them (line history), newest first. Call it before editing code whose purpose is unclear, e.g. "why does retry() sleep 250 ms?". Give a path (and lines) or a qualified_name.',
      inputSchema: {
        path: z.string().optional().describe('file path, relative to the repo root; may end in :START-END instead of line_start/line_end'),
        line_start: z.number().int().min(1).max(10_000_000).optional().describe('first line (1-based); default 1'),
        line_end: z.number().int().min(1).max(10_000_000).optional().describe('last line; default line_start, or the end of the file'),
        qualified_name: z.string().optional().describe('symbol instead of lines: Class.method, a name, or path:Name'),
        patch: z.boolean().optional().describe("true: each commit's hunks for the range, as git log -L"),
        limit: limitArg(20),
        offset: offsetArg,
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        target: z.object({
          path: z.string(),
          line_start: z.number(),
          line_end: z.number(),
          symbol: z.object({ qualified_name: z.string(), kind: z.string() }).nullable(),
        }),
        index: indexInfo,
        evidence: z.array(evidenceItem),
        total: z.number().describe('items before the limit'),
        undecided: z.object({ lines: z.number(), reason: z.string() }).nullable(),
        page: pageInfo,
        clamped: z.object({ requested_line_end: z.number(), note: z.string() }).nullable().describe('set when the range went past the end of the file and was cut there, as git blame -L does'),
        trajectory: trajectoryItems,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        if (!args.path && !args.qualified_name) throw new UserError('nothing to explain', 'pass path (with optional line_start/line_end) or qualified_name', 'bad_arguments')
        const symbol = args.qualified_name ? (args.path ? `${args.path}:${args.qualified_name}` : args.qualified_name) : undefined
        const lineEnd = args.line_end ?? args.line_start
        const r = await evidence({ reader, symbol, path: symbol ? undefined : args.path, lineStart: args.line_start, lineEnd, limit: pagedLimit(args), patch: args.patch })
        const t = r.target
        return listAnswer({ repo: reader.repo, ...r }, ['evidence'], (d) =>
            [
              `${t.path}:${t.line_start}-${t.line_end}${t.symbol ? ` (${t.symbol.kind} ${t.symbol.qualified_name})` : ''}: ${d.total} commits`,
              ...renderEvidence(d.evidence, d.total, 'limit: 0 for all').map((l) => `  ${l}`),
              ...(d.clamped ? [`  note: ${d.clamped.note}`] : []),
              ...(d.undecided ? [`  ${d.undecided.lines} lines undecided: ${d.undecided.reason}`] : []),
              ...trajectoryAppendix(d.trajectory ?? []).map((l) => `  ${l}`),
              indexLine(d.index),
            ],
        )
      }, args.offset),
  )
}
