import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { DEFAULT_AUGMENT_LIMIT, type AugmentResult } from '../services/augment.js'
import { augmentView } from '../views/augment.js'

export default class Augment extends BaseCommand {
  static summary = 'History context for what a search pattern matches: who changed it last, when, in which PR, why, how often.'
  static description =
    'PATTERN is what an agent searches for: a regular expression (matched against symbol names and file paths, as rg/grep take it) or a path glob (`src/**/router*.ts`, matched against indexed files). Best matches first; answered from the index only.'
  static examples = ['<%= config.bin %> augment createRouter', "<%= config.bin %> augment 'auth.*token' --limit 10", "<%= config.bin %> augment 'src/**/router*.ts' --json"]
  static args = { pattern: Args.string({ description: 'a regular expression or a path glob', required: true }) }
  static flags = {
    limit: Flags.integer({ description: 'maximum matches (0 = no cap)', default: DEFAULT_AUGMENT_LIMIT }),
    glob: Flags.boolean({ description: 'read PATTERN as a path glob even when it could be a regular expression' }),
  }

  async run(): Promise<AugmentResult> {
    const { args, flags } = await this.parse(Augment)
    return this.show(augmentView, { args, flags })
  }
}
