import { loadOwnership, loadStoredActivity } from '../analytics/cache.js'
import { NO_ACTIVITY, type ActivityRow } from '../graph/types.js'
import { authorNames } from './analytics.js'
import { symbolIds } from './index-layout.js'
import type { IndexReader } from './index-reader.js'
import { UserError } from '../errors.js'
import { resolveTarget, splitRange } from './resolve.js'
import { risksOfFiles } from './risk.js'

/**
 * What the explorer (`gitwhy explore`, src/tui/) lists that no single command answers: every
 * indexed file with its heat, revisions and main owner, and a file's symbols nested as in the
 * code with their risk and last change. Read from the files analyze stored beside the graph (the
 * activity columns, the per-file ownership, the per-file cache), so the first screen needs no
 * database; the risks walk one file's blame, as `risk` does.
 */

export interface ExploreFile {
  path: string
  lines: number
  language: string | null
  symbols: number
  revisions: number
  recent_revisions: number
  /** Share of the ranked files with a lower hotspot score (0..1). */
  heat: number
  last_change: string | null
  /** The largest owner of its lines at HEAD (bots own none), null when nobody owns a line. */
  owner: { name: string; email: string; share: number } | null
}

export interface ExploreSymbol {
  id: string
  name: string
  qualified_name: string
  kind: string
  start_line: number
  end_line: number
  /** Nesting depth (0: top level), from the enclosing definitions. */
  depth: number
  exported: boolean
  signature: string
}

export interface ExploreSymbolRisk {
  level: 'LOW' | 'MEDIUM' | 'HIGH'
  score: number
  revisions: number
  last_change: string | null
}

const activity = (reader: IndexReader, part: 'files' | 'symbols'): Record<string, ActivityRow> => reader.memo(`explore\0activity\0${part}`, () => loadStoredActivity(reader.dir, part))
const row = (rows: Record<string, ActivityRow>, key: string): ActivityRow => (Object.hasOwn(rows, key) ? rows[key] : NO_ACTIVITY)

/** Every indexed file at HEAD, sorted by path, with its activity and main owner. */
export function exploreFiles(reader: IndexReader): ExploreFile[] {
  return reader.memo('explore\0files', () => {
    const rows = activity(reader, 'files')
    const ownership = loadOwnership(reader.dir)
    const files = reader.files()
    const top = new Map<string, { email: string; share: number }>()
    for (const f of files) {
      const owners = Object.hasOwn(ownership, f.path) ? ownership[f.path] : []
      const total = owners.reduce((n, [, lines]) => n + lines, 0)
      let best: [string, number] | null = null
      for (const o of owners) if (!best || o[1] > best[1] || (o[1] === best[1] && o[0] < best[0])) best = o
      if (best && total > 0) top.set(f.path, { email: best[0], share: best[1] / total })
    }
    const names = authorNames(reader, new Set([...top.values()].map((o) => o.email)))
    return files
      .map((f): ExploreFile => {
        const a = row(rows, f.path)
        const o = top.get(f.path)
        return {
          path: f.path,
          lines: f.lines,
          language: f.language,
          symbols: f.symbols.length,
          revisions: a.revisions,
          recent_revisions: a.recent_revisions,
          heat: a.hotspot_percentile,
          last_change: a.last_change,
          owner: o ? { name: names.get(o.email) ?? o.email, email: o.email, share: o.share } : null,
        }
      })
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  })
}

/** The symbols of one indexed file in source order, each with its nesting depth (empty for an unknown file). */
export function fileSymbols(reader: IndexReader, path: string): ExploreSymbol[] {
  const f = reader.file(path)
  if (!f) return []
  const ids = symbolIds(f)
  const depth: number[] = []
  return f.symbols.map((s, i) => {
    depth[i] = s.parentIndex === null ? 0 : (depth[s.parentIndex] ?? 0) + 1
    return { id: ids[i], name: s.name, qualified_name: s.qualifiedName, kind: s.kind, start_line: s.startLine, end_line: s.endLine, depth: depth[i], exported: s.exported, signature: s.signature }
  })
}

/** Risk level and last change of every symbol of a file, by symbol id (one walk of the file's blame). */
export async function symbolRisks(reader: IndexReader, path: string): Promise<Map<string, ExploreSymbolRisk>> {
  const { symbols } = await risksOfFiles(reader, [path])
  const rows = activity(reader, 'symbols')
  const out = new Map<string, ExploreSymbolRisk>()
  for (const [id, r] of symbols) {
    const a = row(rows, id)
    out.set(id, { level: r.level, score: r.score, revisions: a.revisions, last_change: a.last_change })
  }
  return out
}

/** One symbol of the index, for the explorer's name search. */
export interface SymbolEntry {
  id: string
  path: string
  qualified_name: string
  kind: string
  start_line: number
}

/** Every symbol of every indexed file (the per-file cache), in path order. */
export function symbolIndex(reader: IndexReader): SymbolEntry[] {
  return reader.memo('explore\0symbol-index', () =>
    exploreFiles(reader).flatMap((f) => fileSymbols(reader, f.path).map((s) => ({ id: s.id, path: f.path, qualified_name: s.qualified_name, kind: s.kind, start_line: s.start_line }))),
  )
}

/**
 * Where `gitwhy explore TARGET` opens: `PATH`, `PATH:LINE` (the innermost symbol around the line)
 * or a symbol, as a file and the id of the symbol to select (null: the whole file).
 */
export function exploreStart(reader: IndexReader, input: string): { path: string; symbol: string | null } {
  const { path, start } = splitRange(reader, input)
  const t = resolveTarget(reader, path)
  if (t.kind === 'directory') throw new UserError(`${t.path.replace(/\/$/, '') || '.'} is a directory`, 'pass a file (optionally PATH:LINE) or a symbol', 'is_directory')
  if (t.kind === 'symbol') return { path: t.path, symbol: t.id }
  if (start === undefined) return { path: t.path, symbol: null }
  const file = reader.requireFile(t.path)
  if (start > file.lines) throw new UserError(`${t.path} has only ${file.lines} lines; line ${start} is past the end`, `pass a line within 1-${file.lines}`, 'bad_range')
  let best = -1
  file.symbols.forEach((s, i) => {
    const b = file.symbols[best]
    if (s.startLine <= start && s.endLine >= start && (!b || s.startLine > b.startLine || (s.startLine === b.startLine && s.endLine < b.endLine))) best = i
  })
  return { path: t.path, symbol: best < 0 ? null : symbolIds(file)[best] }
}
