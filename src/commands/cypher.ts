import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { CYPHER_DEFAULTS, parseCypherParam, type CypherResult } from '../graph/cypher.js'
import { cypher } from '../services/cypher.js'

export default class Cypher extends BaseCommand {
  static summary = 'Run a read-only Cypher query on the index; rows come back as JSON objects.'
  static examples = [
    `<%= config.bin %> cypher "MATCH (c:Commit) RETURN c.category AS category, count(*) AS n ORDER BY n DESC"`,
    `<%= config.bin %> cypher "MATCH (s:Symbol)-[:BLAMED_ON]->(c:Commit) WHERE s.path = \\$p RETURN s.qualified_name, c.short" --param p=src/a.ts`,
  ]
  static args = { query: Args.string({ description: 'the Cypher statement (read-only)', required: true }) }
  static flags = {
    param: Flags.string({ char: 'p', description: 'query parameter name=value (JSON values are parsed); repeatable', multiple: true }),
    'max-rows': Flags.integer({ description: `rows returned at most (0 = no cap); the answer says when there were more`, default: CYPHER_DEFAULTS.maxRows }),
    timeout: Flags.integer({ description: 'seconds before the query is stopped', default: CYPHER_DEFAULTS.timeoutSeconds }),
  }

  async run(): Promise<CypherResult & { max_rows: number }> {
    const { args, flags } = await this.parse(Cypher)
    const params = Object.fromEntries((flags.param ?? []).map(parseCypherParam))
    const result = await cypher({ repo: flags.repo, statement: args.query, params, maxRows: flags['max-rows'], timeoutSeconds: flags.timeout })
    if (!this.jsonEnabled()) {
      for (const row of result.rows) this.log(JSON.stringify(row))
      if (result.truncated) this.logStderr(`note: stopped at ${result.max_rows} rows; add LIMIT, or pass --max-rows N (0 = no cap) for more`)
    }
    return result
  }
}
