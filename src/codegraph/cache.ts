import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { deserialize, serialize } from 'node:v8'
import { PROJECT_ROOT } from '../parse/registry.js'
import { readIndexFile } from '../services/index-integrity.js'
import type { Flows } from './flows.js'
import type { CallEdge, CallReason, CodeGraph } from './resolve.js'

/**
 * The code graph and flows an index holds, beside its graph: an update diffs the new ones against
 * these instead of building the previous ones again (~0.3 s on vuejs/core). They are what the
 * graph's edges were written from, so the diff is right even when a newer gitwhy resolves
 * differently. Optional: an index without the file (or with one that does not parse) has them
 * rebuilt from its files.
 */
export const CODE_GRAPH_FILE = 'codegraph.bin'

export interface StoredCodeGraph {
  graph: CodeGraph
  flows: Flows
  /** The resolver that built it (resolverFingerprint): another one would resolve the unchanged files differently. */
  resolver: string | null
}

let fingerprint: string | null | undefined
/**
 * A hash of the resolution and flow code (this module's siblings as built, found from the project's
 * root in a bundle too), or null where they cannot be read. An update reuses stored edges and
 * flows only when it is the stored one's.
 */
export function resolverFingerprint(): string | null {
  if (fingerprint === undefined) {
    try {
      const hash = createHash('sha256')
      // the built files (a bundled copy of this module runs from dist/bundle), or the sources when they run directly (tests)
      const sources = import.meta.url.endsWith('.ts')
      for (const name of ['resolve', 'modules', 'flows']) hash.update(readFileSync(sources ? new URL(`./${name}.ts`, import.meta.url) : path.join(PROJECT_ROOT, 'dist', 'codegraph', `${name}.js`)))
      fingerprint = hash.digest('hex')
    } catch {
      fingerprint = null
    }
  }
  return fingerprint
}

export function saveCodeGraph(dir: string, stored: Omit<StoredCodeGraph, 'resolver'>): void {
  const packed = packCalls(stored.graph.calls)
  const graph = packed ? { ...stored.graph, calls: [], packedCalls: packed } : stored.graph
  writeFileSync(path.join(dir, CODE_GRAPH_FILE), serialize({ ...stored, graph, resolver: resolverFingerprint() }))
}

/** The stored code graph, or null when the index has none (a damaged one throws, as every index file does). */
export function loadCodeGraph(dir: string): StoredCodeGraph | null {
  const data = readIndexFile(dir, CODE_GRAPH_FILE)
  if (data === null) return null
  try {
    const stored = deserialize(data) as StoredCodeGraph & { graph: { packedCalls?: PackedCalls } }
    if (!Array.isArray(stored?.graph?.calls) || !Array.isArray(stored?.flows?.processes)) return null
    const { packedCalls, ...graph } = stored.graph
    if (packedCalls !== undefined) {
      const calls = unpackCalls(packedCalls)
      if (!calls) return null
      graph.calls = calls
    }
    return { ...stored, graph }
  } catch {
    return null
  }
}

/**
 * The call edges as columns over one string table: v8.serialize copies a typed array's bytes
 * where it writes each of git/git's 85,000 edge objects field by field (~0.1 s to write and ~0.15
 * s to read the 13 MB file, on the update's path).
 */
interface PackedCalls {
  strings: string[]
  from: Int32Array
  to: Int32Array
  reason: Int32Array
  confidence: Float64Array
  line: Int32Array
}

/** null when an edge has a value the columns would not give back as it was (then the edges are written as they are). */
function packCalls(calls: readonly CallEdge[]): PackedCalls | null {
  const strings: string[] = []
  const ids = new Map<string, number>()
  const id = (s: string) => {
    let i = ids.get(s)
    if (i === undefined) ids.set(s, (i = strings.push(s) - 1))
    return i
  }
  const n = calls.length
  const out: PackedCalls = { strings, from: new Int32Array(n), to: new Int32Array(n), reason: new Int32Array(n), confidence: new Float64Array(n), line: new Int32Array(n) }
  for (let i = 0; i < n; i++) {
    const c = calls[i]
    if (typeof c.from !== 'string' || typeof c.to !== 'string' || typeof c.reason !== 'string' || typeof c.confidence !== 'number' || !Number.isInteger(c.line) || c.line !== (c.line | 0) || Object.keys(c).length !== 5) return null
    out.from[i] = id(c.from)
    out.to[i] = id(c.to)
    out.reason[i] = id(c.reason)
    out.confidence[i] = c.confidence
    out.line[i] = c.line
  }
  return out
}

function unpackCalls(p: PackedCalls): CallEdge[] | null {
  const columns = [p?.from, p?.to, p?.reason, p?.line]
  if (!Array.isArray(p?.strings) || !columns.every((c) => c instanceof Int32Array) || !(p.confidence instanceof Float64Array)) return null
  const n = p.from.length
  if (columns.some((c) => c.length !== n) || p.confidence.length !== n) return null
  const s = p.strings
  for (const col of [p.from, p.to, p.reason]) for (let i = 0; i < n; i++) if (!(col[i] >= 0 && col[i] < s.length)) return null
  const calls = new Array<CallEdge>(n)
  for (let i = 0; i < n; i++) calls[i] = { from: s[p.from[i]], to: s[p.to[i]], confidence: p.confidence[i], reason: s[p.reason[i]] as CallReason, line: p.line[i] }
  return calls
}
