/**
 * Many clients at once, and many calls at once from each, on a server that has not opened its
 * database yet: every call answers, none fails. (Before, concurrent first calls each opened their
 * own Kuzu database and most of them failed with "Mmap ... failed".) Every tool of tools/list is
 * called, so a new tool joins this test without an edit here.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { runJson, type CliOptions } from '../cli/cli.js'
import { connectHttp, connectStdio, startHttpServer, text } from './client.js'

let repo: TestRepo
let opts: CliOptions

/** Arguments that make each tool answer (not fail) on the repository below. */
const GOOD_ARGS: Record<string, Record<string, unknown>> = {
  evidence_for: { path: 'src/mod1.ts', line_start: 3, line_end: 9 },
  area_history: { path: 'src' },
  catchup: { since: '2000-01-01' },
  cypher: { statement: 'MATCH (c:Commit) RETURN count(c) AS n' },
  risk: { target: 'src/mod0.ts' },
  related: { target: 'src/mod0.ts' },
  hotspots: {},
  ownership: { target: 'src' },
  list_repos: {},
  ping: {},
  pickaxe: { pattern: 'return 1' },
  context: { target: 'src/mod0.ts:f0_1' },
  impact: { target: 'src/mod0.ts', direction: 'both' },
  detect_changes: {},
  rename: { target: 'src/mod0.ts:f0_1', new_name: 'g0_1' },
  query: { text: 'f0 1' },
  search: { text: 'change one file' },
  why: { target: 'src/mod1.ts:3-9' },
  rationale_brief: { target: 'src/mod0.ts:f0_1' },
  decisions_for: { target: 'src/mod0.ts:f0_1' },
  trajectory: { target: 'src/mod0.ts' },
  global_trajectory: {},
  session_summary: {},
  set_intent: { intent: 'answer many calls at once' },
  consolidate: { summary: 'a checkpoint among many calls' },
  trajectory_recorder: { action: 'status' },
  // beforeAll stages an edit of src/mod0.ts
  suggest_commit_message: {},
  // snapshot: the id of the one recorded in beforeAll; feedback: a why answer's id, from beforeAll
}

beforeAll(async () => {
  repo = createRepo()
  for (let i = 0; i < 12; i++) {
    for (let f = 0; f < 3; f++) {
      const lines = Array.from({ length: 12 }, (_, n) => `export function f${f}_${n}(): number { return ${n === i % 12 ? i + 100 : n} }`)
      repo.write(`src/mod${f}.ts`, lines.join('\n') + '\n')
    }
    repo.commit(`Change ${i} (#${10 + i})`, { author: { name: `Dev ${i % 3}`, email: `dev${i % 3}@example.test` } })
  }
  opts = { cwd: repo.dir, env: { ...repo.env(), GITWHY_HOME: mkdtempSync(join(tmpdir(), 'gitwhy-conc-home-')) } }
  await runJson(['analyze', '--repo', repo.dir], opts)
  // a decision for decisions_for (and why) to find
  await runJson(['decision', 'add', 'f0_1 stays a pure function', '--applies-to', 'src/mod0.ts:f0_1', '--forbid', 'console\\.log', '--repo', repo.dir], opts)
  // a recorded edit for the trajectory tools (snapshot needs its id)
  repo.write('src/mod0.ts', 'export const edited = 1\n')
  GOOD_ARGS.snapshot = { id: (await runJson(['trajectory', 'consolidate', 'an edit to answer about', '--repo', repo.dir], opts)).json.checkpoint.id }
  GOOD_ARGS.feedback = { answer_id: (await runJson(['why', 'src/mod1.ts:3-9', '--repo', repo.dir], opts)).json.answer_id, vote: 'up' }
})
afterAll(() => repo?.cleanup())

/** `n` calls at once, round-robin over every listed tool; the failures (thrown or isError), described. */
async function burst(client: Client, n: number): Promise<string[]> {
  const names = (await client.listTools()).tools.map((t) => t.name)
  for (const name of names) expect(GOOD_ARGS, `no arguments for the new tool ${name}: add them to GOOD_ARGS`).toHaveProperty(name)
  const calls = Array.from({ length: n }, (_, i) => names[i % names.length])
  const results = await Promise.all(
    calls.map((name) =>
      client.callTool({ name, arguments: GOOD_ARGS[name] }).then(
        (r) => (r.isError ? `${name}: ${text(r)}` : null),
        (error: Error) => `${name}: ${error.message}`,
      ),
    ),
  )
  return results.filter((r): r is string => r !== null)
}

describe('concurrent calls', () => {
  test('stdio: 100 calls at once from a cold start, then 4 clients × 30 at once — none fails', async () => {
    const { client } = await connectStdio({ cwd: repo.dir, env: opts.env })
    try {
      expect(await burst(client, 100)).toEqual([])
    } finally {
      await client.close()
    }
    const clients = await Promise.all(Array.from({ length: 4 }, () => connectStdio({ cwd: repo.dir, env: opts.env })))
    try {
      const failures = await Promise.all(clients.map(({ client: c }) => burst(c, 30)))
      expect(failures.flat()).toEqual([])
    } finally {
      await Promise.all(clients.map(({ client: c }) => c.close()))
    }
  })

  test('HTTP: 10 sessions × 10 calls at once — none fails', async () => {
    const server = await startHttpServer({ cwd: repo.dir, env: opts.env })
    try {
      const clients = await Promise.all(Array.from({ length: 10 }, () => connectHttp(server.url)))
      const failures = await Promise.all(clients.map((c) => burst(c, 10)))
      expect(failures.flat()).toEqual([])
      await Promise.all(clients.map((c) => c.close()))
    } finally {
      await server.stop()
    }
  })
})
