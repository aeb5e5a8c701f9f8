import { runCypher } from '../graph/cypher.js'
import type { JsonValue } from '../graph/store.js'
import { IndexReader } from './index-reader.js'

/** Read-only Cypher over the index. */
export async function cypher(options: { repo?: string; statement: string; params?: Record<string, JsonValue> }): Promise<{ rows: Record<string, JsonValue>[] }> {
  const reader = await IndexReader.open(options.repo)
  try {
    return { rows: await runCypher(await reader.graph(), options.statement, options.params) }
  } finally {
    await reader.close()
  }
}
