/**
 * Tree-sitter symbol extraction: run a language's tags query over a file and turn the matches into
 * `ExtractedSymbol`s with qualified names, parents, signatures and an `exported` flag.
 *
 * Query captures understood (documented again at the top of each tags.scm):
 *   @definition.<kind>  the definition node; <kind> is a SymbolKind
 *   @name               the symbol's name (inside a definition or a scope)
 *   @scope              a container that qualifies the names inside it but is not a symbol itself,
 *                       whose functions are methods (Rust `impl Foo` → method `Foo.method`)
 *   @namespace          the same, for a namespace: its functions stay functions (C++ `namespace
 *                       geo`, C# `namespace App.Core`, PHP `namespace App\Models;`)
 *   @receiver           a type name that qualifies the definition (Go `func (s *Server) Start()`,
 *                       C++ `void Server::start()`); several make one path, outer first
 *   @body               the body; the signature is the text from the head up to here
 *   @head               where the signature starts, when not at the definition node (a Python
 *                       decorated definition starts at its decorators, its signature at `def`)
 *
 *   @reference.call     a call; @name is the callee, @receiver (optional) the object it is called on
 *   @reference.class    in the head of a class-like definition (before its @body): a base it
 *                       extends; anywhere else: an instantiation, kept as a call
 *   @reference.implementation  in the head of a class-like definition or an `impl` scope: an
 *                       interface or trait it implements
 *
 *   @binding.name       a parameter or variable whose type the declaration says: @binding.type
 *                       (`svc: Svc`, `const s = new Svc()`, Go `func (c *Command)`); it holds in
 *                       the innermost enclosing symbol
 *   @binding.field      the same for a field of the enclosing class or struct (`private svc: Svc`,
 *                       `self.svc = Svc()`), which calls reach as `this.svc.m()` / `self.svc.m()`
 *   @binding.type       the type's name (a qualified one is kept dotted), or the class a
 *                       constructor call names
 *
 * The language's imports query (queries/<lang>/imports.scm) gives the file's imports and exports;
 * its captures are documented in queries/javascript/imports.scm. Its entries query
 * (queries/<lang>/entries.scm) gives the entry points of execution flows; captures documented in
 * queries/javascript/entries.scm.
 *
 * When several matches name the same identifier (an `export`-wrapped or decorated declaration
 * matched with and without its wrapper), the widest range wins.
 */
import { readFileSync } from 'node:fs'
import { type Language, Parser, Query } from 'web-tree-sitter'
import type { Node, QueryCapture, Tree } from 'web-tree-sitter'
import { installedLanguageRegistry } from './registry.js'
import { loadGrammar, treeSitterRuntime } from './runtime.js'
import type { ExportRule, LanguageRegistry, LanguageSpec } from './registry.js'
import type { ExtractedBinding, ExtractedEntry, ExtractedExport, ExtractedImport, ExtractedReference, ExtractedSymbol, FileExtraction, SymbolExtractor, SymbolKind } from './types.js'

/** Files larger than this are not parsed (generated bundles, data dumps). */
export const MAX_PARSE_CHARS = 5_000_000

const MAX_SIGNATURE_CHARS = 200

const SYMBOL_KINDS: ReadonlySet<string> = new Set<SymbolKind>([
  'function',
  'method',
  'class',
  'interface',
  'type',
  'enum',
  'module',
  'struct',
  'trait',
])

/** Kinds whose directly nested functions are methods. */
const MEMBER_CONTAINERS: ReadonlySet<SymbolKind> = new Set<SymbolKind>([
  'class',
  'interface',
  'enum',
  'struct',
  'trait',
])

interface LoadedLanguage {
  spec: LanguageSpec
  language: Language
  query: Query
  importQuery: Query | null
  /** undefined: not compiled yet (it is compiled for the first file its hint lets through). */
  entryQuery: Query | null | undefined
  /** The entries query, compiled on first use (a broken query still fails the extraction, not only the file). */
  compileEntries: () => Query
  parser: Parser | null
}

/** A reference before the enclosing symbols are known. */
interface RawReference {
  capture: 'call' | 'class' | 'implementation' | 'binding'
  name: string
  /** The receiver of a call; the type of a binding. */
  receiver: string | null
  /** A binding of a field. */
  field?: boolean
  index: number
  line: number
}

