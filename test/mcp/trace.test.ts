/**
 * GITWHY_TRACE (issue 15): one NDJSON span per MCP tool call (over a real stdio client) and per
 * analyze phase, in the repository's .gitwhy/trace.ndjson or the file GITWHY_TRACE names; a failing
 * call's span carries its error; unset, nothing is written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { ISO, runJson, type CliOptions } from '../cli/cli.js'
import { connectStdio } from './client.js'

interface Span {
  name: string
  kind: string
  start: string
  duration_ms: number
  sizes?: { args_bytes?: number; result_bytes?: number; rows?: number }
  cache_hit?: boolean
  error?: string
  repo?: string
}

const spansOf = (file: string): Span[] => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Span)

describe('GITWHY_TRACE', () => {
  let repo: TestRepo
  let opts: CliOptions
  let trace: string

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/a.ts', 'export function alpha(): number {\n  return 1\n}\n')
    repo.commit('Add alpha')
    repo.write('src/a.ts', 'export function alpha(): number {\n  return 2\n}\n')
    repo.commit('Return two from alpha')
    opts = { cwd: repo.dir, env: { ...repo.env(), GITWHY_HOME: mkdtempSync(join(tmpdir(), 'gitwhy-trace-home-')) } }
    trace = join(repo.dir, '.gitwhy', 'trace.ndjson')
  })

  afterAll(() => repo?.cleanup())

  test('analyze: a span per phase, then the whole run; a no-op is one span', async () => {
    await runJson(['analyze'], { ...opts, env: { ...opts.env, GITWHY_TRACE: '1' } })
    const spans = spansOf(trace)
    const phases = spans.filter((s) => s.kind === 'phase').map((s) => s.name)
    expect(phases).toEqual(expect.arrayContaining(['analyze.history', 'analyze.files', 'analyze.reverts', 'analyze.hunk_map', 'analyze.analytics', 'analyze.graph_load', 'analyze.manifest']))
    for (const s of spans) {
      expect(s.start).toMatch(ISO)
      expect(s.duration_ms).toBeGreaterThanOrEqual(0)
      expect(s.error).toBeUndefined()
    }
    expect(spans.find((s) => s.name === 'analyze.history')!.sizes).toEqual({ rows: 2 })
    expect(spans.at(-1)).toMatchObject({ name: 'analyze', kind: 'analyze', sizes: { rows: 2 } })
    await runJson(['analyze'], { ...opts, env: { ...opts.env, GITWHY_TRACE: '1' } })
    expect(spansOf(trace).slice(spans.length)).toMatchObject([{ name: 'analyze', kind: 'analyze', sizes: { rows: 0 } }])
  })

  test('MCP over stdio: one span per call with the tool\'s name, its sizes and cache; a failing call\'s span has the error', async () => {
    rmSync(trace, { force: true })
    const { client } = await connectStdio({ cwd: repo.dir, env: { ...opts.env, GITWHY_TRACE: '1' } })
    const calls: Array<[string, Record<string, unknown>]> = [
      ['ping', {}],
      ['why', { target: 'src/a.ts' }],
      ['evidence_for', { path: 'src/nope.ts' }],
      ['area_history', { path: 'src' }],
      ['area_history', { path: 'src' }],
      ['why', { target: 42 }],
      ['no_such_tool', {}],
    ]
    try {
      for (const [name, args] of calls) await client.callTool({ name, arguments: args })
    } finally {
      await client.close()
    }
    const spans = spansOf(trace)
    expect(spans.map((s) => s.name)).toEqual(calls.map(([name]) => name))
    for (const [i, s] of spans.entries()) {
      expect(s.kind).toBe('tool')
      expect(s.start).toMatch(ISO)
      expect(typeof s.duration_ms).toBe('number')
      expect(s.sizes!.args_bytes).toBe(Buffer.byteLength(JSON.stringify(calls[i][1])))
      expect(s.sizes!.result_bytes).toBeGreaterThan(0)
      expect(s.repo).toBe(repo.dir)
    }
    expect(spans[0].error).toBeUndefined()
    expect(spans[1].error).toBeUndefined()
    expect(spans[2].error).toMatch(/src\/nope\.ts is not an indexed file/)
    // a list answer's rows; the reader's cache answers the second time
    expect(spans[3]).toMatchObject({ sizes: { rows: 2 }, cache_hit: false })
    expect(spans[4]).toMatchObject({ sizes: { rows: 2 }, cache_hit: true })
    expect(spans[5].error).toMatch(/Invalid arguments for tool why/)
    expect(spans[6].error).toMatch(/Tool no_such_tool not found/)
  })

  test('GITWHY_TRACE=FILE writes there; unset, nothing is written', async () => {
    rmSync(trace, { force: true })
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'gitwhy-trace-')), 'spans.ndjson')
    const { client } = await connectStdio({ cwd: repo.dir, env: { ...opts.env, GITWHY_TRACE: elsewhere } })
    try {
      await client.callTool({ name: 'ping', arguments: {} })
    } finally {
      await client.close()
    }
    expect(spansOf(elsewhere).map((s) => s.name)).toEqual(['ping'])
    const env = { ...opts.env }
    delete env.GITWHY_TRACE
    const quiet = await connectStdio({ cwd: repo.dir, env })
    try {
      await quiet.client.callTool({ name: 'ping', arguments: {} })
    } finally {
      await quiet.client.close()
    }
    expect(existsSync(trace)).toBe(false)
    rmSync(join(elsewhere, '..'), { recursive: true, force: true })
  })

  test("an update: the graph thread's steps as spans, timed on that thread, in the order it ran them", async () => {
    rmSync(trace, { force: true })
    repo.write('src/a.ts', 'export function alpha(): number {\n  return 3\n}\n')
    repo.commit('Return three from alpha')
    const before = Date.now()
    const { json: summary } = await runJson<{ mode: string }>(['analyze'], { ...opts, env: { ...opts.env, GITWHY_TRACE: '1' } })
    expect(summary.mode).toBe('incremental')
    const spans = spansOf(trace)
    const graph = spans.filter((s) => s.name.startsWith('analyze.graph_'))
    expect(graph.map((s) => s.name)).toEqual(expect.arrayContaining(['analyze.graph_open', 'analyze.graph_apply', 'analyze.graph_finish']))
    const whole = spans.at(-1)!
    expect(whole.name).toBe('analyze')
    const end = Date.parse(whole.start) + whole.duration_ms
    let previous = 0
    for (const s of graph) {
      expect(s.kind).toBe('phase')
      const at = Date.parse(s.start)
      // each within the run, and after the step before it (the graph's thread runs them in order)
      expect(at).toBeGreaterThanOrEqual(before - 5)
      expect(at + s.duration_ms).toBeLessThanOrEqual(end + 5)
      expect(at).toBeGreaterThanOrEqual(previous - 1)
      previous = at + s.duration_ms
    }
    expect(graph[0].name).toBe('analyze.graph_open')
  })
})
