import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { search, searchLines, SEARCH_KINDS, SEARCH_MODES, type SearchResult } from '../services/search.js'

export default class Search extends BaseCommand {
  static summary = 'Find symbols, commits, pull requests and issues by meaning and by words (hybrid: BM25 + embeddings, fused by reciprocal rank).'
  static description =
    'Searches the documents analyze builds: per symbol a summary (name in words, kind, signature, doc comment, path, the subjects of the commits that wrote it), per commit its message, per PR and issue its title, all scrubbed of secrets. Embeddings are opt-in (`gitwhy analyze --embeddings`): without them search is BM25 only and says so; with them the question is embedded by the same local model (the first search in a process loads it, ~1-2 s) and matched by meaning too. Each hit says why it matched: its BM25 rank, its vector rank and cosine, the words it shares with the question.'
  static examples = ['<%= config.bin %> search "why are compiled routes cached"', '<%= config.bin %> search "retry on timeout" --kind commit --limit 5 --json', '<%= config.bin %> search parseUrl --mode bm25']
  static args = { text: Args.string({ description: 'a question or words', required: true }) }
  static flags = {
    kind: Flags.string({ description: 'what to find', options: [...SEARCH_KINDS], default: 'all' }),
    mode: Flags.string({ description: 'hybrid (both lists fused), bm25 (words only) or vector (meaning only)', options: [...SEARCH_MODES], default: 'hybrid' }),
    limit: Flags.integer({ description: 'maximum hits (0 = no cap)', default: 10 }),
  }

  async run(): Promise<SearchResult> {
    const { args, flags } = await this.parse(Search)
    const r = await search({ repo: flags.repo, text: args.text, kind: flags.kind as SearchResult['kind'], mode: flags.mode as SearchResult['mode'], limit: flags.limit })
    if (!this.jsonEnabled()) {
      for (const line of searchLines(r)) this.log(line)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
