import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { runCypher } from '../../graph/cypher.js'
import type { JsonValue } from '../../graph/store.js'
import { indexInfo, repoArg } from '../schemas.js'
import type { ServerContext } from '../server.js'
import { indexLine } from '../text.js'

const MAX_TEXT = 20_000

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
        repo: repoArg,
      },
      outputSchema: { repo: z.string(), index: indexInfo, rows: z.array(z.record(z.string(), z.unknown())) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) =>
      ctx.answer(args.repo, async (reader) => {
        const rows = await runCypher(await reader.graph(), args.statement, args.params as Record<string, JsonValue> | undefined)
        const index = await reader.indexInfo()
        let text = `${rows.length} rows\n${rows.map((r) => JSON.stringify(r)).join('\n')}`
        if (text.length > MAX_TEXT) text = `${text.slice(0, MAX_TEXT)}\n… (text cut at ${MAX_TEXT} characters; all rows are in the structured result, or add LIMIT)`
        // one row per line (JSON text has no raw line break)
        return { lines: [...text.split('\n'), indexLine(index)], data: { repo: reader.repo, index, rows } }
      }),
  )
}
