import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { related, type RelatedResult } from '../services/analytics.js'

export default class Related extends BaseCommand {
  static summary = 'What usually changes together with a file or symbol, with the commits that show it.'
  static description = 'Co-change from the history, ranked by shared revisions: confidence both ways (shared / revisions of the target, shared / revisions of the partner), degree (code-maat: 100 × shared / average revisions), and example commits (no merge, bot, formatting or oversized commit, as in the counts). A pair is kept when it shares at least minShared revisions and either side changes with the other at least minConfidence of the time, so a busy file keeps its partners.'
  static examples = ['<%= config.bin %> related src/server.ts', '<%= config.bin %> related Router.route --limit 5 --json']
  static args = { target: Args.string({ description: 'file or symbol', required: true }) }
  static flags = { limit: Flags.integer({ description: 'maximum items (0 = no cap)', default: 10 }) }

  async run(): Promise<RelatedResult> {
    const { args, flags } = await this.parse(Related)
    const r = await related({ repo: flags.repo, target: args.target, limit: flags.limit })
    if (!this.jsonEnabled()) {
      const t = r.target
      this.log(`${t.kind === 'symbol' ? `${t.qualified_name} (${t.path})` : t.path}: ${r.related.length ? 'usually changes with' : 'no co-change above the thresholds'}`)
      for (const x of r.related) {
        this.log(`  ${String(x.shared).padStart(3)} shared  ${(x.confidence * 100).toFixed(0).padStart(3)} % of its changes  ${(x.reverse_confidence * 100).toFixed(0).padStart(3)} % of the partner's  ${x.qualified_name ? `${x.qualified_name} (${x.path})` : x.path}`)
        for (const c of x.examples) this.log(`        ${c.short} ${c.date.slice(0, 10)} ${c.subject}`)
      }
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
