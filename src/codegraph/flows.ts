import { isTestPath } from '../parse/classify.js'
import { symbolIds, type IndexedFile } from '../services/index-layout.js'
import type { CodeGraph } from './resolve.js'

/**
 * Execution flows (GitNexus's "processes"): from each entry point, the symbols its calls reach.
 *
 * Entry points, tests excluded (a test file's symbol is never an entry nor a step):
 *   - route: a handler registered as an HTTP route (express/hono/koa `app.get('/x', h)`, Flask and
 *     FastAPI decorators, Go `http.HandleFunc`, gin/echo/chi);
 *   - command: a CLI command's handler (cobra `&cobra.Command{Run: f}`, commander `.action(f)`,
 *     click/typer `@cli.command()`);
 *   - main: a `main` function, a Python `if __name__ == "__main__":` block;
 *   - exported: an exported top-level function nothing outside the tests calls, or a method declared
 *     at the top level (Go's `func (c *Command) Execute()`; not a method inside a class).
 * The first three come from the entries queries (queries/<lang>/entries.scm); an inline handler
 * makes the function around the registration (or the file's `<module>`) the entry.
 *
 * A flow walks CALLS breadth-first from its entry, only along edges of confidence at least
 * FLOW_MIN_CONFIDENCE (ambiguous edges are left out, and so are methods found by their name alone,
 * 0.5: on hono, `res.json()` on a fetch Response would step into HonoRequest.json), at most
 * MAX_FLOW_DEPTH calls deep and MAX_FLOW_SYMBOLS symbols in all (nearest first, then in call-site
 * order). A symbol's step is its call distance from the entry plus one (the entry is step 1). A flow that reaches too little is
 * none (MIN_STEPS), and a flow whose symbols all belong to another flow of the same or a stronger
 * kind (route, then command, main, exported) is dropped; of two equal flows of one kind, the
 * smaller id stays.
 *
 * Pure: the same graph gives the same flows, so an update recomputes them all and applies the
 * difference (src/services/analyze.ts).
 */

export const FLOW_MIN_CONFIDENCE = 0.6
export const MAX_FLOW_DEPTH = 8
export const MAX_FLOW_SYMBOLS = 40
/** Symbols a flow must hold: a registered entry with one callee is a flow, an exported function needs two. */
export const MIN_STEPS = { registered: 2, exported: 3 }

export type FlowKind = 'route' | 'command' | 'main' | 'exported'
const RANK: Record<FlowKind, number> = { route: 0, command: 1, main: 2, exported: 3 }

export interface ProcessRow {
  id: string
  label: string
  kind: FlowKind
  entry: string
  steps: number
  depth: number
}

export interface StepRow {
  symbol: string
  process: string
  step: number
}

export interface Flows {
  processes: ProcessRow[]
  stepIn: StepRow[]
}

export const flowId = (entry: string) => `flow:${entry}`

export function buildFlows(files: readonly IndexedFile[], graph: Pick<CodeGraph, 'calls' | 'entries' | 'modules'>): Flows {
  const symbols = new Map<string, { name: string; path: string; exportedFunction: boolean }>()
  for (const f of files) {
    if (isTestPath(f.path)) continue
    const ids = symbolIds(f)
    f.symbols.forEach((s, i) => symbols.set(ids[i], { name: s.qualifiedName, path: f.path, exportedFunction: s.exported && (s.kind === 'function' || s.kind === 'method') && s.parentIndex === null }))
  }
  for (const m of graph.modules) if (!isTestPath(m.path)) symbols.set(m.id, { name: m.id, path: m.path, exportedFunction: false })

  const callees = new Map<string, string[]>()
  const called = new Set<string>()
  for (const c of graph.calls) {
    if (!symbols.has(c.from)) continue
    called.add(c.to)
    if (c.confidence < FLOW_MIN_CONFIDENCE || !symbols.has(c.to)) continue
    const list = callees.get(c.from)
    if (list) {
      if (!list.includes(c.to)) list.push(c.to)
    } else callees.set(c.from, [c.to])
  }

  // one flow per entry symbol, its registrations merged
  const entries = new Map<string, { kind: FlowKind; labels: string[] }>()
  for (const e of graph.entries) {
    if (!symbols.has(e.symbol)) continue
    const hit = entries.get(e.symbol)
    if (!hit) entries.set(e.symbol, { kind: e.kind, labels: [e.label] })
    else {
      if (RANK[e.kind] < RANK[hit.kind]) hit.kind = e.kind
      if (!hit.labels.includes(e.label)) hit.labels.push(e.label)
    }
  }
  for (const [id, s] of symbols) if (s.exportedFunction && !called.has(id) && !entries.has(id)) entries.set(id, { kind: 'exported', labels: [] })

  const found: Array<{ row: ProcessRow; steps: Map<string, number> }> = []
  for (const [entry, e] of [...entries].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const steps = new Map([[entry, 1]])
    let frontier = [entry]
    for (let step = 2; step <= MAX_FLOW_DEPTH + 1 && frontier.length > 0 && steps.size < MAX_FLOW_SYMBOLS; step++) {
      const next: string[] = []
      for (const from of frontier) {
        for (const to of callees.get(from) ?? []) {
          if (steps.has(to) || steps.size >= MAX_FLOW_SYMBOLS) continue
          steps.set(to, step)
          next.push(to)
        }
      }
      frontier = next
    }
    if (steps.size < (e.kind === 'exported' ? MIN_STEPS.exported : MIN_STEPS.registered)) continue
    const s = symbols.get(entry)!
    // a <module> entry is named by its file; a function main by its file too (every main has that name)
    const where = s.name === entry ? s.path : s.name
    // an exported function by its file too: several files export a `title`
    const label = (e.kind === 'main' && s.name === 'main') || e.kind === 'exported' ? `${s.name} (${s.path})` : e.labels.length ? `${e.labels.join(', ')} → ${where}` : where
    found.push({ row: { id: flowId(entry), label, kind: e.kind, entry, steps: steps.size, depth: Math.max(...steps.values()) }, steps })
  }

  // drop a flow whose symbols all belong to another: only flows holding its entry can hold it all
  const holding = new Map<string, number[]>()
  found.forEach((f, i) => {
    for (const id of f.steps.keys()) {
      const list = holding.get(id)
      if (list) list.push(i)
      else holding.set(id, [i])
    }
  })
  // b drops a when it ranks at least as high: an exported function or a main holding a route's flow leaves the route's
  const keeps = (a: (typeof found)[number], b: (typeof found)[number]) => RANK[b.row.kind] <= RANK[a.row.kind] && (b.steps.size > a.steps.size || RANK[b.row.kind] < RANK[a.row.kind] || b.row.id < a.row.id)
  const kept = found.filter((a, i) => !(holding.get(a.row.entry) ?? []).some((j) => {
    const b = found[j]
    return j !== i && b.steps.size >= a.steps.size && keeps(a, b) && [...a.steps.keys()].every((id) => b.steps.has(id))
  }))
  return {
    processes: kept.map((f) => f.row),
    stepIn: kept.flatMap((f) => [...f.steps].map(([symbol, step]) => ({ symbol, process: f.row.id, step }))),
  }
}
