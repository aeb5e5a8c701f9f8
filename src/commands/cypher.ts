import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { parseCypherParam } from '../graph/cypher.js'
import type { JsonValue } from '../graph/store.js'
import { cypher } from '../services/cypher.js'

export default class Cypher extends BaseCommand {
  static summary = 'Run a read-only Cypher query on the index; rows come back as JSON objects.'
  static examples = [
    `<%= config.bin %> cypher "MATCH (c:Commit) RETURN c.category AS category, count(*) AS n ORDER BY n DESC"`,
    `<%= config.bin %> cypher "MATCH (s:Symbol)-[:BLAMED_ON]->(c:Commit) WHERE s.path = \\$p RETURN s.qualified_name, c.short" --param p=src/a.ts`,
  ]
  static args = { query: Args.string({ description: 'the Cypher statement (read-only)', required: true }) }
  static flags = { param: Flags.string({ char: 'p', description: 'query parameter name=value (JSON values are parsed); repeatable', multiple: true }) }

  async run(): Promise<{ rows: Record<string, JsonValue>[] }> {
    const { args, flags } = await this.parse(Cypher)
    const params = Object.fromEntries((flags.param ?? []).map(parseCypherParam))
    const result = await cypher({ repo: flags.repo, statement: args.query, params })
    if (!this.jsonEnabled()) for (const row of result.rows) this.log(JSON.stringify(row))
    return result
  }
}
