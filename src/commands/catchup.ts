import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { catchup, renderCatchup, type CatchupResult } from '../services/catchup.js'

export default class Catchup extends BaseCommand {
  static summary = 'What changed since a date: commits grouped by PR, merges, bots and formatting sweeps reduced to counts.'
  static description = 'The same answer as the MCP tool `catchup`. SINCE is an ISO date (2025-01-31) or relative: "7 days ago", "2 weeks ago", "3d", "yesterday".'
  static examples = ['<%= config.bin %> catchup "7 days ago"', '<%= config.bin %> catchup 2025-01-31 --limit 0 --json']
  static args = {
    since: Args.string({ description: 'ISO date or relative date ("7 days ago", "3d", "yesterday")', required: true }),
  }
  static flags = {
    limit: Flags.integer({ description: 'maximum commits listed (0 = no cap)', default: 50 }),
  }

  async run(): Promise<CatchupResult> {
    const { args, flags } = await this.parse(Catchup)
    const r = await catchup({ repo: flags.repo, since: args.since, limit: flags.limit })
    if (!this.jsonEnabled()) {
      for (const line of renderCatchup(r)) this.log(line)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
