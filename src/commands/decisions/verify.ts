import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { verifyDecisions, type VerifyResult } from '../../services/decision-verify.js'
import { verifyLines } from '../../views/decisions.js'

export default class DecisionsVerify extends BaseCommand {
  static summary = 'Check the recorded decisions against the indexed HEAD: evidence, governed code, staleness, checkable constraints.'
  static description =
    'Each document evidence range is VERIFIED (its lines still hold the snippet), PARTIAL (moved, or similar: a similarity is given), REJECTED or SKIPPED; history evidence is VERIFIED while the index has it. Governed files and symbols are followed through renames and moves. An active decision whose governed lines are more than half owned by commits after it was decided is STALE, with those commits. A regex or tree-sitter check is run on the governed files and each violation listed with the commit that wrote the line. analyze runs this too and warns on stderr. --fail exits 1 when anything is stale, violated or missing (for CI).'
  static strict = false
  static examples = ['<%= config.bin %> decisions verify', '<%= config.bin %> decisions verify d-1a2b3c4d --json', '<%= config.bin %> decisions verify --fail']
  static args = { ids: Args.string({ description: 'decision ids (default: every recorded one)' }) }
  static flags = {
    proposed: Flags.boolean({ description: 'verify the mined candidates too' }),
    fail: Flags.boolean({ description: 'exit 1 when a decision is stale, a constraint is violated or a governed target is gone' }),
  }

  async run(): Promise<VerifyResult> {
    const { argv, flags } = await this.parse(DecisionsVerify)
    const result = await verifyDecisions({ repo: flags.repo, ids: argv as string[], includeProposed: flags.proposed })
    if (!this.jsonEnabled()) for (const line of verifyLines(result)) this.log(line)
    const s = result.summary
    if (flags.fail && (s.stale > 0 || s.violations > 0 || s.missing_targets > 0)) {
      if (this.jsonEnabled()) process.stdout.write(JSON.stringify(result) + '\n')
      this.exit(1)
    }
    return result
  }
}
