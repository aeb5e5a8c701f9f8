import { UserError, checkLimit } from '../errors.js'
import { ALL_EDGES, CALL_EDGES, HERITAGE_EDGES, type CodeGraphIndex, type Link } from '../codegraph/adjacency.js'
import { ANALYTICS_QUERIES as AQ } from '../graph/queries.js'
import { riskWithActivity } from './risk.js'
import { directoryRefused, resolveTarget, type Target } from './resolve.js'
import { IndexReader, withReader } from './index-reader.js'
import type { IndexInfo } from './types.js'

/**
 * The code graph's answers (issue 11): `context` (the 360° view of one symbol or file: callers,
 * callees, imports, heritage, community, and its history in one line) and `impact` (the blast
 * radius by depth, the tests and communities it reaches, and the hidden coupling: co-change
 * partners that no call or import path connects).
 */

export interface GraphSymbol {
  id: string
  qualified_name: string
  kind: string
  path: string
  start_line: number
}

/** One caller or callee, with every call site between the two. */
export interface CallRef extends GraphSymbol {
  /** Lines of the call sites (in the caller's file). */
  lines: number[]
  /** The best-resolved call site's confidence and reason. */
  confidence: number
  reason: string
}

/** Last change, revisions, owners and risk level: the time axis of a structural answer. */
export interface HistoryLine {
  last_change: string | null
  revisions: number
  owners: Array<{ name: string; email: string; share: number }>
  risk: 'LOW' | 'MEDIUM' | 'HIGH'
  risk_score: number
}

export interface ContextResult {
  target: Exclude<Target, { kind: 'directory' }>
  index: IndexInfo
  definition: { signature: string; exported: boolean; end_line: number } | null
  callers: CallRef[]
  callees: CallRef[]
  /** Files the defining file imports, and files that import it. */
  imports: string[]
  importers: string[]
  extends: GraphSymbol[]
  implements: GraphSymbol[]
  /** Classes that extend or implement it. */
  subtypes: Array<GraphSymbol & { relation: string }>
  community: { id: string; label: string } | null
  /** The execution flows it is a step of (for a file: any of its symbols), nearest the entry first. */
  flows: FlowRef[]
  history: HistoryLine
  /** Items beyond the limit, per list. */
  truncated: Record<string, number>
}

/** An execution flow (a Process) as an answer names it: what it is a step of, or what it reaches. */
export interface FlowRef {
  id: string
  label: string
  kind: string
  /** The entry symbol's id. */
  entry: string
  /** Symbols in the whole flow. */
  steps: number
  /** The smallest step of the asked symbols in it (1 = the entry). */
  step: number
  /** How many of the asked (or affected) symbols are steps of it. */
  symbols: number
}


export const DEFAULT_MIN_CONFIDENCE = 0.5

function checkConfidence(c: number): void {
  if (!Number.isFinite(c) || c < 0 || c > 1) throw new UserError(`--min-confidence must be between 0 and 1, got ${c}`, 'pass e.g. --min-confidence 0.5 (guesses by name have 0.4 or less)', 'bad_option')
}

type Row = Link

const symbolOf = (r: Row): GraphSymbol => ({ id: r.id, qualified_name: r.qualified_name, kind: r.kind, path: r.path, start_line: Number(r.start_line) })
/** Call rows (best confidence first) grouped by the symbol at the other end. */
function callsOf(rows: Row[]): CallRef[] {
  const out = new Map<string, CallRef>()
  for (const r of rows) {
    const hit = out.get(r.id)
    if (hit) hit.lines.push(Number(r.line))
    else out.set(r.id, { ...symbolOf(r), lines: [Number(r.line)], confidence: Number(r.confidence), reason: String(r.reason) })
  }
  for (const c of out.values()) c.lines.sort((a, b) => a - b)
  return [...out.values()]
}

async function historyLine(reader: IndexReader, target: Exclude<Target, { kind: 'directory' }>): Promise<{ line: HistoryLine; reasons: string[] }> {
  const { risk: r, revisions, last_change } = await riskWithActivity(reader, target)
  return { line: { last_change, revisions, owners: r.contributors.map(({ name, email, share }) => ({ name, email, share })), risk: r.level, risk_score: r.score }, reasons: r.reasons }
}

