#!/usr/bin/env node
// Calibrates the risk model: runs the risk backtest (src/analytics/risk.ts `backtest`) on indexed
// repositories over a grid of factor weights and horizons. The weights are chosen on the training
// repositories only; the held-out ones (--holdout) are never looked at while choosing, and their
// AUC with the chosen weights is what to report (mean and worst), beside the defaults' and each
// factor alone.
//
//   node bench/backtest.mjs <indexed-repo> [...] [--holdout <indexed-repo>,...] [--months 6,12]
//
// Build first (`npm run build`); every repository needs `gitwhy analyze` first.
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { IndexReader } = await import(join(ROOT, 'dist/services/index-reader.js'))
const { analyticsInput, loadAnalyticsCache } = await import(join(ROOT, 'dist/analytics/cache.js'))
const { backtest, DEFAULT_RISK_MODEL } = await import(join(ROOT, 'dist/analytics/risk.js'))
const { asOf } = await import(join(ROOT, 'dist/services/analytics.js'))

const args = process.argv.slice(2)
const value = (flag) => (args.indexOf(flag) >= 0 ? args[args.indexOf(flag) + 1] : undefined)
const months = (value('--months') ?? '6,12').split(',').map(Number)
const holdout = (value('--holdout') ?? '').split(',').filter(Boolean)
const train = args.filter((a, i) => !a.startsWith('--') && !['--months', '--holdout'].includes(args[i - 1]))
if (train.length === 0) {
  process.stderr.write('usage: node bench/backtest.mjs <indexed-repo> [...] [--holdout <indexed-repo>,...] [--months 6,12]\n')
  process.exit(1)
}

async function load(repos) {
  const out = []
  for (const repo of repos) {
    const reader = await IndexReader.open(repo)
    out.push({ repo, input: analyticsInput(loadAnalyticsCache(reader.dir), reader.files(), await asOf(reader)), config: reader.meta.options.analytics })
    await reader.close()
  }
  return out
}
const trainInputs = await load(train)
const holdoutInputs = await load(holdout)

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN)
function evaluate(inputs, weights) {
  const runs = []
  for (const { repo, input, config } of inputs) for (const m of months) {
    const r = backtest(input, { months: m, config, weights })
    runs.push({ repo, months: m, auc: r.auc, p10: r.precision_at_10pct, factor_auc: r.factor_auc, files: r.files, positives: r.positives })
  }
  const aucs = runs.map((r) => r.auc ?? 0.5)
  return { weights, auc: mean(aucs), worst: Math.min(...aucs), p10: mean(runs.map((r) => r.p10 ?? 0)), runs }
}

const grid = []
for (const ownership of [0, 10, 20, 40]) for (const hotspot of [0, 30, 50, 80]) for (const cochange of [0, 10, 20, 40, 80]) if (ownership + hotspot + cochange > 0) grid.push({ ownership, hotspot, cochange })
const rows = grid.map((w) => evaluate(trainInputs, w)).sort((a, b) => b.auc - a.auc)
const fmt = (w) => `${w.ownership}/${w.hotspot}/${w.cochange}`
const line = (r) => `${fmt(r.weights).padEnd(10)} AUC mean ${r.auc.toFixed(3)} worst ${r.worst.toFixed(3)}  p@10% ${(r.p10 * 100).toFixed(1)} %`
console.log(`weights ownership/hotspot/co-change; training: ${train.length} repositories × horizons ${months.join(', ')} months`)
for (const r of rows.slice(0, 5)) console.log(`  ${line(r)}`)
console.log(`  default ${line(evaluate(trainInputs, DEFAULT_RISK_MODEL.weights))}`)

const report = (title, inputs, weights) => {
  const r = evaluate(inputs, weights)
  console.log(`${title}: ${line(r)}`)
  for (const run of r.runs) console.log(`    ${run.repo} ${run.months} mo: AUC ${run.auc?.toFixed(3)}  p@10% ${run.p10 === null ? 'n/a' : (run.p10 * 100).toFixed(1) + ' %'}  (${run.files} files, ${run.positives} fixed later; alone: ownership ${run.factor_auc.ownership?.toFixed(3)}, hotspot ${run.factor_auc.hotspot?.toFixed(3)}, co-change ${run.factor_auc.cochange?.toFixed(3)})`)
}
if (holdoutInputs.length) {
  console.log(`\nheld out (${holdout.length} repositories, never used to choose):`)
  report('  chosen on training', holdoutInputs, rows[0].weights)
  report('  defaults', holdoutInputs, DEFAULT_RISK_MODEL.weights)
  report('  recent activity alone', holdoutInputs, { ownership: 0, hotspot: 1, cochange: 0 })
} else {
  console.log('\nthe best, per repository and horizon:')
  report('  best', trainInputs, rows[0].weights)
}
