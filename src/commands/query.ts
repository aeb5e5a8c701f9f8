import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { query, queryLines, type QueryResult } from '../services/query.js'

export default class Query extends BaseCommand {
  static summary = 'Find code by words: BM25 over symbol names (split at camelCase and snake_case), signatures, doc comments and paths, grouped by community.'
  static description =
    "Uses the full-text index analyze builds (Kuzu FTS, English stemming: 'parsing' finds parse). The question's identifiers are split the same way, so `query parseUrl` and `query \"parse url\"` ask the same. Any word may match (more matching words rank higher)."
  static examples = ['<%= config.bin %> query "parse url"', '<%= config.bin %> query retryWithBackoff --limit 5 --json']
  static args = { text: Args.string({ description: 'words to look for', required: true }) }
  static flags = {
    limit: Flags.integer({ description: 'maximum hits (0 = no cap)', default: 20 }),
  }

  async run(): Promise<QueryResult> {
    const { args, flags } = await this.parse(Query)
    const r = await query({ repo: flags.repo, text: args.text, limit: flags.limit })
    if (!this.jsonEnabled()) {
      for (const line of queryLines(r)) this.log(line)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
