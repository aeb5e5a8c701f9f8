#!/usr/bin/env node
// Verify gitwhy's answers against plain git on a real repository.
//
//   node bench/verify.mjs <repo> [--files N] [--seed S] [--ranges K] [--json]
//   node bench/verify.mjs <big repo> --files 15 --ranges 2    (issue 10: 15 files, ≥ 40 line-history ranges)
//
// For a seeded random sample of N indexed source files:
//   blame         git blame --porcelain <head> -- FILE   vs  evidence(...) items with source 'blame'
//                 (with --ignore-revs-file when the index looked through .git-blame-ignore-revs)
//                 (whole file, K random ranges, and every range used below)
//   line history  git log -L S,E:FILE --format=%H -s <head>  ⊆  blame ∪ history SHAs of evidence(...),
//                 and the history SHAs ⊆ git log -L (a blame SHA log -L lacks is held to git blame instead)
//                 (K random ranges of 1-40 lines, up to K symbols of ≤ 200 lines)
//                 mismatches are classified "indent-heuristic" (a commit of the symmetric difference
//                 diffs differently with and without --no-indent-heuristic) or "UNEXPLAINED"
//   area history  git log --follow --format=%H <head> -- FILE  vs  history({ path })
//                 git log --format=%H <head> -- DIR           vs  history({ path: DIR })  (3 random dirs)
// Built-ins only. Imports the services from ../dist in-process.

import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const MAIN = path.resolve(HERE, '..')
const DIST = path.join(MAIN, 'dist')

// ---------- arguments ----------
const argv = process.argv.slice(2)
const opts = { files: 40, seed: 1, ranges: 3, json: false, dirs: 3 }
let repoArg = null
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]
  if (a === '--files') opts.files = Number(argv[++i])
  else if (a === '--seed') opts.seed = Number(argv[++i])
  else if (a === '--ranges') opts.ranges = Number(argv[++i])
  else if (a === '--dirs') opts.dirs = Number(argv[++i])
  else if (a === '--json') opts.json = true
  else if (a === '-h' || a === '--help') {
    console.log('usage: node bench/verify.mjs <repo> [--files N] [--seed S] [--ranges K] [--dirs D] [--json]')
    process.exit(0)
  } else if (!repoArg) repoArg = a
  else {
    console.error(`unexpected argument ${a}`)
    process.exit(1)
  }
}
if (!repoArg) {
  console.error('usage: node bench/verify.mjs <repo> [--files N] [--seed S] [--ranges K] [--json]')
  process.exit(1)
}
const repo = path.resolve(repoArg)
const log = (...a) => process.stderr.write(a.join(' ') + '\n')

// ---------- seeded PRNG ----------
function mulberry32(a) {
  return () => {
    a |= 0
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const rnd = mulberry32(opts.seed)
const randInt = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1)) // inclusive
function sample(arr, n) {
  const a = arr.slice()
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1))
    ;[a[i], a[j]] = [a[j], a[i]]
  }
  return a.slice(0, n)
}

