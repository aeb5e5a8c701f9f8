import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import type { EvidenceResult } from '../services/types.js'
import { evidenceView } from '../views/evidence.js'

export default class Evidence extends BaseCommand {
  static summary = 'Which commits, PRs and issues made these lines (or this symbol) what they are.'
  static description = 'Blame evidence (commits owning the lines at the indexed HEAD, as `git blame -L`) and line-history evidence (earlier commits that changed the range, as `git log -L`), newest first.'
  static examples = ['<%= config.bin %> evidence src/server.ts:40-80', '<%= config.bin %> evidence src/server.ts:Server.start', '<%= config.bin %> evidence --symbol Server.start', '<%= config.bin %> evidence --symbol src/a.ts:parse --limit 0 --json', '<%= config.bin %> evidence src/server.ts:40-80 --patch']
  static args = { target: Args.string({ description: 'PATH[:START[-END]], or a symbol (PATH:NAME, Class.method) as --symbol takes it' }) }
  static flags = {
    symbol: Flags.string({ char: 's', description: 'a symbol: Class.method, a name, or PATH:NAME to disambiguate' }),
    limit: Flags.integer({ description: 'maximum items (0 = no cap)', default: 50 }),
    patch: Flags.boolean({ char: 'p', description: "each commit's hunks for the range (as git log -L), from the index" }),
  }

  async run(): Promise<EvidenceResult> {
    const { args, flags } = await this.parse(Evidence)
    return this.show(evidenceView, { args, flags })
  }
}
