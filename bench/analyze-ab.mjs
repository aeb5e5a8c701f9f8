#!/usr/bin/env node
// Two builds of gitwhy, one repository, full builds interleaved (A, B, A, B, …): what a change to
// analyze is worth when the machine's own drift is as large as the change (git/git's `git log -p`
// took 46.5–55.2 s on one machine in one evening). Each build has its own clone and runs
// `analyze --force` there every round, with no spare graph made after it (a copier running into the
// next round would be timed with it); wall time and CPU time (user + system, of the process and
// its children: git, Kuzu's threads) are taken from the kernel's accounting, as GNU time gives
// them, with the phases' times from the summary. The CPU time is what to read: on 2 cores the
// history phase is CPU-bound, and the wall time of one run moves by ±5 %.
//
//   node bench/analyze-ab.mjs <repo> --a <project dir> [--b <project dir>] [--a-args "..."] [--b-args "..."] [--rounds 3] [--tmp DIR] [--json]
//
// --a and --b are project directories holding a built gitwhy (bin/run.js and dist/), e.g. a git
// worktree of an earlier commit after `npm run build`; --b defaults to this project. --a-args and
// --b-args are more analyze options for each, space-separated: one build against itself with
// `--a . --a-args --no-embeddings --b-args --embeddings` is what embeddings cost (issue 12's
// "+25 %"; the ratio B / A of each round is printed, its median and mean).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { abArgs, analyzeProcess, cpuOfChildren, percentiles } from './lib.mjs'

const { opt, repo, builds, json } = abArgs('node bench/analyze-ab.mjs <repo> --a <project dir> [--b <project dir>] [--a-args "..."] [--b-args "..."] [--rounds 3] [--tmp DIR] [--json]')
const ROUNDS = Number(opt('rounds', 3))
const PHASES = ['history_ms', 'hunk_map_ms', 'rows_ms', 'analytics_ms', 'save_ms', 'graph_load_ms', 'total_ms']
const log = (m) => process.stderr.write(`${m}\n`)
const median = (xs) => percentiles(xs).p50
const extra = { A: String(opt('a-args', '')).split(' ').filter(Boolean), B: String(opt('b-args', '')).split(' ').filter(Boolean) }

const dir = mkdtempSync(join(opt('tmp', tmpdir()), 'gitwhy-bench-analyze-ab-'))
try {
  const clones = {}
  for (const k of ['A', 'B']) {
    clones[k] = join(dir, k)
    execFileSync('git', ['clone', '-q', repo, clones[k]])
    // a snapshot whose missing blobs have stand-ins (replace refs, bench/README session 33): the clone gets them too
    execFileSync('git', ['fetch', '-q', 'origin', 'refs/replace/*:refs/replace/*'], { cwd: clones[k] })
  }
  const runs = { A: [], B: [] }
  for (let i = 0; i < ROUNDS; i++) {
    for (const k of ['A', 'B']) {
      const cpu0 = cpuOfChildren()
      const r = await analyzeProcess(builds[k], clones[k], ['--force', ...extra[k]], { GITWHY_SPARE_GRAPH: 'off' })
      const cpu = cpuOfChildren() - cpu0
      if (r.summary.mode !== 'full') throw new Error(`${k}'s analyze ${i} was ${r.summary.mode}, not full`)
      runs[k].push({ wall: r.wall, cpu, peak_mb: Math.max(0, ...Object.values(r.summary.peak_mb ?? {})), ...Object.fromEntries(PHASES.map((p) => [p, r.summary.timings[p] ?? 0])) })
      log(`  round ${i + 1} ${k}: wall ${(r.wall / 1000).toFixed(1)} s · CPU ${(cpu / 1000).toFixed(1)} s · history ${(r.summary.timings.history_ms / 1000).toFixed(1)} s · peak ${runs[k].at(-1).peak_mb} MB`)
    }
  }
  const sum = (k) => Object.fromEntries(['wall', 'cpu', 'peak_mb', ...PHASES].map((m) => [m, median(runs[k].map((r) => r[m]))]))
  const ratios = runs.B.map((b, i) => b.wall / runs.A[i].wall)
  const result = { repo, rounds: ROUNDS, A: { build: builds.A, args: extra.A, ...sum('A'), runs: runs.A }, B: { build: builds.B, args: extra.B, ...sum('B'), runs: runs.B }, wall_ratio: { median: median(ratios), mean: ratios.reduce((x, y) => x + y, 0) / ratios.length, rounds: ratios } }
  if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
  else {
    const s = (ms) => `${(ms / 1000).toFixed(1)} s`
    console.log(`${repo}, ${ROUNDS} interleaved full builds (medians):`)
    for (const k of ['A', 'B']) console.log(`  ${k} ${result[k].build} ${result[k].args.join(' ')}: wall ${s(result[k].wall)} · CPU ${s(result[k].cpu)} · peak ${result[k].peak_mb} MB · ${PHASES.map((p) => `${p.replace(/_ms$/, '')} ${s(result[k][p])}`).join(' · ')}`)
    console.log(`  B - A: wall ${s(result.B.wall - result.A.wall)} · CPU ${s(result.B.cpu - result.A.cpu)}`)
    console.log(`  B / A wall, per round: ${ratios.map((r) => r.toFixed(3)).join(' ')} · median ${result.wall_ratio.median.toFixed(3)} · mean ${result.wall_ratio.mean.toFixed(3)}`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
