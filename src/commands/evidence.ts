import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { UserError } from '../errors.js'
import { renderEvidence, renderIndexNote } from '../render.js'
import { evidence } from '../services/evidence.js'
import type { EvidenceResult } from '../services/types.js'

export default class Evidence extends BaseCommand {
  static summary = 'Which commits, PRs and issues made these lines (or this symbol) what they are.'
  static description = 'Blame evidence (commits owning the lines at the indexed HEAD, as `git blame -L`) and line-history evidence (earlier commits that changed the range, as `git log -L`), newest first.'
  static examples = ['<%= config.bin %> evidence src/server.ts:40-80', '<%= config.bin %> evidence --symbol Server.start', '<%= config.bin %> evidence --symbol src/a.ts:parse --limit 0 --json', '<%= config.bin %> evidence src/server.ts:40-80 --patch']
  static args = { target: Args.string({ description: 'PATH[:START[-END]]' }) }
  static flags = {
    symbol: Flags.string({ char: 's', description: 'a symbol: Class.method, a name, or PATH:NAME to disambiguate' }),
    limit: Flags.integer({ description: 'maximum items (0 = no cap)', default: 50 }),
    patch: Flags.boolean({ char: 'p', description: "each commit's hunks for the range (as git log -L), from the index" }),
  }

  async run(): Promise<EvidenceResult> {
    const { args, flags } = await this.parse(Evidence)
    if (!args.target && !flags.symbol) throw new UserError('nothing to explain', 'pass PATH[:START[-END]] or --symbol NAME', 'usage')
    if (args.target && flags.symbol) throw new UserError('pass either PATH[:START[-END]] or --symbol, not both', 'drop one of them', 'usage')
    const result = await evidence({ repo: flags.repo, path: args.target, symbol: flags.symbol, limit: flags.limit, patch: flags.patch })
    if (!this.jsonEnabled()) {
      const tg = result.target
      this.log(`${tg.path}:${tg.line_start}-${tg.line_end}${tg.symbol ? `  (${tg.symbol.kind} ${tg.symbol.qualified_name})` : ''}`)
      for (const line of renderEvidence(result.evidence, result.total)) this.log(`  ${line}`)
      if (result.clamped) this.log(`  note: ${result.clamped.note}`)
      if (result.undecided) this.log(`  ${result.undecided.lines} lines undecided: ${result.undecided.reason}`)
      const note = renderIndexNote(result.index)
      if (note) this.logStderr(note)
    }
    return result
  }
}
