import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { ownership, type OwnershipResult } from '../services/analytics.js'

export default class Ownership extends BaseCommand {
  static summary = 'Who owns a file, directory or symbol: authors by share of its lines at HEAD, and the bus factor.'
  static description = 'From the blame map (the lines each author wrote as they are at the indexed HEAD, authors merged by .mailmap), not from churn. The bus factor is the fewest authors owning more than half of the lines.'
  static examples = ['<%= config.bin %> ownership src/server.ts', '<%= config.bin %> ownership src/adapters/', '<%= config.bin %> ownership Server.start --json']
  static args = { target: Args.string({ description: 'file, directory or symbol', required: true }) }
  static flags = { limit: Flags.integer({ description: 'maximum owners (0 = no cap)', default: 20 }) }

  async run(): Promise<OwnershipResult> {
    const { args, flags } = await this.parse(Ownership)
    const r = await ownership({ repo: flags.repo, target: args.target, limit: flags.limit })
    if (!this.jsonEnabled()) {
      const t = r.target
      this.log(`${t.kind === 'symbol' ? `${t.qualified_name} (${t.path})` : t.path || '.'}: ${r.lines} lines, bus factor ${r.bus_factor}`)
      for (const o of r.owners) this.log(`  ${(o.share * 100).toFixed(1).padStart(5)} %  ${String(o.lines).padStart(6)} lines  ${o.name} <${o.email}>${o.emails.length > 1 ? ` (also ${o.emails.filter((e) => e !== o.email).join(', ')})` : ''}${o.last_active ? `  last commit ${o.last_active.slice(0, 10)}` : ''}`)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