const paths = (list: string[]): string[] => [...list].sort()
const byCall = (a: Row, b: Row) => Number(b.confidence) - Number(a.confidence) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) || Number(a.line) - Number(b.line)
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const LEVELS = ['LOW', 'MEDIUM', 'HIGH'] as const

function capped<T>(list: T[], limit: number, key: string, truncated: Record<string, number>): T[] {
  if (limit === 0 || list.length <= limit) return list
  truncated[key] = list.length - limit
  return list.slice(0, limit)
}

export async function context(options: { repo?: string; reader?: IndexReader; target: string; limit?: number; minConfidence?: number }): Promise<ContextResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 30
    checkLimit(limit)
    const min = options.minConfidence ?? DEFAULT_MIN_CONFIDENCE
    checkConfidence(min)
    const target = resolveTarget(reader, options.target)
    if (target.kind === 'directory') throw directoryRefused(target, 'context')
    // an index never changes: a long-lived reader (the MCP server) answers a repeated question from memory
    const answer = await reader.memo(`context\0${target.kind === 'symbol' ? target.id : target.path}\0${limit}\0${min}`, async (): Promise<Omit<ContextResult, 'index' | 'target'>> => {
      const [code, history] = await Promise.all([reader.codeGraph(), historyLine(reader, target)])
      const ids = target.kind === 'symbol' ? [target.id] : code.symbolsOf(target.path)
      const definition = target.kind === 'symbol' ? code.symbols.get(target.id) : undefined
      const callers = code.linked(ids, 'up', min, CALL_EDGES)
      const callees = code.linked(ids, 'down', min, CALL_EDGES)
      const supers = code.linked(ids, 'down', min, HERITAGE_EDGES)
      const subs = code.linked(ids, 'up', min, HERITAGE_EDGES)
      const communities = code.communitiesOf(ids)
      const inside = new Set(ids)
      const truncated: Record<string, number> = {}
      // for a file, calls inside it are not its callers or callees
      const outside = (list: Row[]) => (target.kind === 'file' ? list.filter((r) => !inside.has(r.id)) : list)
      const d = definition
      return {
        definition: d && d.signature !== null ? { signature: d.signature, exported: d.exported === true, end_line: d.end_line } : null,
        callers: capped(callsOf(outside(callers).sort(byCall)), limit, 'callers', truncated),
        callees: capped(callsOf(outside(callees).sort(byCall)), limit, 'callees', truncated),
        imports: capped(paths(code.imports.get(target.path) ?? []), limit, 'imports', truncated),
        importers: capped(paths(code.importers.get(target.path) ?? []), limit, 'importers', truncated),
        extends: supers.filter((r) => r.relation === 'EXTENDS').sort(byId).map(symbolOf),
        implements: supers.filter((r) => r.relation === 'IMPLEMENTS').sort(byId).map(symbolOf),
        subtypes: capped(subs.sort(byId).map((r) => ({ ...symbolOf(r), relation: String(r.relation) })), limit, 'subtypes', truncated),
        community: communities[0] ? { id: communities[0].id, label: communities[0].label } : null,
        flows: capped(code.flowsOf(ids), limit, 'flows', truncated),
        history: history.line,
        truncated,
      }
    })
    return { target, index: await reader.indexInfo(), ...structuredClone(answer) }
  })
}

export type Direction = 'up' | 'down' | 'both'

export interface ImpactItem extends GraphSymbol {
  depth: number
  /** up: it calls (or extends) what is affected; down: what is affected calls it. */
  direction: 'up' | 'down'
  /** The symbol one step closer to the target. */
  via: string
  /** Product of the confidences along the path. */
  confidence: number
  /** How the last step was resolved (calls), or extends / implements. */
  reason: string
}

export interface ImpactResult {
  target: Exclude<Target, { kind: 'directory' }>
  index: IndexInfo
  direction: Direction
  depth: number
  min_confidence: number
  /** A risk summary on top: how much breaks, where, and the history's risk of the target. */
  summary: { level: 'LOW' | 'MEDIUM' | 'HIGH'; reasons: string[]; affected: number; files: number; tests: number; communities: number; flows: number }
  /** depth 1: will break; 2: likely affected; 3 and beyond: may be affected. */
  by_depth: Array<{ depth: number; label: string; symbols: ImpactItem[]; total: number }>
  /** Files that import the target's file (up) or that it imports (down), by depth (at most `limit`). */
  files: Array<{ path: string; depth: number; direction: 'up' | 'down' }>
  tests: string[]
  communities: Array<{ id: string; label: string; symbols: number }>
  /** The execution flows the target or an affected symbol is a step of (at most `limit`), nearest the entry first. */
  flows: FlowRef[]
  /** Co-change partners of the target's file that no call or import path (within the depth, either way) connects. */
  hidden_coupling: Array<{ path: string; shared: number; degree: number; confidence: number }>
  history: HistoryLine
}

