import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { CYPHER_DEFAULTS, runCypher } from '../../graph/cypher.js'
import type { JsonValue } from '../../graph/store.js'
import { listAnswer, offsetArg, pageInfo } from '../budget.js'
import { indexInfo, repoArg } from '../schemas.js'
import type { ServerContext } from '../context.js'
import { indexLine } from '../text.js'

export function registerCypherTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'cypher',
    {
      title: 'Read-only Cypher over the history graph',
      description:
        'Run a read-only Cypher query on the index (Kuzu). Read the gitwhy://schema resource first. For questions the other tools do not cover, e.g. "which files did PR #42 touch?". Writes are refused.',
      inputSchema: {
        statement: z.string().describe('one read-only statement, e.g. MATCH (c:Commit)-[:PART_OF]->(p:PullRequest {number: $n}) RETURN c.short, c.subject'),
        params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional().describe('values for $name placeholders'),
        max_rows: z.number().int().min(1).max(100_000).default(CYPHER_DEFAULTS.maxRows).describe('rows read at most'),
        timeout_seconds: z.number().min(1).max(300).default(CYPHER_DEFAULTS.timeoutSeconds).describe('stop the query after this long'),
        offset: offsetArg,
        repo: repoArg,
      },
      outputSchema: { repo: z.string(), index: indexInfo, rows: z.array(z.record(z.string(), z.unknown())), truncated: z.boolean().describe('more rows than max_rows'), page: pageInfo },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const params = args.params as Record<string, JsonValue> | undefined
        const { rows, truncated } = await runCypher(await reader.graph(), args.statement, { params, maxRows: args.max_rows, timeoutSeconds: args.timeout_seconds })
        const index = await reader.indexInfo()
        return listAnswer({ repo: reader.repo, index, rows, truncated }, ['rows'], (d) =>
          [
            `${d.rows.length} rows${d.truncated ? ` (stopped at max_rows ${args.max_rows}: add LIMIT or raise max_rows)` : ''}`,
            ...d.rows.map((r) => JSON.stringify(r)),
            indexLine(index),
          ],
        )
      }, args.offset),
  )
}
