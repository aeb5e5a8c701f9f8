#!/usr/bin/env node
// gitwhy at scale: a full analyze of a big repository against `git log -p -U0 -M` on the same
// machine in the same run, with peak memory, the size of .gitwhy/, two one-commit updates (a text
// file's last line; a line inside the function changed most often) and a no-op.
//
//   node bench/scale.mjs <repo> [--tmp DIR] [--json]
//
// <repo> is cloned (a local clone: hard links, quick; its refs/replace/* too) into a temporary
// directory, which is what gets indexed and committed to; the repository itself is left alone.
// Progress on stderr; the table (or one JSON document) on stdout. Memory is sampled from /proc
// every 200 ms: the analyze process alone and with its git children.

import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { BIN } from './lib.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback)
const source = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'))
if (!source) {
  process.stderr.write('usage: node bench/scale.mjs <repo> [--tmp DIR] [--json]\n')
  process.exit(1)
}
const log = (m) => process.stderr.write(`${m}\n`)
const work = mkdtempSync(join(resolve(opt('tmp', tmpdir())), 'gitwhy-scale-'))
const repo = join(work, 'repo')

/** RSS in MB of a process, and of it with every descendant (Linux /proc). */
function rss(pid) {
  const kids = new Map()
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))[1])
      if (!kids.has(ppid)) kids.set(ppid, [])
      kids.get(ppid).push(Number(p))
    } catch {}
  }
  const one = (p) => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))[1]) / 1024
    } catch {
      return 0
    }
  }
  let tree = 0
  const walk = (p) => {
    tree += one(p)
    for (const c of kids.get(p) ?? []) walk(c)
  }
  walk(pid)
  return { self: one(pid), tree }
}

/** Run a command, timing it and sampling its memory; stdout is counted (and kept when `keep`). */
function run(cmd, argv, keep = false) {
  return new Promise((done, fail) => {
    const t0 = performance.now()
    const child = spawn(cmd, argv, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] })
    let bytes = 0
    const out = []
    let err = ''
    let peak = { self: 0, tree: 0 }
    const timer = setInterval(() => {
      const r = rss(child.pid)
      peak = { self: Math.max(peak.self, r.self), tree: Math.max(peak.tree, r.tree) }
    }, 200)
    child.stdout.on('data', (d) => {
      bytes += d.length
      if (keep) out.push(d)
    })
    child.stderr.on('data', (d) => (err += d))
    child.on('error', fail)
    child.on('close', (code) => {
      clearInterval(timer)
      if (code !== 0) return fail(new Error(`${cmd} ${argv.join(' ')} exited with ${code}: ${err.slice(-2000)}`))
      done({ seconds: (performance.now() - t0) / 1000, bytes, peakMb: peak, stdout: Buffer.concat(out).toString('utf8') })
    })
  })
}

const du = (dir) => Number(execFileSync('du', ['-sk', dir]).toString().split('\t')[0]) / 1024

