import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { supersedeDecision, type DecisionAnswer } from '../../services/decisions.js'
import type { Decision } from '../../knowledge/decision-model.js'

export default class DecisionSupersede extends BaseCommand {
  static summary = 'Mark a decision superseded by a newer one (both stay in the file, linked).'
  static examples = ['<%= config.bin %> decision supersede d-1a2b3c4d --by d-5e6f7a8b']
  static args = { id: Args.string({ description: 'the decision replaced', required: true }) }
  static flags = { by: Flags.string({ description: 'the active decision that replaces it', required: true, helpValue: 'ID' }) }

  async run(): Promise<DecisionAnswer & { by: Decision }> {
    const { args, flags } = await this.parse(DecisionSupersede)
    const result = await supersedeDecision({ repo: flags.repo, id: args.id, by: flags.by })
    if (!this.jsonEnabled()) this.log(`${result.decision.id} is superseded by ${result.by.id} (${result.file})`)
    return result
  }
}
