import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { UserError } from '../errors.js'
import { setIntent } from '../services/trajectory.js'
import type { Intent } from '../trajectory/journal.js'

export default class IntentCommand extends BaseCommand {
  static summary = 'Set the intent that stamps every following trajectory snapshot (until changed or cleared).'
  static examples = ['<%= config.bin %> intent "fixing the login timeout"', '<%= config.bin %> intent --clear', '<%= config.bin %> intent']
  static args = { text: Args.string({ description: 'what the edits are for, in one sentence' }) }
  static flags = { clear: Flags.boolean({ description: 'clear the intent' }) }

  async run(): Promise<{ repo: string; intent: Intent | null }> {
    const { args, flags } = await this.parse(IntentCommand)
    if (flags.clear && args.text !== undefined) throw new UserError('pass an intent or --clear, not both', 'gitwhy intent "…" sets it, gitwhy intent --clear clears it', 'bad_option')
    if (!flags.clear && args.text === undefined) throw new UserError('no intent given', 'pass it: gitwhy intent "fixing the login timeout" (or --clear)', 'bad_option')
    const r = await setIntent(flags.repo, flags.clear ? null : args.text!)
    if (!this.jsonEnabled()) this.log(r.intent ? `intent: "${r.intent.text}" (stamps every following snapshot)` : 'intent cleared')
    return r
  }
}
