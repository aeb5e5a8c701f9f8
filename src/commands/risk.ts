import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { UserError } from '../errors.js'
import { renderIndexNote } from '../render.js'
import { risk, riskBacktest, type BacktestReport, type RiskResult } from '../services/risk.js'

const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`)

export default class Risk extends BaseCommand {
  static summary = 'Is this risky to touch: LOW / MEDIUM / HIGH with reasons and the people to ask. --backtest measures how well the score predicts later fixes.'
  static description =
    'From the bus factor and ghost status (who owns the lines at HEAD), the hotspot score and the co-change breadth. `--backtest` replays the history: scores as of --months before the indexed HEAD against the files that later received fix or revert commits, reported as ROC AUC and precision at the top 10 %.'
  static examples = ['<%= config.bin %> risk src/server.ts', '<%= config.bin %> risk Router.route --json', '<%= config.bin %> risk --backtest --months 6']
  static args = { target: Args.string({ description: 'file or symbol' }) }
  static flags = {
    backtest: Flags.boolean({ description: 'measure the model on this repository\'s history instead', default: false }),
    months: Flags.integer({ description: 'with --backtest: how far back the scores are computed (default 6)' }),
  }

  async run(): Promise<RiskResult | BacktestReport> {
    const { args, flags } = await this.parse(Risk)
    if (flags.backtest) {
      if (args.target) throw new UserError('--backtest scores every file; it takes no target', 'drop the target, or drop --backtest', 'usage')
      const r = await riskBacktest({ repo: flags.repo, months: flags.months })
      if (!this.jsonEnabled()) {
        this.log(`as of ${r.as_of.slice(0, 10)} (${r.horizon_months} months before the indexed HEAD): ${r.files} files scored, ${r.positives} later received a fix (base rate ${pct(r.base_rate)})`)
        this.log(`ROC AUC ${r.auc === null ? 'n/a' : r.auc.toFixed(3)} (0.5 = chance) · precision at top 10 % ${pct(r.precision_at_10pct)}`)
        this.log(`each factor alone: ownership ${r.factor_auc.ownership?.toFixed(3) ?? 'n/a'}, hotspot ${r.factor_auc.hotspot?.toFixed(3) ?? 'n/a'}, co-change ${r.factor_auc.cochange?.toFixed(3) ?? 'n/a'}`)
        for (const f of r.top) this.log(`  ${f.score.toFixed(2)} ${f.level.padEnd(6)} ${f.positive ? 'fixed later ' : '            '} ${f.path}`)
      }
      return r
    }
    if (!args.target) throw new UserError('nothing to assess', 'pass a file or symbol, or --backtest', 'usage')
    if (flags.months !== undefined) throw new UserError('--months goes with --backtest', 'add --backtest, or drop --months', 'usage')
    const r = await risk({ repo: flags.repo, target: args.target })
    if (!this.jsonEnabled()) {
      const t = r.target
      this.log(`${r.level} (${r.score.toFixed(2)})  ${t.kind === 'symbol' ? `${t.qualified_name} (${t.path})` : t.path}`)
      for (const reason of r.reasons) this.log(`  - ${reason}`)
      if (r.contributors.length) this.log(`  ask: ${r.contributors.map((c) => `${c.name} <${c.email}> (${(c.share * 100).toFixed(0)} %)`).join(', ')}`)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