const EMPTY: FileExtraction = { symbols: [], references: [], bindings: [], imports: [], exports: [], entries: [] }

/**
 * Receivers longer than this, or not a plain dotted name (a segment may be a JS private name:
 * `this.#root`), are recorded as `?` (an expression).
 */
const MAX_RECEIVER_CHARS = 100
const PLAIN_RECEIVER = /^#?[\p{L}\p{N}_$]+(?:\.#?[\p{L}\p{N}_$]+)*$/u
const HERITAGE_HOLDERS: ReadonlySet<SymbolKind> = new Set<SymbolKind>(['class', 'interface', 'struct', 'enum', 'trait'])

/** A definition or scope found in one file, before nesting is resolved. */
interface Entry {
  /** null for a scope. */
  kind: SymbolKind | null
  /** A scope that is a namespace (its functions are not methods). */
  namespace: boolean
  name: string
  receiver: string | null
  startIndex: number
  endIndex: number
  /** Where the body starts (the head ends); the end when there is no body. */
  bodyStart: number
  startLine: number
  endLine: number
  signature: string
  baseExported: boolean
  isPrivate: boolean
  qualifiedName: string
  exported: boolean
  parentSymbol: Entry | null
  outputIndex: number
}

export interface SymbolExtractorOptions {
  /** Language ids to load; all registry languages by default. */
  languages?: string[]
  registry?: LanguageRegistry
}

/**
 * Loads the grammars and compiles the queries up front (both are async in web-tree-sitter, and
 * `extract` is synchronous), so a broken query fails here rather than silently per file.
 */
export async function createSymbolExtractor(
  options: SymbolExtractorOptions = {},
): Promise<SymbolExtractor> {
  const registry = options.registry ?? installedLanguageRegistry()
  await treeSitterRuntime()
  const ids = options.languages ?? [...registry.languages.keys()]
  const loaded = new Map<string, LoadedLanguage>()
  for (const id of ids) {
    const spec = registry.get(id)
    if (!spec) throw new Error(`unknown language id ${id} (not in grammars/registry.json)`)
    const language = await loadGrammar(spec.wasmPath)
    const compile = (queryPath: string): Query => {
      try {
        return new Query(language, readFileSync(queryPath, 'utf8'))
      } catch (error) {
        throw new Error(`invalid query ${queryPath} for ${id}: ${(error as Error).message}`)
      }
    }
    // the entries query waits for a file that may hold entries (most do not: its hint rules them out)
    const entriesPath = spec.entriesPath
    loaded.set(id, { spec, language, query: compile(spec.queryPath), importQuery: spec.imports ? compile(spec.imports.queryPath) : null, entryQuery: entriesPath ? undefined : null, compileEntries: () => compile(entriesPath!), parser: null })
  }
  return new TreeSitterSymbolExtractor(registry, loaded)
}

class TreeSitterSymbolExtractor implements SymbolExtractor {
  constructor(
    private readonly registry: LanguageRegistry,
    private readonly loaded: Map<string, LoadedLanguage>,
  ) {}

  languageOf(path: string): string | null {
    const spec = this.registry.languageOf(path)
    return spec && this.loaded.has(spec.id) ? spec.id : null
  }

  extract(path: string, source: string): ExtractedSymbol[] {
    return this.extractFile(path, source).symbols
  }

  extractFile(path: string, source: string): FileExtraction {
    const id = this.languageOf(path)
    if (id === null || source.length > MAX_PARSE_CHARS) return EMPTY
    const lang = this.loaded.get(id)
    if (!lang) return EMPTY
    if (lang.entryQuery === undefined && mayHaveEntries(lang, source)) lang.entryQuery = lang.compileEntries()
    try {
      return extractWith(lang, source)
    } catch {
      return EMPTY
    }
  }

  close(): void {
    for (const lang of this.loaded.values()) {
      lang.parser?.delete()
      lang.query.delete()
      lang.importQuery?.delete()
      lang.entryQuery?.delete()
    }
    this.loaded.clear()
  }
}

/** Whether the entries query may match the file (its hint: a file without that text has no entries). */
function mayHaveEntries(lang: LoadedLanguage, source: string): boolean {
  return lang.spec.entriesPath !== null && (lang.spec.entriesHint === null || lang.spec.entriesHint.test(source))
}