// ---------- git ----------
const timing = {} // kind -> { git: ms, gitwhy: ms, n }
function tally(kind, who, ms) {
  const t = (timing[kind] ??= { git: 0, gitwhy: 0, git_calls: 0, gitwhy_calls: 0 })
  t[who] += ms
  t[`${who}_calls`]++
}
function git(args, { kind = null, allowFail = false } = {}) {
  const t0 = performance.now()
  try {
    return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (e) {
    if (allowFail) return null
    throw new Error(`git ${args.join(' ')} failed: ${e.stderr || e.message}`)
  } finally {
    if (kind) tally(kind, 'git', performance.now() - t0)
  }
}
async function timed(kind, fn) {
  const t0 = performance.now()
  try {
    return await fn()
  } finally {
    tally(kind, 'gitwhy', performance.now() - t0)
  }
}
const shaLines = (out) => new Set(out.split('\n').map((s) => s.trim()).filter((s) => /^[0-9a-f]{40}$/.test(s)))

// ---------- index ----------
const metaPath = path.join(repo, '.gitwhy', 'meta.json')
function runAnalyze(force) {
  log(`running gitwhy analyze${force ? ' --force' : ''} on ${repo} …`)
  const t0 = performance.now()
  execFileSync('node', [path.join(MAIN, 'bin/run.js'), 'analyze', repo, '--quiet', ...(force ? ['--force'] : [])], { stdio: ['ignore', 'inherit', 'inherit'] })
  log(`analyze took ${((performance.now() - t0) / 1000).toFixed(1)} s`)
}
if (!existsSync(metaPath)) runAnalyze(false)
let meta = JSON.parse(readFileSync(metaPath, 'utf8'))
// An index written by an older build (same schemaVersion, older file layout) cannot be read: rebuild.
if (!existsSync(path.join(repo, '.gitwhy', meta.indexDir, 'dag.json'))) {
  log(`index ${meta.indexDir} has no dag.json (older layout)`)
  runAnalyze(true)
  meta = JSON.parse(readFileSync(metaPath, 'utf8'))
}
const HEAD = meta.head
// The index looked through the commits of .git-blame-ignore-revs (blame.ignoreRevsFile): so does git blame here.
const ignoreRevs = meta.options?.ignoreRevs ?? []
const IGNORE = []
if (ignoreRevs.length > 0) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'gitwhy-verify-')), 'ignore-revs')
  writeFileSync(file, ignoreRevs.join('\n') + '\n')
  IGNORE.push('--ignore-revs-file', file)
  log(`git blame looks through ${ignoreRevs.length} commits, as the index does (${file})`)
}
const workHead = git(['rev-parse', 'HEAD']).trim()
if (workHead !== HEAD) log(`warning: index is at ${HEAD.slice(0, 10)}, HEAD is ${workHead.slice(0, 10)}; comparing at the indexed commit`)

const { IndexReader } = await import(path.join(DIST, 'services/index-reader.js'))
const { evidence } = await import(path.join(DIST, 'services/evidence.js'))
const { history } = await import(path.join(DIST, 'services/history.js'))
const reader = await IndexReader.open(repo)
const filesDir = path.join(repo, '.gitwhy', meta.indexDir, 'files')
const filesJson = readdirSync(filesDir).flatMap((f) => Object.values(JSON.parse(readFileSync(path.join(filesDir, f), 'utf8'))))
const indexed = new Map(filesJson.map((f) => [f.path, f]))

