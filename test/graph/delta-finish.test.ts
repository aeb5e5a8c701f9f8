/**
 * An update asks for the graph's finish as soon as its last part is queued (GraphDeltaWriter): the
 * graph's thread must then refuse to finish a graph a part failed on, and the part's own error is
 * the one the update reports.
 */
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { deltaRunner, type GraphDelta } from '../../src/graph/delta.js'
import { GraphDeltaWriter } from '../../src/graph/delta-writer.js'
import { writeGraph } from '../../src/graph/load.js'
import { emptyGraph, tempDir } from './fixtures.js'

const IDLE = { revisions: 0, recent_revisions: 0, churn: 0, authors: 0, first_change: null, last_change: null, hotspot: 0, hotspot_percentile: 0, cochange_partners: 0 }
const symbol = (id: string, path: string) => ({ id, name: id, qualified_name: id, kind: 'function', path, start_line: 1, end_line: 2, signature: '', exported: false, search: 'word', ...IDLE })

/** A symbol defined in a file the graph does not have: the part fails. */
const BROKEN: Partial<GraphDelta> = { insert: { symbols: [symbol('src/none.ts#f', 'src/none.ts')], defines: [{ path: 'src/none.ts', symbol: 'src/none.ts#f' }] } }
const FINE: Partial<GraphDelta> = { insert: { symbols: [symbol('src/a.ts#g', 'src/a.ts')], defines: [{ path: 'src/a.ts', symbol: 'src/a.ts#g' }] } }

describe('graph delta: a finish after a failed part', () => {
  let dir: ReturnType<typeof tempDir>
  beforeAll(async () => {
    dir = tempDir()
    const g = emptyGraph()
    g.files.push({ path: 'src/a.ts', language: 'typescript', lines: 10, is_test: false, present: true, ...IDLE })
    await writeGraph(join(dir.path, 'g0.kuzu'), g)
  }, 60_000)
  afterAll(() => dir?.cleanup())

  test('the runner throws the part’s error and closes the graph after', async () => {
    const run = deltaRunner()
    await run({ op: 'open', from: join(dir.path, 'g0.kuzu'), to: join(dir.path, 'r1.kuzu') })
    const applied = run({ op: 'apply', delta: BROKEN })
    const finished = run({ op: 'finish' })
    await expect(applied).rejects.toThrow(/DEFINES: no File src\/none.ts/)
    await expect(finished).rejects.toThrow(/DEFINES: no File src\/none.ts/)
    await expect(run({ op: 'close' })).resolves.toBeTruthy()
  }, 60_000)

  test('the writer reports the part’s error, then the graph finishes when nothing failed', async () => {
    const broken = new GraphDeltaWriter(join(dir.path, 'g0.kuzu'), join(dir.path, 'w1.kuzu'))
    broken.apply(BROKEN)
    await expect(broken.finish()).rejects.toThrow(/DEFINES: no File src\/none.ts/)
    await broken.close({ discard: true })
    expect(existsSync(join(dir.path, 'w1.kuzu'))).toBe(false)

    const fine = new GraphDeltaWriter(join(dir.path, 'g0.kuzu'), join(dir.path, 'w2.kuzu'))
    fine.apply(FINE)
    const done = await fine.finish()
    await fine.close()
    expect(done.counts.symbols).toBe(1)
    expect(done.graph[0]).toBeGreaterThan(0)
  }, 60_000)
})

/**
 * Kuzu 0.11.3 writes a SET string out anew at the next checkpoint, with its node group's string
 * pages, and does not give the old pages back: an update that set the unchanged name, signature
 * and path of the symbols whose lines moved (and the file's language, its author's name) grew
 * vuejs/core's graph file by ~1–4 MB per update. The delta sets a string only where it changes.
 */
describe('graph delta: unchanged strings are not set again', () => {
  let dir: ReturnType<typeof tempDir>
  const symbols = Array.from({ length: 3000 }, (_, i) => ({ ...symbol(`src/a.ts#f${i}`, 'src/a.ts'), signature: `function f${i}(input: number): number ${'x'.repeat(200)}` }))
  beforeAll(async () => {
    dir = tempDir()
    const g = emptyGraph()
    g.files.push({ path: 'src/a.ts', language: 'typescript', lines: 10, is_test: false, present: true, ...IDLE })
    g.authors.push({ email: 'a@example.com', name: 'A', emails: 'a@example.com' })
    g.symbols.push(...symbols)
    g.defines.push(...symbols.map((s) => ({ path: 'src/a.ts', symbol: s.id })))
    await writeGraph(join(dir.path, 'm0.kuzu'), g)
  }, 60_000)
  afterAll(() => dir?.cleanup())

  test('five updates that move every symbol down a line, same strings: the file keeps its size', async () => {
    const sizes: number[] = []
    for (let n = 1; n <= 5; n++) {
      const run = deltaRunner()
      await run({ op: 'open', from: join(dir.path, `m${n - 1}.kuzu`), to: join(dir.path, `m${n}.kuzu`) })
      await run({
        op: 'apply',
        delta: {
          updateSymbols: symbols.map((s) => ({ ...s, start_line: s.start_line + n, end_line: s.end_line + n })),
          updateFiles: [{ path: 'src/a.ts', language: 'typescript', lines: 10 + n, is_test: false, present: true, ...IDLE }],
          renameAuthors: [{ email: 'a@example.com', name: 'A', emails: 'a@example.com' }],
        },
      })
      await run({ op: 'finish' })
      sizes.push(statSync(join(dir.path, `m${n}.kuzu`)).size)
    }
    expect(sizes.slice(1)).toEqual(sizes.slice(0, -1))
  }, 120_000)
})
