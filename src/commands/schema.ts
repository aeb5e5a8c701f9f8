import { BaseCommand } from '../base-command.js'
import { describeSchema, formatSchema, type SchemaDescription } from '../graph/schema.js'

export default class Schema extends BaseCommand {
  static summary = 'Print the graph schema (node and relationship tables with their properties).'
  static examples = ['<%= config.bin %> schema', '<%= config.bin %> schema --json']

  async run(): Promise<SchemaDescription> {
    await this.parse(Schema)
    const schema = describeSchema()
    if (!this.jsonEnabled()) for (const line of formatSchema(schema).split('\n')) this.log(line)
    return schema
  }
}
