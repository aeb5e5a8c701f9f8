import { UserError, checkLimit } from '../errors.js'
import { blameOwners, mapHistory, type RangeChange } from '../history/hunk-mapper.js'
import { rangeHunks } from '../history/patch.js'
import type { PathIndex } from '../history/path-index.js'
import type { IndexedFile } from './index-layout.js'
import { IndexReader, withReader } from './index-reader.js'
import { withTrajectory } from './trajectory.js'
import { RANGE_FORMS, findSymbol, resolvePath, splitRange } from './resolve.js'
import type { EvidenceResult, EvidenceTarget, FilePatch } from './types.js'

export interface EvidenceOptions {
  repo?: string
  /** A file, optionally with `:START[-END]` when lineStart/lineEnd are not given. */
  path?: string
  lineStart?: number
  lineEnd?: number
  /** `Class.method`, a suffix of a qualified name, or `path:qualified.name` to disambiguate. */
  symbol?: string
  /** Maximum items; 0 = no cap. Default 50. */
  limit?: number
  /** Give each commit its hunks for the range (as `git log -L` shows them), from the stored diffs. */
  patch?: boolean
  reader?: IndexReader
}

/**
 * The path argument names a symbol (`PATH:NAME`, `Class.method`, a name), as `why` and `related`
 * take one, when it is no range, file or directory and a symbol has that name; otherwise it is
 * read as a path, whose error (a bad range, a file that is not indexed) stands.
 */
function symbolNamed(reader: IndexReader, text: string): string | undefined {
  try {
    if (splitRange(reader, text).start !== undefined) return undefined
  } catch (error) {
    if (!(error instanceof UserError && error.code === 'bad_range')) throw error
  }
  if (resolvePath(reader, text)) return undefined
  try {
    findSymbol(reader, text)
    return text
  } catch (error) {
    // an ambiguous name lists its symbols; no symbol of that name leaves the path's own error, said
    // of both readings when the path is an indexed file (`src/a.ts:nope`)
    if (!(error instanceof UserError && error.code === 'unknown_symbol')) throw error
    const colon = text.lastIndexOf(':')
    const file = colon > 0 ? reader.file(reader.relativePath(text.slice(0, colon))) : undefined
    if (!file) return undefined
    const name = text.slice(colon + 1)
    const suggested = error.remedy.startsWith('did you mean') ? `; ${error.remedy}` : ''
    throw new UserError(`${file.path} has no symbol ${name}, and ":${name}" is no line range`, `use ${RANGE_FORMS}, or PATH:NAME with a symbol of ${file.path}${suggested}`, 'bad_range')
  }
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
    let clamped: EvidenceResult['clamped'] = null
    const symbolName = options.symbol ?? (options.path && options.lineStart === undefined && options.lineEnd === undefined ? symbolNamed(reader, options.path) : undefined)
    if (symbolName) {
      const sym = findSymbol(reader, symbolName)
      ;({ path: rel, start_line: start, end_line: end } = sym)
      file = reader.requireFile(rel)
      symbol = { qualified_name: sym.qualified_name, kind: sym.kind }
    } else {
      if (!options.path) throw new UserError('nothing to explain', 'pass PATH[:START[-END]] or --symbol NAME', 'bad_option')
      const given = options.lineStart === undefined && options.lineEnd === undefined ? splitRange(reader, options.path) : { path: options.path, start: options.lineStart, end: options.lineEnd }
      const found = resolvePath(reader, given.path)
      if (found?.kind === 'directory') {
        throw new UserError(
          `${found.path.replace(/\/$/, '') || '.'} is a directory`,
          'evidence takes a file (optionally :START-END) or --symbol (MCP: qualified_name); for a directory use `gitwhy history DIR` (MCP: area_history)',
          'is_directory',
        )
      }
      rel = reader.relativePath(given.path)
      file = reader.requireFile(rel)
      if (file.lines === 0) throw new UserError(`${rel} is empty at the indexed HEAD`, 'pick a file with content', 'bad_range')
      start = given.start ?? 1
      end = given.end ?? file.lines
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start) {
        throw new UserError(`invalid line range ${start}-${end}`, `use ${RANGE_FORMS}; ${rel} has ${file.lines} lines`, 'bad_range')
      }
      // as git blame -L: a start past the end is refused, an end past it is cut to the last line
      if (start > file.lines) throw new UserError(`${rel} has only ${file.lines} lines; the range ${start}-${end} starts past the end`, `use a range within 1-${file.lines}`, 'bad_range')
      if (end > file.lines) {
        clamped = { requested_line_end: end, note: `${rel} has ${file.lines} lines: the range ${start}-${end} was cut to ${start}-${file.lines}, as \`git blame -L\` does` }
        end = file.lines
      }
      const sym = file.symbols.find((s) => s.startLine === start && s.endLine === end)
      if (sym) symbol = { qualified_name: sym.qualifiedName, kind: sym.kind }
    }
    const target: EvidenceTarget = { path: rel, line_start: start, line_end: end, symbol }

    // The same walk analyze does for every symbol, here for one range of one file's lineage.
    const patch = options.patch ?? false
    const { blame, changed, undecidedLines, truncated, patches } = reader.memo(`evidence\0${rel}\0${start}\0${end}\0${patch}`, () => walkRange(reader, rel, file.lines, start, end, patch))
    const entries = [
      ...[...blame].map(([sha, lines]) => ({ sha, source: 'blame' as const, lines })),
      ...changed.filter((sha) => !blame.has(sha)).map((sha) => ({ sha, source: 'history' as const })),
    ]
    const items = reader.evidenceItems(entries)
    if (patches) for (const item of items) item.patch = patches.get(item.commit.sha) ?? []
    const cut = reader.meta.shallow ? 'shallow clone: older history is not available locally' : 'history cut by --max-commits'
    // Lines whose origin is beyond the cut, or a line history that reached it: say so, never guess.
    const undecided =
      undecidedLines > 0
        ? { lines: undecidedLines, reason: cut }
        : truncated
          ? { lines: 0, reason: `${cut}: every line is decided, but older changes to the range are not in the index` }
          : null
    return withTrajectory(reader, target, { target, index: await reader.indexInfo(), evidence: limit === 0 ? items : items.slice(0, limit), total: items.length, undecided, clamped })
  })
}