function extractWith(lang: LoadedLanguage, source: string): FileExtraction {
  if (!lang.parser) {
    lang.parser = new Parser()
    lang.parser.setLanguage(lang.language)
  }
  const tree = parseRecovering(lang, source)
  if (!tree) return EMPTY
  try {
    const { entries, references } = collectEntries(lang, tree.rootNode, source)
    const symbols = buildSymbols(entries, lang.spec.exported)
    const { imports, exports } = lang.importQuery ? collectImports(lang.importQuery, tree.rootNode) : { imports: [], exports: [] }
    const found = lang.entryQuery && mayHaveEntries(lang, source) ? collectEntryPoints(lang.entryQuery, tree.rootNode) : []
    // an entry is placed like a call at its registration: the scope its handler name is seen from
    const placed = placeReferences(entries, symbols, found.map((e) => ({ capture: 'call', name: e.name ?? '', receiver: e.receiver, index: e.index, line: e.line })))
    return {
      symbols,
      ...placeReferences(entries, symbols, references),
      imports,
      exports,
      entries: found.map((e, i) => ({ kind: e.kind, label: e.label, name: e.name, receiver: e.receiver, line: e.line, from: placed.references[i].from })),
    }
  } finally {
    tree.delete()
  }
}

/**
 * The file's tree; where the grammar fails the file, the language's recovery rewrites are tried
 * (registry.ts, Recovery) and the tree with fewer bytes in error is kept. A file that still has
 * errors keeps what parses: the definitions outside its error nodes.
 */
function parseRecovering(lang: LoadedLanguage, source: string): Tree | null {
  const parser = lang.parser!
  const tree = parser.parse(source)
  if (!tree || !tree.rootNode.hasError || lang.spec.recover.length === 0) return tree
  let rewritten = source
  for (const r of lang.spec.recover) rewritten = rewritten.replace(r.pattern, r.replace)
  if (rewritten === source || rewritten.length !== source.length) return tree
  const retry = parser.parse(rewritten)
  if (!retry) return tree
  if (errorBytes(retry.rootNode) < errorBytes(tree.rootNode)) {
    tree.delete()
    return retry
  }
  retry.delete()
  return tree
}

/** How much of the source sits in error nodes (a missing token counts one byte). */
function errorBytes(node: Node): number {
  if (node.type === 'ERROR') return Math.max(1, node.endIndex - node.startIndex)
  if (node.isMissing) return 1
  let sum = 0
  for (const child of node.children) if (child && (child.hasError || child.isMissing)) sum += errorBytes(child)
  return sum
}

