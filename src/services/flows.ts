import { UserError, checkLimit } from '../errors.js'
import { CODE_QUERIES as Q } from '../graph/queries.js'
import type { GraphSymbol } from './codegraph.js'
import { IndexReader, withReader } from './index-reader.js'
import { resolveTarget } from './resolve.js'
import type { IndexInfo } from './types.js'

/**
 * `gitwhy flows`: the execution flows analyze found (src/codegraph/flows.ts), biggest first; with
 * an entry (a symbol, or a file: the flows starting in it), those flows with every step.
 */

export const FLOW_KINDS = ['route', 'command', 'main', 'exported'] as const

export interface FlowItem {
  id: string
  label: string
  kind: string
  entry: string
  /** Symbols in the flow, the entry included. */
  steps: number
  /** The longest call chain from the entry, in symbols. */
  depth: number
  /** With an entry asked: every step, nearest the entry first (1 = the entry). */
  members?: Array<GraphSymbol & { step: number }>
}

export interface FlowsResult {
  index: IndexInfo
  /** The entry asked, resolved (null: all flows). */
  entry: { kind: 'file'; path: string } | { kind: 'symbol'; id: string; qualified_name: string; path: string } | null
  total: number
  flows: FlowItem[]
}

type Row = Omit<FlowItem, 'steps' | 'depth' | 'members'> & { steps: number | bigint; depth: number | bigint }
const item = (r: Row): FlowItem => ({ id: r.id, label: r.label, kind: r.kind, entry: r.entry, steps: Number(r.steps), depth: Number(r.depth) })

export async function flows(options: { repo?: string; reader?: IndexReader; entry?: string; kind?: string; limit?: number }): Promise<FlowsResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 50
    checkLimit(limit)
    const kind = options.kind ?? ''
    if (kind && !(FLOW_KINDS as readonly string[]).includes(kind)) throw new UserError(`--kind must be one of ${FLOW_KINDS.join(', ')}, got ${kind}`, 'route: HTTP handlers; command: CLI commands; main: mains and scripts; exported: exported functions nothing calls', 'bad_option')
    const g = await reader.graph()
    if (options.entry === undefined) {
      const rows = (await g.query<Row>(Q.flows, { kind })).map(item)
      return { index: await reader.indexInfo(), entry: null, total: rows.length, flows: limit === 0 ? rows : rows.slice(0, limit) }
    }
    const target = resolveTarget(reader, options.entry)
    if (target.kind === 'directory') throw new UserError(`${target.path} is a directory`, 'pass the entry symbol (e.g. path:Name) or the file it is in', 'bad_option')
    const ids = target.kind === 'symbol' ? [target.id] : (await g.query<{ id: string }>(Q.fileSymbols, { path: target.path })).map((r) => r.id)
    const rows = ids.length ? (await g.query<Row>(Q.flowsFrom, { ids })).map(item).filter((f) => !kind || f.kind === kind) : []
    const shown = limit === 0 ? rows : rows.slice(0, limit)
    const members = shown.length ? await g.query<GraphSymbol & { process: string; step: number }>(Q.flowMembers, { ids: shown.map((f) => f.id) }) : []
    for (const f of shown) f.members = members.filter((m) => m.process === f.id).map(({ process: _, ...m }) => ({ ...m, start_line: Number(m.start_line), step: Number(m.step) }))
    const entry = target.kind === 'symbol' ? { kind: 'symbol' as const, id: target.id, qualified_name: target.qualified_name, path: target.path } : { kind: 'file' as const, path: target.path }
    return { index: await reader.indexInfo(), entry, total: rows.length, flows: shown }
  })
}

/** The text answer of `flows`. */
export function flowsLines(r: FlowsResult): string[] {
  const at = r.entry ? ` starting at ${r.entry.kind === 'symbol' ? `${r.entry.qualified_name} (${r.entry.path})` : r.entry.path}` : ''
  if (r.total === 0) return [`no execution flow${at}${r.entry ? ' (the flows through it: gitwhy context)' : ' (analyze found no entry point with calls to follow)'}`]
  const out = [`${r.total} execution flow${r.total === 1 ? '' : 's'}${at}${r.flows.length < r.total ? `, the ${r.flows.length} biggest shown` : ''}:`]
  for (const f of r.flows) {
    out.push(`  ${f.label} · ${f.kind}, ${f.steps} symbol${f.steps === 1 ? '' : 's'}, ${f.depth} deep`)
    for (const m of f.members ?? []) out.push(`    ${m.step}. ${m.qualified_name} (${m.path}:${m.start_line})`)
  }
  return out
}