/** Blame and line history of one range: (sha → lines owned), earlier commits, lines beyond the cut. */
function walkRange(reader: IndexReader, rel: string, lines: number, start: number, end: number, patch: boolean) {
  const index = reader.pathIndex()
  const graph = index.graphFor(rel)
  const result = mapHistory(graph, 0, [{ path: rel, lines, ranges: [{ start, end }] }], { hunks: patch, ignored: reader.ignoredRevs(graph.shas) })
  const { owners, undecided: undecidedLines } = blameOwners(result.blame[0], start - 1, end, graph.shas.length)
  const blame = new Map([...owners].map(([c, lines]) => [graph.shas[c], lines]))
  const changed = result.rangeHistory[0][0].map((ch) => graph.shas[ch.commit])
  return { blame, changed, undecidedLines, truncated: result.rangeTruncated[0][0], patches: patch ? rangePatches(index, graph.shas, result.rangeHistory[0][0]) : null }
}

/** Each change's hunks for the range, by SHA, cut from the stored diff text of its paths. */
function rangePatches(index: PathIndex, shas: string[], changes: RangeChange[]): Map<string, FilePatch[]> {
  const texts = new Map<string, string>()
  const paths = new Set(changes.flatMap((ch) => (ch.parts ?? []).map((p) => p.path)))
  for (const [age, p, text] of index.patches(paths)) texts.set(`${index.topo(age)}\0${p}`, text)
  const out = new Map<string, FilePatch[]>()
  for (const ch of changes) {
    const files: FilePatch[] = []
    for (const part of ch.parts ?? []) {
      const text = texts.get(`${ch.commit}\0${part.path}`)
      if (text !== undefined) files.push({ path: part.path, hunks: rangeHunks(text, part) })
    }
    out.set(shas[ch.commit], files)
  }
  return out
}