function collectEntries(lang: LoadedLanguage, root: Node, source: string): { entries: Entry[]; references: RawReference[] } {
  const definitions = new Map<number, Entry>()
  const scopes: Entry[] = []
  const references: RawReference[] = []
  const rule = lang.spec.exported
  for (const match of lang.query.matches(root)) {
    let reference: RawReference['capture'] | null = null
    let def: QueryCapture | null = null
    let scope: Node | null = null
    let namespace = false
    let nameNode: Node | null = null
    let body: Node | null = null
    let head: Node | null = null
    let receiver: string | null = null
    let binding: { name: Node | null; type: Node | null; field: boolean } | null = null
    for (const capture of match.captures) {
      const captureName = capture.name
      if (captureName.startsWith('binding.')) {
        binding ??= { name: null, type: null, field: false }
        if (captureName === 'binding.type') binding.type = capture.node
        else [binding.name, binding.field] = [capture.node, captureName === 'binding.field']
      } else if (captureName === 'name') nameNode = capture.node
      else if (captureName === 'body') body = capture.node
      else if (captureName === 'head') head = capture.node
      // Several receivers (C++ `a::B::f`, matched level by level) make one path, outer first.
      else if (captureName === 'receiver') receiver = [receiver, dotted(capture.node.text)].filter(Boolean).join('.')
      else if (captureName === 'scope' || captureName === 'namespace') [scope, namespace] = [capture.node, captureName === 'namespace']
      else if (captureName.startsWith('definition.')) def = capture
      else if (captureName === 'reference.call' || captureName === 'reference.class' || captureName === 'reference.implementation') reference = captureName.slice('reference.'.length) as RawReference['capture']
    }
    if (binding) {
      const type = binding.type ? plainReceiver(dotted(binding.type.text)) : '?'
      if (binding.name && type !== '?') references.push({ capture: 'binding', name: binding.name.text, receiver: type, field: binding.field, index: binding.name.startIndex, line: binding.name.startPosition.row + 1 })
      continue
    }
    if (!nameNode) continue
    const name = nameNode.text
    if (name.length === 0) continue
    if (reference) {
      references.push({ capture: reference, name, receiver: receiver === null ? null : plainReceiver(receiver), index: nameNode.startIndex, line: nameNode.startPosition.row + 1 })
      continue
    }
    if (scope) {
      const entry = makeEntry(null, dotted(name), null, scope, null, body, source)
      entry.namespace = namespace
      scopes.push(entry)
      continue
    }
    if (!def) continue
    const kind = def.name.slice('definition.'.length)
    if (!SYMBOL_KINDS.has(kind)) continue
    const node = def.node
    const previous = definitions.get(nameNode.startIndex)
    if (previous && previous.endIndex - previous.startIndex >= node.endIndex - node.startIndex) {
      continue
    }
    const entry = makeEntry(kind as SymbolKind, name, receiver, node, head, body, source)
    entry.baseExported = baseExported(rule, node, name)
    entry.isPrivate = isPrivate(rule, source.slice(head?.startIndex ?? node.startIndex, nameNode.startIndex), name)
    definitions.set(nameNode.startIndex, entry)
  }
  const entries = scopes.concat([...definitions.values()])
  // Outer before inner: by start, then the longer range first; scopes before symbols on a tie.
  entries.sort(
    (a, b) =>
      a.startIndex - b.startIndex ||
      b.endIndex - a.endIndex ||
      (a.kind === null ? 0 : 1) - (b.kind === null ? 0 : 1),
  )
  references.sort((a, b) => a.index - b.index)
  return { entries, references }
}

function plainReceiver(text: string): string {
  return text.length <= MAX_RECEIVER_CHARS && PLAIN_RECEIVER.test(text) ? text : '?'
}

/**
 * Each reference with its enclosing symbol, in one sweep over the entries (outer before inner)
 * and the references (by position): a reference in the head of a class-like definition or an
 * `impl` scope is heritage of it, any other is a call from the innermost enclosing symbol; a
 * binding holds in the innermost enclosing symbol.
 */
function placeReferences(entries: Entry[], symbols: ExtractedSymbol[], raw: RawReference[]): { references: ExtractedReference[]; bindings: ExtractedBinding[] } {
  const out: ExtractedReference[] = []
  const bindings: ExtractedBinding[] = []
  const stack: Entry[] = []
  let next = 0
  for (const ref of raw) {
    while (next < entries.length && entries[next].startIndex <= ref.index) {
      const entry = entries[next++]
      while (stack.length > 0 && stack[stack.length - 1].endIndex <= entry.startIndex) stack.pop()
      stack.push(entry)
    }
    while (stack.length > 0 && stack[stack.length - 1].endIndex <= ref.index) stack.pop()
    const top = stack.length > 0 ? stack[stack.length - 1] : null
    if (ref.capture !== 'call' && ref.capture !== 'binding' && top && ref.index < top.bodyStart && (top.kind === null || HERITAGE_HOLDERS.has(top.kind))) {
      const holder = top.kind === null ? symbols.findIndex((s) => s.qualifiedName === top.qualifiedName && HERITAGE_HOLDERS.has(s.kind)) : top.outputIndex
      if (holder >= 0) out.push({ kind: ref.capture === 'class' ? 'extends' : 'implements', name: ref.name, receiver: ref.receiver, line: ref.line, from: holder })
      continue
    }
    if (ref.capture === 'implementation') continue
    let from = -1
    for (let i = stack.length - 1; i >= 0; i--) {
      if (stack[i].kind !== null) {
        from = stack[i].outputIndex
        break
      }
    }
    if (ref.capture === 'binding') bindings.push({ name: ref.name, type: ref.receiver!, field: ref.field === true, line: ref.line, from })
    else out.push({ kind: 'call', name: ref.name, receiver: ref.receiver, line: ref.line, from })
  }
  return { references: out, bindings }
}

