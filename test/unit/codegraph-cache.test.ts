/**
 * codegraph.bin keeps the call edges as columns (packCalls): what an update reads back must be the
 * graph that was saved, edge for edge; an edge the columns could not give back exactly is saved as
 * it is, and a file whose columns do not hold together reads as no stored graph (rebuilt).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { deserialize, serialize } from 'node:v8'
import { describe, expect, it } from 'vitest'
import { CODE_GRAPH_FILE, loadCodeGraph, saveCodeGraph } from '../../src/codegraph/cache.js'
import type { Flows } from '../../src/codegraph/flows.js'
import type { CallEdge, CodeGraph } from '../../src/codegraph/resolve.js'
import { writeManifest } from '../../src/services/index-integrity.js'

const flows = { processes: [] } as unknown as Flows
const graphOf = (calls: CallEdge[]): CodeGraph => ({
  imports: [{ from: 'a.ts', to: 'b.ts' }],
  calls,
  extends: [],
  implements: [],
  modules: [{ path: 'a.ts', id: 'a.ts#<module>', lines: 3 }],
  entries: [{ symbol: 'a.ts#main', kind: 'main', label: 'main', line: 1 }],
})
const calls: CallEdge[] = [
  { from: 'a.ts#f', to: 'b.ts#g', confidence: 0.9, reason: 'import-resolved', line: 12 },
  { from: 'a.ts#f', to: 'a.ts#h', confidence: 0.95, reason: 'same-scope', line: 13 },
  { from: 'b.ts#g', to: 'a.ts#f', confidence: 0.3, reason: 'ambiguous', line: 2_000_000 },
  { from: 'b.ts#g', to: 'c.ts#é', confidence: 0.25, reason: 'unique-name', line: 0 },
]

function saved(graph: CodeGraph): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gitwhy-codegraph-'))
  saveCodeGraph(dir, { graph, flows })
  writeManifest(dir)
  return dir
}

describe('codegraph.bin', () => {
  it('gives back the saved graph, its calls from columns', () => {
    const dir = saved(graphOf(calls))
    const raw = deserialize(readFileSync(path.join(dir, CODE_GRAPH_FILE))) as { graph: { calls: unknown[]; packedCalls?: { from: unknown } } }
    expect(raw.graph.calls).toEqual([])
    expect(raw.graph.packedCalls?.from).toBeInstanceOf(Int32Array)
    const read = loadCodeGraph(dir)
    expect(read?.graph).toEqual(graphOf(calls))
    expect(read?.graph).not.toHaveProperty('packedCalls')
    expect(read?.flows).toEqual(flows)
  })

  it('keeps edges the columns cannot hold as they are', () => {
    for (const odd of [{ ...calls[0], line: 1.5 }, { ...calls[0], line: 2 ** 40 }, { ...calls[0], extra: 1 } as CallEdge]) {
      const dir = saved(graphOf([calls[1], odd]))
      expect((deserialize(readFileSync(path.join(dir, CODE_GRAPH_FILE))) as { graph: { calls: unknown[] } }).graph.calls).toHaveLength(2)
      expect(loadCodeGraph(dir)?.graph.calls).toEqual([calls[1], odd])
    }
  })

  it('reads columns that do not hold together as no stored graph', () => {
    const dir = saved(graphOf(calls))
    const file = path.join(dir, CODE_GRAPH_FILE)
    const stored = deserialize(readFileSync(file)) as { graph: { packedCalls: { to: Int32Array; strings: string[] } } }
    stored.graph.packedCalls.to = stored.graph.packedCalls.to.subarray(1)
    writeFileSync(file, serialize(stored))
    writeManifest(dir)
    expect(loadCodeGraph(dir)).toBeNull()
  })
})
