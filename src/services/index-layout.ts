import type { ExtractedSymbol } from '../parse/types.js'

/** The files of one index directory (`.gitwhy/index-*`), and what the per-file cache holds. */

/** What the index keeps per file at HEAD: enough to skip re-parsing unchanged blobs next time. */
export interface IndexedFile {
  path: string
  blob: string
  lines: number
  language: string | null
  symbols: ExtractedSymbol[]
}

export const FILES_JSON = 'files.json'
export const GRAPH_DB = 'graph.kuzu'
export const COMMITS_JSON = 'commits.json'
/** Every file a complete index directory holds (the per-path history index has three). */
export const INDEX_FILES = [GRAPH_DB, FILES_JSON, COMMITS_JSON, 'dag.json', 'diffs.bin', 'diffs-index.json'] as const

/** Stable symbol ids: `path#qualified.name`, with `~2`, `~3` for same-named overloads. */
export function symbolIds(file: IndexedFile): string[] {
  const seen = new Map<string, number>()
  return file.symbols.map((s) => {
    const base = `${file.path}#${s.qualifiedName}`
    const n = (seen.get(base) ?? 0) + 1
    seen.set(base, n)
    return n === 1 ? base : `${base}~${n}`
  })
}

