import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderEvidence, renderIndexNote } from '../render.js'
import { history } from '../services/history.js'
import type { HistoryResult } from '../services/types.js'

export default class History extends BaseCommand {
  static summary = 'Every commit that touched a file (through its renames) or anything under a directory.'
  static examples = ['<%= config.bin %> history src/server.ts', '<%= config.bin %> history src/parse/ --limit 0 --json', '<%= config.bin %> history lib/old-name.js --no-renames']
  static args = { path: Args.string({ description: 'a file or directory', required: true }) }
  static flags = {
    limit: Flags.integer({ description: 'maximum items (0 = no cap)', default: 50 }),
    renames: Flags.boolean({ description: 'follow renames of a file (like git log --follow)', default: true, allowNo: true }),
  }

  async run(): Promise<HistoryResult> {
    const { args, flags } = await this.parse(History)
    const result = await history({ repo: flags.repo, path: args.path, limit: flags.limit, followRenames: flags.renames })
    if (!this.jsonEnabled()) {
      this.log(`${result.target.path} (${result.target.kind}${result.target.follow_renames ? ', renames followed' : ''}): ${result.total} commits`)
      for (const line of renderEvidence(result.evidence, result.total)) this.log(`  ${line}`)
      if (result.truncated) this.log('  (history cut: older commits are not in the index)')
      const note = renderIndexNote(result.index)
      if (note) this.logStderr(note)
    }
    return result
  }
}
