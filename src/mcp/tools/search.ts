import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { search, searchLines, SEARCH_KINDS, SEARCH_MODES } from '../../services/search.js'
import { indexInfo, limitArg, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerSearchTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'search',
    {
      title: 'Find symbols, commits, PRs by meaning',
      description:
        'Search over symbol summaries, commit messages and PR/issue titles: BM25, fused (reciprocal rank fusion) with local embeddings when the index has them. Embeddings are opt-in (`gitwhy analyze --embeddings`); without them search is BM25 only and the answer\'s note says so. With them, paraphrases work: ask in your own words for the code or the commit behind a behaviour. Each hit says why it matched.',
      inputSchema: {
        text: z.string().max(1000).describe('a question or words, e.g. "why are compiled routes cached"'),
        kind: z.enum(SEARCH_KINDS).optional().describe('symbol, commit, pr, issue or all (default)'),
        mode: z.enum(SEARCH_MODES).optional().describe('hybrid (default), bm25 or vector'),
        limit: limitArg(10),
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        query: z.string(),
        kind: z.string(),
        mode: z.string(),
        answered: z.string(),
        model: z.string().nullable(),
        note: z.string().nullable(),
        index: indexInfo,
        hits: z.array(record('{kind, ref, title, path, line, score, why: {bm25_rank, bm25_score, vector_rank, cosine, words}}')),
        total: z.number(),
        truncated: z.number(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await search({ reader, text: args.text, kind: args.kind, mode: args.mode, limit: args.limit })
        return { lines: [...searchLines(r), indexLine(r.index)], data: { repo: reader.repo, ...r } }
      }),
  )
}
