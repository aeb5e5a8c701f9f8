import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { SEARCH_MODES } from '../../services/search.js'
import { why, whyLines } from '../../services/why.js'
import { evidenceItem, indexInfo, limitArg, record, repoArg, trajectoryItems } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerWhyTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'why',
    {
      title: 'Why does this code exist',
      description:
        'An answer in the commits\' and PRs\' own words, every claim cited ([sha], [PR #N], [#N]), with a confidence (below 0.4: "not enough evidence", and the best evidence). target: path, path:START-END, symbol, or a question.',
      inputSchema: {
        target: z.string().min(1).max(1000).describe('path, path:START-END, symbol, or a question, e.g. "why are compiled routes cached?"'),
        mode: z.enum(SEARCH_MODES).optional().describe('how a question is searched: hybrid (default), bm25, vector'),
        limit: limitArg(10),
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        target: record('{path, line_start, line_end, symbol: {qualified_name, kind} | null}').nullable(),
        question: z.string().nullable(),
        search: record('{mode, answered, note}').nullable(),
        located: z.array(record('{kind, id, path, score}')),
        answer: record('{text, sentences: [{text, citations}], answerer}'),
        answer_id: z.string(),
        confidence: z.number(),
        enough_evidence: z.boolean(),
        confidence_factors: record('{message, agreement, match}'),
        citations: z.array(record('{ref, kind: commit|pr|issue, sha?, number?, subject}')).describe('best first'),
        evidence: z.array(evidenceItem),
        changes_with: z.array(record('{path, qualified_name, shared, example}')),
        decisions: z.array(record('{id, kind, title, statement, status, via, applies_to, stale_commits, violations}')).describe('governing decisions'),
        total: z.number(),
        index: indexInfo,
        trajectory: trajectoryItems,
        // `llm` (what a configured LLM did: WhyLlm in src/services/why-llm.ts) is present only when
        // one is configured; it is not declared here, where every session pays for each character of
        // tools/list (the schema allows keys beyond those declared)
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await why({ reader, text: args.target, mode: args.mode, limit: args.limit })
        return { lines: [...whyLines(r), ...(r.llm?.warning ? [`warning: ${r.llm.warning}`] : []), indexLine(r.index)], data: { repo: reader.repo, ...r } }
      }),
  )
}
