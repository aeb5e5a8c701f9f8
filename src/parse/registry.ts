/**
 * The language registry, read from `grammars/registry.json`: which file names a language claims,
 * where its grammar (.wasm) and its tags query live, and how "exported" is decided. Adding a
 * language is a registry entry, a query file and a golden fixture; no code here changes.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { SymbolKind } from './types.js'

/**
 * How `exported` is decided for a definition. Every condition that is present must hold.
 * - parentTypes: the definition node's parent has one of these types (TS/JS `export_statement`).
 * - namePattern: the symbol name matches (Go capitalised, Python no leading underscore).
 * - modifierTypes + modifierPattern: a direct child of the definition node of one of these types
 *   has text matching the pattern (Rust `visibility_modifier` = `pub`, Java `modifiers` ⊇ `public`).
 * - methodsInheritFrom: a method directly inside a symbol of one of these kinds is exported when
 *   that symbol is; the conditions above do not apply to it.
 * - privateModifier / privateName: whatever else holds, a symbol is not exported when the text
 *   before its name matches privateModifier or its name matches privateName (TS `private`, JS
 *   `#field`, C `static`, Kotlin `private`).
 * Whatever the rule, a symbol local to a function body is never exported.
 */
export interface ExportRule {
  parentTypes?: string[]
  namePattern?: RegExp
  modifierTypes?: string[]
  modifierPattern?: RegExp
  methodsInheritFrom?: SymbolKind[]
  privateModifier?: RegExp
  privateName?: RegExp
}

export interface LanguageSpec {
  id: string
  extensions: string[]
  fileNames: string[]
  /** Absolute path of the grammar. */
  wasmPath: string
  /** Absolute path of the tags query. */
  queryPath: string
  exported: ExportRule
  /** How to find the files a file imports and the names it binds, when the language has a rule. */
  imports: ImportRule | null
  /** Absolute path of the entry-points query (queries/<lang>/entries.scm: routes, commands, mains), when the language has one. */
  entriesPath: string | null
  /**
   * A text every file the entries query can match contains (the query's `; hint:` line, a regular
   * expression): a file without it has no entries, and the query is neither compiled nor run for
   * it. null: the query runs on every file.
   */
  entriesHint: RegExp | null
  /** Source rewrites tried when the grammar fails a file (see Recovery). */
  recover: Recovery[]
}

/**
 * A rewrite of the source that works around a construct the grammar misparses (tree-sitter-wasms'
 * TypeScript grammar reads a call signature `<T>(…)` on the line after a member as a type
 * argument list and fails the whole file). Applied only to a file whose parse has errors, and kept
 * only when the rewritten source parses with fewer bytes in error. The replacement must keep every
 * character's offset (same length, no line break changed), so positions stay those of the file.
 */
export interface Recovery {
  pattern: RegExp
  replace: string
}

export interface ImportRule {
  /** Absolute path of the imports query (captures documented in queries/javascript/imports.scm). */
  queryPath: string
  resolver: ImportResolver
}

/** How a specifier becomes repository paths (src/codegraph/modules.ts). */
export type ImportResolver = 'js' | 'python' | 'go' | 'java' | 'rust'

interface RawExportRule {
  parentTypes?: string[]
  namePattern?: string
  modifierTypes?: string[]
  modifierPattern?: string
  methodsInheritFrom?: SymbolKind[]
  privateModifier?: string
  privateName?: string
}

interface RawLanguage {
  extensions?: string[]
  fileNames?: string[]
  wasm: { package: string; file: string } | { path: string }
  query: string
  exported?: RawExportRule
  imports?: { query: string; resolver: ImportResolver }
  entries?: string
  recover?: Array<{ pattern: string; replace: string }>
}

interface RawRegistry {
  languages: Record<string, RawLanguage>
}

/** The package root: two levels above this module, in `src/parse/` and in `dist/parse/` alike. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url))

const require = createRequire(import.meta.url)

function regex(source: string | undefined): RegExp | undefined {
  return source === undefined ? undefined : new RegExp(source, 'u')
}

/** A query's `; hint: <regex>` line (see LanguageSpec.entriesHint), null when it has none. */
export function queryHint(query: string): RegExp | null {
  const m = /^;[ \t]*hint:[ \t]*(\S.*?)[ \t]*$/m.exec(query)
  return m ? new RegExp(m[1]) : null
}

function resolveWasm(wasm: RawLanguage['wasm']): string {
  if ('path' in wasm) return join(PROJECT_ROOT, wasm.path)
  return join(dirname(require.resolve(`${wasm.package}/package.json`)), wasm.file)
}

