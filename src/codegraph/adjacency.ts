import { CODE_QUERIES as Q } from '../graph/queries.js'
import type { GraphStore } from '../graph/store.js'

/**
 * The code graph of one index in memory: symbols, CALLS both ways, EXTENDS / IMPLEMENTS both
 * ways, IMPORTS both ways, test files, community membership and flow steps. Loaded with a few
 * bulk statements on first use (hono: 3,000 symbols and 17,000 call edges) and kept by the
 * index's reader, so that `context` and `impact` walk it without a statement per step: Kuzu
 * costs 3-7 ms a statement, a walk three calls deep took six. An index never changes once built,
 * and a new analyze gets a new reader, so it is never stale.
 *
 * The lookups answer what the named queries they replace answered, in the same order (best
 * confidence first, then ids), so callers group and walk them unchanged.
 */

export interface CodeSymbol {
  id: string
  qualified_name: string
  kind: string
  path: string
  start_line: number
  end_line: number
  signature: string | null
  exported: boolean | null
}

/** One end of an edge, seen from the other: a caller or callee, a subtype or supertype. */
export interface Link extends Pick<CodeSymbol, 'id' | 'qualified_name' | 'kind' | 'path' | 'start_line'> {
  /** The symbol at this end of the edge (the one asked about). */
  via: string
  line: number | null
  confidence: number | null
  reason: string | null
  relation: 'CALLS' | 'EXTENDS' | 'IMPLEMENTS'
}

export interface ProcessRow {
  id: string
  label: string
  kind: string
  entry: string
  steps: number
}

export const CALL_EDGES: ReadonlySet<Link['relation']> = new Set(['CALLS'])
export const HERITAGE_EDGES: ReadonlySet<Link['relation']> = new Set(['EXTENDS', 'IMPLEMENTS'])
export const ALL_EDGES: ReadonlySet<Link['relation']> = new Set(['CALLS', 'EXTENDS', 'IMPLEMENTS'])

interface Edge {
  from: string
  to: string
  line: number | null
  confidence: number | null
  reason: string | null
  relation: Link['relation']
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
/** The named queries' order: calls first, best confidence first, then ids and lines. */
const byLink = (a: Link, b: Link) =>
  Number(b.relation === 'CALLS') - Number(a.relation === 'CALLS') || (b.confidence ?? 0) - (a.confidence ?? 0) || cmp(a.id, b.id) || cmp(a.via, b.via) || (a.line ?? 0) - (b.line ?? 0)

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

export class CodeGraphIndex {
  readonly symbols = new Map<string, CodeSymbol>()
  /** Symbols a file defines, by path. */
  readonly defined = new Map<string, string[]>()
  /** Edges into a symbol (its callers, subtypes) and out of it (callees, supertypes). */
  private readonly into = new Map<string, Edge[]>()
  private readonly outOf = new Map<string, Edge[]>()
  readonly imports = new Map<string, string[]>()
  readonly importers = new Map<string, string[]>()
  readonly tests = new Set<string>()
  private readonly community = new Map<string, { id: string; label: string }>()
  private readonly steps = new Map<string, Array<{ process: string; step: number }>>()
  readonly processes = new Map<string, ProcessRow>()