const DEPTH_LABEL = (d: number) => (d === 1 ? 'will break' : d === 2 ? 'likely affected' : 'may be affected')
export const MAX_IMPACT_DEPTH = 10

/** Breadth-first along CALLS and heritage from the seeds. */
function walk(code: CodeGraphIndex, seeds: string[], dir: 'up' | 'down', depth: number, min: number): ImpactItem[] {
  const seen = new Map<string, ImpactItem>()
  const conf = new Map<string, number>(seeds.map((s) => [s, 1]))
  let frontier = seeds
  for (let d = 1; d <= depth && frontier.length > 0; d++) {
    const rows = code.linked(frontier, dir, min, ALL_EDGES)
    const next: string[] = []
    for (const r of rows) {
      if (conf.has(r.id)) continue
      const c = (conf.get(r.via) ?? 1) * (r.confidence === undefined || r.confidence === null ? 1 : Number(r.confidence))
      const prev = seen.get(r.id)
      if (prev && prev.confidence >= c) continue
      if (!prev) next.push(r.id)
      seen.set(r.id, { ...symbolOf(r), depth: d, direction: dir, via: r.via, confidence: Math.round(c * 1000) / 1000, reason: r.reason ?? String(r.relation).toLowerCase() })
    }
    for (const id of next) conf.set(id, seen.get(id)!.confidence)
    frontier = next
  }
  return [...seen.values()]
}

/** The file graph: IMPORTS both ways and which files are tests. */
type FileGraph = Pick<CodeGraphIndex, 'imports' | 'importers' | 'tests'>

function walkFiles(files: FileGraph, start: string, dir: 'up' | 'down', depth: number): Array<{ path: string; depth: number; direction: 'up' | 'down' }> {
  const edges = dir === 'up' ? files.importers : files.imports
  const seen = new Set([start])
  const out: Array<{ path: string; depth: number; direction: 'up' | 'down' }> = []
  let frontier = [start]
  for (let d = 1; d <= depth && frontier.length > 0; d++) {
    const next = [...new Set(frontier.flatMap((p) => edges.get(p) ?? []))].sort()
    frontier = []
    for (const path of next) {
      if (seen.has(path)) continue
      seen.add(path)
      frontier.push(path)
      out.push({ path, depth: d, direction: dir })
    }
  }
  return out
}

