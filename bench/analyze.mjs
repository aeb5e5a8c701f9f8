#!/usr/bin/env node
// gitwhy benchmark: how long a full `analyze` takes compared with the git work it replaces.
//
//   npm run bench -- <repo-path> [--skip-blame] [--blame-sample N] [--json] [...]
//
// Plain Node ESM, node built-ins only. Progress goes to stderr; the table (or, with --json, one
// JSON document) goes to stdout. Every gitwhy step is allowed to fail: the error is reported and
// the remaining measurements still run. See bench/README.md for what each number means.

import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, appendFileSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import os, { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')

const USAGE = `usage: npm run bench -- <repo-path> [options]

  --skip-blame            do not time per-file git blame
  --blame-sample N        blame a seeded random sample of N files and extrapolate
  --blame-budget SECONDS  stop blaming after SECONDS and extrapolate from the files done
  --seed S                seed for every random choice (default 1)
  --log-runs N            timed runs of git log -p (default 2; the fastest is used)
  --query-files N         files to run evidence/history on (default 3)
  --query-runs N          runs of each evidence/history call (default 3)
  --skip-gitwhy           only the git reference measurements
  --skip-update           skip the one-commit incremental update (it needs a full analyze of a temp clone)
  --tmp DIR               where the temporary clone goes (default: the OS temp dir)
  --cli PATH              gitwhy entry point (default: <project>/bin/run.js)
  --json                  print one JSON document instead of the table
  --out FILE              also write the JSON document to FILE
`

// ---------------------------------------------------------------------------------------------
// arguments

function parseArgs(argv) {
  const o = {
    repo: null, skipBlame: false, blameSample: 0, blameBudget: 0, seed: 1, logRuns: 2,
    queryFiles: 3, queryRuns: 3, skipGitwhy: false, skipUpdate: false, tmp: tmpdir(),
    cli: join(PROJECT_ROOT, 'bin', 'run.js'), json: false, out: null,
  }
  const num = (name, v) => {
    const n = Number(v)
    if (!Number.isFinite(n) || n < 0) die(`${name} needs a non-negative number, got "${v}"`)
    return n
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => {
      if (i + 1 >= argv.length) die(`${a} needs a value`)
      return argv[++i]
    }
    switch (a) {
      case '--skip-blame': o.skipBlame = true; break
      case '--blame-sample': o.blameSample = Math.floor(num(a, next())); break
      case '--blame-budget': o.blameBudget = num(a, next()); break
      case '--seed': o.seed = Math.floor(num(a, next())); break
      case '--log-runs': o.logRuns = Math.max(1, Math.floor(num(a, next()))); break
      case '--query-files': o.queryFiles = Math.floor(num(a, next())); break
      case '--query-runs': o.queryRuns = Math.max(1, Math.floor(num(a, next()))); break
      case '--skip-gitwhy': o.skipGitwhy = true; break
      case '--skip-update': o.skipUpdate = true; break
      case '--tmp': o.tmp = resolve(next()); break
      case '--cli': o.cli = resolve(next()); break
      case '--json': o.json = true; break
      case '--out': o.out = resolve(next()); break
      case '-h': case '--help': process.stdout.write(USAGE); process.exit(0)
      default:
        if (a.startsWith('-')) die(`unknown option ${a}\n\n${USAGE}`)
        if (o.repo) die(`only one repository path, got "${o.repo}" and "${a}"`)
        o.repo = resolve(a)
    }
  }
  if (!o.repo) die(USAGE)
  return o
}

function die(msg) {
  process.stderr.write(`bench: ${msg}\n`)
  process.exit(1)
}

const log = (msg) => process.stderr.write(`[bench] ${msg}\n`)

// ---------------------------------------------------------------------------------------------
// process helpers

/** GNU time (`-f`, `-o`) gives the peak RSS of the child and its waited-for descendants. */
const GNU_TIME = (() => {
  if (!existsSync('/usr/bin/time')) return null
  const r = spawnSync('/usr/bin/time', ['-f', '%M', 'true'], { encoding: 'utf8' })
  return r.status === 0 && /^\d+\s*$/m.test(r.stderr) ? '/usr/bin/time' : null
})()

const GIT_ENV = { ...process.env, LC_ALL: 'C', GIT_PAGER: 'cat', PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' }

/**
 * Run a command; resolve { ms, code, stdout, stderr, peakKB }. stdout: 'ignore' sends it to
 * /dev/null, 'capture' collects it. rss: measure peak resident set size.
 */
function run(cmd, args, { cwd, stdout = 'capture', rss = false, env = GIT_ENV } = {}) {
  return new Promise((resolvePromise) => {
    let rssFile = null
    let file = cmd
    let argv = args
    if (rss && GNU_TIME) {
      rssFile = join(mkdtempSync(join(tmpdir(), 'gitwhy-bench-rss-')), 'rss')
      file = GNU_TIME
      argv = ['-f', '%M', '-o', rssFile, cmd, ...args]
    }
    const start = process.hrtime.bigint()
    const child = spawn(file, argv, { cwd, env, stdio: ['ignore', stdout === 'ignore' ? 'ignore' : 'pipe', 'pipe'] })
    const out = []
    const err = []
    child.stdout?.on('data', (d) => out.push(d))
    child.stderr.on('data', (d) => err.push(d))
    // Fallback when GNU time is missing: poll the high-water mark of the process itself.
    let hwm = 0
    let poll = null
    if (rss && !GNU_TIME) {
      const sample = () => {
        try {
          const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))
          if (m) hwm = Math.max(hwm, Number(m[1]))
        } catch { /* exited */ }
      }
      poll = setInterval(sample, 20)
      sample()
    }
    let spawnError = null
    child.on('error', (e) => { spawnError = e })
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      if (poll) clearInterval(poll)
      let peakKB = rss ? (hwm || null) : null
      if (rssFile) {
        try {
          // GNU time writes "Command exited with non-zero status N" before the value on failure.
          const lines = readFileSync(rssFile, 'utf8').trim().split('\n')
          peakKB = Number(lines[lines.length - 1]) || null
          rmSync(dirname(rssFile), { recursive: true, force: true })
        } catch { /* keep null */ }
      }
      resolvePromise({
        ms, code: spawnError ? -1 : code, peakKB,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: spawnError ? String(spawnError.message) : Buffer.concat(err).toString('utf8'),
      })
    })
  })
}