  /** Read the whole code graph of an index: one statement per table, side by side. */
  static async load(g: GraphStore): Promise<CodeGraphIndex> {
    const [symbols, calls, heritage, imports, tests, members, steps, processes] = await Promise.all([
      g.query<CodeSymbol & { file: string }>(Q.allSymbols),
      g.query<{ from: string; to: string; line: number; confidence: number; reason: string }>(Q.allCalls),
      g.query<{ from: string; to: string; relation: 'EXTENDS' | 'IMPLEMENTS' }>(Q.allHeritage),
      g.query<{ from: string; to: string }>(Q.allImports),
      g.query<{ path: string }>(Q.testPaths),
      g.query<{ symbol: string; id: string; label: string }>(Q.allMembership),
      g.query<{ symbol: string; process: string; step: number }>(Q.allSteps),
      g.query<ProcessRow>(Q.allProcesses),
    ])
    const out = new CodeGraphIndex()
    for (const { file, ...s } of symbols) {
      out.symbols.set(s.id, { ...s, start_line: Number(s.start_line), end_line: Number(s.end_line) })
      push(out.defined, file, s.id)
    }
    const edge = (e: Edge) => {
      push(out.outOf, e.from, e)
      push(out.into, e.to, e)
    }
    for (const c of calls) edge({ from: c.from, to: c.to, line: Number(c.line), confidence: Number(c.confidence), reason: c.reason, relation: 'CALLS' })
    for (const h of heritage) edge({ from: h.from, to: h.to, line: null, confidence: null, reason: null, relation: h.relation })
    for (const e of imports) {
      push(out.imports, e.from, e.to)
      push(out.importers, e.to, e.from)
    }
    for (const list of [...out.imports.values(), ...out.importers.values()]) list.sort(cmp)
    for (const t of tests) out.tests.add(t.path)
    for (const m of members) out.community.set(m.symbol, { id: m.id, label: m.label })
    for (const s of steps) push(out.steps, s.symbol, { process: s.process, step: Number(s.step) })
    for (const p of processes) out.processes.set(p.id, { ...p, steps: Number(p.steps) })
    return out
  }

  /** The symbols a file defines. */
  symbolsOf(path: string): string[] {
    return this.defined.get(path) ?? []
  }

  /**
   * Symbols with an edge into `ids` (up: callers of at least `min`, subtypes) or out of them
   * (down: callees, supertypes), seen from the other end, best first. `relations` picks the edges.
   */
  linked(ids: Iterable<string>, direction: 'up' | 'down', min: number, relations: ReadonlySet<Link['relation']>): Link[] {
    const out: Link[] = []
    for (const via of ids) {
      for (const e of (direction === 'up' ? this.into : this.outOf).get(via) ?? []) {
        if (!relations.has(e.relation) || (e.relation === 'CALLS' && (e.confidence ?? 0) < min)) continue
        const other = this.symbols.get(direction === 'up' ? e.from : e.to)
        if (!other) continue
        out.push({ id: other.id, qualified_name: other.qualified_name, kind: other.kind, path: other.path, start_line: other.start_line, via, line: e.line, confidence: e.confidence, reason: e.reason, relation: e.relation })
      }
    }
    return out.sort(byLink)
  }

  /** The communities of `ids`, with how many of them each holds: the largest share first. */
  communitiesOf(ids: Iterable<string>): Array<{ id: string; label: string; symbols: number }> {
    const counts = new Map<string, { id: string; label: string; symbols: number }>()
    for (const id of new Set(ids)) {
      const c = this.community.get(id)
      if (!c) continue
      const hit = counts.get(c.id)
      if (hit) hit.symbols++
      else counts.set(c.id, { ...c, symbols: 1 })
    }
    return [...counts.values()].sort((a, b) => b.symbols - a.symbols || cmp(a.id, b.id))
  }

  /** The flows `ids` are steps of: the smallest step among them and how many, nearest the entry first. */
  flowsOf(ids: Iterable<string>): Array<ProcessRow & { step: number; symbols: number }> {
    const found = new Map<string, ProcessRow & { step: number; symbols: number }>()
    for (const id of new Set(ids)) {
      for (const s of this.steps.get(id) ?? []) {
        const p = this.processes.get(s.process)
        if (!p) continue
        const hit = found.get(p.id)
        if (hit) {
          hit.step = Math.min(hit.step, s.step)
          hit.symbols++
        } else found.set(p.id, { ...p, step: s.step, symbols: 1 })
      }
    }
    return [...found.values()].sort((a, b) => a.step - b.step || cmp(a.label, b.label) || cmp(a.id, b.id))
  }
}