export async function impact(options: { repo?: string; reader?: IndexReader; target: string; direction?: Direction; depth?: number; minConfidence?: number; limit?: number }): Promise<ImpactResult> {
  return withReader(options, async (reader) => {
    const direction = options.direction ?? 'up'
    if (!['up', 'down', 'both'].includes(direction)) throw new UserError(`--direction must be up, down or both, got ${direction}`, 'up: what calls it (breaks if it changes); down: what it calls', 'bad_option')
    const depth = options.depth ?? 3
    if (!Number.isInteger(depth) || depth < 1 || depth > MAX_IMPACT_DEPTH) throw new UserError(`--depth must be a whole number from 1 to ${MAX_IMPACT_DEPTH}, got ${depth}`, 'pass e.g. --depth 3', 'bad_option')
    const min = options.minConfidence ?? DEFAULT_MIN_CONFIDENCE
    checkConfidence(min)
    const limit = options.limit ?? 50
    checkLimit(limit)
    const target = resolveTarget(reader, options.target)
    if (target.kind === 'directory') throw directoryRefused(target, 'impact')
    const answer = await reader.memo(`impact\0${target.kind === 'symbol' ? target.id : target.path}\0${direction}\0${depth}\0${min}\0${limit}`, async (): Promise<Omit<ImpactResult, 'index' | 'target'>> => {
      const g = await reader.graph()
      const [code, partners, history] = await Promise.all([
        reader.codeGraph(),
        g.query<{ key: string; shared: number; degree: number; confidence: number }>(AQ.fileCoChanged, { key: target.path, limit: 20 }),
        historyLine(reader, target),
      ])
      const seeds = target.kind === 'symbol' ? [target.id] : code.symbolsOf(target.path)
      const files = code
      const dirs: Array<'up' | 'down'> = direction === 'both' ? ['up', 'down'] : [direction]
      // the hidden coupling needs both ways, whatever the direction asked; without partners, only the asked ones
      const wanted = (d: 'up' | 'down') => dirs.includes(d) || partners.length > 0
      const up = wanted('up') ? walk(code, seeds, 'up', depth, min) : []
      const down = wanted('down') ? walk(code, seeds, 'down', depth, min) : []
      const filesUp = wanted('up') ? walkFiles(files, target.path, 'up', depth) : []
      const filesDown = wanted('down') ? walkFiles(files, target.path, 'down', depth) : []
      const affected = [...(dirs.includes('up') ? up : []), ...(dirs.includes('down') ? down : [])]
      const reached = [...(dirs.includes('up') ? filesUp : []), ...(dirs.includes('down') ? filesDown : [])]
      // a test reaches it through a call path, or by importing its file directly (files further up
      // the import graph mostly import types)
      const affectedPaths = [...new Set([...affected.map((s) => s.path), ...reached.filter((f) => f.depth === 1).map((f) => f.path)])].filter((p) => p !== target.path)
      const tests = affectedPaths.filter((p) => files.tests.has(p)).sort()
      const communities = code.communitiesOf(affected.map((s) => s.id))
      const flows = code.flowsOf([...seeds, ...affected.map((s) => s.id)])
      const connected = new Set([target.path, ...up.map((s) => s.path), ...down.map((s) => s.path), ...filesUp.map((f) => f.path), ...filesDown.map((f) => f.path)])
      const hidden = partners.filter((p) => !connected.has(p.key)).map((p) => ({ path: p.key, shared: Number(p.shared), degree: Number(p.degree), confidence: Number(p.confidence) }))
      const byDepth: ImpactResult['by_depth'] = []
      for (let d = 1; d <= depth; d++) {
        const at = affected.filter((s) => s.depth === d).sort((a, b) => b.confidence - a.confidence || (a.id < b.id ? -1 : 1))
        if (at.length) byDepth.push({ depth: d, label: DEPTH_LABEL(d), symbols: limit === 0 ? at : at.slice(0, limit), total: at.length })
      }
      const direct = affected.filter((s) => s.depth === 1).length
      // the structure's level (how much breaks, whether tests would notice) or the history's, whichever is higher
      const structural = direct >= 20 || affected.length >= 100 ? 2 : direct >= 5 || (direct > 0 && tests.length === 0) ? 1 : 0
      const level = LEVELS[Math.max(structural, LEVELS.indexOf(history.line.risk))]
      const reasons = [
        `${direct} symbol${direct === 1 ? '' : 's'} will break (depth 1), ${affected.length} affected within depth ${depth}`,
        `${tests.length} test file${tests.length === 1 ? '' : 's'} reach it`,
        ...(flows.length ? [`${flows.length} execution flow${flows.length === 1 ? '' : 's'} reach it: ${flows.slice(0, 3).map((f) => f.label).join('; ')}`] : []),
        ...(hidden.length ? [`${hidden.length} file${hidden.length === 1 ? '' : 's'} change with it but no call or import connects them: ${hidden.slice(0, 3).map((h) => h.path).join(', ')}`] : []),
        `history: ${history.line.risk} (${history.reasons.join('; ') || 'no risk factor'})`,
      ]
      return {
        direction,
        depth,
        min_confidence: min,
        summary: { level, reasons, affected: affected.length, files: affectedPaths.length, tests: tests.length, communities: communities.length, flows: flows.length },
        by_depth: byDepth,
        files: limit === 0 ? reached : reached.slice(0, limit),
        tests,
        communities,
        flows: limit === 0 ? flows : flows.slice(0, limit),
        hidden_coupling: hidden,
        history: history.line,
      }
    })
    return { target, index: await reader.indexInfo(), ...structuredClone(answer) }
  })
}

const who = (s: GraphSymbol) => `${s.qualified_name} (${s.path}:${s.start_line})`
const pct = (x: number) => `${Math.round(x * 100)} %`

