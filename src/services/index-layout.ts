import { ShardReader, updateShards, writeShards } from '../history/shards.js'
import type { ExtractedBinding, ExtractedEntry, ExtractedExport, ExtractedImport, ExtractedReference, ExtractedSymbol } from '../parse/types.js'

/** The files of one index directory (`.gitwhy/index-*`), and what the per-file cache holds. */

/** What the index keeps per file at HEAD: enough to skip re-parsing unchanged blobs next time. */
export interface IndexedFile {
  path: string
  blob: string
  lines: number
  language: string | null
  symbols: ExtractedSymbol[]
  /** Calls and heritage the tags query found (src/parse/extractor.ts). */
  references?: ExtractedReference[]
  /** Names whose type a declaration says (receivers of calls), from the tags query's @binding.* captures. */
  bindings?: ExtractedBinding[]
  /** Import statements the language's imports query found (src/codegraph/modules.ts resolves them). */
  imports?: ExtractedImport[]
  /** Local names exported under another name. */
  exports?: ExtractedExport[]
  /** Doc comments of the symbols, by index ('' for none); absent when none has one. */
  docs?: string[]
  /** Entry points (routes, commands, mains) the language's entries query found. */
  entries?: ExtractedEntry[]
  /** The text of a file module resolution reads (tsconfigs, package.json, go.mod: isModuleConfigFile). */
  config?: string
}

/** The per-file cache, sharded by path (see history/shards.ts). */
export const FILES = 'files'
export const GRAPH_DB = 'graph.kuzu'
/** The changesets co-change counted, of files and of symbols (coChangeChangesets): support's denominator. */
export const COCHANGE_FILE = 'cochange.json'
/** The ignore passes of the commits blame looks through (history/ignore-revs.ts). */
export const IGNORED_REVS_FILE = 'ignored-revs.json'
/** What the index took from the forge cache (src/forge/apply.ts ForgeApplied). */
export const FORGE_FILE = 'forge.json'
/** Every file a complete index directory holds (the per-path history index has three). */
export const INDEX_FILES = [GRAPH_DB, FILES, 'commits', 'dag.json', 'diffs.bin', 'diffs-index', 'patches.bin', 'patches-index', 'analytics-out.json', 'identities.json', IGNORED_REVS_FILE, FORGE_FILE] as const

/** Stable symbol ids: `path#qualified.name`, with `~2`, `~3` for same-named overloads. */
export function symbolIds(file: Pick<IndexedFile, 'path' | 'symbols'>): string[] {
  // an update asks again for every file's ids in several phases (~50,000 strings on prettier): the
  // same file (its path and symbol list unchanged) gets the same array back; callers do not change it
  const known = idsOf.get(file)
  if (known && known.path === file.path && known.symbols === file.symbols) return known.ids
  const seen = new Map<string, number>()
  const ids = file.symbols.map((s) => {
    const base = `${file.path}#${s.qualifiedName}`
    const n = (seen.get(base) ?? 0) + 1
    seen.set(base, n)
    return n === 1 ? base : `${base}~${n}`
  })
  idsOf.set(file, { path: file.path, symbols: file.symbols, ids })
  return ids
}

const idsOf = new WeakMap<object, { path: string; symbols: IndexedFile['symbols']; ids: string[] }>()


export function writeIndexedFiles(dir: string, files: IndexedFile[]): void {
  writeShards(dir, FILES, files.map((f) => [f.path, f] as [string, IndexedFile]))
}

/** The previous index's files with the changed ones replaced and the deleted ones dropped. */
export function updateIndexedFiles(previousDir: string, dir: string, changed: IndexedFile[], removed: string[]): void {
  updateShards(previousDir, dir, FILES, changed.map((f) => [f.path, f] as [string, IndexedFile]), removed)
}

export function indexedFiles(dir: string): ShardReader<IndexedFile> {
  return new ShardReader<IndexedFile>(dir, FILES)
}
