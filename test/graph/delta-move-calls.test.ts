/**
 * Calls whose line alone moved are set in place (moveCalls), several sources in one statement: each
 * edge is matched by the line it had before the statement, so a call moving onto the old line of
 * another (every call below an edit moves down by one, onto the next one's line) is moved once.
 * Thousands of edges (more than one of Kuzu's 2,048-row vectors) from sources of different sizes
 * (one alone in its statement, three sharing one),
 * all calling one symbol with the same confidence and reason: only the line tells them apart.
 * (Kuzu 0.11.3 gave the right lines with the rows unwound first as well: a statement's SETs are not
 * seen by its own matches. This holds the result, whichever way a later Kuzu plans it.)
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { deltaRunner, type GraphDelta } from '../../src/graph/delta.js'
import { writeGraph } from '../../src/graph/load.js'
import { emptyGraph, readRows, tempDir } from './fixtures.js'

const IDLE = { revisions: 0, recent_revisions: 0, churn: 0, authors: 0, first_change: null, last_change: null, hotspot: 0, hotspot_percentile: 0, cochange_partners: 0 }
const symbol = (id: string) => ({ id, name: id, qualified_name: id, kind: 'function', path: 'a.ts', start_line: 1, end_line: 9_000, signature: '', exported: false, search: 'word', ...IDLE })
/** Each source's number of calls (lines 1..n), all to `callee`. */
const SOURCES: Record<string, number> = { 'a.ts#big': 3_000, 'a.ts#mid': 200, 'a.ts#small': 150, 'a.ts#one': 1, 'a.ts#two': 2 }

async function lines(db: string): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {}
  for (const r of await readRows(db, 'MATCH (x:Symbol)-[c:CALLS]->(y:Symbol) RETURN x.id AS source, c.line AS line ORDER BY source, line')) (out[String(r.source)] ??= []).push(Number(r.line))
  return out
}

describe('graph delta: calls moved in place', () => {
  let dir: ReturnType<typeof tempDir>
  beforeAll(async () => {
    dir = tempDir()
    const g = emptyGraph()
    g.files.push({ path: 'a.ts', language: 'typescript', lines: 9_000, is_test: false, present: true, ...IDLE })
    for (const id of [...Object.keys(SOURCES), 'a.ts#callee']) {
      g.symbols.push(symbol(id))
      g.defines.push({ path: 'a.ts', symbol: id })
    }
    for (const [from, n] of Object.entries(SOURCES)) for (let line = 1; line <= n; line++) g.calls.push({ from, to: 'a.ts#callee', confidence: 0.9, reason: 'import', line })
    await writeGraph(join(dir.path, 'g0.kuzu'), g)
  }, 120_000)
  afterAll(() => dir?.cleanup())

  test('every call below the edit moves down by one, onto the next one’s old line, once', async () => {
    // the calls from line 2 on move, in line order (as lineMoves gives them): each onto the line
    // the next one leaves in the same statement, which a row-by-row match would move again
    const moves: NonNullable<GraphDelta['codeGraph']>['moveCalls'] = []
    for (const [from, n] of Object.entries(SOURCES)) for (let line = 2; line <= n; line++) moves.push({ from, to: 'a.ts#callee', line, confidence: 0.9, reason: 'import', to_line: line + 1 })
    const delta: Partial<GraphDelta> = { codeGraph: { calls: [], extends: [], implements: [], imports: [], processes: [], moveCalls: moves } }
    const run = deltaRunner()
    await run({ op: 'open', from: join(dir.path, 'g0.kuzu'), to: join(dir.path, 'g1.kuzu') })
    await run({ op: 'apply', delta })
    await run({ op: 'finish' })
    const got = await lines(join(dir.path, 'g1.kuzu'))
    for (const [from, n] of Object.entries(SOURCES)) {
      // line 1 stays, 2..n are now 3..n+1
      const want = [1, ...Array.from({ length: n - 1 }, (_, i) => i + 3)]
      expect(got[from], from).toEqual(want)
    }
  }, 120_000)

  test('a move that finds no edge fails the delta (the update is rebuilt instead)', async () => {
    const delta: Partial<GraphDelta> = { codeGraph: { calls: [], extends: [], implements: [], imports: [], processes: [], moveCalls: [{ from: 'a.ts#two', to: 'a.ts#callee', line: 99, confidence: 0.9, reason: 'import', to_line: 100 }] } }
    const run = deltaRunner()
    await run({ op: 'open', from: join(dir.path, 'g0.kuzu'), to: join(dir.path, 'g2.kuzu') })
    await expect(run({ op: 'apply', delta })).rejects.toMatchObject({ name: 'GraphDeltaMismatch' })
    await run({ op: 'close' }).catch(() => {})
  }, 120_000)
})