export class LanguageRegistry {
  private readonly byExtension = new Map<string, LanguageSpec>()
  private readonly byFileName = new Map<string, LanguageSpec>()

  /**
   * @param fingerprint a digest of everything extraction depends on (the registry, the queries, the
   * grammars): an index built under another fingerprint holds other symbols and is rebuilt.
   */
  constructor(
    readonly languages: ReadonlyMap<string, LanguageSpec>,
    readonly fingerprint = '',
  ) {
    for (const spec of languages.values()) {
      for (const ext of spec.extensions) this.byExtension.set(ext.toLowerCase(), spec)
      for (const name of spec.fileNames) this.byFileName.set(name, spec)
    }
  }

  /** The language for a repository path, by exact file name first, then by extension. */
  languageOf(path: string): LanguageSpec | null {
    const name = basename(path)
    const byName = this.byFileName.get(name)
    if (byName) return byName
    return this.byExtension.get(extname(name).toLowerCase()) ?? null
  }

  get(id: string): LanguageSpec | undefined {
    return this.languages.get(id)
  }
}

let installed: LanguageRegistry | undefined

/**
 * The registry gitwhy ships with (grammars/registry.json and the built extraction code), read once
 * per process: its fingerprint hashes every query and built parser file, and an analyze asks for it
 * at several steps.
 */
export function installedLanguageRegistry(): LanguageRegistry {
  return (installed ??= loadLanguageRegistry())
}

export function loadLanguageRegistry(
  registryPath: string = join(PROJECT_ROOT, 'grammars', 'registry.json'),
  codeRoot: string = join(PROJECT_ROOT, 'dist'),
): LanguageRegistry {
  const text = readFileSync(registryPath, 'utf8')
  const raw = JSON.parse(text) as RawRegistry
  const languages = new Map<string, LanguageSpec>()
  const digest = createHash('sha256').update(text)
  for (const [id, entry] of Object.entries(raw.languages)) {
    const exported = entry.exported ?? {}
    languages.set(id, {
      id,
      extensions: entry.extensions ?? [],
      fileNames: entry.fileNames ?? [],
      wasmPath: resolveWasm(entry.wasm),
      queryPath: join(PROJECT_ROOT, entry.query),
      exported: {
        parentTypes: exported.parentTypes,
        namePattern: regex(exported.namePattern),
        modifierTypes: exported.modifierTypes,
        modifierPattern: regex(exported.modifierPattern),
        methodsInheritFrom: exported.methodsInheritFrom,
        privateModifier: regex(exported.privateModifier),
        privateName: regex(exported.privateName),
      },
      imports: entry.imports ? { queryPath: join(PROJECT_ROOT, entry.imports.query), resolver: entry.imports.resolver } : null,
      entriesPath: entry.entries ? join(PROJECT_ROOT, entry.entries) : null,
      entriesHint: entry.entries ? queryHint(readFileSync(join(PROJECT_ROOT, entry.entries), 'utf8')) : null,
      recover: (entry.recover ?? []).map((r) => ({ pattern: new RegExp(r.pattern, 'gmu'), replace: r.replace })),
    })
  }
  for (const spec of languages.values()) {
    // A grammar's size stands for its version: hashing every .wasm would cost ~50 ms per analyze.
    digest.update(`\0${spec.id}\0${statSync(spec.wasmPath).size}\0`).update(readFileSync(spec.queryPath))
    for (const extra of [spec.imports?.queryPath, spec.entriesPath]) if (extra) digest.update('\0').update(readFileSync(extra))
  }
  for (const file of extractionCode(codeRoot)) digest.update('\0').update(readFileSync(file))
  return new LanguageRegistry(languages, digest.digest('hex').slice(0, 16))
}

/**
 * The code that turns sources into symbols and edges (dist/parse and dist/codegraph, as built; the
 * CLI runs them): a change to it changes what an index holds as surely as a changed query, so it
 * joins the fingerprint. An upgraded gitwhy whose resolver changed extracts every file again.
 */
function extractionCode(root: string): string[] {
  const out: string[] = []
  for (const dir of ['parse', 'codegraph'].map((d) => join(root, d))) {
    let names: string[]
    try {
      names = readdirSync(dir).sort()
    } catch {
      continue // not built (a test run from the sources alone)
    }
    for (const name of names) if (name.endsWith('.js')) out.push(join(dir, name))
  }
  return out
}
