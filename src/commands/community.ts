import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { community, type CommunityResult } from '../services/analytics.js'

export default class Community extends BaseCommand {
  static summary = 'One area of the codebase: its members, owners and activity.'
  static examples = ['<%= config.bin %> community c1', '<%= config.bin %> community packages/server/src --json']
  static args = { name: Args.string({ description: 'community id (c1) or label', required: true }) }
  static flags = { limit: Flags.integer({ description: 'maximum members (0 = no cap)', default: 50 }) }

  async run(): Promise<CommunityResult> {
    const { args, flags } = await this.parse(Community)
    const r = await community({ repo: flags.repo, name: args.name, limit: flags.limit })
    if (!this.jsonEnabled()) {
      const c = r.community
      this.log(`${c.id} ${c.label}: ${c.size} symbols, cohesion ${c.cohesion.toFixed(2)}, ${c.recent_revisions} recent / ${c.revisions} revisions`)
      this.log(`owners: ${r.owners.map((o) => `${o.name} ${(o.share * 100).toFixed(0)} %`).join(', ') || '(none)'}`)
      for (const m of r.members) this.log(`  ${m.qualified_name} (${m.kind}, ${m.path}:${m.start_line})  ${m.revisions} revisions`)
    }
    return r
  }
}
