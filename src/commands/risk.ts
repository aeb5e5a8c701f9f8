import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import type { BacktestReport, RiskResult } from '../services/risk.js'
import { riskView } from '../views/risk.js'

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
    return this.show(riskView, { args, flags })
  }
}