function gitSync(repo, args) {
  const r = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: GIT_ENV, maxBuffer: 1 << 30 })
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${(r.stderr || '').trim()}`)
  return r.stdout
}

/** The gitwhy CLI, `--json`; resolves { ok, ms, peakKB, json, error }. */
async function gitwhy(opts, args, { rss = false, cwd = PROJECT_ROOT } = {}) {
  const r = await run(process.execPath, [opts.cli, ...args], { cwd, rss, env: process.env })
  let json = null
  let error = null
  if (r.code !== 0) {
    error = `exit ${r.code}: ${lastLines(r.stderr) || lastLines(r.stdout) || '(no output)'}`
  } else {
    try { json = JSON.parse(r.stdout) } catch (e) { error = `stdout is not one JSON document (${e.message}): ${r.stdout.slice(0, 200)}` }
  }
  return { ok: error === null, ms: r.ms, peakKB: r.peakKB, json, error }
}

function lastLines(s, n = 6) {
  return s.trim().split('\n').slice(-n).join('\n').trim()
}

// ---------------------------------------------------------------------------------------------
// random (seeded), stats

function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function shuffled(items, seed) {
  const rand = mulberry32(seed)
  const a = items.slice()
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[a[i], a[j]] = [a[j], a[i]]
  }
  return a
}

const median = (xs) => {
  if (xs.length === 0) return null
  const s = xs.slice().sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

// ---------------------------------------------------------------------------------------------
// which files gitwhy indexes (mirrors src/parse/classify.ts and grammars/registry.json)

const FALLBACK_EXTENSIONS = ['.ts', '.mts', '.cts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.py', '.pyi', '.go', '.rs', '.java']
const VENDORED = new Set(['node_modules', 'vendor', 'third_party', 'bower_components', 'Pods', '.git'])
const GENERATED_NAME = /\.pb\.go$|_pb2(_grpc)?\.pyi?$|\.generated\.[^/]+$|\.g\.dart$|\.designer\.cs$/i
const MINIFIED_NAME = /\.min\.(js|mjs|cjs|css)$/i
const MINIFIABLE_NAME = /\.(js|mjs|cjs|css)$/i
const MAX_BYTES = 1_000_000

function indexedExtensions() {
  try {
    const reg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'grammars', 'registry.json'), 'utf8'))
    const exts = Object.values(reg.languages ?? {}).flatMap((l) => l.extensions ?? [])
    if (exts.length) return { exts, from: 'grammars/registry.json' }
  } catch { /* fall through */ }
  return { exts: FALLBACK_EXTENSIONS, from: 'built-in list' }
}

function skipReason(path, content) {
  const segs = path.split('/')
  const name = segs[segs.length - 1]
  if (segs.slice(0, -1).some((s) => VENDORED.has(s))) return 'vendored'
  if (MINIFIED_NAME.test(name)) return 'minified'
  if (GENERATED_NAME.test(name)) return 'generated'
  if (content.length > MAX_BYTES) return 'too_large'
  if (content.subarray(0, 8000).includes(0)) return 'binary'
  const head = content.toString('utf8', 0, Math.min(content.length, 4096)).split('\n').slice(0, 5).join('\n')
  if (/@generated|Code generated .*DO NOT EDIT/.test(head)) return 'generated'
  if (MINIFIABLE_NAME.test(name)) {
    const sniff = content.subarray(0, 64 * 1024)
    const lines = sniff.toString('latin1').split('\n')
    if (sniff.length && (lines.some((l) => l.length > 5000) || sniff.length / lines.length > 300)) return 'minified'
  }
  return null
}

/** Source files at HEAD, read from the blobs (the work tree may have been edited). */
async function sourceFiles(repo) {
  const { exts, from } = indexedExtensions()
  const lower = exts.map((e) => e.toLowerCase())
  // -z: paths are not quoted. ls-tree gives the HEAD tree, with blob sizes (-l).
  const raw = gitSync(repo, ['ls-tree', '-r', '-z', '-l', 'HEAD'])
  const candidates = []
  for (const entry of raw.split('\0')) {
    if (!entry) continue
    const tab = entry.indexOf('\t')
    const [mode, type, , size] = entry.slice(0, tab).split(/\s+/)
    const path = entry.slice(tab + 1)
    if (type !== 'blob' || mode === '120000') continue
    if (!lower.some((e) => path.toLowerCase().endsWith(e))) continue
    candidates.push({ path, size: Number(size) })
  }
  const files = []
  const skipped = {}
  for (const c of candidates) {
    let content
    try {
      content = await readFile(join(repo, c.path))
    } catch {
      content = Buffer.alloc(0)
    }
    const why = c.size > MAX_BYTES ? 'too_large' : skipReason(c.path, content)
    if (why) {
      skipped[why] = (skipped[why] ?? 0) + 1
      continue
    }
    let lines = 0
    for (let i = content.indexOf(10); i !== -1; i = content.indexOf(10, i + 1)) lines++
    if (content.length && content[content.length - 1] !== 10) lines++
    files.push({ path: c.path, lines })
  }
  return { files, skipped, extsFrom: from }
}

// ---------------------------------------------------------------------------------------------
// measurements

async function measureGitLog(repo, runs) {
  const times = []
  let peakKB = null
  for (let i = 0; i < runs; i++) {
    log(`git log -p -U0 -M HEAD > /dev/null (run ${i + 1}/${runs})`)
    const r = await run('git', ['-C', repo, 'log', '-p', '-U0', '-M', 'HEAD'], { stdout: 'ignore', rss: true })
    if (r.code !== 0) throw new Error(`git log failed: ${lastLines(r.stderr)}`)
    times.push(r.ms)
    peakKB = Math.max(peakKB ?? 0, r.peakKB ?? 0) || null
  }
  return { ms: Math.min(...times), runs: times, peakKB }
}

async function measureBlame(repo, files, opts) {
  const order = shuffled(files.map((f) => f.path), opts.seed)
  const total = order.length
  const target = opts.blameSample > 0 ? Math.min(opts.blameSample, total) : total
  const budgetMs = opts.blameBudget > 0 ? opts.blameBudget * 1000 : Infinity
  let done = 0
  let sumMs = 0
  let failed = 0
  const start = Date.now()
  let lastReport = start
  for (const path of order.slice(0, target)) {
    const r = await run('git', ['-C', repo, 'blame', '--porcelain', 'HEAD', '--', path], { stdout: 'ignore' })
    if (r.code !== 0) failed++
    sumMs += r.ms
    done++
    if (Date.now() - lastReport > 5000) {
      lastReport = Date.now()
      log(`  blame ${done}/${target} files, ${(sumMs / 1000).toFixed(1)} s so far`)
    }
    if (Date.now() - start > budgetMs) break
  }
  const extrapolated = done < total
  return {
    files: total, blamed: done, failed, measuredMs: sumMs,
    ms: done === 0 ? null : extrapolated ? (sumMs / done) * total : sumMs,
    extrapolated,
    reason: !extrapolated ? null : done < target ? `--blame-budget ${opts.blameBudget}s reached` : `--blame-sample ${target}`,
  }
}

function pickQueryFiles(files, n, seed) {
  const big = files.filter((f) => f.lines >= 40)
  const pool = big.length >= n ? big : files.filter((f) => f.lines > 0)
  return shuffled(pool, seed + 7).slice(0, n).map((f) => {
    // A 20-line range in the middle of the file.
    const a = Math.max(1, Math.floor(f.lines / 2) - 10)
    const b = Math.min(f.lines, a + 19)
    return { path: f.path, lines: f.lines, start: a, end: b }
  })
}

/** The commits `git blame -L` / `git log --follow` give, to check the CLI answers (informative). */
function referenceSets(repo, q) {
  const blame = gitSync(repo, ['blame', '--porcelain', `-L${q.start},${q.end}`, 'HEAD', '--', q.path])
  const blameShas = new Set(blame.split('\n').filter((l) => /^[0-9a-f]{40} \d+ \d+/.test(l)).map((l) => l.slice(0, 40)))
  const follow = gitSync(repo, ['log', '--follow', '--format=%H', 'HEAD', '--', q.path]).split('\n').filter(Boolean)
  return { blame: blameShas, history: new Set(follow) }
}

function compareSets(got, want) {
  let missing = 0
  for (const s of want) if (!got.has(s)) missing++
  let extra = 0
  for (const s of got) if (!want.has(s)) extra++
  return { expected: want.size, got: got.size, missing, extra, match: missing === 0 && extra === 0 }
}

async function measureQueries(repo, files, opts) {
  const picks = pickQueryFiles(files, opts.queryFiles, opts.seed)
  const evidence = { times: [], errors: [], checks: [] }
  const history = { times: [], errors: [], checks: [] }
  for (const q of picks) {
    let ref = null
    try { ref = referenceSets(repo, q) } catch (e) { log(`  reference sets for ${q.path}: ${e.message}`) }
    for (let i = 0; i < opts.queryRuns; i++) {
      const ev = await gitwhy(opts, ['evidence', `${q.path}:${q.start}-${q.end}`, '--repo', repo, '--json'])
      if (ev.ok) evidence.times.push(ev.ms)
      else evidence.errors.push(`${q.path}:${q.start}-${q.end}: ${ev.error}`)
      if (ev.ok && i === 0 && ref) {
        const items = Array.isArray(ev.json?.evidence) ? ev.json.evidence : []
        const blameGot = new Set(items.filter((e) => e.source === 'blame').map((e) => e.commit?.sha))
        evidence.checks.push({ target: `${q.path}:${q.start}-${q.end}`, blame: compareSets(blameGot, ref.blame) })
      }
      const hi = await gitwhy(opts, ['history', q.path, '--repo', repo, '--limit', '0', '--json'])
      if (hi.ok) history.times.push(hi.ms)
      else history.errors.push(`${q.path}: ${hi.error}`)
      if (hi.ok && i === 0 && ref) {
        const items = Array.isArray(hi.json?.evidence) ? hi.json.evidence : Array.isArray(hi.json?.history) ? hi.json.history : []
        const got = new Set(items.map((e) => e.commit?.sha))
        history.checks.push({ target: q.path, follow: compareSets(got, ref.history) })
      }
    }
  }
  const summary = (x) => ({
    calls: x.times.length, medianMs: median(x.times), maxMs: x.times.length ? Math.max(...x.times) : null,
    errors: [...new Set(x.errors)].slice(0, 5), checks: x.checks,
  })
  return { targets: picks, evidence: summary(evidence), history: summary(history) }
}

/** Temp clone, analyze it, add one commit touching one source file, time the incremental analyze. */
async function measureUpdate(repo, files, opts) {
  const dir = mkdtempSync(join(opts.tmp, 'gitwhy-bench-update-'))
  const clone = join(dir, 'repo')
  try {
    log(`update: local clone into ${clone}`)
    gitSync(dir, ['clone', '-q', repo, clone])
    log('update: full analyze of the clone (not timed as the update)')
    const base = await gitwhy(opts, ['analyze', clone, '--force', '--json'])
    if (!base.ok) return { ok: false, error: `analyze of the clone failed: ${base.error}` }
    const target = shuffled(files.filter((f) => /\.(ts|tsx|js|jsx|mjs|cjs|mts|cts|go|rs|java)$/.test(f.path)), opts.seed + 13)[0]
      ?? shuffled(files, opts.seed + 13)[0]
    if (!target) return { ok: false, error: 'no source file to edit' }
    const comment = /\.pyi?$/.test(target.path) ? '# gitwhy bench edit\n' : '// gitwhy bench edit\n'
    appendFileSync(join(clone, target.path), comment)
    gitSync(clone, ['-c', 'user.name=gitwhy bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false',
      'commit', '-q', '--no-verify', '-m', 'bench: one-line edit', '--', target.path])
    log(`update: one commit on ${target.path}; incremental analyze`)
    const upd = await gitwhy(opts, ['analyze', clone, '--json'], { rss: true })
    return { ok: upd.ok, ms: upd.ms, peakKB: upd.peakKB, file: target.path, error: upd.error, json: upd.json }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------
// report

const TARGETS = {
  analyzeVsLog: 3, // full analyze ≤ 3× git log -p -U0 -M
  blameVsAnalyze: 5, // ≥ 5× faster than per-file blame
  peakMB: 600, // < 600 MB on the mid-size repo
  noopMs: 500,
  updateMs: 1000,
  queryMs: 300,
}

const fmtS = (ms) => (ms == null ? '-' : ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`)
const fmtMB = (kb) => (kb == null ? '-' : `${(kb / 1024).toFixed(0)} MB`)
const verdict = (ok) => (ok == null ? 'n/a' : ok ? 'PASS' : 'FAIL')

