/**
 * An update sets rows it keeps in place (co-change numbers, owners' shares, moved calls' lines)
 * from lists of rows: Kuzu 0.11.3 types such a list from its first row, so a DOUBLE column given
 * 2 after 26.7 (or 0.9 after 1) read the other's bits (vuejs/core's updated graph held degrees of
 * 1e-323 where a build had 2 and 6). Each set below mixes whole and fractional numbers both ways,
 * and the finished graph must hold exactly the values meant.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { deltaRunner, type GraphDelta } from '../../src/graph/delta.js'
import { writeGraph } from '../../src/graph/load.js'
import { emptyGraph, readRows as rows, tempDir } from './fixtures.js'

const IDLE = { revisions: 0, recent_revisions: 0, churn: 0, authors: 0, first_change: null, last_change: null, hotspot: 0, hotspot_percentile: 0, cochange_partners: 0 }
const file = (path: string) => ({ path, language: 'typescript', lines: 10, is_test: false, present: true, ...IDLE })
const symbol = (id: string, path: string) => ({ id, name: id, qualified_name: id, kind: 'function', path, start_line: 1, end_line: 9, signature: '', exported: false, search: 'word', ...IDLE })
const pair = (a: string, b: string, degree: number, confidence: number) => ({ a, b, shared: 5, degree, confidence, reverse_confidence: confidence / 2 })

describe('graph delta: values set from lists of rows', () => {
  let dir: ReturnType<typeof tempDir>
  beforeAll(async () => {
    dir = tempDir()
    const g = emptyGraph()
    g.files.push(file('a.ts'), file('b.ts'), file('c.ts'))
    g.authors.push({ email: 'x@t', name: 'x', emails: 'x@t' }, { email: 'y@t', name: 'y', emails: 'y@t' })
    g.symbols.push(symbol('a.ts#f', 'a.ts'), symbol('b.ts#g', 'b.ts'), symbol('c.ts#h', 'c.ts'))
    g.defines.push({ path: 'a.ts', symbol: 'a.ts#f' }, { path: 'b.ts', symbol: 'b.ts#g' }, { path: 'c.ts', symbol: 'c.ts#h' })
    g.fileCoChanged.push(pair('a.ts', 'b.ts', 10.5, 0.5), pair('a.ts', 'c.ts', 20.5, 0.25))
    g.symbolCoChanged.push(pair('a.ts#f', 'b.ts#g', 10, 1), pair('a.ts#f', 'c.ts#h', 20, 1))
    g.ownedBy.push({ path: 'a.ts', email: 'x@t', lines: 10, share: 1 }, { path: 'b.ts', email: 'x@t', lines: 5, share: 0.5 }, { path: 'b.ts', email: 'y@t', lines: 5, share: 0.5 }, { path: 'c.ts', email: 'y@t', lines: 10, share: 1 })
    g.calls.push({ from: 'a.ts#f', to: 'b.ts#g', confidence: 1, reason: 'import', line: 3 }, { from: 'a.ts#f', to: 'c.ts#h', confidence: 0.9, reason: 'import', line: 4 })
    await writeGraph(join(dir.path, 'g0.kuzu'), g)
  }, 60_000)
  afterAll(() => dir?.cleanup())

  test('co-change numbers, owners\' shares and moved calls hold what was set', async () => {
    const delta: Partial<GraphDelta> = {
      analytics: {
        removeFileCoChanges: [],
        removeSymbolCoChanges: [],
        // fractional first, then whole; and whole first, then fractional
        setFileCoChanges: [pair('a.ts', 'b.ts', 26.7, 0.4), pair('a.ts', 'c.ts', 2, 0.125)],
        setSymbolCoChanges: [pair('a.ts#f', 'b.ts#g', 12, 1), pair('a.ts#f', 'c.ts#h', 4.5, 0.75)],
        replaceCommunities: false,
        ownershipOf: ['a.ts', 'b.ts', 'c.ts'],
      },
      codeGraph: {
        calls: [],
        extends: [],
        implements: [],
        imports: [],
        processes: [],
        moveCalls: [
          { from: 'a.ts#f', to: 'c.ts#h', line: 4, confidence: 0.9, reason: 'import', to_line: 6 },
          { from: 'a.ts#f', to: 'b.ts#g', line: 3, confidence: 1, reason: 'import', to_line: 5 },
        ],
      },
      // c.ts's owner keeps a whole share with more lines (set first), b.ts's shares move
      insert: { ownedBy: [{ path: 'c.ts', email: 'y@t', lines: 12, share: 1 }, { path: 'a.ts', email: 'x@t', lines: 10, share: 1 }, { path: 'b.ts', email: 'x@t', lines: 3, share: 0.3 }, { path: 'b.ts', email: 'y@t', lines: 7, share: 0.7 }] },
    }
    const run = deltaRunner()
    await run({ op: 'open', from: join(dir.path, 'g0.kuzu'), to: join(dir.path, 'g1.kuzu') })
    await run({ op: 'apply', delta })
    await run({ op: 'finish' })
    const g1 = join(dir.path, 'g1.kuzu')
    const co = await rows(g1, 'MATCH (x)-[r:CO_CHANGED]->(y) RETURN coalesce(x.id, x.path) AS a, coalesce(y.id, y.path) AS b, r.degree AS degree, r.confidence AS confidence, r.reverse_confidence AS reverse ORDER BY a, b')
    expect(co).toEqual([
      { a: 'a.ts', b: 'b.ts', degree: 26.7, confidence: 0.4, reverse: 0.2 },
      { a: 'a.ts', b: 'c.ts', degree: 2, confidence: 0.125, reverse: 0.0625 },
      { a: 'a.ts#f', b: 'b.ts#g', degree: 12, confidence: 1, reverse: 0.5 },
      { a: 'a.ts#f', b: 'c.ts#h', degree: 4.5, confidence: 0.75, reverse: 0.375 },
    ])
    const owners = await rows(g1, 'MATCH (f:File)-[o:OWNED_BY]->(a:Author) RETURN f.path AS path, a.email AS email, o.lines AS lines, o.share AS share ORDER BY path, email')
    expect(owners).toEqual([
      { path: 'a.ts', email: 'x@t', lines: 10, share: 1 },
      { path: 'b.ts', email: 'x@t', lines: 3, share: 0.3 },
      { path: 'b.ts', email: 'y@t', lines: 7, share: 0.7 },
      { path: 'c.ts', email: 'y@t', lines: 12, share: 1 },
    ])
    const calls = await rows(g1, 'MATCH (x:Symbol)-[c:CALLS]->(y:Symbol) RETURN y.id AS to, c.line AS line, c.confidence AS confidence ORDER BY to')
    expect(calls).toEqual([{ to: 'b.ts#g', line: 5, confidence: 1 }, { to: 'c.ts#h', line: 6, confidence: 0.9 }])
  }, 60_000)
})