// ---------- sample ----------
// every language gitwhy extracts symbols from (grammars/registry.json)
const EXT = /\.(ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|c|h|cc|cpp|cxx|hpp|hh|cs|rb|php|kt|kts|swift|zig)$/
const lsFiles = git(['ls-tree', '-r', '-z', '--name-only', HEAD]).split('\0').filter(Boolean)
const candidates = lsFiles.filter((p) => EXT.test(p) && !/(^|\/)(node_modules|vendor)\//.test(p) && !/\.min\.(js|mjs|cjs)$/.test(p))
const notIndexed = candidates.filter((p) => !indexed.has(p))
const pool = candidates.filter((p) => indexed.has(p) && indexed.get(p).lines > 0)
const sampleFiles = sample(pool, opts.files)
log(`${candidates.length} source files at ${HEAD.slice(0, 10)}, ${notIndexed.length} not indexed (skipped), sampling ${sampleFiles.length}`)

// ---------- results ----------
const counts = {} // kind -> { equal, indent_heuristic, unexplained }
const mismatches = []
function record(kind, outcome) {
  const c = (counts[kind] ??= { compared: 0, equal: 0, indent_heuristic: 0, copy_follow: 0, rename_pairing: 0, unexplained: 0 })
  c.compared++
  c[outcome]++
}
const subjectCache = new Map()
function subject(sha) {
  if (!subjectCache.has(sha)) subjectCache.set(sha, (git(['log', '-1', '--format=%h %ad %s', '--date=short', sha], { allowFail: true }) ?? '?').trim())
  return subjectCache.get(sha)
}

// Every name the file has had (for restricting diffs of commits in a symmetric difference).
const namesCache = new Map()
function fileNames(file) {
  if (namesCache.has(file)) return namesCache.get(file)
  const out = git(['log', '--follow', '--name-only', '--format=', HEAD, '--', file])
  const names = new Set([file, ...out.split('\n').filter(Boolean)])
  namesCache.set(file, [...names])
  return namesCache.get(file)
}

// Does commit C diff differently with and without the indent heuristic (for this file's names)?
const ihCache = new Map()
function indentSensitive(sha, file) {
  const key = `${sha} ${file}`
  if (ihCache.has(key)) return ihCache.get(key)
  const names = fileNames(file)
  const parents = git(['rev-list', '--parents', '-n', '1', sha]).trim().split(' ').slice(1)
  let differs = false
  const pairs = parents.length === 0 ? [null] : parents
  for (const p of pairs) {
    const base = p === null ? ['show', '-U0', '--format=', '-M', sha] : ['diff', '-U0', '-M', p, sha]
    const withH = git([...base, '--indent-heuristic', '--', ...names])
    const without = git([...base, '--no-indent-heuristic', '--', ...names])
    if (withH !== without) {
      differs = true
      break
    }
  }
  ihCache.set(key, differs)
  return differs
}

// Does git's single-path rename detection (used by blame, log -L and log --follow) pair this file
// with a different source than the whole-tree pairing of `git log -M` (which gitwhy mines)? This
// happens when several files with identical content are renamed in one commit: single-path
// detection takes the first identical source, the whole-tree pass gives each destination its own.
const pairingCache = new Map()
function renamePairingDiffers(file) {
  if (pairingCache.has(file)) return pairingCache.get(file)
  const chain = git(['log', '--follow', '--name-status', '--format=@%H', HEAD, '--', file])
  const found = []
  let cur = null
  for (const line of chain.split('\n')) {
    if (line.startsWith('@')) cur = line.slice(1)
    else {
      const m = /^([RC])\d*\t([^\t]+)\t([^\t]+)$/.exec(line)
      if (!m) continue
      const [, st, src, dst] = m
      const whole = git(['show', '-M', '--name-status', '--format=', cur])
        .split('\n')
        .map((l) => l.split('\t'))
        .find((f) => f[f.length - 1] === dst)
      const wholeSrc = whole && /^[RC]/.test(whole[0]) ? whole[1] : null
      if (st === 'R' && wholeSrc !== src) found.push({ commit: cur, follow_source: src, whole_tree_source: wholeSrc ?? `(${whole?.[0] ?? 'none'})`, dest: dst })
    }
  }
  pairingCache.set(file, found)
  return found
}

function diffSets(expected, actual) {
  const missing = [...expected].filter((s) => !actual.has(s))
  const extra = [...actual].filter((s) => !expected.has(s))
  return { missing, extra }
}

// ---------- blame ----------
function parseBlame(out) {
  const owner = []
  for (const line of out.split('\n')) {
    const m = /^([0-9a-f]{40}) \d+ (\d+)/.exec(line)
    if (m) owner[Number(m[2]) - 1] = m[1]
  }
  return owner
}
function blameMap(owner, start, end) {
  const m = new Map()
  for (let l = start - 1; l < end; l++) m.set(owner[l], (m.get(owner[l]) ?? 0) + 1)
  return m
}
function compareBlame(file, start, end, owner, ev, label) {
  const expected = blameMap(owner, start, end)
  const actual = new Map(ev.evidence.filter((i) => i.source === 'blame').map((i) => [i.commit.sha, i.lines]))
  const bad = []
  for (const [sha, n] of expected) if (actual.get(sha) !== n) bad.push({ sha, git_lines: n, gitwhy_lines: actual.get(sha) ?? 0, subject: subject(sha) })
  for (const [sha, n] of actual) if (!expected.has(sha)) bad.push({ sha, git_lines: 0, gitwhy_lines: n, subject: subject(sha) })
  if (bad.length === 0) return record('blame', 'equal')
  const pairing = renamePairingDiffers(file)
  const outcome = pairing.length ? 'rename_pairing' : 'unexplained'
  record('blame', outcome)
  mismatches.push({ kind: 'blame', outcome, rename_pairing: pairing.length ? pairing : undefined, file, range: `${start}-${end}`, label, diff: bad, repro: `git -C ${repo} blame ${IGNORE.join(' ')} -L ${start},${end} ${HEAD} -- '${file}'` })
}

// ---------- run ----------
const T0 = performance.now()
let filesChecked = 0
const errors = []
for (const [fi, file] of sampleFiles.entries()) {
  const info = indexed.get(file)
  log(`[${fi + 1}/${sampleFiles.length}] ${file} (${info.lines} lines, ${info.symbols?.length ?? 0} symbols)`)
  try {
    // blame, whole file
    const owner = parseBlame(git(['blame', '--porcelain', ...IGNORE, HEAD, '--', file], { kind: 'blame (whole file)' }))
    if (owner.length !== info.lines) {
      mismatches.push({ kind: 'line-count', file, git_lines: owner.length, gitwhy_lines: info.lines })
      record('blame', 'unexplained')
      continue
    }
    let evWhole
    try {
      evWhole = await timed('blame (whole file)', () => evidence({ repo, reader, path: file, limit: 0 }))
    } catch (e) {
      if (e.code === 'unknown_path') {
        log(`  skipped: unknown_path`)
        continue
      }
      throw e
    }
    filesChecked++
    compareBlame(file, 1, info.lines, owner, evWhole, 'whole file')

    // blame, K random ranges (any size)
    for (let k = 0; k < opts.ranges; k++) {
      const a = randInt(1, info.lines)
      const b = randInt(1, info.lines)
      const [s, e] = [Math.min(a, b), Math.max(a, b)]
      const ev = await timed('blame (range, gitwhy only)', () => evidence({ repo, reader, path: file, lineStart: s, lineEnd: e, limit: 0 }))
      compareBlame(file, s, e, owner, ev, 'random range')
    }

    // line history: K small random ranges + up to K symbols of ≤ 200 lines
    const targets = []
    for (let k = 0; k < opts.ranges; k++) {
      const len = randInt(1, Math.min(40, info.lines))
      const s = randInt(1, info.lines - len + 1)
      targets.push({ start: s, end: s + len - 1, label: 'random range', kind: 'line history (range)' })
    }
    const syms = (info.symbols ?? []).filter((s) => s.endLine - s.startLine + 1 <= 200 && s.endLine <= info.lines)
    for (const s of sample(syms, opts.ranges)) targets.push({ start: s.startLine, end: s.endLine, label: `symbol ${s.qualifiedName}`, kind: 'line history (symbol)' })

    for (const t of targets) {
      const ev = await timed(t.kind, () => evidence({ repo, reader, path: file, lineStart: t.start, lineEnd: t.end, limit: 0 }))
      compareBlame(file, t.start, t.end, owner, ev, t.label)
      const actual = new Set(ev.evidence.map((i) => i.commit.sha))
      const expected = shaLines(git(['log', '-L', `${t.start},${t.end}:${file}`, '--format=%H', '-s', HEAD], { kind: t.kind }))
      // Every commit of git log -L must be in the evidence (as blame or history), and every history
      // item must be one of git log -L's. A blame item log -L does not list is no extra: git blame
      // and log -L route differently through a merge whose file equals a later parent's (blame takes
      // the identical parent, log -L the first untouched one), and compareBlame above holds blame to
      // git blame (hono: ca97310 and 6f72989 are git blame's own answers for those lines).
      const { missing } = diffSets(expected, actual)
      const { extra } = diffSets(expected, new Set(ev.evidence.filter((i) => i.source !== 'blame').map((i) => i.commit.sha)))
      if (missing.length === 0 && extra.length === 0) {
        record(t.kind, 'equal')
        continue
      }
      const sensitive = [...missing, ...extra].filter((sha) => indentSensitive(sha, file))
      const pairing = sensitive.length > 0 ? [] : renamePairingDiffers(file)
      const outcome = sensitive.length > 0 ? 'indent_heuristic' : pairing.length ? 'rename_pairing' : 'unexplained'
      record(t.kind, outcome)
      mismatches.push({
        kind: t.kind,
        outcome,
        rename_pairing: pairing.length ? pairing : undefined,
        file,
        range: `${t.start}-${t.end}`,
        label: t.label,
        git_count: expected.size,
        gitwhy_count: actual.size,
        missing: missing.map((sha) => ({ sha, subject: subject(sha), indent_sensitive: sensitive.includes(sha) })),
        extra: extra.map((sha) => ({ sha, subject: subject(sha), indent_sensitive: sensitive.includes(sha) })),
        repro: `git -C ${repo} log -L ${t.start},${t.end}:'${file}' --format=%H -s ${HEAD}`,
      })
    }

    // area history, file (follows renames)
    {
      const h = await timed('area (file --follow)', () => history({ repo, reader, path: file, limit: 0 }))
      const expected = shaLines(git(['log', '--follow', '--format=%H', HEAD, '--', file], { kind: 'area (file --follow)' }))
      const actual = new Set(h.evidence.map((i) => i.commit.sha))
      const { missing, extra } = diffSets(expected, actual)
      if (missing.length === 0 && extra.length === 0) record('area (file --follow)', 'equal')
      else {
        // Documented difference: git --follow also follows copies (it turns on find-copies-harder),
        // gitwhy does not. Explained when git's chain has a copy and every differing commit is no
        // newer (committer date) than the newest copy git followed.
        const chain = git(['log', '--follow', '--name-status', '--format=@%H %ct', HEAD, '--', file])
        let firstCopy = null
        let cur = null
        for (const line of chain.split('\n')) {
          if (line.startsWith('@')) cur = Number(line.split(' ')[1])
          else if (/^C\d*\t/.test(line) && firstCopy === null) firstCopy = cur
        }
        const ct = (sha) => Number(git(['log', '-1', '--format=%ct', sha]).trim())
        const copy = firstCopy !== null && [...missing, ...extra].every((sha) => ct(sha) <= firstCopy)
        const pairing = copy ? [] : renamePairingDiffers(file)
        const outcome = copy ? 'copy_follow' : pairing.length ? 'rename_pairing' : 'unexplained'
        record('area (file --follow)', outcome)
        mismatches.push({ kind: 'area (file --follow)', outcome, rename_pairing: pairing.length ? pairing : undefined, file, git_count: expected.size, gitwhy_count: actual.size, missing: missing.map((sha) => ({ sha, subject: subject(sha) })), extra: extra.map((sha) => ({ sha, subject: subject(sha) })), repro: `git -C ${repo} log --follow --format=%H ${HEAD} -- '${file}'` })
      }
    }
  } catch (e) {
    errors.push({ file, error: String(e.stack || e) })
    log(`  ERROR: ${e.message}`)
  }
}

// area history, directories
const dirs = [...new Set(lsFiles.filter((p) => !/(^|\/)(node_modules|vendor)\//.test(p)).flatMap((p) => {
  const parts = p.split('/').slice(0, -1)
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'))
}))].sort()
for (const dir of sample(dirs, opts.dirs)) {
  log(`[dir] ${dir}`)
  try {
    const h = await timed('area (directory)', () => history({ repo, reader, path: dir, limit: 0 }))
    const expected = shaLines(git(['log', '--format=%H', HEAD, '--', dir], { kind: 'area (directory)' }))
    const actual = new Set(h.evidence.map((i) => i.commit.sha))
    const { missing, extra } = diffSets(expected, actual)
    if (missing.length === 0 && extra.length === 0) record('area (directory)', 'equal')
    else {
      record('area (directory)', 'unexplained')
      mismatches.push({ kind: 'area (directory)', outcome: 'unexplained', file: dir, git_count: expected.size, gitwhy_count: actual.size, missing: missing.map((sha) => ({ sha, subject: subject(sha) })), extra: extra.map((sha) => ({ sha, subject: subject(sha) })), repro: `git -C ${repo} log --format=%H ${HEAD} -- '${dir}'` })
    }
  } catch (e) {
    errors.push({ file: dir, error: String(e.stack || e) })
    log(`  ERROR: ${e.message}`)
  }
}
await reader.close()