function summarize(r) {
  const a = r.analyze?.ok ? r.analyze.ms : null
  const logMs = r.gitLog?.ms ?? null
  const blameMs = r.blame?.ms ?? null
  const ratios = {
    analyzeOverGitLog: a != null && logMs ? a / logMs : null,
    blameOverAnalyze: a != null && blameMs != null ? blameMs / a : null,
  }
  const peakKB = r.analyze?.ok ? r.analyze.peakKB : null
  const checks = {
    analyzeWithin3xGitLog: ratios.analyzeOverGitLog == null ? null : ratios.analyzeOverGitLog <= TARGETS.analyzeVsLog,
    atLeast5xFasterThanBlame: ratios.blameOverAnalyze == null ? null : ratios.blameOverAnalyze >= TARGETS.blameVsAnalyze,
    peakUnder600MB: peakKB == null ? null : peakKB / 1024 < TARGETS.peakMB,
    noopUnder500ms: r.noop?.ok ? r.noop.ms < TARGETS.noopMs : null,
    updateUnder1s: r.update?.ok ? r.update.ms < TARGETS.updateMs : null,
    evidenceUnder300ms: r.queries?.evidence.medianMs != null ? r.queries.evidence.medianMs < TARGETS.queryMs : null,
    historyUnder300ms: r.queries?.history.medianMs != null ? r.queries.history.medianMs < TARGETS.queryMs : null,
  }
  return { ratios, checks }
}

