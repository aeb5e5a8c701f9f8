import { ShardReader, updateShards, writeShards } from '../history/shards.js'
import { listedFiles } from './index-integrity.js'
import type { ExtractedBinding, ExtractedEntry, ExtractedExport, ExtractedImport, ExtractedReference, ExtractedSymbol } from '../parse/types.js'

/** The files of one index directory (`.gitwhy/index-*`), and what the per-file cache holds. */

/** What the index keeps per file at HEAD: enough to skip re-parsing unchanged blobs next time. */
export interface IndexedFile {
  path: string
  blob: string
  lines: number
  language: string | null
  symbols: ExtractedSymbol[]
  /**
   * Heritage (extends, implements) the tags query found (src/parse/extractor.ts); in a file cache
   * written before 2026-11-28 the calls too.
   */
  references?: ExtractedReference[]
  /**
   * The calls the tags query found. Kept apart from the rest of the file cache (FILE_CALLS) and,
   * for a file read from it, read when first asked: an update resolves the calls of the files that
   * changed only (60 % of git/git's 12 MB file cache is calls).
   */
  calls?: ExtractedReference[]
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
/** The per-file cache's calls, sharded as FILES is: `[name, receiver, line, from]` per call. */
export const FILE_CALLS = 'file-calls'
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


/** A call as FILE_CALLS keeps it. */
type StoredCall = [name: string, receiver: string | null, line: number, from: number]

/** A file's entry in FILES (without its calls) and in FILE_CALLS (its calls; null when it has none). */
function storedParts(f: IndexedFile): { file: IndexedFile; calls: StoredCall[] | null } {
  const { calls, ...file } = f
  return { file, calls: calls?.length ? calls.map((c) => [c.name, c.receiver, c.line, c.from]) : null }
}

export function writeIndexedFiles(dir: string, files: IndexedFile[]): void {
  const parts = files.map((f) => [f.path, storedParts(f)] as const)
  writeShards(dir, FILES, parts.map(([p, { file }]) => [p, file] as [string, IndexedFile]))
  writeShards(dir, FILE_CALLS, parts.filter(([, { calls }]) => calls).map(([p, { calls }]) => [p, calls!] as [string, StoredCall[]]))
}

/** The previous index's files with the changed ones replaced and the deleted ones dropped. */
export function updateIndexedFiles(previousDir: string, dir: string, changed: IndexedFile[], removed: string[]): void {
  const parts = changed.map((f) => [f.path, storedParts(f)] as const)
  updateShards(previousDir, dir, FILES, parts.map(([p, { file }]) => [p, file] as [string, IndexedFile]), removed)
  // a changed file that has no calls now: its old ones go
  const without = parts.filter(([, { calls }]) => !calls).map(([p]) => p)
  updateShards(previousDir, dir, FILE_CALLS, parts.filter(([, { calls }]) => calls).map(([p, { calls }]) => [p, calls!] as [string, StoredCall[]]), [...removed, ...without])
}

export function indexedFiles(dir: string): ShardReader<IndexedFile> {
  return new ShardReader<IndexedFile>(dir, FILES)
}

/**
 * Every file of an index's cache, each one's `calls` read from FILE_CALLS (the shard that holds
 * it, checked against the manifest) when first asked. A cache written before FILE_CALLS existed
 * has the calls among `references`, and none here.
 */
export function loadIndexedFiles(dir: string): IndexedFile[] {
  const files = indexedFiles(dir).values()
  if (listedFiles(dir, FILE_CALLS).length === 0) return files
  const calls = new ShardReader<StoredCall[]>(dir, FILE_CALLS)
  const settle = (f: IndexedFile, value: ExtractedReference[] | undefined) => Object.defineProperty(f, 'calls', { value, configurable: true, enumerable: true, writable: true })
  for (const f of files) {
    if (Object.hasOwn(f, 'calls')) continue
    Object.defineProperty(f, 'calls', {
      configurable: true,
      enumerable: true,
      get() {
        const value = calls.get(f.path)?.map(([name, receiver, line, from]): ExtractedReference => ({ kind: 'call', name, receiver, line, from }))
        settle(f, value)
        return value
      },
      set(value: ExtractedReference[] | undefined) {
        settle(f, value)
      },
    })
  }
  return files
}
