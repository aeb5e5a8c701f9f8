// Benchmark: the edit trajectory recorder (`gitwhy watch`) on a real repository.
//
//   node bench/trajectory.mjs REPO [--debounce MS] [--idle-seconds S] [--ref REF] [--foreground] [--json]
//
// REPO is cloned into a temporary directory first (`git clone --quiet REPO`); REPO itself is never
// written. In the clone the built CLI starts the background recorder (`gitwhy trajectory start`;
// with --foreground: `gitwhy watch`, oclif's process) and the script measures that process:
//   start       from spawning the recorder to its baseline snapshot (every recordable file)
//   edit10      a 10-file edit: the time from the end of the quiet period to the snapshot committed
//               (the recorder's own measure, printed on its stderr), and from the last write to the
//               snapshot in the journal (that plus the debounce and the event delivery)
//   idle        the recorder's CPU over --idle-seconds (default 10) of no edits (utime + stime from /proc)
//   rss         its resident memory while watching (VmRSS and VmHWM from /proc)
//   checkout    `git checkout REF` (default: the oldest tag of the last 20, else HEAD~200): how many
//               snapshots it made (one is the goal) and how many files that one holds
// Linux only (/proc). Progress on stderr; one JSON document on stdout with --json.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const flag = (name, fallback) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : fallback
}
const source = args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--') && args[i - 1] !== '--json'))
if (!source) {
  process.stderr.write('usage: node bench/trajectory.mjs REPO [--debounce MS] [--idle-seconds S] [--ref REF] [--json]\n')
  process.exit(1)
}
const debounce = Number(flag('--debounce', '2000'))
const idleSeconds = Number(flag('--idle-seconds', '10'))
const json = args.includes('--json')
const foreground = args.includes('--foreground')
const RUN = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const log = (m) => process.stderr.write(`${m}\n`)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

const tmp = mkdtempSync(join(tmpdir(), 'gitwhy-bench-trajectory-'))
const repo = join(tmp, 'repo')
const git = (...a) => execFileSync('git', a, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
log(`cloning ${resolve(source)} into ${repo}`)
execFileSync('git', ['clone', '--quiet', resolve(source), repo])
const journal = join(repo, '.gitwhy', 'trajectory', 'journal.jsonl')
const records = () => (existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [])

async function until(what, probe, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = probe()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

function procStat(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { ticks: Number(f[11]) + Number(f[12]) }
}
function procMem(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return { rss_mb: Math.round(kb('VmRSS') / 102.4) / 10, peak_rss_mb: Math.round(kb('VmHWM') / 102.4) / 10 }
}
const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100

const result = { repo: resolve(source), files: Number(git('ls-files').split('\n').filter(Boolean).length), debounce_ms: debounce }
const started = performance.now()
let stderr = ''
let child = null
let pid
if (foreground) {
  child = spawn(process.execPath, [RUN, 'watch', '--debounce', String(debounce)], { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] })
  child.stderr.on('data', (d) => (stderr += d.toString()))
  pid = child.pid
} else {
  pid = JSON.parse(execFileSync(process.execPath, [RUN, 'trajectory', 'start', '--debounce', String(debounce), '--json'], { cwd: repo, encoding: 'utf8' })).pid
}
const logFile = join(repo, '.gitwhy', 'trajectory', 'recorder.log')
const output = () => (foreground ? stderr : existsSync(logFile) ? readFileSync(logFile, 'utf8') : '')
/** The recorder's own measure per snapshot: [line, id prefix, files, ms from the end of the quiet period to the commit]. */
const timings = () => [...output().matchAll(/snapshot (\w+): (\d+) files, committed (\d+) ms/g)]
result.recorder = foreground ? 'gitwhy watch (foreground, oclif)' : 'gitwhy trajectory start (background)'
try {
  await until('the baseline', () => records()[0])
  await until('the recorder to watch', () => /recording /.test(output()))
  result.start_ms = Math.round(performance.now() - started)
  result.baseline_files = records()[0].tree_files
  log(`recorder up in ${result.start_ms} ms, baseline of ${result.baseline_files} files`)

  // a 10-file edit: append a comment line to 10 source files
  const sources = git('ls-files', '*.ts').split('\n').filter((p) => p && !p.endsWith('.d.ts')).slice(0, 10)
  const before = records().length
  const latencies = []
  const walls = []
  for (let round = 0; round < 3; round++) {
    const seen = records().length
    for (const p of sources) writeFileSync(join(repo, p), readFileSync(join(repo, p), 'utf8') + `// edit ${round}\n`)
    const lastWrite = performance.now()
    const snap = await until('the 10-file snapshot', () => records()[seen])
    walls.push(Math.round(performance.now() - lastWrite))
    const m = await until('the timing line', () => timings().find((x) => snap.id.startsWith(x[1])))
    latencies.push(Number(m[3]))
    if (snap.files.length !== sources.length) throw new Error(`expected one snapshot of ${sources.length} files, got ${snap.files.length}`)
    await sleep(debounce + 300)
  }
  result.edit10 = { snapshots: records().length - before, quiet_end_to_commit_ms: latencies, last_write_to_journal_ms: walls }
  log(`10-file edit: committed ${latencies.join(', ')} ms after the quiet period (last write → journal ${walls.join(', ')} ms)`)

  // idle CPU and memory
  const t0 = procStat(pid).ticks
  await sleep(idleSeconds * 1000)
  const t1 = procStat(pid).ticks
  result.idle = { seconds: idleSeconds, cpu_percent: Math.round(((t1 - t0) / TICK / idleSeconds) * 1000) / 10 }
  result.memory = procMem(pid)
  log(`idle ${idleSeconds} s: ${result.idle.cpu_percent} % CPU; RSS ${result.memory.rss_mb} MB (peak ${result.memory.peak_rss_mb} MB)`)

  // a checkout of another revision: one snapshot
  const tags = git('tag', '--sort=-creatordate').split('\n').filter(Boolean).slice(0, 20)
  const ref = flag('--ref', tags.at(-1) ?? 'HEAD~200')
  const changed = git('diff', '--name-only', 'HEAD', ref).split('\n').filter(Boolean).length
  // undo the edits first (itself one snapshot), so that the checkout is clean
  const undo = records().length
  git('checkout', '--quiet', '--', '.')
  await until('the undo snapshot', () => records()[undo])
  await sleep(debounce + 500)
  const seen = records().length
  const t2 = performance.now()
  git('checkout', '--quiet', ref)
  await until('the checkout snapshot', () => records()[seen])
  const first = performance.now() - t2
  await sleep(debounce * 2 + 1000)
  const made = records().slice(seen)
  result.checkout = { ref, files_differing: changed, snapshots: made.length, files_in_snapshot: made.map((r) => r.files.length), ms_to_snapshot: Math.round(first), committed_ms_after_quiet: timings().filter((x) => made.some((r) => r.id.startsWith(x[1]))).map((x) => Number(x[3])) }
  log(`checkout ${ref} (${changed} files differ): ${made.length} snapshot(s) of ${made.map((r) => r.files.length).join(', ')} files`)
  result.memory_after_checkout = procMem(pid)
} finally {
  if (child) {
    child.kill('SIGTERM')
    await new Promise((r) => child.on('exit', r))
  } else {
    execFileSync(process.execPath, [RUN, 'trajectory', 'stop'], { cwd: repo, stdio: 'ignore' })
  }
  rmSync(tmp, { recursive: true, force: true })
}
if (json) process.stdout.write(JSON.stringify(result, null, 2) + '\n')
else log(JSON.stringify(result, null, 2))
