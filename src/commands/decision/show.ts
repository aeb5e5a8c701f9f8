import { Args } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { showDecision, type ShowDecisionResult } from '../../services/decisions.js'
import { decisionLines, verificationLines } from '../../views/decisions.js'

export default class DecisionShow extends BaseCommand {
  static summary = 'One decision (recorded or proposed) and its verification against the indexed HEAD.'
  static examples = ['<%= config.bin %> decision show d-1a2b3c4d', '<%= config.bin %> decision show m-0f3e2d1c0b --json']
  static args = { id: Args.string({ description: 'decision id', required: true }) }

  async run(): Promise<ShowDecisionResult> {
    const { args, flags } = await this.parse(DecisionShow)
    const result = await showDecision({ repo: flags.repo, id: args.id })
    if (!this.jsonEnabled()) {
      for (const line of decisionLines(result.decision)) this.log(line)
      this.log(`  in ${result.file}`)
      if (result.verification) for (const line of verificationLines(result.verification)) this.log(line)
      if (result.note) this.logStderr(result.note)
    }
    return result
  }
}
