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
 * Matches without a definition or scope (the `@reference.*` captures the code graph reads) are not
 * symbols and are skipped here.
 *
 * When several matches name the same identifier (an `export`-wrapped or decorated declaration
 * matched with and without its wrapper), the widest range wins.
 */
import { readFileSync } from 'node:fs'
import { Language, Parser, Query } from 'web-tree-sitter'
import type { Node, QueryCapture } from 'web-tree-sitter'
import { loadLanguageRegistry } from './registry.js'
import type { ExportRule, LanguageRegistry, LanguageSpec } from './registry.js'
import type { ExtractedSymbol, SymbolExtractor, SymbolKind } from './types.js'

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
  parser: Parser | null
}

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
  const registry = options.registry ?? loadLanguageRegistry()
  await Parser.init()
  const ids = options.languages ?? [...registry.languages.keys()]
  const loaded = new Map<string, LoadedLanguage>()
  const byWasm = new Map<string, Language>()
  // One at a time: concurrent loads of grammars with external scanners break the wasm linker.
  for (const id of ids) {
    const spec = registry.get(id)
    if (!spec) throw new Error(`unknown language id ${id} (not in grammars/registry.json)`)
    let language = byWasm.get(spec.wasmPath)
    if (!language) {
      language = await Language.load(spec.wasmPath)
      byWasm.set(spec.wasmPath, language)
    }
    let query: Query
    try {
      query = new Query(language, readFileSync(spec.queryPath, 'utf8'))
    } catch (error) {
      throw new Error(`invalid query ${spec.queryPath} for ${id}: ${(error as Error).message}`)
    }
    loaded.set(id, { spec, language, query, parser: null })
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
    const id = this.languageOf(path)
    if (id === null || source.length > MAX_PARSE_CHARS) return []
    const lang = this.loaded.get(id)
    if (!lang) return []
    try {
      return extractWith(lang, source)
    } catch {
      return []
    }
  }

  close(): void {
    for (const lang of this.loaded.values()) {
      lang.parser?.delete()
      lang.query.delete()
    }
    this.loaded.clear()
  }
}

function extractWith(lang: LoadedLanguage, source: string): ExtractedSymbol[] {
  if (!lang.parser) {
    lang.parser = new Parser()
    lang.parser.setLanguage(lang.language)
  }
  const tree = lang.parser.parse(source)
  if (!tree) return []
  try {
    return buildSymbols(collectEntries(lang, tree.rootNode, source), lang.spec.exported)
  } finally {
    tree.delete()
  }
}

function collectEntries(lang: LoadedLanguage, root: Node, source: string): Entry[] {
  const definitions = new Map<number, Entry>()
  const scopes: Entry[] = []
  const rule = lang.spec.exported
  for (const match of lang.query.matches(root)) {
    let def: QueryCapture | null = null
    let scope: Node | null = null
    let namespace = false
    let nameNode: Node | null = null
    let body: Node | null = null
    let head: Node | null = null
    let receiver: string | null = null
    for (const capture of match.captures) {
      const captureName = capture.name
      if (captureName === 'name') nameNode = capture.node
      else if (captureName === 'body') body = capture.node
      else if (captureName === 'head') head = capture.node
      // Several receivers (C++ `a::B::f`, matched level by level) make one path, outer first.
      else if (captureName === 'receiver') receiver = [receiver, dotted(capture.node.text)].filter(Boolean).join('.')
      else if (captureName === 'scope' || captureName === 'namespace') [scope, namespace] = [capture.node, captureName === 'namespace']
      else if (captureName.startsWith('definition.')) def = capture
    }
    if (!nameNode) continue
    const name = nameNode.text
    if (name.length === 0) continue
    if (scope) {
      const entry = makeEntry(null, dotted(name), null, scope, null, null, source)
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
  return entries
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
