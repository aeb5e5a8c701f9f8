import { Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { stderrProgress } from '../progress.js'
import { printable } from '../render.js'
import { enrich, enrichLines, type EnrichResult } from '../services/enrich.js'

export default class Enrich extends BaseCommand {
  static summary = 'Fetch the pull requests and issues the indexed history references from GitHub (titles, descriptions, labels, merge commits, review comments) into the index.'
  static description =
    'Reads the `origin` remote (GitHub or GitHub Enterprise; GITWHY_GITHUB_API_URL or .gitwhy/config.json forge.apiUrl overrides the API) with GITHUB_TOKEN, GH_TOKEN or `gh auth token`. Paginated listings with ETags (a 304 costs no rate limit), rate-limit waits, a checkpoint after every page in .gitwhy/forge/ (kept by `analyze --force`): a stopped run goes on where it stopped. Then the index takes the new rows, and evidence, why and search show them. Offline, without a token or without a GitHub origin it says so and changes nothing (exit 0). Needs an index (`gitwhy analyze`).'
  static examples = ['<%= config.bin %> enrich', '<%= config.bin %> enrich --since 2025-01-01', '<%= config.bin %> enrich --limit 200 --json']
  static flags = {
    since: Flags.string({ description: 'only what was updated since this date (ISO, or "30 days ago", "2w"); skips the single-item requests', helpValue: 'DATE' }),
    limit: Flags.integer({ description: 'at most N API requests in this run (0 = no cap); the next run goes on where it stopped', default: 0, helpValue: 'N' }),
    quiet: Flags.boolean({ char: 'q', description: 'no progress on stderr' }),
  }

  async run(): Promise<EnrichResult> {
    const { flags } = await this.parse(Enrich)
    const progress = stderrProgress(!flags.quiet && !this.jsonEnabled(), 'enrich')
    let result: EnrichResult
    try {
      result = await enrich({
        repo: flags.repo,
        since: flags.since,
        limit: flags.limit,
        onProgress: progress.report,
        onWarning: (m) => progress.note(printable(`warning: ${m}`)),
        onNote: (m) => progress.note(printable(m)),
      })
    } finally {
      progress.end()
    }
    if (!this.jsonEnabled()) for (const line of enrichLines(result)) this.log(line)
    return result
  }
}
