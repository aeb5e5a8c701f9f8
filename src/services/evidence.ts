import { UserError, checkLimit, nearest } from '../errors.js'
import { blameOwners, mapHistory } from '../history/hunk-mapper.js'
import { symbolIds, type IndexedFile } from './index-layout.js'
import { IndexReader, withReader } from './index-reader.js'
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
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 50
    checkLimit(limit)
    let rel: string
    let file: IndexedFile
    let start: number
    let end: number
    let symbol: EvidenceTarget['symbol'] = null
    if (options.symbol) {
      const sym = findSymbol(reader, options.symbol)
      ;({ path: rel, start_line: start, end_line: end } = sym)
      file = reader.requireFile(rel)
      symbol = { qualified_name: sym.qualified_name, kind: sym.kind }
    } else {
      if (!options.path) throw new UserError('nothing to explain', 'pass PATH[:START[-END]] or --symbol NAME', 'bad_option')
      rel = reader.relativePath(options.path)
      file = reader.requireFile(rel)
      if (file.lines === 0) throw new UserError(`${rel} is empty at the indexed HEAD`, 'pick a file with content', 'bad_range')
      start = options.lineStart ?? 1
      end = options.lineEnd ?? file.lines
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start) {
        throw new UserError(`invalid line range ${start}-${end}`, `use START-END with 1 ≤ START ≤ END ≤ ${file.lines}`, 'bad_range')
      }
      if (end > file.lines) throw new UserError(`${rel} has ${file.lines} lines; the range ${start}-${end} goes past the end`, `use a range within 1-${file.lines}`, 'bad_range')
      const sym = file.symbols.find((s) => s.startLine === start && s.endLine === end)
      if (sym) symbol = { qualified_name: sym.qualifiedName, kind: sym.kind }
    }
    const target: EvidenceTarget = { path: rel, line_start: start, line_end: end, symbol }

    // The same walk analyze does for every symbol, here for one range of one file's lineage.
    const { blame, changed, undecidedLines, truncated } = reader.memo(`evidence\0${rel}\0${start}\0${end}`, () => walkRange(reader, rel, file.lines, start, end))
    const entries = [
      ...[...blame].map(([sha, lines]) => ({ sha, source: 'blame' as const, lines })),
      ...changed.filter((sha) => !blame.has(sha)).map((sha) => ({ sha, source: 'history' as const })),
    ]
    const items = reader.evidenceItems(entries)
    const cut = reader.meta.shallow ? 'shallow clone: older history is not available locally' : 'history cut by --max-commits'
    // Lines whose origin is beyond the cut, or a line history that reached it: say so, never guess.
    const undecided =
      undecidedLines > 0
        ? { lines: undecidedLines, reason: cut }
        : truncated
          ? { lines: 0, reason: `${cut}: every line is decided, but older changes to the range are not in the index` }
          : null
    return { target, index: await reader.indexInfo(), evidence: limit === 0 ? items : items.slice(0, limit), total: items.length, undecided }
  })
}

/** Blame and line history of one range: (sha → lines owned), earlier commits, lines beyond the cut. */
function walkRange(reader: IndexReader, rel: string, lines: number, start: number, end: number) {
  const graph = reader.pathIndex().graphFor(rel)
  const result = mapHistory(graph, 0, [{ path: rel, lines, ranges: [{ start, end }] }])
  const { owners, undecided: undecidedLines } = blameOwners(result.blame[0], start - 1, end, graph.shas.length)
  const blame = new Map([...owners].map(([c, lines]) => [graph.shas[c], lines]))
  const changed = result.rangeHistory[0][0].map((ch) => graph.shas[ch.commit])
  return { blame, changed, undecidedLines, truncated: result.rangeTruncated[0][0] }
}

/** Resolve a symbol name; several matches or none give a UserError listing the choices. */
export function findSymbol(reader: IndexReader, query: string): SymbolHit {
  let pathFilter: string | null = null
  let name = query
  const colon = query.lastIndexOf(':')
  if (colon > 0) {
    pathFilter = reader.relativePath(query.slice(0, colon))
    name = query.slice(colon + 1)
  }
  const all: SymbolHit[] = []
  // PATH:NAME reads one file of the per-file cache; a bare name searches them all
  const scope = pathFilter !== null ? [reader.file(pathFilter)].filter((f): f is IndexedFile => f !== undefined) : reader.files()
  for (const f of scope) {
    const ids = symbolIds(f)
    f.symbols.forEach((s, i) => all.push({ id: ids[i], qualified_name: s.qualifiedName, kind: s.kind, path: f.path, start_line: s.startLine, end_line: s.endLine }))
  }
  let hits = all.filter((h) => h.qualified_name === name || h.id === name)
  if (hits.length === 0) hits = all.filter((h) => h.qualified_name.endsWith(`.${name}`))
  if (hits.length === 1) return hits[0]
  if (hits.length === 0) {
    const suggestions = nearest(name, new Set(all.map((s) => s.qualified_name)))
    throw new UserError(
      `no symbol named ${name} in the index${pathFilter !== null ? ` (in ${pathFilter})` : ''}`,
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
