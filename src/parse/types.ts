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

/**
 * A reference found by the tags query: a call (`@reference.call`, or `@reference.class` outside a
 * class head: an instantiation) or heritage (`@reference.class` / `@reference.implementation` in
 * the head of a class-like definition).
 */
export interface ExtractedReference {
  kind: 'call' | 'extends' | 'implements'
  name: string
  /** The receiver's text for a member call (`this`, `self`, `pkg`, `a.b`), `?` when it is an expression, null for a bare call. */
  receiver: string | null
  /** 1-based line of the name. */
  line: number
  /** Index of the innermost enclosing symbol (the class, for heritage), or -1: module level. */
  from: number
}

/**
 * A name whose type a declaration says (`@binding.*` captures): a parameter or variable annotated
 * with a type or assigned a constructor call (`svc: Svc`, `const s = new Svc()`, Python
 * `s = Svc()`, Go `func (c *Command)`), or a field of the enclosing class or struct
 * (`private svc: Svc`, `self.svc = Svc()`). Call resolution reads the type of a call's receiver
 * from it.
 */
export interface ExtractedBinding {
  name: string
  /** The type's name as written (dotted for a qualified one: `ns.Svc`), or the class a constructor call names. */
  type: string
  /** A field of the enclosing class-like symbol (reached as `this.name` / `self.name`), not a local. */
  field: boolean
  /** 1-based line of the name. */
  line: number
  /** Index of the innermost enclosing symbol (its scope), or -1: module level. */
  from: number
}

/** One import (or re-export) statement's module and the local names it binds. */
export interface ExtractedImport {
  source: string
  line: number
  /** local name → the imported name, `default` or `*` (the whole module). */
  bindings: Array<{ local: string; imported: string }>
  /** `export … from`: the bindings are exports of this file too; none: `export *`. */
  reexport: boolean
}

/** A local name the file exports under another name (`export { a as b }`, `export default a`). */
export interface ExtractedExport {
  local: string
  exported: string
}

/**
 * An entry point the language's entries query found (queries/<lang>/entries.scm): an HTTP route
 * registration, a CLI command, a `main`. The handler is a name resolved like a call from `from`
 * (the innermost enclosing symbol, -1: module level), or, when the handler is written inline,
 * null: the enclosing symbol (or the file's `<module>`) is the entry.
 */
export interface ExtractedEntry {
  kind: 'route' | 'command' | 'main'
  /** What registers it, for people: `GET /users`, `command serve`, `main`. */
  label: string
  name: string | null
  receiver: string | null
  line: number
  from: number
}

export interface FileExtraction {
  symbols: ExtractedSymbol[]
  references: ExtractedReference[]
  bindings: ExtractedBinding[]
  imports: ExtractedImport[]
  exports: ExtractedExport[]
  entries: ExtractedEntry[]
}

export type SkipReason = 'binary' | 'generated' | 'vendored' | 'minified' | 'too_large'

export interface SymbolExtractor {
  /** The language id for a path (by extension / file name), or null when no grammar handles it. */
  languageOf(path: string): string | null
  /** Symbols in the file, in source order. Never throws on bad input: a file it cannot parse gives []. */
  extract(path: string, source: string): ExtractedSymbol[]
  /** Symbols, references, imports and exports in one parse. Never throws: a file it cannot parse gives empty lists. */
  extractFile(path: string, source: string): FileExtraction
  close(): void
}
