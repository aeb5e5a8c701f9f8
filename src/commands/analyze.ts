import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { stderrProgress } from '../progress.js'
import { analyzeLines, printable } from '../render.js'
import { analyze, type AnalyzeSummary } from '../services/analyze.js'

export default class Analyze extends BaseCommand {
  static summary = 'Build or update the index of a repository (symbols, history, blame, line history).'
  static examples = ['<%= config.bin %> analyze', '<%= config.bin %> analyze ../other-repo --force', '<%= config.bin %> analyze --max-commits 5000 --json']
  static args = { path: Args.string({ description: 'repository to index (default: --repo or the current one)' }) }
  static flags = {
    force: Flags.boolean({ description: 'rebuild from scratch even if the index is up to date' }),
    'max-commits': Flags.integer({ description: 'index only the newest N commits (older origins are reported as undecided)' }),
    'max-file-bytes': Flags.integer({ description: 'skip files larger than this many bytes', default: 1_000_000 }),
    'identity-merge': Flags.boolean({ description: 'group one person\'s emails into one author beyond .mailmap (same name, GitHub login, .gitwhy/config.json identities); --no-identity-merge keeps one author per email', default: true, allowNo: true }),
    'ignore-revs': Flags.boolean({ description: 'blame looks through the commits in blame.ignoreRevsFile and .git-blame-ignore-revs, as git blame does; --no-ignore-revs turns it off', default: true, allowNo: true }),
    embeddings: Flags.boolean({ description: 'embed the search documents with the bundled model (or GITWHY_EMBED_MODEL) so `gitwhy search` matches by meaning too; off by default (it about doubles the CPU time of an analyze), search is then full-text only; left out, an index keeps what it was built with', allowNo: true }),
    quiet: Flags.boolean({ char: 'q', description: 'no progress on stderr' }),
  }

  async run(): Promise<AnalyzeSummary> {
    const { args, flags } = await this.parse(Analyze)
    const progress = stderrProgress(!flags.quiet && !this.jsonEnabled())
    let summary: AnalyzeSummary
    try {
      summary = await analyze({ repo: args.path ?? flags.repo, force: flags.force, maxCommits: flags['max-commits'], maxFileBytes: flags['max-file-bytes'], identityMerge: flags['identity-merge'], ignoreRevs: flags['ignore-revs'], embeddings: flags.embeddings, onProgress: progress.report, onWarning: (m) => progress.note(printable(`warning: ${m}`)) })
    } finally {
      progress.end()
    }
    if (!this.jsonEnabled()) for (const line of analyzeLines(summary)) this.log(line)
    return summary
  }
}
