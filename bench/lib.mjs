// What the benchmarks share: their arguments (an indexed repository, --name value options),
// an HTTP server on 127.0.0.1 with a free port, a process's resident memory, and an analyze run as a
// process with the CPU time of the children this process waited for.

import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const BIN = join(ROOT, 'bin/run.js')

/**
 * An A/B bench's arguments: the repository (first argument), `--a` and `--b` (project directories
 * holding a built gitwhy; --b defaults to this project) and `opt(name, fallback)`; exits with
 * `usage` when the repository or --a is missing.
 */
export function abArgs(usage) {
  const args = process.argv.slice(2)
  const opt = (name, fallback) => {
    const i = args.indexOf(`--${name}`)
    return i >= 0 ? args[i + 1] : fallback
  }
  const repo = args[0] && !args[0].startsWith('--') ? resolve(args[0]) : null
  const a = opt('a')
  if (!repo || !a) {
    process.stderr.write(`usage: ${usage}\n`)
    process.exit(1)
  }
  return { opt, repo, builds: { A: resolve(a), B: resolve(opt('b', ROOT)) }, json: args.includes('--json') }
}

/** The indexed repository (first bare argument) and `opt(name, fallback)`; exits with `usage` when there is none. */
export function benchArgs(usage) {
  const args = process.argv.slice(2)
  const opt = (name, fallback) => {
    const i = args.indexOf(`--${name}`)
    return i >= 0 ? args[i + 1] : fallback
  }
  const repo = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'))
  if (!repo || !existsSync(join(repo, '.gitwhy', 'meta.json'))) {
    process.stderr.write(`usage: ${usage}\n(run \`gitwhy analyze <repo>\` first)\n`)
    process.exit(1)
  }
  return { args, opt, repo, json: args.includes('--json') }
}

/** `gitwhy mcp --http` on 127.0.0.1, any free port (with `--tools TOOLS` when given); stopped when this process exits. */
export async function startHttpServer(repo, tools) {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--host', '127.0.0.1', '--port', '0', ...(tools ? ['--tools', tools] : [])], { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] })
  const stop = () => child.exitCode === null && child.kill('SIGTERM')
  process.on('exit', stop)
  const url = await new Promise((resolveUrl, reject) => {
    let err = ''
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${err}`)), 30_000)
    child.stderr.on('data', (d) => {
      err += d
      const m = /on (http:\/\/\S+)/.exec(err)
      if (m) {
        clearTimeout(timer)
        resolveUrl(m[1])
      }
    })
    child.on('exit', (code) => reject(new Error(`the server exited with ${code}: ${err}`)))
  })
  return { url, child, stop }
}

/** Resident memory of a process in MB (Linux /proc). */
export function rssMb(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024
}

/** p50 / p95 / max of some timings (ms). */
export function percentiles(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))]
  return { n: s.length, p50: +at(0.5).toFixed(1), p95: +at(0.95).toFixed(1), max: +s[s.length - 1].toFixed(1) }
}

/** A reproducible random number generator in [0, 1). */
export function seededRandom(seed) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
}

/** The built `gitwhy mcp --tools TOOLS` over stdio with the SDK's real client, and a timed call that throws on a tool error. */
export async function mcpClient(repo, tools) {
  const { Client } = await import(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js'))
  const { StdioClientTransport } = await import(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js'))
  const client = new Client({ name: 'gitwhy-bench', version: '1' })
  // the whole environment: the SDK passes the server only a few variables (HOME, PATH…), and a
  // GITWHY_EMBED_MODEL or GITWHY_HOME of the bench's must reach it
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--tools', tools], cwd: repo, stderr: 'ignore', env: { ...process.env } }))
  const timed = async (name, args) => {
    const t0 = performance.now()
    const r = await client.callTool({ name, arguments: args })
    const ms = performance.now() - t0
    if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content?.[0]?.text}`)
    return ms
  }
  return { client, timed }
}
/** One `gitwhy analyze --json [extra]` of the build in `project`, as a process: wall ms and the summary (CPU: cpuOfChildren around it). */
export function analyzeProcess(project, cwd, extra = [], env = {}) {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [join(project, 'bin', 'run.js'), 'analyze', '--json', ...extra], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('error', fail)
    child.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - started) / 1e6
      if (code !== 0) return fail(new Error(`analyze exited ${code}: ${err.slice(0, 400)}`))
      done({ wall, summary: JSON.parse(out) })
    })
  })
}

/**
 * CPU ms (user + system) of every child this process has waited for so far, and of theirs:
 * /proc/self/stat's cutime and cstime (Linux; clock ticks of 10 ms). Elsewhere, 0.
 */
export function cpuOfChildren() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')
    // after the command: the state is [0], so stat's fields 16 and 17 (cutime, cstime) are [13] and [14]
    return (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return 0
  }
}
