import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { UserError } from '../errors.js'
import { ProgressDisplay } from '../progress.js'
import { renderIndexNote } from '../render.js'
import { briefCommunity, type BriefAllResult, type BriefResult } from '../services/brief.js'
import { briefView } from '../views/brief.js'

export default class Brief extends BaseCommand {
  static summary = 'The rationale card to read before editing: purpose, why it exists, key changes, constraints, trade-offs, risks, owners, decisions, open questions — every line cited.'
  static description =
    'TARGET is a symbol, a file or PATH:START-END. Each line cites a commit [a1b2c3d], a PR [PR #12], an issue [#34], a decision, or lines of the file [L40-52] for what the code itself says. Key changes are commit units: consecutive small or vague commits by one author within an hour are one line, a mega-commit is its part in the target\'s folder. Extractive unless an LLM is configured. Cards are cached in .gitwhy/briefs/ under a fingerprint of their evidence: a new commit touching the code makes a new card. --all --community ID precomputes the cards of a community\'s symbols.'
  static examples = [
    '<%= config.bin %> brief Router.match',
    '<%= config.bin %> brief src/router.ts:40-80 --json',
    '<%= config.bin %> brief --all --community c3',
  ]
  static args = { target: Args.string({ description: 'a symbol, a file, or PATH:START-END' }) }
  static flags = {
    all: Flags.boolean({ description: 'precompute the cards of every symbol of --community', default: false }),
    community: Flags.string({ description: 'with --all: the community (id like c3, or label; see `gitwhy communities`)' }),
    refresh: Flags.boolean({ description: 'recompute even when a cached card has the same evidence', default: false }),
    quiet: Flags.boolean({ char: 'q', description: 'with --all: no progress on stderr', default: false }),
  }

  async run(): Promise<BriefResult | BriefAllResult> {
    const { args, flags } = await this.parse(Brief)
    if (!flags.all) {
      if (flags.community !== undefined) throw new UserError('--community goes with --all', 'add --all to precompute a community\'s cards, or drop --community', 'usage')
      return this.show(briefView, { args, flags })
    }
    if (args.target) throw new UserError('--all briefs a community\'s symbols; it takes no target', 'drop the target, or drop --all', 'usage')
    if (!flags.community?.trim()) throw new UserError('--all needs --community', 'pass --community ID (see `gitwhy communities`)', 'usage')
    const display = flags.quiet || this.jsonEnabled() ? null : new ProgressDisplay((s) => process.stderr.write(s), process.stderr.isTTY === true, Date.now, () => process.stderr.columns ?? 0, 'brief')
    let r: BriefAllResult
    try {
      r = await briefCommunity({ repo: flags.repo, community: flags.community, refresh: flags.refresh, onProgress: display ? (done, total) => display.report('cards', done, total) : undefined })
    } finally {
      display?.end()
    }
    if (!this.jsonEnabled()) {
      this.log(`${r.community.id} ${r.community.label}: ${r.symbols} symbols — ${r.computed} cards computed, ${r.cached} already cached${r.failed.length ? `, ${r.failed.length} failed` : ''} (${r.written_by}, ${(r.ms / 1000).toFixed(1)} s)`)
      for (const f of r.failed.slice(0, 10)) this.log(`  failed: ${f.target}: ${f.error}`)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
