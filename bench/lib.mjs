// What the MCP benchmarks share: their arguments (an indexed repository, --name value options),
// an HTTP server on 127.0.0.1 with a free port, and a process's resident memory.

import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const BIN = join(ROOT, 'bin/run.js')

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

/** `gitwhy mcp --http` on 127.0.0.1, any free port; stopped when this process exits. */
export async function startHttpServer(repo) {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--host', '127.0.0.1', '--port', '0'], { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] })
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
