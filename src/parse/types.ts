/** The contract between tree-sitter extraction and the rest of gitwhy. */

export type SymbolKind =
  | 'function'
  | 'method'
  | 'class'
  | 'interface'
  | 'type'
  | 'enum'
  | 'module'
  | 'struct'
  | 'trait'

export interface ExtractedSymbol {
  name: string
  /** Dotted path of enclosing definitions within the file: `Class.method`, `ns.Inner.fn`. */
  qualifiedName: string
  kind: SymbolKind
  /** 1-based, inclusive. */
  startLine: number
  endLine: number
  /** The declaration head on one line (no body), at most 200 characters. */
  signature: string
  exported: boolean
  /** Index into the same array of the innermost enclosing symbol, or null at top level. */
  parentIndex: number | null
}

export type SkipReason = 'binary' | 'generated' | 'vendored' | 'minified' | 'too_large'

export interface SymbolExtractor {
  /** The language id for a path (by extension / file name), or null when no grammar handles it. */
  languageOf(path: string): string | null
  /** Symbols in the file, in source order. Never throws on bad input: a file it cannot parse gives []. */
  extract(path: string, source: string): ExtractedSymbol[]
  close(): void
}
