import { Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { ghosts, type GhostsResult } from '../services/analytics.js'

export default class Ghosts extends BaseCommand {
  static summary = 'Code whose dominant owner (≥ 80 % of the lines) has been inactive for more than N days.'
  static description = 'Inactive = no commit in the indexed history for more than --days before the indexed HEAD (default 180).'
  static examples = ['<%= config.bin %> ghosts', '<%= config.bin %> ghosts --days 365 --path src/ --json']
  static flags = {
    days: Flags.integer({ description: 'days without a commit (default 180, or .gitwhy/config.json analytics.ghostDays)' }),
    path: Flags.string({ description: 'only under this file or directory' }),
    limit: Flags.integer({ description: 'maximum files (0 = no cap)', default: 50 }),
  }

  async run(): Promise<GhostsResult> {
    const { flags } = await this.parse(Ghosts)
    const r = await ghosts({ repo: flags.repo, days: flags.days, path: flags.path, limit: flags.limit })
    if (!this.jsonEnabled()) {
      if (r.ghosts.length === 0) this.log(`no ghost code: every file's dominant owner committed within ${r.days} days of ${r.as_of.slice(0, 10)}`)
      for (const g of r.ghosts) this.log(`${g.path}  ${g.lines} lines, ${(g.owner.share * 100).toFixed(0)} % ${g.owner.name} <${g.owner.email}>, inactive ${g.inactive_days} days (last commit ${g.owner.last_active.slice(0, 10)})`)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