const ENTRY_KINDS: ReadonlySet<string> = new Set(['route', 'command', 'main'])
/** Route methods that name no HTTP method (Flask `@app.route`, `HandleFunc`): the label is the path alone. */
const ANY_METHOD = /^(route|api_route|handle|handlefunc|all|use)$/i

/** Entry points from the entries query, in source order, one per registration (the match naming a handler wins). */
function collectEntryPoints(query: Query, root: Node): Array<{ kind: ExtractedEntry['kind']; label: string; name: string | null; receiver: string | null; index: number; line: number }> {
  const byStart = new Map<number, ReturnType<typeof collectEntryPoints>[number] & { rank: number }>()
  for (const match of query.matches(root)) {
    const c: Record<string, Node> = {}
    let kind: string | null = null
    for (const capture of match.captures) {
      c[capture.name] = capture.node
      if (capture.name.startsWith('entry.') && ENTRY_KINDS.has(capture.name.slice(6))) kind = capture.name.slice(6)
    }
    if (!kind) continue
    const at = c[`entry.${kind}`]
    const method = c['entry.method'] && !ANY_METHOD.test(c['entry.method'].text) ? c['entry.method'].text.toUpperCase() : ''
    const where = c['entry.path'] ? unquote(c['entry.path'].text) : ''
    const label = kind === 'main' ? 'main' : kind === 'command' ? ['command', where].filter(Boolean).join(' ') : [method, where].filter(Boolean).join(' ') || 'route'
    const name = c.name ? c.name.text : null
    // several patterns can match one registration (with and without its path): the fullest wins
    const rank = (name === null ? 0 : 2) + (where ? 1 : 0)
    const previous = byStart.get(at.startIndex)
    if (previous && previous.rank >= rank) continue
    byStart.set(at.startIndex, { kind: kind as ExtractedEntry['kind'], label, name, receiver: c.receiver ? plainReceiver(dotted(c.receiver.text)) : null, index: at.startIndex, line: at.startPosition.row + 1, rank })
  }
  return [...byStart.values()].sort((a, b) => a.index - b.index).map(({ rank: _, ...e }) => e)
}

