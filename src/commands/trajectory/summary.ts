import { Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { sessionSummary, type SessionSummary } from '../../services/trajectory.js'
import { summaryLines } from '../../views/trajectory.js'

export default class TrajectorySummary extends BaseCommand {
  static summary = 'A trajectory session summed up: files and symbols touched, intents, reverts, net diff.'
  static examples = ['<%= config.bin %> trajectory summary', '<%= config.bin %> trajectory summary --session s-20261126-170211 --json']
  static flags = { session: Flags.string({ description: 'session id (default: the newest)' }) }

  async run(): Promise<SessionSummary> {
    const { flags } = await this.parse(TrajectorySummary)
    const r = await sessionSummary(flags.repo, flags.session)
    if (!this.jsonEnabled()) for (const line of summaryLines(r)) this.log(line)
    return r
  }
}