// ---------- summary ----------
const total = Object.values(counts).reduce((a, c) => ({ compared: a.compared + c.compared, equal: a.equal + c.equal, indent_heuristic: a.indent_heuristic + c.indent_heuristic, copy_follow: a.copy_follow + c.copy_follow, rename_pairing: a.rename_pairing + c.rename_pairing, unexplained: a.unexplained + c.unexplained }), { compared: 0, equal: 0, indent_heuristic: 0, copy_follow: 0, rename_pairing: 0, unexplained: 0 })
const summary = {
  repo,
  head: HEAD,
  dist_built: statSync(path.join(DIST, 'services/evidence.js')).mtime.toISOString(),
  options: opts,
  source_files: candidates.length,
  not_indexed_skipped: notIndexed.length,
  files_checked: filesChecked,
  directories_checked: counts['area (directory)']?.compared ?? 0,
  comparisons: counts,
  total,
  timing_ms: Object.fromEntries(Object.entries(timing).map(([k, t]) => [k, { git: Math.round(t.git), gitwhy: Math.round(t.gitwhy), git_calls: t.git_calls, gitwhy_calls: t.gitwhy_calls, ratio_git_over_gitwhy: t.gitwhy && t.git ? +(t.git / t.gitwhy).toFixed(1) : null }])),
  wall_s: +((performance.now() - T0) / 1000).toFixed(1),
  mismatches: mismatches.filter((m) => m.outcome === 'unexplained' || m.outcome === undefined),
  rename_pairing_mismatches: mismatches.filter((m) => m.outcome === 'rename_pairing'),
  indent_heuristic_mismatches: mismatches.filter((m) => m.outcome === 'indent_heuristic'),
  copy_follow_mismatches: mismatches.filter((m) => m.outcome === 'copy_follow'),
  errors,
}
// Same queries only: compare git and gitwhy over the kinds where both ran.
const both = Object.values(timing).filter((t) => t.git_calls && t.gitwhy_calls)
summary.timing_ms.total_same_queries = { git: Math.round(both.reduce((a, t) => a + t.git, 0)), gitwhy: Math.round(both.reduce((a, t) => a + t.gitwhy, 0)) }
summary.timing_ms.total_same_queries.ratio_git_over_gitwhy = +(summary.timing_ms.total_same_queries.git / Math.max(1, summary.timing_ms.total_same_queries.gitwhy)).toFixed(1)

