import { UserError, nearest } from '../errors.js'
import { mapHistory } from '../history/hunk-mapper.js'
import { IndexReader, QUERIES } from './index-reader.js'
import type { EvidenceResult, EvidenceTarget } from './types.js'

export interface EvidenceOptions {
  repo?: string
  path?: string
  lineStart?: number
  lineEnd?: number
  /** `Class.method`, a suffix of a qualified name, or `path:qualified.name` to disambiguate. */
  symbol?: string
  /** Maximum items; 0 = no cap. Default 50. */
  limit?: number
  reader?: IndexReader
}

interface SymbolHit {
  id: string
  qualified_name: string
  kind: string
  path: string
  start_line: number
  end_line: number
}

/**
 * Why do these lines exist: the commits that own them at the indexed HEAD (blame) and the ones
 * that changed them before (line history), with their PRs and issues.
 */
export async function evidence(options: EvidenceOptions): Promise<EvidenceResult> {
  const reader = options.reader ?? (await IndexReader.open(options.repo))
  try {
    const limit = options.limit ?? 50
    if (!Number.isInteger(limit) || limit < 0) throw new UserError(`--limit must be a whole number ≥ 0, got ${limit}`, 'pass --limit 0 for no cap', 'bad_option')
    let target: EvidenceTarget
    let blame: Map<string, number>
    let changed: string[]
    let undecidedLines = 0

    if (options.symbol) {
      const sym = await findSymbol(reader, options.symbol)
      target = { path: sym.path, line_start: sym.start_line, line_end: sym.end_line, symbol: { qualified_name: sym.qualified_name, kind: sym.kind } }
      const g = await reader.graph()
      const blameRows = await g.query<{ sha: string; lines: number }>(QUERIES.symbolBlame, { id: sym.id })
      blame = new Map(blameRows.map((r) => [r.sha, r.lines]))
      changed = (await g.query<{ sha: string }>(QUERIES.symbolChanges, { id: sym.id })).map((r) => r.sha)
      const details = await reader.commitDetails([...blame.keys()])
      for (const [sha, n] of blame) if (details.get(sha)?.boundary) undecidedLines += n
    } else {
      if (!options.path) throw new UserError('nothing to explain', 'pass PATH[:START[-END]] or --symbol NAME', 'bad_option')
      const rel = reader.relativePath(options.path)
      const file = reader.requireFile(rel)
      const start = options.lineStart ?? 1
      const end = options.lineEnd ?? Math.max(file.lines, 1)
      if (file.lines === 0) throw new UserError(`${rel} is empty at the indexed HEAD`, 'pick a file with content', 'bad_range')
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start) {
        throw new UserError(`invalid line range ${start}-${end}`, `use START-END with 1 ≤ START ≤ END ≤ ${file.lines}`, 'bad_range')
      }
      if (end > file.lines) throw new UserError(`${rel} has ${file.lines} lines; the range ${start}-${end} goes past the end`, `use a range within 1-${file.lines}`, 'bad_range')
      const sym = file.symbols.find((s) => s.startLine === start && s.endLine === end) ?? null
      target = { path: rel, line_start: start, line_end: end, symbol: sym ? { qualified_name: sym.qualifiedName, kind: sym.kind } : null }
      const graph = reader.pathIndex().graphFor(rel)
      const result = mapHistory(graph, 0, [{ path: rel, lines: file.lines, ranges: [{ start, end }] }])
      blame = new Map()
      const lines = result.blame[0]
      for (let l = start - 1; l < end; l++) {
        const v = lines[l]
        const c = v < 0 ? ~v : v
        if (v < 0 || graph.boundary[c]) undecidedLines++
        if (c < 0 || c >= graph.shas.length) continue
        blame.set(graph.shas[c], (blame.get(graph.shas[c]) ?? 0) + 1)
      }
      changed = result.rangeHistory[0][0].map((ch) => graph.shas[ch.commit])
    }

    const entries = [
      ...[...blame].map(([sha, lines]) => ({ sha, source: 'blame' as const, lines })),
      ...changed.filter((sha) => !blame.has(sha)).map((sha) => ({ sha, source: 'history' as const })),
    ]
    const items = await reader.evidenceItems(entries)
    return {
      target,
      index: await reader.indexInfo(),
      evidence: limit === 0 ? items : items.slice(0, limit),
      total: items.length,
      undecided: undecidedLines > 0 ? { lines: undecidedLines, reason: reader.meta.shallow ? 'shallow clone: older history is not available locally' : 'history cut by --max-commits' } : null,
    }
  } finally {
    if (!options.reader) await reader.close()
  }
}

/** Resolve a symbol name; several matches or none give a UserError listing the choices. */
export async function findSymbol(reader: IndexReader, query: string): Promise<SymbolHit> {
  const g = await reader.graph()
  let pathFilter: string | null = null
  let name = query
  const colon = query.lastIndexOf(':')
  if (colon > 0) {
    pathFilter = reader.relativePath(query.slice(0, colon))
    name = query.slice(colon + 1)
  }
  let hits = await g.query<SymbolHit>(QUERIES.symbolsByName, { name })
  if (hits.length === 0) {
    const last = name.split('.').pop() ?? name
    hits = await g.query<SymbolHit>(QUERIES.symbolsBySuffix, { name, last, suffix: `.${name}` })
  }
  if (pathFilter !== null) hits = hits.filter((h) => h.path === pathFilter)
  if (hits.length === 1) return hits[0]
  if (hits.length === 0) {
    const all = await g.query<{ qualified_name: string; path: string }>(QUERIES.allSymbolNames)
    const suggestions = nearest(name, new Set(all.map((s) => s.qualified_name)))
    throw new UserError(
      `no symbol named ${query} in the index`,
      suggestions.length ? `did you mean: ${suggestions.join(', ')}?` : 'run `gitwhy cypher "MATCH (s:Symbol) RETURN s.qualified_name LIMIT 20"` to see symbol names',
      'unknown_symbol',
    )
  }
  hits.sort((a, b) => a.path.localeCompare(b.path) || a.start_line - b.start_line)
  const choices = hits.slice(0, 10).map((h) => `${h.path}:${h.qualified_name} (${h.kind}, lines ${h.start_line}-${h.end_line})`)
  throw new UserError(
    `${query} matches ${hits.length} symbols: ${choices.join('; ')}${hits.length > 10 ? '; …' : ''}`,
    `pick one with --symbol PATH:NAME, e.g. --symbol ${hits[0].path}:${hits[0].qualified_name}`,
    'ambiguous_symbol',
  )
}
