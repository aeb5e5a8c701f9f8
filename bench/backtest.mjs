#!/usr/bin/env node
// Calibrates the risk model: runs `gitwhy risk --backtest` (src/analytics/risk.ts backtest) on
// indexed repositories over a grid of factor weights and horizons, and prints each combination's
// ROC AUC and precision at the top 10 %, averaged over the repositories and horizons.
//
//   node bench/backtest.mjs <indexed-repo> [<indexed-repo> ...] [--months 6,12]
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
const mi = args.indexOf('--months')
const months = mi >= 0 ? args[mi + 1].split(',').map(Number) : [6, 12]
const repos = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--months')
if (repos.length === 0) {
  process.stderr.write('usage: node bench/backtest.mjs <indexed-repo> [...] [--months 6,12]\n')
  process.exit(1)
}

const inputs = []
for (const repo of repos) {
  const reader = await IndexReader.open(repo)
  inputs.push({ repo, input: analyticsInput(loadAnalyticsCache(reader.dir), reader.files(), await asOf(reader)), config: reader.meta.options.analytics })
  await reader.close()
}

const grid = []
for (const ownership of [0, 10, 20, 40]) for (const hotspot of [30, 40, 50, 60, 70, 80]) for (const cochange of [0, 10, 20, 30, 40]) grid.push({ ownership, hotspot, cochange })
const rows = []
for (const weights of grid) {
  const runs = []
  for (const { repo, input, config } of inputs) for (const m of months) {
    const r = backtest(input, { months: m, config, weights })
    runs.push({ repo, months: m, auc: r.auc, p10: r.precision_at_10pct, factor_auc: r.factor_auc, files: r.files, positives: r.positives })
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length
  rows.push({ weights, auc: mean(runs.map((r) => r.auc ?? 0.5)), p10: mean(runs.map((r) => r.p10 ?? 0)), runs })
}
rows.sort((a, b) => b.auc - a.auc)
const fmt = (w) => `${w.ownership}/${w.hotspot}/${w.cochange}`
const current = rows.find((r) => fmt(r.weights) === fmt(DEFAULT_RISK_MODEL.weights))
console.log(`weights ownership/hotspot/co-change, mean over ${repos.length} repositories × horizons ${months.join(', ')} months`)
for (const r of [...rows.slice(0, 5), ...rows.filter((r) => r.weights.ownership === 10).slice(0, 3), ...rows.filter((r) => r.weights.ownership === 20).slice(0, 2)]) console.log(`${fmt(r.weights).padEnd(10)} AUC ${r.auc.toFixed(3)}  p@10% ${(r.p10 * 100).toFixed(1)} %`)
if (current) console.log(`default ${fmt(current.weights)}: AUC ${current.auc.toFixed(3)}  p@10% ${(current.p10 * 100).toFixed(1)} %`)
console.log('\nthe best, per repository and horizon:')
for (const run of rows[0].runs) console.log(`  ${run.repo} ${run.months} mo: AUC ${run.auc?.toFixed(3)}  p@10% ${run.p10 === null ? 'n/a' : (run.p10 * 100).toFixed(1) + ' %'}  (${run.files} files, ${run.positives} fixed later; factors alone: ownership ${run.factor_auc.ownership?.toFixed(3)}, hotspot ${run.factor_auc.hotspot?.toFixed(3)}, co-change ${run.factor_auc.cochange?.toFixed(3)})`)
