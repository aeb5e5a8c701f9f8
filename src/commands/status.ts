import { BaseCommand } from '../base-command.js'
import { status, type StatusResult } from '../services/status.js'

export default class Status extends BaseCommand {
  static summary = 'Show the indexed HEAD against the current HEAD, counts, index size and freshness.'
  static examples = ['<%= config.bin %> status', '<%= config.bin %> status --json']

  async run(): Promise<StatusResult> {
    const { flags } = await this.parse(Status)
    const s = await status({ repo: flags.repo })
    if (!this.jsonEnabled()) {
      if (!s.index) {
        this.log(`${s.repo}: not indexed yet — run \`gitwhy analyze\``)
        return s
      }
      const i = s.index
      const fresh = i.stale ? (i.commits_behind === null ? 'stale (history rewritten: run gitwhy analyze)' : `stale: ${i.commits_behind} commits behind HEAD`) : 'fresh'
      this.log(`${s.repo}`)
      this.log(`  indexed ${i.head.slice(0, 7)}, HEAD ${s.head?.slice(0, 7) ?? '(none)'} — ${fresh}`)
      this.log(`  ${Object.entries(s.counts).map(([k, v]) => `${v} ${k.replace(/_/g, ' ')}`).join(' · ')}`)
      this.log(`  built ${i.built_at}, ${(i.size_bytes / 1048576).toFixed(1)} MB${i.shallow ? ', shallow clone' : ''}${i.max_commits ? `, newest ${i.max_commits} commits only` : ''}`)
    }
    return s
  }
}
