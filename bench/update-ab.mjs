#!/usr/bin/env node
// Two builds of gitwhy, one repository, one-commit updates interleaved (A, B, A, B, …): what a
// change to the update path is worth when the machine's own noise (±10 % between runs of
// bench/update.mjs) is as large as the change. Each build updates its own clone (their schema
// versions may differ); every round edits the same file of both, and each update's wall time and
// CPU time (user + system, of the process and its children: git, Kuzu's threads) are taken from
// the kernel's accounting, as GNU time gives them. Besides each side's medians it prints the median
// of the rounds' differences (B - A), which the machine's drift between rounds does not move.
//
//   node bench/update-ab.mjs <repo> --a <project dir> [--b <project dir>] [--file PATH] [--at LINE] [--commits 12] [--tmp DIR] [--json]
//
// --a and --b are project directories holding a built gitwhy (bin/run.js and dist/), e.g. a git
// worktree of an earlier commit after `npm run build`; --b defaults to this project. --file is the
// file every round appends a comment to (default: the first tracked .ts/.js/.py/.go file). With
// --at, the comment goes in as line LINE instead: pick a line inside a function, and every round
// edits that function (a symbol's history, its co-change pairs and so the communities change, as in
// a real edit; a comment at the end changes no symbol).
import { execFileSync } from 'node:child_process'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { abArgs, analyzeProcess as analyze, cpuOfChildren, percentiles } from './lib.mjs'

const { opt, repo, builds, json } = abArgs('node bench/update-ab.mjs <repo> --a <project dir> [--b <project dir>] [--file PATH] [--at LINE] [--commits 12] [--tmp DIR] [--json]')
const ROUNDS = Number(opt('commits', 12))
const log = (m) => process.stderr.write(`${m}\n`)
const git = (cwd, argv) => execFileSync('git', argv, { cwd, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] })

const median = (xs) => percentiles(xs).p50
const at = opt('at') === undefined ? null : Number(opt('at'))
if (at !== null && !(Number.isInteger(at) && at >= 1)) throw new Error(`--at takes a line number (1 or more), not ${opt('at')}`)
/** The round's comment: appended to the file, or put in as line `at`. */
const edit = (path, comment) => {
  if (at === null) return appendFileSync(path, `\n${comment}\n`)
  const lines = readFileSync(path, 'utf8').split('\n')
  if (at > lines.length) throw new Error(`--at ${at}: ${path} has ${lines.length} lines`)
  lines.splice(at - 1, 0, comment)
  writeFileSync(path, lines.join('\n'))
}

const dir = mkdtempSync(join(opt('tmp', tmpdir()), 'gitwhy-bench-ab-'))
try {
  const clones = {}
  for (const k of ['A', 'B']) {
    clones[k] = join(dir, k)
    git(dir, ['clone', '-q', repo, clones[k]])
    // a snapshot that stands its missing big blobs in with replace refs (bench/scale.mjs): the clone gets them too
    git(clones[k], ['fetch', '-q', 'origin', 'refs/replace/*:refs/replace/*'])
    log(`${k}: ${builds[k]}: full analyze of a clone (not timed)`)
    await analyze(builds[k], clones[k])
  }
  const file = opt('file') ?? git(clones.A, ['ls-files']).split('\n').find((f) => /\.(ts|js|py|go)$/.test(f))
  const runs = { A: [], B: [] }
  for (let i = 0; i < ROUNDS; i++) {
    for (const k of ['A', 'B']) {
      edit(join(clones[k], file), `${/\.(rb|py|sh|pl|r|ex|exs|cr|nim|jl)$/i.test(file) ? '#' : '//'} gitwhy ab ${i}`)
      git(clones[k], ['-c', 'user.name=gitwhy bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify', '-m', `ab ${i}`, '--', file])
      const cpu0 = cpuOfChildren()
      const r = await analyze(builds[k], clones[k])
      const cpu = cpuOfChildren() - cpu0
      if (r.summary.mode !== 'incremental') throw new Error(`${k}'s update ${i} was ${r.summary.mode}, not incremental`)
      runs[k].push({ wall: r.wall, cpu, total: r.summary.timings.total_ms, timings: r.summary.timings })
    }
    log(`  round ${i + 1}: A ${Math.round(runs.A.at(-1).wall)} ms · B ${Math.round(runs.B.at(-1).wall)} ms`)
  }
  const sum = (k) => ({ wall: median(runs[k].map((r) => r.wall)), cpu: median(runs[k].map((r) => r.cpu)), total: median(runs[k].map((r) => r.total)) })
  // each round's B - A: the machine's drift between rounds (seconds apart) cancels, which the two medians keep
  const paired = (field) => median(runs.B.map((r, i) => r[field] - runs.A[i][field]))
  const diff = { wall: paired('wall'), cpu: paired('cpu'), total: paired('total'), bWins: runs.B.filter((r, i) => r.wall < runs.A[i].wall).length }
  const result = { repo, file, rounds: ROUNDS, A: { build: builds.A, ...sum('A') }, B: { build: builds.B, ...sum('B') }, pairedDifference: diff, runs }
  if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
  else {
    console.log(`${repo}, ${ROUNDS} interleaved one-commit updates of ${file} (medians):`)
    for (const k of ['A', 'B']) console.log(`  ${k} ${result[k].build}: wall ${Math.round(result[k].wall)} ms · CPU ${Math.round(result[k].cpu)} ms · total_ms ${result[k].total}`)
    console.log(`  B - A: wall ${Math.round(result.B.wall - result.A.wall)} ms · CPU ${Math.round(result.B.cpu - result.A.cpu)} ms`)
    console.log(`  B - A round by round (median): wall ${Math.round(diff.wall)} ms · CPU ${Math.round(diff.cpu)} ms · total_ms ${Math.round(diff.total)} · B faster in ${diff.bWins} of ${ROUNDS}`)
    // the phases both builds report (a phase's median per side): where the difference is
    const phases = Object.keys(runs.A[0].timings).filter((p) => p !== 'total_ms' && runs.B.every((r) => typeof r.timings[p] === 'number'))
    console.log(`  phases (median A → B, ms): ${phases.map((p) => `${p.replace(/_ms$/, '')} ${median(runs.A.map((r) => r.timings[p]))} → ${median(runs.B.map((r) => r.timings[p]))}`).join(' · ')}`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

