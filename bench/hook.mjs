#!/usr/bin/env node
// gitwhy hook benchmark: end-to-end time of `gitwhy hook claude` (spawn → exit), the way Claude
// Code runs it, on realistic PreToolUse events against an indexed repository.
//
//   node bench/hook.mjs <repo> [--runs N] [--json] [--cli PATH/bin/run.js] [--load N]
//                      [--words GREP1,GREP2,GLOB,RG,RGDIR]
//
// --load N keeps N busy-looping node processes running during the measurement (a loaded machine);
// --cli measures another build; --words picks the searches (default: trpc's names).
//
// The repository must already be indexed (`gitwhy analyze <repo>`); nothing is written to it.
// Every event is run N times (default 25), interleaved; p50/p95/max are per event and over all
// runs, with how many runs answered (a run past the hook's deadline exits silently, so a fast
// but silent run is visible here). Node built-ins only; the baseline is an empty `node` script.

import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
let BIN = join(PROJECT_ROOT, 'bin', 'run.js')

function die(message) {
  process.stderr.write(`bench/hook: ${message}\nusage: node bench/hook.mjs <repo> [--runs N] [--json]\n`)
  process.exit(1)
}

const argv = process.argv.slice(2)
let repo = null
let runs = 25
let json = false
let load = 0
let words = ['createRouter', 'initTRPC', 'router', 'httpBatchLink', 'packages']
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = Number(argv[++i])
  else if (argv[i] === '--cli') BIN = resolve(argv[++i])
  else if (argv[i] === '--load') load = Number(argv[++i])
  else if (argv[i] === '--words') words = argv[++i].split(',')
  else if (argv[i] === '--json') json = true
  else if (!repo) repo = resolve(argv[i])
  else die(`unexpected argument ${argv[i]}`)
}
if (!repo) die('which repository?')
if (!Number.isInteger(runs) || runs < 1) die('--runs needs a positive whole number')
if (!existsSync(join(repo, '.gitwhy', 'meta.json'))) die(`${repo} has no gitwhy index: run \`gitwhy analyze ${repo}\` first`)
if (!existsSync(join(dirname(BIN), '..', 'dist', 'hook', 'claude.js'))) die('the CLI is not built: run npm run build')

const event = (tool_name, tool_input) => ({
  session_id: 'bench',
  transcript_path: '/tmp/bench.jsonl',
  cwd: repo,
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name,
  tool_input,
  tool_use_id: 'toolu_bench',
})

const EVENTS = [
  [`Grep ${words[0]}`, event('Grep', { pattern: words[0], output_mode: 'files_with_matches' })],
  [`Grep ${words[1]}`, event('Grep', { pattern: words[1], path: repo, output_mode: 'content', '-n': true })],
  [`Glob **/*${words[2]}*.ts`, event('Glob', { pattern: `**/*${words[2]}*.ts` })],
  [`Bash rg -n "${words[3]}" ${words[4]}`, event('Bash', { command: `rg -n "${words[3]}" ${words[4]}`, description: `Find ${words[3]}` })],
  ['Read (silent)', event('Read', { file_path: join(repo, 'package.json') })],
]

const tmp = mkdtempSync(join(tmpdir(), 'gitwhy-hook-bench-'))
const EMPTY = join(tmp, 'empty.mjs')
writeFileSync(EMPTY, '')

function once(args, input) {
  return new Promise((resolveRun, reject) => {
    const t0 = process.hrtime.bigint()
    const child = spawn(process.execPath, args, { cwd: repo, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d))
    child.on('error', reject)
    child.on('close', (code) => resolveRun({ ms: Number(process.hrtime.bigint() - t0) / 1e6, code, stdout }))
    child.stdin.end(input)
  })
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]
}
const stats = (xs) => ({ p50: quantile(xs, 0.5), p95: quantile(xs, 0.95), max: Math.max(...xs) })

const burners = Array.from({ length: load }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }))
try {
  // warm the file cache once (the numbers are for a hook that runs many times a session)
  for (const [, e] of EVENTS) await once([BIN, 'hook', 'claude'], JSON.stringify(e))
  const baseline = []
  const times = new Map(EVENTS.map(([name]) => [name, []]))
  const answered = new Map(EVENTS.map(([name]) => [name, 0]))
  const bad = []
  for (let r = 0; r < runs; r++) {
    baseline.push((await once([EMPTY], '')).ms)
    for (const [name, e] of EVENTS) {
      const res = await once([BIN, 'hook', 'claude'], JSON.stringify(e))
      times.get(name).push(res.ms)
      if (res.code !== 0) bad.push(`${name}: exit ${res.code}`)
      if (res.stdout !== '') {
        answered.set(name, answered.get(name) + 1)
        const doc = JSON.parse(res.stdout)
        if (doc.hookSpecificOutput?.hookEventName !== 'PreToolUse' || typeof doc.hookSpecificOutput.additionalContext !== 'string') bad.push(`${name}: unexpected output ${res.stdout.slice(0, 100)}`)
      }
    }
  }
  const all = [...times.values()].flat()
  const result = {
    repo,
    cli: BIN,
    load,
    runs,
    node_baseline_ms: stats(baseline),
    events: Object.fromEntries(EVENTS.map(([name]) => [name, { ...stats(times.get(name)), answered: answered.get(name) }])),
    all: { ...stats(all), over_200ms: all.filter((x) => x > 200).length, count: all.length },
    problems: bad,
  }
  if (json) process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  else {
    const f = (x) => x.toFixed(0).padStart(5)
    console.log(`gitwhy hook claude (${BIN}) on ${repo}: ${runs} runs per event, ${load} busy processes, spawn → exit, ms`)
    console.log(`${'event'.padEnd(40)}  p50    p95    max   answered`)
    for (const [name, s] of Object.entries(result.events)) console.log(`${name.padEnd(40)} ${f(s.p50)}  ${f(s.p95)}  ${f(s.max)}   ${s.answered}/${runs}`)
    console.log(`${'all events'.padEnd(40)} ${f(result.all.p50)}  ${f(result.all.p95)}  ${f(result.all.max)}   (${result.all.over_200ms}/${result.all.count} over 200 ms)`)
    console.log(`${'node, empty script (baseline)'.padEnd(40)} ${f(result.node_baseline_ms.p50)}  ${f(result.node_baseline_ms.p95)}  ${f(result.node_baseline_ms.max)}`)
    for (const b of bad) console.log(`problem: ${b}`)
  }
} finally {
  for (const b of burners) b.kill()
  rmSync(tmp, { recursive: true, force: true })
}
