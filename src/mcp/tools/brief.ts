import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { brief, briefLines } from '../../services/brief.js'
import { indexInfo, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerBriefTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'rationale_brief',
    {
      title: 'Rationale card before editing',
      description:
        'Read before editing a symbol, file or range: purpose, why it exists (origin commit/PR), key changes (small commits folded into units), constraints, trade-offs, risk, owners, decisions, open questions (TODOs, reverts). Every line cited ([sha], [PR #N], [#N], [Ln-m]). Cached by evidence.',
      inputSchema: {
        target: z.string().min(1).max(1000).describe('symbol, path, or path:START-END'),
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        target: record('{path, line_start, line_end, symbol: {qualified_name, kind} | null}'),
        answer_id: z.string(),
        card: record('{format, fingerprint, cached, written_by, model, declined}'),
        sections: z.array(record('{id, title, lines: [{text, citations}], written_by: extractive|llm|analytics}')),
        origin: record('{commit, pull_requests, issues}').nullable(),
        changes: z.array(record('{kind: commit|run|part, shas, author, start, end, subjects, folded, group?, pull_requests, issues, informative}')),
        constraints: z.array(record('{text, source, cue, citations}')),
        tradeoffs: z.array(record('{text, source, cue, citations}')),
        questions: z.array(record('{kind: todo|revert|vague|undecided, text, citations}')),
        risk: record('{level, score, reasons, of}').nullable(),
        owners: z.array(record('{name, email, share, last_active}')),
        decisions: z.array(record('{id, kind, title, status, via, applies_to, violations}')),
        citations: z.array(record('{ref, kind: commit|pr|issue|lines|decision, sha?, number?, start?, end?, subject}')),
        counts: record('{commits, units, changes_listed, vague_commits}'),
        undecided: record('{lines, reason}').nullable(),
        index: indexInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await brief({ reader, target: args.target })
        return { lines: [...briefLines(r), indexLine(r.index)], data: { repo: reader.repo, ...r } }
      }),
  )
}
