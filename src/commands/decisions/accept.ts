import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { acceptDecisions, type AcceptResult } from '../../services/decisions.js'
import { decisionLine } from '../../views/decisions.js'

export default class DecisionsAccept extends BaseCommand {
  static summary = 'Accept mined candidates: they become active decisions in .gitwhy-decisions.jsonl.'
  static strict = false
  static examples = ['<%= config.bin %> decisions accept m-0f3e2d1c0b a-77aa01bc22', '<%= config.bin %> decisions accept --auto 0.8']
  static args = { ids: Args.string({ description: 'candidate ids (gitwhy decisions list --status proposed)' }) }
  static flags = { auto: Flags.string({ description: 'also accept every candidate with at least this confidence (0-1), for CI', helpValue: 'THRESHOLD' }) }

  async run(): Promise<AcceptResult> {
    const { argv, flags } = await this.parse(DecisionsAccept)
    const result = await acceptDecisions({ repo: flags.repo, ids: argv as string[], auto: flags.auto === undefined ? undefined : Number(flags.auto) })
    if (!this.jsonEnabled()) {
      this.log(`accepted ${result.accepted.length} into ${result.file}; ${result.remaining} candidates wait`)
      for (const d of result.accepted) this.log(decisionLine(d))
    }
    return result
  }
}