const unquote = (text: string): string => text.replace(/^[`'"]+|[`'"]+$/g, '')

/** The file's imports (merged per module and kind) and renamed exports, from the imports query. */
function collectImports(query: Query, root: Node): { imports: ExtractedImport[]; exports: ExtractedExport[] } {
  const imports = new Map<string, ExtractedImport>()
  const exports: ExtractedExport[] = []
  for (const match of query.matches(root)) {
    const c: Record<string, Node> = {}
    for (const capture of match.captures) c[capture.name] = capture.node
    if (c['export.local']) exports.push({ local: c['export.local'].text, exported: (c['export.as'] ?? c['export.local']).text })
    if (c['export.default']) exports.push({ local: c['export.default'].text, exported: 'default' })
    const sourceNode = c['import.source']
    if (!sourceNode) continue
    const source = unquote(sourceNode.text)
    if (source.length === 0) continue
    const reexport = c['import.reexport'] !== undefined
    const key = `${reexport ? 'r' : 'i'}\0${source}`
    let record = imports.get(key)
    if (!record) {
      record = { source, line: sourceNode.startPosition.row + 1, bindings: [], reexport }
      imports.set(key, record)
    }
    const add = (local: string, imported: string) => {
      if (!record!.bindings.some((b) => b.local === local && b.imported === imported)) record!.bindings.push({ local, imported })
    }
    if (c['import.name']) add((c['import.alias'] ?? c['import.name']).text, c['import.name'].text)
    if (c['import.default']) add(c['import.default'].text, 'default')
    if (c['import.namespace']) add(c['import.namespace'].text, '*')
  }
  return { imports: [...imports.values()], exports }
}

/**
 * A scope's or receiver's path with its separators as dots, like the rest of a qualified name:
 * C++ `ns::Outer` and PHP `App\Models` become `ns.Outer` and `App.Models`.
 */
function dotted(path: string): string {
  return path.replace(/\s+/g, '').replace(/::|\\/g, '.')
}

function makeEntry(
  kind: SymbolKind | null,
  name: string,
  receiver: string | null,
  node: Node,
  head: Node | null,
  body: Node | null,
  source: string,
): Entry {
  const start = node.startPosition
  const end = node.endPosition
  // A node that ends at column 0 ends with the previous line's newline.
  const endRow = end.column === 0 && end.row > start.row ? end.row - 1 : end.row
  return {
    kind,
    namespace: false,
    name,
    receiver,
    startIndex: node.startIndex,
    endIndex: node.endIndex,
    bodyStart: body && body.startIndex > node.startIndex ? body.startIndex : node.endIndex,
    startLine: start.row + 1,
    endLine: endRow + 1,
    signature: kind === null ? '' : signatureOf(node, head, body, source),
    baseExported: false,
    isPrivate: false,
    qualifiedName: name,
    exported: false,
    parentSymbol: null,
    outputIndex: -1,
  }
}

function signatureOf(node: Node, head: Node | null, body: Node | null, source: string): string {
  const start = (head ?? node).startIndex
  let end: number
  if (body && body.startIndex > start) {
    end = body.startIndex
  } else {
    end = source.indexOf('\n', start)
    if (end < 0) end = source.length
  }
  end = Math.min(end, node.endIndex, start + 4 * MAX_SIGNATURE_CHARS)
  let text = source.slice(start, end).replace(/\s+/g, ' ').trim()
  if (text.endsWith('{') || text.endsWith(':') || text.endsWith(';')) text = text.slice(0, -1).trimEnd()
  return text.length > MAX_SIGNATURE_CHARS ? text.slice(0, MAX_SIGNATURE_CHARS) : text
}

function baseExported(rule: ExportRule, node: Node, name: string): boolean {
  if (rule.parentTypes) {
    const parent = node.parent
    if (!parent || !rule.parentTypes.includes(parent.type)) return false
  }
  if (rule.namePattern && !rule.namePattern.test(name)) return false
  if (rule.modifierTypes) {
    const pattern = rule.modifierPattern
    let found = false
    for (const child of node.namedChildren) {
      if (child && rule.modifierTypes.includes(child.type) && (!pattern || pattern.test(child.text))) {
        found = true
        break
      }
    }
    if (!found) return false
  }
  return true
}

function isPrivate(rule: ExportRule, beforeName: string, name: string): boolean {
  return (
    (rule.privateModifier?.test(beforeName) ?? false) || (rule.privateName?.test(name) ?? false)
  )
}

function buildSymbols(entries: Entry[], rule: ExportRule): ExtractedSymbol[] {
  const stack: Entry[] = []
  const symbols: ExtractedSymbol[] = []
  for (const entry of entries) {
    while (stack.length > 0 && stack[stack.length - 1].endIndex < entry.endIndex) stack.pop()
    const container = stack.length > 0 ? stack[stack.length - 1] : null
    const own = entry.receiver === null ? entry.name : `${entry.receiver}.${entry.name}`
    entry.qualifiedName = container ? `${container.qualifiedName}.${own}` : own
    if (container) {
      entry.parentSymbol = container.kind === null ? container.parentSymbol : container
    }
    stack.push(entry)
    if (entry.kind === null) continue
    if (
      entry.kind === 'function' &&
      container &&
      (container.kind === null ? !container.namespace : MEMBER_CONTAINERS.has(container.kind))
    ) {
      entry.kind = 'method'
    }
    const parentKind = entry.parentSymbol?.kind
    // Local to a function body: never reachable from outside, whatever its name says.
    if (parentKind === 'function' || parentKind === 'method') entry.exported = false
    else if (
      entry.kind === 'method' &&
      container?.kind != null &&
      rule.methodsInheritFrom?.includes(container.kind)
    ) {
      entry.exported = container.exported && !entry.isPrivate
    } else entry.exported = entry.baseExported && !entry.isPrivate
    entry.outputIndex = symbols.length
    symbols.push({
      name: entry.name,
      qualifiedName: entry.qualifiedName,
      kind: entry.kind,
      startLine: entry.startLine,
      endLine: entry.endLine,
      signature: entry.signature,
      exported: entry.exported,
      parentIndex: entry.parentSymbol ? entry.parentSymbol.outputIndex : null,
    })
  }
  return symbols
}
