import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import type { HistoryResult } from '../services/types.js'
import { historyView } from '../views/history.js'

export default class History extends BaseCommand {
  static summary = 'Every commit that touched a file (through its renames) or anything under a directory.'
  static examples = ['<%= config.bin %> history src/server.ts', '<%= config.bin %> history src/parse/ --limit 0 --json', '<%= config.bin %> history lib/old-name.js --no-renames']
  static args = { path: Args.string({ description: 'a file or directory', required: true }) }
  static flags = {
    limit: Flags.integer({ description: 'maximum items (0 = no cap)', default: 50 }),
    renames: Flags.boolean({ description: 'follow renames of a file (like git log --follow)', default: true, allowNo: true }),
    trajectory: Flags.boolean({ description: 'append the recorded uncommitted edits of the path (the edit trajectory)' }),
  }

  async run(): Promise<HistoryResult> {
    const { args, flags } = await this.parse(History)
    return this.show(historyView, { args, flags })
  }
}