function historyText(h: HistoryLine): string {
  const owners = h.owners.length ? h.owners.map((o) => `${o.name} ${pct(o.share)}`).join(', ') : 'no owner'
  return `history: last change ${h.last_change?.slice(0, 10) ?? 'never'}, ${h.revisions} revision${h.revisions === 1 ? '' : 's'}, owners ${owners}, risk ${h.risk}`
}

/** The text answer of `context`, for the terminal and the MCP tool alike. */
export function contextLines(r: ContextResult): string[] {
  const t = r.target
  const more = (key: string) => (r.truncated[key] ? [`  … ${r.truncated[key]} more`] : [])
  const calls = (title: string, list: CallRef[], key: string) =>
    list.length ? [`${title} (${list.length}):`, ...list.map((c) => `  ${who(c)} line${c.lines.length > 1 ? 's' : ''} ${c.lines.slice(0, 8).join(', ')}${c.lines.length > 8 ? ', …' : ''} · ${c.reason} ${c.confidence}`), ...more(key)] : [`${title}: none`]
  return [
    t.kind === 'symbol' ? `${t.qualified_name} · ${t.symbol_kind} · ${t.path}:${t.start_line}-${t.end_line}${r.definition?.exported ? ' · exported' : ''}` : `${t.path} (file)`,
    ...(r.definition?.signature ? [`  ${r.definition.signature}`] : []),
    historyText(r.history),
    ...calls('callers', r.callers, 'callers'),
    ...calls('callees', r.callees, 'callees'),
    ...(r.extends.length ? [`extends: ${r.extends.map(who).join(', ')}`] : []),
    ...(r.implements.length ? [`implements: ${r.implements.map(who).join(', ')}`] : []),
    ...(r.subtypes.length ? [`subtypes: ${r.subtypes.map((s) => `${who(s)} ${s.relation.toLowerCase()}`).join(', ')}`] : []),
    `imports: ${r.imports.length ? r.imports.join(', ') : 'none'}`,
    `imported by: ${r.importers.length ? r.importers.join(', ') : 'none'}`,
    ...(r.community ? [`community: ${r.community.id} ${r.community.label}`] : []),
    ...flowLines(r.flows, 'flows', more('flows')),
  ]
}

/** Flows, one a line: the label, the step the symbol is at, the flow's size. */
function flowLines(flows: FlowRef[], title: string, more: string[] = []): string[] {
  return flows.length ? [`${title} (${flows.length}):`, ...flows.map((f) => `  ${f.label} · ${f.kind}, step ${f.step} of ${f.steps}`), ...more] : [`${title}: none`]
}

/** The text answer of `impact`. */
export function impactLines(r: ImpactResult): string[] {
  const t = r.target
  const out = [
    `${r.summary.level} impact of ${t.kind === 'symbol' ? `${t.qualified_name} (${t.path})` : t.path} · ${r.direction}, depth ${r.depth}, confidence ≥ ${r.min_confidence}`,
    ...r.summary.reasons.map((x) => `  - ${x}`),
    historyText(r.history),
  ]
  for (const d of r.by_depth) {
    out.push(`depth ${d.depth}: ${d.label} (${d.total})`)
    for (const s of d.symbols) out.push(`  ${s.direction === 'up' ? '↑' : '↓'} ${who(s)} · ${s.reason} ${s.confidence}`)
    if (d.total > d.symbols.length) out.push(`  … ${d.total - d.symbols.length} more`)
  }
  if (r.files.length) out.push(`files by imports: ${r.files.map((f) => `${f.direction === 'up' ? '↑' : '↓'}${f.depth} ${f.path}`).join(', ')}`)
  out.push(`tests reaching it: ${r.tests.length ? r.tests.join(', ') : 'none'}`)
  if (r.communities.length) out.push(`communities: ${r.communities.map((c) => `${c.id} ${c.label} (${c.symbols})`).join('; ')}`)
  out.push(...flowLines(r.flows, 'flows reached'))
  out.push(r.hidden_coupling.length ? 'hidden coupling (changes with it, no call or import path):' : 'hidden coupling: none')
  for (const h of r.hidden_coupling) out.push(`  ${h.path} · ${h.shared} shared revisions, ${pct(h.confidence)} of its changes`)
  return out
}
