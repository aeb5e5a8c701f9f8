import { UserError } from '../errors.js'
import { renderIndexNote } from '../render.js'
import { askList, risk, riskBacktest, type BacktestReport, type RiskResult } from '../services/risk.js'
import { viewText, type View } from './view.js'

export interface RiskInput {
  args: { target?: string }
  flags: { repo?: string; backtest: boolean; months?: number }
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`)

export const riskView: View<RiskInput, RiskResult | BacktestReport> = {
  async answer({ args, flags }) {
    if (flags.backtest) {
      if (args.target) throw new UserError('--backtest scores every file; it takes no target', 'drop the target, or drop --backtest', 'usage')
      return riskBacktest({ repo: flags.repo, months: flags.months })
    }
    if (!args.target) throw new UserError('nothing to assess', 'pass a file or symbol, or --backtest', 'usage')
    if (flags.months !== undefined) throw new UserError('--months goes with --backtest', 'add --backtest, or drop --months', 'usage')
    return risk({ repo: flags.repo, target: args.target })
  },
  text(result) {
    if ('auc' in result) {
      const r = result
      return viewText([
        `as of ${r.as_of.slice(0, 10)} (${r.horizon_months} months before the indexed HEAD): ${r.files} files scored, ${r.positives} later received a fix (base rate ${pct(r.base_rate)})`,
        `ROC AUC ${r.auc === null ? 'n/a' : r.auc.toFixed(3)} (0.5 = chance) · precision at top 10 % ${pct(r.precision_at_10pct)}`,
        `each factor alone: ownership ${r.factor_auc.ownership?.toFixed(3) ?? 'n/a'}, hotspot ${r.factor_auc.hotspot?.toFixed(3) ?? 'n/a'}, co-change ${r.factor_auc.cochange?.toFixed(3) ?? 'n/a'}`,
        ...r.top.map((f) => `  ${f.score.toFixed(2)} ${f.level.padEnd(6)} ${f.positive ? 'fixed later ' : '            '} ${f.path}`),
      ])
    }
    const r = result
    const t = r.target
    const lines = [`${r.level} (${r.score.toFixed(2)})  ${t.kind === 'symbol' ? `${t.qualified_name} (${t.path})` : t.path}`]
    for (const reason of r.reasons) lines.push(`  - ${reason}`)
    if (r.ask.length) lines.push(`  ask: ${askList(r.ask)}`)
    return viewText(lines, renderIndexNote(r.index))
  },
}
