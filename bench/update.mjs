#!/usr/bin/env node
// What one new commit costs (issue 17, "Incremental update"): for each repository, a local clone
// in a temporary directory is indexed once (not timed), then --commits times one commit edits
// one source file (a seeded random pick, a comment appended: a body-only change, the commonest
// kind) and `gitwhy analyze --json` updates the index, as the post-commit hook runs it. Prints the
// wall time per update (p50, p95, as a process: start-up included) and the median of each phase
// analyze reports, and checks that every run was incremental. A last run edits a file's exported
// name (the code graph must then resolve every file again) and is reported apart.
//
//   node bench/update.mjs <repo> [<repo> ...] [--commits 7] [--seed 1] [--tmp DIR] [--json]
//
// The repositories need no index of their own (their clones get one). Never commits to them.
import { execFileSync, spawnSync } from 'node:child_process'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { BIN, percentiles, seededRandom } from './lib.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : fallback
}
const repos = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')).map((r) => resolve(r))
if (repos.length === 0) {
  process.stderr.write('usage: node bench/update.mjs <repo> [<repo> ...] [--commits 7] [--seed 1] [--tmp DIR] [--json]\n')
  process.exit(1)
}
const COMMITS = Number(opt('commits', 7))
const random = seededRandom(Number(opt('seed', 1)))
const json = args.includes('--json')
const log = (m) => process.stderr.write(`${m}\n`)

const git = (cwd, a) => execFileSync('git', a, { cwd, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] })
const commit = (cwd, file, message) => git(cwd, ['-c', 'user.name=gitwhy bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify', '-m', message, '--', file])

function analyze(cwd) {
  const start = process.hrtime.bigint()
  const r = spawnSync(process.execPath, [BIN, 'analyze', '--json'], { cwd, encoding: 'utf8', maxBuffer: 1 << 28 })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (r.status !== 0) throw new Error(`analyze exited ${r.status}: ${r.stderr.slice(0, 400)}`)
  return { ms, summary: JSON.parse(r.stdout) }
}

const SOURCE = /\.(ts|tsx|js|jsx|mjs|cjs|mts|cts|go|rs|java|py)$/
const median = (xs) => percentiles(xs).p50

const results = []
for (const repo of repos) {
  const dir = mkdtempSync(join(opt('tmp', tmpdir()), 'gitwhy-bench-update-'))
  try {
    const clone = join(dir, 'repo')
    git(dir, ['clone', '-q', repo, clone])
    log(`${basename(repo)}: full analyze of a clone (not timed)`)
    analyze(clone)
    const files = git(clone, ['ls-files']).split('\n').filter((f) => SOURCE.test(f) && !/(^|\/)(test|tests|__tests__|fixtures?)\//.test(f))
    const runs = []
    for (let i = 0; i < COMMITS; i++) {
      const file = files[Math.floor(random() * files.length)]
      appendFileSync(join(clone, file), /\.py$/.test(file) ? `\n# gitwhy bench ${i}\n` : `\n// gitwhy bench ${i}\n`)
      commit(clone, file, `bench: edit ${i}`)
      const r = analyze(clone)
      if (r.summary.mode !== 'incremental') throw new Error(`update ${i} was ${r.summary.mode}, not incremental`)
      runs.push({ file, ms: r.ms, timings: r.summary.timings })
      log(`  ${Math.round(r.ms)} ms  ${file}`)
    }
    // an exported name changes: no reuse of the previous code graph
    const ts = git(clone, ['grep', '-l', '-E', '^export (async )?function [A-Za-z_]', '--', '*.ts', '*.js']).split('\n').filter(Boolean)
    let renamed = null
    if (ts.length > 0) {
      const file = ts[Math.floor(random() * ts.length)]
      const text = readFileSync(join(clone, file), 'utf8')
      writeFileSync(join(clone, file), text.replace(/^export (async )?function ([A-Za-z_]\w*)/m, (m, a, name) => `export ${a ?? ''}function ${name}Renamed`))
      commit(clone, file, 'bench: rename an export')
      const r = analyze(clone)
      renamed = { file, ms: r.ms, mode: r.summary.mode, timings: r.summary.timings }
      log(`  ${Math.round(r.ms)} ms  ${file} (an exported name changed)`)
    }
    const phases = Object.keys(runs[0].timings)
    results.push({
      repo,
      commits: Number(git(repo, ['rev-list', '--count', 'HEAD']).trim()),
      updates: runs.length,
      wall: percentiles(runs.map((r) => r.ms)),
      phases: Object.fromEntries(phases.map((p) => [p, median(runs.map((r) => r.timings[p] ?? 0))])),
      renamed,
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (json) process.stdout.write(`${JSON.stringify({ commits: COMMITS, results }, null, 2)}\n`)
else {
  for (const r of results) {
    console.log(`${basename(r.repo)} (${r.commits} commits): one-commit update p50 ${Math.round(r.wall.p50)} ms, p95 ${Math.round(r.wall.p95)} ms over ${r.updates} (target < 1000 ms)`)
    console.log(`  phases (median ms): ${Object.entries(r.phases).map(([k, v]) => `${k.replace(/_ms$/, '')} ${v}`).join(' · ')}`)
    if (r.renamed) console.log(`  an exported name changed (every file resolved again): ${Math.round(r.renamed.ms)} ms, code_graph ${r.renamed.timings.code_graph_ms} ms (${r.renamed.mode})`)
  }
}
