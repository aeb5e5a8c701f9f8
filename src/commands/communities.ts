import { Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { communities, type CommunitiesResult } from '../services/analytics.js'

export default class Communities extends BaseCommand {
  static summary = 'The areas of the codebase: symbols that change together and belong together (Louvain).'
  static examples = ['<%= config.bin %> communities', '<%= config.bin %> communities --limit 0 --json']
  static flags = { limit: Flags.integer({ description: 'maximum communities (0 = no cap)', default: 20 }) }

  async run(): Promise<CommunitiesResult> {
    const { flags } = await this.parse(Communities)
    const r = await communities({ repo: flags.repo, limit: flags.limit })
    if (!this.jsonEnabled()) {
      if (r.total === 0) this.log('no communities: too little co-change history')
      for (const c of r.communities) this.log(`${c.id.padEnd(5)} ${c.label}  ${c.size} symbols, cohesion ${c.cohesion.toFixed(2)}, ${c.recent_revisions} recent / ${c.revisions} revisions`)
      if (r.total > r.communities.length) this.log(`… ${r.total - r.communities.length} more (--limit 0 for all)`)
    }
    return r
  }
}
