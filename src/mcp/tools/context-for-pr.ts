import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { contextForPr } from '../../services/context-for-pr.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import { indexInfo, record, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerContextForPrTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'context_for_pr',
    {
      title: 'Context for a change',
      description:
        'For the files a branch changes (git diff base...head) or given files: risk, owners to ask, symbols touched, files that usually change with them but are missing, and the PRs that last touched them. Call it before opening or reviewing a PR.',
      inputSchema: {
        base: z.string().optional().describe('target branch (default origin/HEAD, main or master)'),
        head: z.string().optional().describe('the change (default HEAD)'),
        files: z.array(z.string().max(4096)).max(10_000).optional().describe('changed files instead of a diff'),
        offset: offsetArg,
        repo: repoArg,
      },
      outputSchema: {
        repo: z.string(),
        base: z.string().nullable(),
        head: z.string().nullable(),
        merge_base: z.string().nullable(),
        index: indexInfo,
        files: z.array(record('{path, status, old_path, indexed, risk, owners, symbols (riskiest 10), more_symbols, last_prs}')),
        missing_co_changes: z.array(record('{path, usually_with, degree, shared, confidence}')),
        owners_to_ask: z.array(record('{name, email, lines, files}')),
        mode: z.string(),
        callers: z.array(record('{id, qualified_name, kind, path, start_line, calls, lines, confidence}')),
        tests: z.array(z.string()),
        communities: z.array(record('{id, label, symbols}')),
        summary: record('{files, high, medium, low, new_files, symbols, callers}'),
        page: pageInfo,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const r = await contextForPr({ reader, base: args.base, head: args.head, files: args.files })
        const s = r.summary
        return listAnswer({ repo: reader.repo, ...r }, ['files', 'missing_co_changes'], (d) => [
          `${r.base ? `${r.base}...${r.head}` : 'given files'}: ${s.files} files (${s.high} HIGH, ${s.medium} MEDIUM, ${s.low} LOW, ${s.new_files} new)`,
          ...d.files.map(
            (f) =>
              `- ${f.risk?.level ?? 'NEW'} ${f.path}${f.risk?.reasons.length ? `: ${f.risk.reasons.join('; ')}` : ''}${f.symbols.length ? ` | symbols: ${f.symbols.map((x) => x.qualified_name).join(', ')}${f.more_symbols ? ` (+${f.more_symbols} more)` : ''}` : ''}${f.last_prs.length ? ` | last PRs: ${f.last_prs.map((p) => `#${p.number}`).join(', ')}` : ''}`,
          ),
          ...(d.missing_co_changes.length ? ['usually change with these but missing:', ...d.missing_co_changes.map((m) => `- ${m.path} (with ${m.usually_with}, ${(m.confidence * 100).toFixed(0)} %)`)] : []),
          ...(r.owners_to_ask.length ? [`ask: ${r.owners_to_ask.map((o) => `${o.name} <${o.email}>`).join(', ')}`] : []),
          indexLine(r.index),
        ])
      }, args.offset),
  )
}
