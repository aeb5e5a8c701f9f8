import { Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { MINE_SOURCES, mineDecisions, type MineResult, type MineSource } from '../../services/decisions.js'
import { mineLines } from '../../views/decisions.js'

export default class DecisionsMine extends BaseCommand {
  static summary = 'Mine candidate decisions: ADRs (MADR, Nygard, DECISIONS.md), decision language in commit messages, dependencies the code imports.'
  static description = 'Candidates are kept as proposed in .gitwhy/decisions-proposed.jsonl, each with its evidence and a confidence, until `gitwhy decisions accept` (or --auto) records them. A candidate already recorded, accepted or rejected is not proposed again. Needs an index (`gitwhy analyze`).'
  static examples = ['<%= config.bin %> decisions mine', '<%= config.bin %> decisions mine --source adr --auto 0.85', '<%= config.bin %> decisions mine --dry-run --limit 0 --json']
  static flags = {
    source: Flags.string({ description: 'where to look (repeatable; default adr, commits and manifests; readme: features from the README, opt-in)', options: [...MINE_SOURCES], multiple: true }),
    'min-confidence': Flags.string({ description: 'drop candidates below this confidence (0-1)', default: '0.4' }),
    auto: Flags.string({ description: 'accept candidates with at least this confidence (0-1) right away', helpValue: 'THRESHOLD' }),
    'dry-run': Flags.boolean({ description: 'only report; write nothing' }),
    limit: Flags.integer({ description: 'candidates listed (0 = all; all are kept either way)', default: 30, min: 0 }),
  }

  async run(): Promise<MineResult> {
    const { flags } = await this.parse(DecisionsMine)
    const result = await mineDecisions({
      repo: flags.repo,
      sources: flags.source as MineSource[] | undefined,
      minConfidence: Number(flags['min-confidence']),
      auto: flags.auto === undefined ? undefined : Number(flags.auto),
      dryRun: flags['dry-run'],
      limit: flags.limit,
    })
    if (!this.jsonEnabled()) for (const line of mineLines(result)) this.log(line)
    return result
  }
}
