import { BaseCommand } from '../base-command.js'
import type { StatusResult } from '../services/status.js'
import { statusView } from '../views/status.js'

export default class Status extends BaseCommand {
  static summary = 'Show the indexed HEAD against the current HEAD, counts, index size and freshness.'
  static examples = ['<%= config.bin %> status', '<%= config.bin %> status --json']

  async run(): Promise<StatusResult> {
    const { args, flags } = await this.parse(Status)
    return this.show(statusView, { args, flags })
  }
}
