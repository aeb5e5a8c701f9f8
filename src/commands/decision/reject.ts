import { Args } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { rejectDecision, type DecisionAnswer } from '../../services/decisions.js'

export default class DecisionReject extends BaseCommand {
  static summary = 'Reject a decision or a mined candidate: no longer served, and not proposed again by mining.'
  static examples = ['<%= config.bin %> decision reject m-0f3e2d1c0b']
  static args = { id: Args.string({ description: 'decision or candidate id', required: true }) }

  async run(): Promise<DecisionAnswer> {
    const { args, flags } = await this.parse(DecisionReject)
    const result = await rejectDecision({ repo: flags.repo, id: args.id })
    if (!this.jsonEnabled()) this.log(`${result.decision.id} is rejected (${result.file})`)
    return result
  }
}