function table(r) {
  const { ratios, checks } = r.summary
  const rows = []
  const row = (what, value, extra = '', target = '', status = '') => rows.push([what, value, extra, target, status])
  row('git log -p -U0 -M HEAD >/dev/null', fmtS(r.gitLog?.ms), r.gitLog ? `best of ${r.gitLog.runs.length}; peak ${fmtMB(r.gitLog.peakKB)}` : 'failed')
  if (r.blame) {
    row('git blame --porcelain, every file', fmtS(r.blame.ms),
      r.blame.extrapolated ? `EXTRAPOLATED from ${r.blame.blamed}/${r.blame.files} files (${r.blame.reason})` : `${r.blame.files} files, sequential`)
  } else row('git blame --porcelain, every file', 'skipped')
  row('node startup (gitwhy --version)', fmtS(r.cliStartup?.ms), !r.cliStartup ? 'skipped' : r.cliStartup.ok === false ? 'failed' : 'floor of every CLI call')
  const err = (x) => (x && !x.ok ? `ERROR: ${x.error.split('\n')[0].slice(0, 80)}` : '')
  row('gitwhy analyze --force (full)', r.analyze?.ok ? fmtS(r.analyze.ms) : '-', !r.analyze ? 'skipped' : err(r.analyze) || `peak ${fmtMB(r.analyze.peakKB)}`)
  row('  analyze / git log -p', ratios.analyzeOverGitLog == null ? '-' : `${ratios.analyzeOverGitLog.toFixed(2)}x`, '', '<= 3x', verdict(checks.analyzeWithin3xGitLog))
  row('  blame-all / analyze', ratios.blameOverAnalyze == null ? '-' : `${ratios.blameOverAnalyze.toFixed(2)}x`, r.blame?.extrapolated ? 'blame extrapolated' : '', '>= 5x', verdict(checks.atLeast5xFasterThanBlame))
  row('  peak RSS (full analyze)', fmtMB(r.analyze?.ok ? r.analyze.peakKB : null), GNU_TIME ? 'GNU time maxrss' : '/proc VmHWM of the node process', '< 600 MB (mid-size)', verdict(checks.peakUnder600MB))
  row('gitwhy analyze (no-op)', r.noop?.ok ? fmtS(r.noop.ms) : '-', !r.noop ? 'skipped' : err(r.noop), '< 0.5 s', verdict(checks.noopUnder500ms))
  row('gitwhy analyze (one new commit)', r.update?.ok ? fmtS(r.update.ms) : '-', err(r.update) || (r.update ? `edited ${r.update.file}` : 'skipped'), '< 1 s', verdict(checks.updateUnder1s))
  for (const k of ['evidence', 'history']) {
    const q = r.queries?.[k]
    const extra = !q ? 'skipped' : q.errors.length && !q.calls ? `ERROR: ${q.errors[0].split('\n')[0].slice(0, 80)}` : `${q.calls} calls, max ${fmtS(q.maxMs)}${q.errors.length ? `, ${q.errors.length} errors` : ''}`
    row(`gitwhy ${k} (median)`, fmtS(q?.medianMs), extra, '< 0.3 s', verdict(checks[`${k}Under300ms`]))
  }
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((x) => x[i].length), ['measurement', 'value', 'notes', 'target', 'status'][i].length))
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()
  const out = [
    `repo ${r.repo.path}`,
    `  HEAD ${r.repo.head}, ${r.repo.commits} commits (${r.repo.merges} merges), ${r.repo.trackedFiles} tracked files, ${r.repo.sourceFiles} source files (extensions from ${r.repo.extensionsFrom}; skipped ${JSON.stringify(r.repo.skipped)})`,
    `  git ${r.env.git}, node ${r.env.node}, ${r.env.cpus} CPUs, load average at start ${r.env.loadAvgStart.map((x) => x.toFixed(1)).join(' ')} / end ${r.env.loadAvgEnd.map((x) => x.toFixed(1)).join(' ')}${r.env.loadAvgStart[0] > r.env.cpus / 2 ? ' (busy machine: timings are noisy)' : ''}`,
    '',
    line(['measurement', 'value', 'notes', 'target', 'status']),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ]
  if (r.analyze?.ok && r.analyze.json) out.push('', `analyze --json: ${JSON.stringify(r.analyze.json).slice(0, 600)}`)
  for (const k of ['evidence', 'history']) {
    for (const c of r.queries?.[k].checks ?? []) {
      const s = c.blame ?? c.follow
      out.push(`check ${k} ${c.target}: ${s.match ? 'matches' : 'DIFFERS from'} ${c.blame ? 'git blame -L' : 'git log --follow'} (expected ${s.expected}, got ${s.got}, missing ${s.missing}, extra ${s.extra})`)
    }
  }
  for (const [name, x] of [['analyze', r.analyze], ['no-op analyze', r.noop], ['update', r.update], ['startup', r.cliStartup]]) {
    if (x && !x.ok && x.error) out.push('', `${name} error:\n${x.error}`)
  }
  for (const k of ['evidence', 'history']) for (const e of r.queries?.[k].errors ?? []) out.push('', `${k} error: ${e}`)
  return out.join('\n') + '\n'
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  if (!existsSync(opts.repo) || !statSync(opts.repo).isDirectory()) die(`${opts.repo} is not a directory`)
  let top
  try { top = gitSync(opts.repo, ['rev-parse', '--show-toplevel']).trim() } catch (e) { die(`${opts.repo} is not a git work tree (${e.message})`) }
  opts.repo = top

  const r = {
    repo: { path: opts.repo },
    env: { node: process.version, git: gitSync(opts.repo, ['--version']).trim().replace(/^git version /, ''), cpus: os.cpus().length, loadAvgStart: os.loadavg(), peakRssVia: GNU_TIME ? 'GNU time' : 'proc VmHWM' },
    options: { skipBlame: opts.skipBlame, blameSample: opts.blameSample, blameBudget: opts.blameBudget, seed: opts.seed, logRuns: opts.logRuns },
    targets: TARGETS,
  }
  r.repo.head = gitSync(opts.repo, ['rev-parse', 'HEAD']).trim()
  r.repo.commits = Number(gitSync(opts.repo, ['rev-list', '--count', 'HEAD']))
  r.repo.merges = Number(gitSync(opts.repo, ['rev-list', '--merges', '--count', 'HEAD']))
  r.repo.trackedFiles = gitSync(opts.repo, ['ls-files', '-z']).split('\0').filter(Boolean).length
  const src = await sourceFiles(opts.repo)
  r.repo.sourceFiles = src.files.length
  r.repo.sourceLines = src.files.reduce((s, f) => s + f.lines, 0)
  r.repo.skipped = src.skipped
  r.repo.extensionsFrom = src.extsFrom
  log(`${opts.repo}: ${r.repo.commits} commits, ${r.repo.trackedFiles} files, ${r.repo.sourceFiles} source files`)

  try { r.gitLog = await measureGitLog(opts.repo, opts.logRuns) } catch (e) { log(e.message); r.gitLog = null }

  if (!opts.skipBlame) {
    log(`git blame --porcelain HEAD on ${opts.blameSample ? `a sample of ${Math.min(opts.blameSample, src.files.length)} of ` : ''}${src.files.length} files`)
    r.blame = await measureBlame(opts.repo, src.files, opts)
  }

  if (!opts.skipGitwhy) {
    if (!existsSync(opts.cli)) log(`warning: ${opts.cli} does not exist; gitwhy steps will fail`)
    const v = await run(process.execPath, [opts.cli, '--version'], { cwd: PROJECT_ROOT, env: process.env })
    r.cliStartup = { ok: v.code === 0, ms: v.ms, error: v.code === 0 ? null : lastLines(v.stderr) }

    log('gitwhy analyze --force (full, from scratch)')
    r.analyze = await gitwhy(opts, ['analyze', opts.repo, '--force', '--json'], { rss: true })
    if (!r.analyze.ok) log(`analyze failed: ${r.analyze.error}`)

    log('gitwhy analyze (no-op)')
    r.noop = await gitwhy(opts, ['analyze', opts.repo, '--json'], { rss: true })
    if (!r.noop.ok) log(`no-op analyze failed: ${r.noop.error}`)

    log('gitwhy evidence / history')
    try { r.queries = await measureQueries(opts.repo, src.files, opts) } catch (e) { log(`queries: ${e.message}`) }

    if (!opts.skipUpdate) {
      try { r.update = await measureUpdate(opts.repo, src.files, opts) } catch (e) { r.update = { ok: false, error: e.message } }
      if (!r.update.ok) log(`update failed: ${r.update.error}`)
    }
  }

  r.env.loadAvgEnd = os.loadavg()
  r.summary = summarize(r)
  const doc = JSON.stringify(r, null, 2) + '\n'
  if (opts.out) writeFileSync(opts.out, doc)
  process.stdout.write(opts.json ? doc : table(r))
}

main().catch((e) => {
  process.stderr.write(`bench: bug: ${e.stack ?? e}\n`)
  process.exit(2)
})
