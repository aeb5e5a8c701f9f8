// Runs many CLI invocations in one process (oclif's start-up once, not per case) and prints one
// JSON line per case: {i, code, json_ok}. Before each case it writes `start i` on stderr, so that a
// native crash (which takes the whole process down) names the case that caused it.
// Usage: node cli-runner.mjs CASES.json   (an array of argv arrays)
import { readFileSync, writeSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { run } from '@oclif/core'

const root = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'))

const realOut = process.stdout.write.bind(process.stdout)
let captured = ''
process.stdout.write = (chunk, ...rest) => {
  if (captured.length < 4_000_000) captured += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
  const cb = rest.find((r) => typeof r === 'function')
  if (cb) cb()
  return true
}
process.stderr.write = (chunk, ...rest) => {
  const cb = rest.find((r) => typeof r === 'function')
  if (cb) cb()
  return true
}

for (const [i, argv] of cases.entries()) {
  writeSync(2, `start ${i}\n`)
  captured = ''
  let code = 0
  try {
    await run(argv, root)
  } catch (error) {
    code = error?.oclif?.exit ?? 99
  }
  if (process.exitCode !== undefined && process.exitCode !== 0 && code === 0) code = Number(process.exitCode)
  process.exitCode = 0
  let jsonOk = null
  // after `--`, "--json" is an argument, not the flag
  const flags = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv
  if (flags.includes('--json')) {
    try {
      JSON.parse(captured)
      jsonOk = true
    } catch {
      jsonOk = false
    }
  }
  realOut(JSON.stringify({ i, code, json_ok: jsonOk }) + '\n')
}