if (opts.json) {
  console.log(JSON.stringify(summary, null, 2))
} else {
  const p = (s) => console.log(s)
  p(`gitwhy verify: ${repo} at ${HEAD.slice(0, 10)} (seed ${opts.seed}, ranges ${opts.ranges}; dist built ${summary.dist_built})`)
  p(`  source files ${candidates.length} (${notIndexed.length} not indexed, skipped) · files checked ${filesChecked} · directories ${summary.directories_checked} · wall ${summary.wall_s} s`)
  p('')
  p(`  ${'kind'.padEnd(26)}${'compared'.padStart(9)}${'equal'.padStart(8)}${'indent-h'.padStart(10)}${'copy'.padStart(6)}${'r-pair'.padStart(8)}${'UNEXPL'.padStart(8)}`)
  for (const [k, c] of [...Object.entries(counts), ['total', total]]) p(`  ${k.padEnd(26)}${String(c.compared).padStart(9)}${String(c.equal).padStart(8)}${String(c.indent_heuristic).padStart(10)}${String(c.copy_follow).padStart(6)}${String(c.rename_pairing).padStart(8)}${String(c.unexplained).padStart(8)}`)
  p('')
  p(`  ${'timing (ms)'.padEnd(28)}${'git'.padStart(9)}${'calls'.padStart(7)}${'gitwhy'.padStart(9)}${'calls'.padStart(7)}${'git/gw'.padStart(8)}`)
  for (const [k, t] of Object.entries(summary.timing_ms)) {
    if (k === 'total_same_queries') continue
    p(`  ${k.padEnd(28)}${String(t.git).padStart(9)}${String(t.git_calls).padStart(7)}${String(t.gitwhy).padStart(9)}${String(t.gitwhy_calls).padStart(7)}${String(t.ratio_git_over_gitwhy ?? '-').padStart(8)}`)
  }
  const tt = summary.timing_ms.total_same_queries
  p(`  ${'total (same queries)'.padEnd(28)}${String(tt.git).padStart(9)}${''.padStart(7)}${String(tt.gitwhy).padStart(9)}${''.padStart(7)}${String(tt.ratio_git_over_gitwhy).padStart(8)}`)
  if (summary.indent_heuristic_mismatches.length) {
    p('')
    p(`  indent-heuristic mismatches (expected):`)
    for (const m of summary.indent_heuristic_mismatches) p(`    ${m.kind} ${m.file}:${m.range} (${m.label}) missing ${m.missing.map((x) => x.sha.slice(0, 10)).join(',') || '-'} extra ${m.extra.map((x) => x.sha.slice(0, 10)).join(',') || '-'}`)
  }
  if (summary.copy_follow_mismatches.length) {
    p('')
    p(`  --follow copy mismatches (documented: git --follow also follows copies, gitwhy does not):`)
    for (const m of summary.copy_follow_mismatches) p(`    ${m.file} git ${m.git_count} gitwhy ${m.gitwhy_count} missing ${m.missing.map((x) => x.sha.slice(0, 10)).join(',') || '-'} extra ${m.extra.map((x) => x.sha.slice(0, 10)).join(',') || '-'}`)
  }
  if (summary.rename_pairing_mismatches.length) {
    p('')
    p(`  rename-pairing mismatches (NOT documented: git's single-path rename detection picks another identical source than git log -M):`)
    for (const m of summary.rename_pairing_mismatches) {
      const d = m.diff ? m.diff.map((x) => `${x.sha.slice(0, 10)} git ${x.git_lines}L gitwhy ${x.gitwhy_lines}L`).join('; ') : `missing ${m.missing.map((x) => x.sha.slice(0, 10)).join(',') || '-'} extra ${m.extra.map((x) => x.sha.slice(0, 10)).join(',') || '-'}`
      p(`    ${m.kind} ${m.file}${m.range ? ':' + m.range : ''} ${m.label ?? ''} | ${d}`)
    }
    const seen = new Set()
    for (const m of summary.rename_pairing_mismatches) for (const r of m.rename_pairing) {
      const k = `${r.commit} ${r.dest}`
      if (seen.has(k)) continue
      seen.add(k)
      p(`      at ${r.commit.slice(0, 10)}: ${r.dest} <- git single-path: ${r.follow_source} | git log -M: ${r.whole_tree_source}`)
    }
  }
  if (summary.mismatches.length) {
    p('')
    p(`  UNEXPLAINED mismatches:`)
    for (const m of summary.mismatches) p('    ' + JSON.stringify(m, null, 2).split('\n').join('\n    '))
  }
  if (errors.length) {
    p('')
    p('  ERRORS:')
    for (const e of errors) p(`    ${e.file}: ${e.error}`)
  }
}
// rename_pairing is not a documented difference either: it fails the run like an unexplained one.
process.exitCode = total.unexplained > 0 || total.rename_pairing > 0 || errors.length > 0 ? 1 : 0
