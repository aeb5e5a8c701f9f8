import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { decisionsFor, governingLines } from '../../services/decisions.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import { indexInfo, limitArg, pagedLimit, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export const governingDecision = record('{id, kind, title, statement, rationale, status: active|stale, confidence, via: symbol|contains|file|directory|community, applies_to, evidence, stale_commits, violations}')

export function registerDecisionsForTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'decisions_for',
    {
      title: 'Decisions and constraints governing code',
      description:
        'The recorded decisions, constraints and conventions that govern a file, directory or symbol (directly, through a containing directory or symbol, or its community), each verified against HEAD: stale ones (their code was rewritten since) flagged with the commits, checkable constraints with their violations. Call before editing, and respect what it says.',
      inputSchema: {
        target: z.string().min(1).max(1000).describe('path, dir/, symbol or path:Symbol'),
        limit: limitArg(20),
        offset: offsetArg,
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        target: record('{path, kind, qualified_name}'),
        decisions: z.array(governingDecision),
        total: z.number(),
        index: indexInfo,
        page: pageInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(
        args.repo,
        async (reader) => {
          const r = await decisionsFor({ reader, target: args.target, limit: pagedLimit(args) })
          return listAnswer({ repo: reader.repo, ...r }, ['decisions'], (d) => [
            d.total === 0 ? `no active decision governs ${d.target.path || '.'}` : `${d.total} decisions govern ${d.target.qualified_name ? `${d.target.path}:${d.target.qualified_name}` : d.target.path || '.'}:`,
            ...governingLines(d.decisions),
            indexLine(d.index),
          ])
        },
        args.offset,
      ),
  )
}
