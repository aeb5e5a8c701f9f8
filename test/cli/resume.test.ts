/**
 * An analyze killed after it saved part of the mined history resumes from there: the next
 * analyze says how many commits it did not mine again, and builds the same index as a clean build.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { chunkSize } from '../../src/git/history-reader.js'
import { createRepo } from '../helpers/repo.js'
import { runCli, runJson, sleep, startCli } from './cli.js'

const COMMITS = 4000
const FILES = 5
const LINES = 20

/** A history of COMMITS commits (one merge of a side branch every 50), written by git fast-import. */
function bigHistory() {
  const repo = createRepo()
  const out: string[] = []
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`
  const files = Array.from({ length: FILES }, (_, f) => Array.from({ length: LINES }, (_, l) => `export const v${f}_${l} = 0`))
  let mark = 0
  let main = 0
  let side = 0
  for (let i = 1; i <= COMMITS; i++) {
    const time = 1_700_000_000 + i * 60
    let merge = 0
    if (i % 50 === 0) {
      side = ++mark
      out.push(`commit refs/heads/side\nmark :${side}\ncommitter Side <side@example.com> ${time - 30} +0000\n${data(`side ${i}`)}from :${main}\nM 100644 inline docs/side.md\n${data(`side note ${i}\n`)}`)
      merge = side
    }
    const f = i % FILES
    files[f][i % LINES] = `export const v${f}_${i % LINES} = ${i}`
    const m = ++mark
    out.push(`commit refs/heads/main\nmark :${m}\ncommitter Main <main@example.com> ${time} +0000\n${data(`change ${i}`)}` +
      (main ? `from :${main}\n` : '') + (merge ? `merge :${merge}\n` : '') + `M 100644 inline src/file${f}.ts\n${data(files[f].join('\n') + '\n')}`)
    main = m
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: repo.dir, env: repo.env(), input: out.join('') })
  repo.git('reset', '-q', '--hard', 'main')
  return repo
}

const repo = bigHistory()
afterAll(() => repo.cleanup())

/** What the index answers: counts of every node and edge, and evidence and history of every file. */
async function answers(): Promise<unknown[]> {
  const env = repo.env()
  const out: unknown[] = []
  const counts = await runJson(['cypher', 'MATCH (n) RETURN labels(n) AS l, count(*) AS n ORDER BY l', '--repo', repo.dir], { env })
  const edges = await runJson(['cypher', 'MATCH ()-[r]->() RETURN label(r) AS l, count(*) AS n ORDER BY l', '--repo', repo.dir], { env })
  out.push(counts.json, edges.json)
  for (let f = 0; f < FILES; f++) {
    out.push((await runJson(['evidence', `src/file${f}.ts:1-${LINES}`, '--limit', '0', '--repo', repo.dir], { env })).json)
    out.push((await runJson(['history', `src/file${f}.ts`, '--limit', '0', '--repo', repo.dir], { env })).json)
  }
  out.push((await runJson(['history', 'docs', '--limit', '0', '--repo', repo.dir], { env })).json)
  return out
}

function indexFiles(): Record<string, string> {
  const meta = JSON.parse(readFileSync(join(repo.dir, '.gitwhy', 'meta.json'), 'utf8')) as { indexDir: string }
  const dir = join(repo.dir, '.gitwhy', meta.indexDir)
  return Object.fromEntries(['dag.json', 'diffs.bin', 'patches.bin'].map((f) => [f, readFileSync(join(dir, f)).toString('base64')]))
}

test('an analyze killed after a checkpoint resumes from it and builds what a clean build builds', async () => {
  expect(Math.ceil((COMMITS + COMMITS / 50) / chunkSize(COMMITS + COMMITS / 50))).toBeGreaterThan(3)
  const env = repo.env()
  const checkpoints = join(repo.dir, '.gitwhy', 'checkpoint')
  const saved = () => (existsSync(checkpoints) ? readdirSync(checkpoints).flatMap((k) => readdirSync(join(checkpoints, k)).filter((f) => /^chunk-\d+\.bin$/.test(f))) : [])
  const run = startCli(['analyze', '--repo', repo.dir], { env, timeoutMs: 300_000 })
  let ended = false
  void run.done.then(() => (ended = true), () => (ended = true))
  while (!ended && saved().length === 0) await sleep(5)
  run.child.kill('SIGKILL')
  const killed = await run.done
  expect(killed.signal, `analyze ended before it could be killed: ${killed.stderr}`).toBe('SIGKILL')
  expect(saved().length).toBeGreaterThan(0)

  const resumed = await runCli(['analyze', '--repo', repo.dir], { env, timeoutMs: 300_000 })
  expect(resumed.code, resumed.stderr).toBe(0)
  const m = /resumed an interrupted analyze: (\d+) of (\d+) commits were mined already/.exec(resumed.stderr)
  expect(m, resumed.stderr).not.toBeNull()
  expect(Number(m![1])).toBeGreaterThan(0)
  expect(Number(m![2])).toBe(COMMITS + COMMITS / 50)
  expect(existsSync(checkpoints), 'the checkpoints go once the index is built').toBe(false)
  const afterResume = { answers: await answers(), files: indexFiles() }

  const clean = await runCli(['analyze', '--force', '--repo', repo.dir], { env, timeoutMs: 300_000 })
  expect(clean.code, clean.stderr).toBe(0)
  expect(clean.stderr).not.toMatch(/resumed/)
  expect(await answers()).toEqual(afterResume.answers)
  expect(indexFiles()).toEqual(afterResume.files)
}, 900_000)
