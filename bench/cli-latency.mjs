// How long one CLI answer takes, as a person or an agent pays it: each read command run as a new
// process, N times, median and p95 wall time and median CPU time (user + system, from GNU time),
// on the fast path (bin/run.js → dist/bundle/cli.mjs, no oclif) and through oclif
// (GITWHY_FAST_CLI=0), beside plain node's start-up (the floor) and git's own answers.
//
//   node bench/cli-latency.mjs <indexed repo> [--runs 9] [--file PATH] [--json]
//
// The file defaults to the index's top hotspot; evidence asks for its first 40 lines.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, extname, join } from 'node:path'
import { BIN, benchArgs, percentiles } from './lib.mjs'

const { opt, repo, json } = benchArgs('node bench/cli-latency.mjs <indexed repo> [--runs 9] [--file PATH] [--json]')
const runs = Number(opt('runs', '9'))
const TARGET_MS = 200
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null
const scratch = mkdtempSync(join(tmpdir(), 'gitwhy-cli-latency-'))
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))

function once(cmd, args, env) {
  const out = join(scratch, 'time')
  const start = process.hrtime.bigint()
  const r = TIME ? spawnSync(TIME, ['-f', '%U %S', '-o', out, cmd, ...args], { cwd: repo, env, encoding: 'utf8', maxBuffer: 1 << 28 }) : spawnSync(cmd, args, { cwd: repo, env, encoding: 'utf8', maxBuffer: 1 << 28 })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 400)}`)
  const cpu = TIME ? readFileSync(out, 'utf8').trim().split(/\s+/).slice(-2).reduce((a, b) => a + Number(b) * 1000, 0) : null
  return { ms, cpu, stdout: r.stdout }
}

function measure(cmd, args, env = process.env) {
  once(cmd, args, env) // warm the page cache
  const samples = Array.from({ length: runs }, () => once(cmd, args, env))
  const cpus = samples.map((s) => s.cpu).filter((c) => c !== null)
  return { ...percentiles(samples.map((s) => s.ms)), cpu_p50: cpus.length ? percentiles(cpus).p50 : null }
}

const file = opt('file', undefined) ?? JSON.parse(once(process.execPath, [BIN, 'hotspots', '--json', '--limit', '1', '--level', 'file']).stdout).files[0].path
const word = basename(file, extname(file))
const commands = [
  ['--version'],
  ['status'],
  ['evidence', `${file}:1-40`],
  ['history', file],
  ['risk', file],
  ['augment', word],
  ['why', `${file}:1-40`],
]
const rows = [{ name: 'node -e 0 (the floor)', fast: measure(process.execPath, ['-e', '0']) }]
for (const c of commands) {
  rows.push({ name: `gitwhy ${c.join(' ')}`, fast: measure(process.execPath, [BIN, ...c]), oclif: measure(process.execPath, [BIN, ...c], { ...process.env, GITWHY_FAST_CLI: '0' }) })
}
rows.push({ name: `git blame -L 1,40 ${file}`, fast: measure('git', ['blame', '-L', '1,40', '--', file]) })
rows.push({ name: `git log --follow --oneline ${file}`, fast: measure('git', ['log', '--follow', '--oneline', '--', file]) })

if (json) {
  process.stdout.write(JSON.stringify({ repo, file, runs, target_ms: TARGET_MS, rows }, null, 2) + '\n')
} else {
  const f = (x) => (x === null || x === undefined ? '—' : `${Math.round(x)}`)
  console.log(`${repo} · ${runs} runs each · file ${file} · target < ${TARGET_MS} ms median`)
  console.log(`${'call'.padEnd(58)} ${'p50 ms'.padStart(7)} ${'p95'.padStart(6)} ${'cpu'.padStart(6)}   ${'oclif p50'.padStart(9)} ${'cpu'.padStart(6)}`)
  for (const r of rows) console.log(`${r.name.slice(0, 58).padEnd(58)} ${f(r.fast.p50).padStart(7)} ${f(r.fast.p95).padStart(6)} ${f(r.fast.cpu_p50).padStart(6)}   ${f(r.oclif?.p50).padStart(9)} ${f(r.oclif?.cpu_p50).padStart(6)}`)
}