try {
  log(`cloning ${source} into ${repo}`)
  execFileSync('git', ['clone', '-q', resolve(source), repo])
  // a snapshot that lacks its biggest blobs (fetched ones lack files of 4 MiB and more) can stand
  // them in with replace refs (`git update-ref refs/replace/<missing> <blob>`); the clone gets them
  execFileSync('git', ['fetch', '-q', 'origin', 'refs/replace/*:refs/replace/*'], { cwd: repo })
  const commits = Number(execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: repo }).toString())
  const merges = Number(execFileSync('git', ['rev-list', '--merges', '--count', 'HEAD'], { cwd: repo }).toString())
  log(`git log -p -U0 -M (${commits} commits, ${merges} merges)`)
  const gitLog = await run('git', ['log', '-p', '-U0', '-M', 'HEAD'])
  log(`gitwhy analyze`)
  const full = await run(process.execPath, [BIN, 'analyze', '--json'], true)
  const summary = JSON.parse(full.stdout)
  const size = du(join(repo, '.gitwhy'))
  const file = execFileSync('git', ['ls-files'], { cwd: repo }).toString().split('\n').find((f) => /\.(c|ts|js|py|go|rs|md|txt)$/.test(f))
  writeFileSync(join(repo, file), readFileSync(join(repo, file), 'utf8') + '\n/* gitwhy scale bench */\n')
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@invalid', 'commit', '-qam', 'bench: one commit'], { cwd: repo })
  /**
   * The spare copy of the graph that analyze starts in the background (src/services/graph-spare.ts)
   * finished, or a minute passed: an update that comes while it is copying copies the graph itself
   * (1.7–2.1 s on git/git and rails, on 2 cores), which is not what an update costs once the copier
   * is done; the steps here wait for it. No spare is made for a graph under 32 MiB.
   */
  async function spareMade() {
    const root = join(repo, '.gitwhy')
    const { indexDir } = JSON.parse(readFileSync(join(root, 'meta.json'), 'utf8'))
    if (statSync(join(root, indexDir, 'graph.kuzu')).size < 32 * 1024 * 1024) return
    for (const until = Date.now() + 60_000; Date.now() < until && !existsSync(join(root, 'spares', `${indexDir}.json`)); ) await new Promise((r) => setTimeout(r, 200))
  }
  /** A comment line added in the middle of a function (`hot`: its path and lines), committed, then an update. */
  async function editAndUpdate(hot) {
    const lines = readFileSync(join(repo, hot.path), 'utf8').split('\n')
    const comment = /\.(rb|py|sh|pl|r|ex|exs|cr|nim|jl)$/i.test(hot.path) ? '# gitwhy scale bench' : '/* gitwhy scale bench */'
    lines.splice(Math.floor((hot.first + hot.last) / 2), 0, comment)
    writeFileSync(join(repo, hot.path), lines.join('\n'))
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@invalid', 'commit', '-qam', 'bench: one function'], { cwd: repo })
    return { ...(await step([BIN, 'analyze', '--json'])), function: `${hot.path}:${hot.first}-${hot.last}` }
  }
  // a step that fails is reported, and the others still run
  const step = (argv) => run(process.execPath, argv, true).then((r) => ({ seconds: r.seconds, mode: JSON.parse(r.stdout).mode, timings_ms: JSON.parse(r.stdout).timings }), (e) => ({ seconds: NaN, mode: `failed: ${e.message.slice(0, 300)}` }))
  log('gitwhy analyze after one commit (a text file)')
  await spareMade()
  const update = await step([BIN, 'analyze', '--json'])
  // The common update: a line added inside the function changed most often (the first update
  // above also moved "now" to today, which a snapshot's old HEAD makes atypical).
  log('gitwhy analyze after one commit (a function)')
  const hot = JSON.parse(execFileSync(process.execPath, [BIN, 'cypher', '--json', "MATCH (s:Symbol) WHERE s.kind IN ['function', 'method'] AND s.end_line - s.start_line >= 8 RETURN s.path AS path, s.start_line AS first, s.end_line AS last ORDER BY s.revisions DESC, s.id LIMIT 1"], { cwd: repo }).toString()).rows[0]
  await spareMade()
  const codeUpdate = hot ? await editAndUpdate(hot) : { seconds: NaN, mode: 'skipped: no function of 8 lines or more' }
  log('gitwhy analyze with nothing new')
  const noop = await step([BIN, 'analyze', '--json'])
  const result = {
    repo: source,
    commits,
    merges,
    git_log: { seconds: gitLog.seconds, mb: gitLog.bytes / 1e6 },
    analyze: { seconds: full.seconds, ratio_to_git_log: full.seconds / gitLog.seconds, peak_rss_mb: full.peakMb.self, peak_rss_with_git_mb: full.peakMb.tree, timings_ms: summary.timings, peak_mb: summary.peak_mb },
    gitwhy_dir_mb: size,
    update,
    update_function: codeUpdate,
    noop,
  }
  if (args.includes('--json')) process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  else {
    const row = (k, v) => process.stdout.write(`${k.padEnd(28)} ${v}\n`)
    row('repository', `${source} (${commits} commits, ${merges} merges)`)
    row('git log -p -U0 -M', `${gitLog.seconds.toFixed(1)} s (${(gitLog.bytes / 1e6).toFixed(0)} MB)`)
    row('gitwhy analyze', `${full.seconds.toFixed(1)} s = ${result.analyze.ratio_to_git_log.toFixed(2)} x git log`)
    row('peak RSS', `${full.peakMb.self.toFixed(0)} MB (with git children ${full.peakMb.tree.toFixed(0)} MB)`)
    // each phase's time, and the process's peak memory when it ended
    for (const [k, v] of Object.entries(summary.timings)) {
      const peak = summary.peak_mb?.[k.replace(/_ms$/, '')]
      row(`  ${k}`, `${(v / 1000).toFixed(1)} s${peak === undefined ? '' : `  (peak ${peak} MB)`}`)
    }
    row('.gitwhy/', `${size.toFixed(0)} MB`)
    // the update's phases (a no-op has none: its time is start-up, git and the trust check)
    row('one-commit update (text)', `${update.seconds.toFixed(2)} s (${result.update.mode})`)
    for (const [k, v] of Object.entries(update.timings_ms ?? {})) row(`  ${k}`, `${(v / 1000).toFixed(2)} s`)
    row('one-commit update (function)', `${codeUpdate.seconds.toFixed(2)} s (${codeUpdate.mode}${codeUpdate.function ? `, ${codeUpdate.function}` : ''})`)
    for (const [k, v] of Object.entries(codeUpdate.timings_ms ?? {})) row(`  ${k}`, `${(v / 1000).toFixed(2)} s`)
    row('no-op', `${noop.seconds.toFixed(2)} s (${result.noop.mode})`)
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
