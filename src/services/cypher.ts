import { CYPHER_DEFAULTS, runCypher, type CypherOptions, type CypherResult } from '../graph/cypher.js'
import { withReader } from './index-reader.js'

/** Read-only Cypher over the index, with a row cap and a timeout (CYPHER_DEFAULTS). */
export async function cypher(options: { repo?: string; statement: string } & CypherOptions): Promise<CypherResult & { max_rows: number }> {
  return withReader(options, async (reader) => ({
    ...(await runCypher(await reader.graph(), options.statement, options)),
    max_rows: options.maxRows ?? CYPHER_DEFAULTS.maxRows,
  }))
}
