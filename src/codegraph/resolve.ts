import { isTestPath } from '../parse/classify.js'
import type { LanguageRegistry } from '../parse/registry.js'
import type { ExtractedBinding, ExtractedEntry, ExtractedImport, ExtractedSymbol } from '../parse/types.js'
import { symbolIds, type IndexedFile } from '../services/index-layout.js'
import { ModuleResolver } from './modules.js'

/**
 * The code graph of one set of indexed files: every reference the tags queries found, resolved
 * to the symbol it most likely means, scope first:
 *   1. same-scope: a definition in the same file (the caller's enclosing scopes first, then the
 *      top level; in languages with an implicit `this`, the enclosing class's methods), or in the
 *      same package (Go and Java: the same folder);
 *   2. import-resolved: a name the file imports, followed through the import graph (re-exports,
 *      barrels, default exports, `export *`, Python package `__init__`s), or `ns.f()` / `Class.m()`
 *      on an imported module or class;
 *   3. receiver-type: `this.m()` / `self.m()` / `super.m()` in the enclosing class and the classes
 *      it extends, `Class.m()` on a class of the same package, `x.m()` / `this.f.m()` on a
 *      variable, parameter, Go receiver or field whose type its declaration says (the tags
 *      query's bindings: `svc: Svc`, `const s = new Svc()`, `func (c *Command)`); a receiver typed
 *      by a type the repository does not define (`m: Map<…>`, `r *http.Request`) gets no edge;
 *      on an interface (or a base class without the method), the implementations of the method
 *      in the types below it, each with a lower confidence (DISPATCH);
 *   4. unique-name: the only definition of that name in the repository (same language family;
 *      test files' definitions are no candidates of a guess: nothing calls them unimported);
 *   5. ambiguous: up to MAX_AMBIGUOUS definitions of that name, each with a low confidence.
 * A call to an imported name that resolves outside the repository (an npm package, the standard
 * library) gets no edge, and neither does a name nothing in the repository defines.
 *
 * Pure: the same files give the same edges, so an incremental analyze recomputes them all and
 * applies the difference (src/services/analyze.ts).
 */

export type CallReason = 'same-scope' | 'import-resolved' | 'receiver-type' | 'unique-name' | 'ambiguous'

export interface CallEdge {
  from: string
  to: string
  confidence: number
  reason: CallReason
  line: number
}

export interface CodeGraph {
  imports: Array<{ from: string; to: string }>
  calls: CallEdge[]
  extends: Array<{ from: string; to: string }>
  implements: Array<{ from: string; to: string }>
  /** Files with module-level calls: each gets a `<module>` symbol (MODULE_SYMBOL). */
  modules: Array<{ path: string; id: string; lines: number }>
  /** Entry points the entries queries registered (routes, commands, mains), their handlers resolved like calls (flows.ts). */
  entries: Array<{ symbol: string; kind: ExtractedEntry['kind']; label: string; line: number }>
}

/** The name of the per-file symbol that module-level calls come from. */
export const MODULE_SYMBOL = '<module>'
export const moduleSymbolId = (path: string) => `${path}#${MODULE_SYMBOL}`

/**
 * What a confidence means: about the share of such edges that are right, as measured against the
 * TypeScript compiler's call hierarchy (bench/codegraph-ts-oracle.mjs on hono and vuejs/core; the
 * README lists the numbers). An answer filtered at 0.5 (the default) keeps the edges a reason
 * makes right at least half the time: the resolved ones, not the guesses by name.
 */
export const CONFIDENCE: Record<CallReason, number> = { 'same-scope': 0.95, 'import-resolved': 0.9, 'receiver-type': 0.85, 'unique-name': 0.6, ambiguous: 0.25 }
/** `x.m()` on a receiver of unknown type, linked to the one method `m` the repository defines. */
const GUESS_METHOD = 0.4
/**
 * A bare `f()` in a JS/TS module that neither defines nor imports `f`: a local variable, a
 * parameter or a global, which the one function `f` elsewhere in the repository seldom is.
 */
const GUESS_UNBOUND = 0.3
/** Same-package (another file of the folder) is same-scope but a little less sure. */
const SAME_PACKAGE = 0.9
const MAX_AMBIGUOUS = 5
/** A call on an interface-typed receiver goes to one of its implementations: each gets this confidence, up to MAX_DISPATCH of them. */
const DISPATCH = 0.6
const MAX_DISPATCH = 8
const MAX_DEPTH = 12

/** Languages where a bare call never means a method of the enclosing class. */
const EXPLICIT_RECEIVER = new Set(['typescript', 'tsx', 'javascript', 'python', 'go', 'rust'])
const SELF = new Set(['this', 'self', 'Self', 'cls'])
const CALLABLE = new Set(['function', 'method', 'class', 'struct'])
const TYPE_KINDS = new Set(['class', 'interface', 'struct', 'trait', 'enum'])
const CALLABLE_BODY = new Set(['function', 'method'])

interface Sym {
  file: Unit
  index: number
  id: string
  s: ExtractedSymbol
}

interface Unit {
  f: IndexedFile
  ids: string[]
  syms: Sym[]
  family: string
  resolver: string | null
  /** Resolved imports of the file: the targets of each statement (resolved on first use: importsOf). */
  imports: Array<{ record: ExtractedImport; targets: string[] }> | null
  byName: Map<string, Sym[]>
  byQualified: Map<string, Sym[]>
  /** Typed locals by the index of the symbol they are declared in (-1: the module), then by name. */
  locals: Map<number, Map<string, ExtractedBinding[]>>
  /** A test file (src/parse/classify.ts): no call reaches its definitions by a guess on the name. */
  isTest: boolean
  /**
   * A JS/TS module (it imports or exports): every name it uses is its own, imported or global,
   * so a type it neither defines nor imports is a global one (`Response`, `Map`), never a
   * repository type of that name in a file it does not import.
   */
  scoped: boolean
}

/** A field's declared type, read in the file that declares it. */
interface Field {
  file: Unit
  type: string
}

/** What a receiver's declared type resolved to: types of the repository, or a type from outside it. */
type ReceiverType = { syms: Sym[]; confidence: number } | 'external' | null

type Binding = { kind: 'module'; targets: string[] } | { kind: 'symbols'; syms: Sym[] } | { kind: 'external' }

/** The type a receiver is known to have, at most this many fields deep (`this.a.b.c`). */
const MAX_FIELD_CHAIN = 4
/**
 * `x.f.m()` where only inference knows `x` (an untyped callback parameter, `(c) => c.req.json()`)
 * and one class of the repository declares a field or getter `f` with a stated type: `m` of that
 * type. On hono every such edge the TypeScript compiler could check was right.
 */
const UNIQUE_FIELD = 0.7
/**
 * `x.m()` where only inference knows `x` (`app.get('/', (c) => c.body())`), and the parameters and
 * variables the repository states a type for under the name `x` mostly state one type: `m` of it.
 */
const NAME_TYPE = 0.65
const NAME_TYPE_VOTES = 3
const NAME_TYPE_SHARE = 0.9

const family = (language: string) => (language === 'typescript' || language === 'tsx' || language === 'javascript' ? 'js' : language)

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

/**
 * The code graph of `files`. With `reuse`, only the calls, imports and `<module>`s of the `dirty`
 * files are resolved, the other files' taken from `previous` (the graph of the files before):
 * exact when nothing else changed that another file's resolution reads (resolutionFace), which
 * the caller checks. Heritage and entries are always resolved whole (they are few).
 */
export function buildCodeGraph(files: readonly IndexedFile[], registry: LanguageRegistry, reuse?: { previous: CodeGraph; dirty: ReadonlySet<string> }): CodeGraph {
  const modules = new ModuleResolver(files)
  const units = new Map<string, Unit>()
  const topByName = new Map<string, Sym[]>()
  const methodsByName = new Map<string, Sym[]>()
  const typesByName = new Map<string, Sym[]>()
  /** Every name the repository defines, per language family: a type named nowhere here is from outside. */
  const definedNames = new Set<string>()
  for (const f of files) {
    if (!f.language) continue
    const ids = symbolIds(f)
    const u: Unit = { f, ids, syms: [], family: family(f.language), resolver: registry.get(f.language)?.imports?.resolver ?? null, imports: null, byName: new Map(), byQualified: new Map(), locals: new Map(), isTest: isTestPath(f.path), scoped: family(f.language) === 'js' && ((f.imports?.length ?? 0) > 0 || (f.exports?.length ?? 0) > 0 || f.symbols.some((s) => s.exported)) }
    f.symbols.forEach((s, index) => {
      const sym = { file: u, index, id: ids[index], s }
      u.syms.push(sym)
      push(u.byName, s.name, sym)
      push(u.byQualified, s.qualifiedName, sym)
      const key = `${u.family}\0${s.name}`
      definedNames.add(key)
      // a method of an object literal inside a function is reached through that object only
      if (s.kind === 'method') {
        if (s.parentIndex === null || !CALLABLE_BODY.has(f.symbols[s.parentIndex].kind)) push(methodsByName, key, sym)
      }
      else if (s.parentIndex === null && CALLABLE.has(s.kind)) push(topByName, key, sym)
      if (TYPE_KINDS.has(s.kind)) push(typesByName, key, sym)
    })
    units.set(f.path, u)
  }
  // a file's imports are resolved when something asks (re-resolving a few files asks for few)
  const importsOf = (u: Unit): NonNullable<Unit['imports']> =>
    (u.imports ??= u.resolver ? (u.f.imports ?? []).map((record) => ({ record, targets: modules.resolve(u.resolver as never, u.f.path, record.source) })) : [])

  const top = (u: Unit, name: string) => (u.byName.get(name) ?? []).filter((s) => s.s.parentIndex === null)

  /** What `name` means when imported from the module file `u` (its exports, re-exports, barrels). */
  const exportOf = (u: Unit | undefined, name: string, depth: number): Sym[] => {
    if (!u || depth > MAX_DEPTH) return []
    if (name !== 'default') {
      const direct = top(u, name)
      if (direct.length) return direct
      const qualified = u.byQualified.get(name)
      if (qualified?.length) return qualified
    }
    for (const e of u.f.exports ?? []) {
      if (e.exported !== name) continue
      const local = top(u, e.local)
      if (local.length) return local
      const bound = bindingOf(u, e.local, depth + 1)
      if (bound.kind === 'symbols') return bound.syms
    }
    for (const { record, targets } of importsOf(u)) {
      // a Python or Rust module's imported names are reachable from it (`pub use` re-exports)
      const viaBinding = record.reexport || u.resolver === 'python' || u.resolver === 'rust'
      if (!viaBinding) continue
      for (const b of record.bindings) {
        if (b.local !== name) continue
        if (b.imported === '*') continue
        for (const t of targets) {
          const hit = exportOf(units.get(t), b.imported, depth + 1)
          if (hit.length) return hit
        }
      }
      if (record.reexport && record.bindings.length === 0) {
        for (const t of targets) {
          const hit = exportOf(units.get(t), name, depth + 1)
          if (hit.length) return hit
        }
      }
    }
    return []
  }

  /** What a local name of `u` is bound to by its imports. */
  const bindingOf = (u: Unit, local: string, depth = 0): Binding | { kind: 'none' } => {
    for (const { record, targets } of importsOf(u)) {
      for (const b of bindingsOf(u, record)) {
        if (b.local !== local) continue
        if (targets.length === 0) return { kind: 'external' }
        if (b.imported === '*') return { kind: 'module', targets }
        const syms = targets.flatMap((t) => exportOf(units.get(t), b.imported, depth + 1))
        if (syms.length) return { kind: 'symbols', syms }
        // Python `from pkg import mod`, Rust `use crate::a::b`: a submodule, not a name of the package
        if (u.resolver === 'python' || u.resolver === 'rust') {
          const sub = u.resolver === 'rust' ? modules.resolve('rust', u.f.path, `${record.source}::${b.imported}`) : modules.resolve('python', u.f.path, `${record.source}${record.source.endsWith('.') ? '' : '.'}${b.imported}`)
          if (sub.length) return { kind: 'module', targets: sub }
        }
        return { kind: 'external' }
      }
    }
    return { kind: 'none' }
  }

  /** Bindings a statement makes; Go and Java bind the package / class name implicitly. */
  const bindingsOf = (u: Unit, record: ExtractedImport): ExtractedImport['bindings'] => {
    if (record.bindings.length > 0 || record.reexport) return record.bindings
    const last = record.source.split(/[/.]/).filter(Boolean)
    if (u.resolver === 'go') return [{ local: (/^v\d+$/.test(last[last.length - 1] ?? '') ? last[last.length - 2] : last[last.length - 1]) ?? '', imported: '*' }]
    if (u.resolver === 'java' && last.length > 0) {
      const name = last[last.length - 1]
      // `import a.b.C` binds C; `import static a.b.C.m` binds m (C.m in C.java)
      return /^\p{Lu}/u.test(name) ? [{ local: name, imported: name }] : [{ local: name, imported: `${last[last.length - 2]}.${name}` }]
    }
    return []
  }

  /** Members of a class; a Go type's methods may sit in any file of its package. */
  const membersOf = (cls: Sym, name: string): Sym[] => {
    const qualified = `${cls.s.qualifiedName}.${name}`
    const own = cls.file.byQualified.get(qualified) ?? []
    if (own.length || cls.file.resolver !== 'go' || cls.s.parentIndex !== null) return own
    return modules.siblings(cls.file.f.path).flatMap((p) => (p === cls.file.f.path ? [] : (units.get(p)?.byQualified.get(qualified) ?? [])))
  }

  /** A type name seen from `u`: local, imported, same package, unique in the repository. */
  const typeNamed = (u: Unit, name: string): { syms: Sym[]; reason: CallReason; confidence: number } | null => {
    const local = top(u, name).filter((s) => TYPE_KINDS.has(s.s.kind))
    if (local.length) return { syms: local, reason: 'same-scope', confidence: CONFIDENCE['same-scope'] }
    const bound = bindingOf(u, name)
    if (bound.kind === 'symbols') return { syms: bound.syms, reason: 'import-resolved', confidence: CONFIDENCE['import-resolved'] }
    if (bound.kind !== 'none') return null
    const pkg = samePackage(u, name).filter((s) => TYPE_KINDS.has(s.s.kind))
    if (pkg.length) return { syms: pkg, reason: 'same-scope', confidence: SAME_PACKAGE }
    if (u.scoped) return null
    const all = typesByName.get(`${u.family}\0${name}`) ?? []
    if (all.length === 1) return { syms: all, reason: 'unique-name', confidence: CONFIDENCE['unique-name'] }
    return null
  }

  const samePackage = (u: Unit, name: string): Sym[] => {
    if (u.resolver !== 'go' && u.resolver !== 'java') return []
    return modules.siblings(u.f.path).filter((p) => p !== u.f.path).flatMap((p) => {
      const other = units.get(p)
      return other && other.family === u.family ? top(other, name) : []
    })
  }

  // heritage first: `this.m()` looks through the classes a class extends
  const parents = new Map<string, Sym[]>()
  /** The reverse: the classes and interfaces that extend or implement a type. */
  const subtypes = new Map<string, Sym[]>()
  const out: CodeGraph = { imports: [], calls: [], extends: [], implements: [], modules: [], entries: [] }
  for (const u of units.values()) {
    for (const ref of u.f.references ?? []) {
      if (ref.kind === 'call' || ref.from < 0) continue
      const found = ref.receiver && ref.receiver !== '?' ? qualifiedType(u, ref.receiver, ref.name) : typeNamed(u, ref.name)
      if (!found || found.syms.length !== 1) continue
      const from = u.ids[ref.from]
      const to = found.syms[0].id
      if (from === to) continue
      ;(ref.kind === 'extends' ? out.extends : out.implements).push({ from, to })
      if (ref.kind === 'extends') push(parents, from, found.syms[0])
      push(subtypes, to, u.syms[ref.from])
    }
  }

  /** `ns.Base` in a heritage clause or `pkg.Type`: a type exported by an imported module. */
  function qualifiedType(u: Unit, receiver: string, name: string): { syms: Sym[]; reason: CallReason; confidence: number } | null {
    const bound = bindingOf(u, receiver)
    if (bound.kind !== 'module') return null
    const syms = bound.targets.flatMap((t) => exportOf(units.get(t), name, 0)).filter((s) => TYPE_KINDS.has(s.s.kind))
    return syms.length ? { syms, reason: 'import-resolved', confidence: CONFIDENCE['import-resolved'] } : null
  }

  const enclosingType = (u: Unit, index: number): Sym | null => {
    for (let i: number | null = index; i !== null && i >= 0; i = u.f.symbols[i].parentIndex) {
      if (TYPE_KINDS.has(u.f.symbols[i].kind)) return u.syms[i]
      // a Go or Rust method qualified by its receiver type: `Server.Start`
      const dot = u.f.symbols[i].qualifiedName.lastIndexOf('.')
      if (u.f.symbols[i].kind === 'method' && u.f.symbols[i].parentIndex === null && dot > 0) {
        const owner = (u.byQualified.get(u.f.symbols[i].qualifiedName.slice(0, dot)) ?? []).find((s) => TYPE_KINDS.has(s.s.kind))
        if (owner) return owner
      }
    }
    return null
  }

  /** What `get` finds on `cls` or on the classes it extends (nearest first). */
  const inHierarchy = <T>(cls: Sym, get: (c: Sym) => T[], skipSelf: boolean): T[] => {
    const seen = new Set<string>()
    let layer = skipSelf ? (parents.get(cls.id) ?? []) : [cls]
    for (let depth = 0; layer.length > 0 && depth < MAX_DEPTH; depth++) {
      const hits = layer.flatMap(get)
      if (hits.length) return hits
      layer = layer.flatMap((c) => (seen.has(c.id) ? [] : (seen.add(c.id), parents.get(c.id) ?? [])))
    }
    return []
  }
  /**
   * The methods `name` of the types below `type` (implementations of an interface's method,
   * overrides of an abstract one), nearest first: where a call on a receiver of that type may go.
   */
  const implementationsOf = (type: Sym, name: string): Sym[] => {
    const seen = new Set<string>([type.id])
    const out: Sym[] = []
    let layer = subtypes.get(type.id) ?? []
    for (let depth = 0; layer.length > 0 && depth < MAX_DEPTH; depth++) {
      layer = layer.filter((c) => !seen.has(c.id) && (seen.add(c.id), true))
      out.push(...layer.flatMap((c) => membersOf(c, name)))
      layer = layer.flatMap((c) => subtypes.get(c.id) ?? [])
    }
    return out
  }
  /** A method `name` of `cls` or of the classes it extends. */
  const methodInHierarchy = (cls: Sym, name: string, skipSelf: boolean): Sym[] => inHierarchy(cls, (c) => membersOf(c, name), skipSelf)

  // typed locals by scope; typed fields by the class or struct that declares them
  const fields = new Map<string, Map<string, Field[]>>()
  /** The classes that declare a field of that name, by language family and name. */
  const fieldOwners = new Map<string, Map<string, Field>>()
  for (const u of units.values()) {
    for (const b of u.f.bindings ?? []) {
      if (!b.field) {
        push(u.locals.get(b.from) ?? u.locals.set(b.from, new Map()).get(b.from)!, b.name, b)
        continue
      }
      const owner = b.from >= 0 ? enclosingType(u, b.from) : null
      if (!owner) continue
      push(fields.get(owner.id) ?? fields.set(owner.id, new Map()).get(owner.id)!, b.name, { file: u, type: b.type })
      const owners = fieldOwners.get(`${u.family}\0${b.name}`) ?? fieldOwners.set(`${u.family}\0${b.name}`, new Map()).get(`${u.family}\0${b.name}`)!
      if (!owners.has(owner.id)) owners.set(owner.id, { file: u, type: b.type })
    }
  }
  /**
   * The type the repository states for a name of its parameters and variables, by language family
   * and name: each file votes once for each type it states for the name (statedTypes); one of the
   * repository's types wins when at least NAME_TYPE_VOTES files and NAME_TYPE_SHARE of the votes
   * name it (the others name other types, builtins or types from outside).
   */
  const typedLocals = new Map<string, Array<{ file: Unit; type: string }>>()
  for (const u of units.values()) for (const [name, type] of statedTypes(u.f)) push(typedLocals, `${u.family}\0${name}`, { file: u, type })
  const nameTypes = new Map<string, Sym | null>()
  const typeOfName = (u: Unit, name: string): Sym | null => {
    const key = `${u.family}\0${name}`
    if (nameTypes.has(key)) return nameTypes.get(key)!
    const stated = typedLocals.get(key) ?? []
    const votes = new Map<string, { sym: Sym | null; files: Set<string> }>()
    for (const { file, type } of stated) {
      const t = typeRef(file, type)
      const sym = t !== null && t !== 'external' && t.syms.length === 1 ? t.syms[0] : null
      const vote = sym?.id ?? `?${type}`
      ;(votes.get(vote) ?? votes.set(vote, { sym, files: new Set() }).get(vote)!).files.add(file.f.path)
    }
    const total = [...votes.values()].reduce((n, v) => n + v.files.size, 0)
    const best = [...votes.values()].sort((a, b) => b.files.size - a.files.size)[0]
    const found = best?.sym && best.files.size >= NAME_TYPE_VOTES && best.files.size >= NAME_TYPE_SHARE * total ? best.sym : null
    nameTypes.set(key, found)
    return found
  }
  /** The stated type of the field `name` when one class alone declares it. */
  const uniqueField = (u: Unit, name: string): Field | null => {
    const owners = fieldOwners.get(`${u.family}\0${name}`)
    return owners?.size === 1 ? owners.values().next().value! : null
  }
  const fieldOf = (cls: Sym, name: string): Field[] => inHierarchy(cls, (c) => fields.get(c.id)?.get(name) ?? [], false)

  /**
   * The declared type of the local `name` seen from the symbol `from` at `line`: the innermost
   * scope that declares it, its nearest declaration above the line. Where members need an
   * explicit receiver, a class body's names are not the methods' locals.
   */
  const localBinding = (u: Unit, name: string, from: number, line: number): ExtractedBinding | null => {
    const explicit = EXPLICIT_RECEIVER.has(u.f.language ?? '')
    const scopes: number[] = []
    for (let i: number | null = from; i !== null && i >= 0; i = u.f.symbols[i].parentIndex) scopes.push(i)
    scopes.push(-1)
    for (const scope of scopes) {
      if (explicit && scope >= 0 && TYPE_KINDS.has(u.f.symbols[scope].kind)) continue
      const list = u.locals.get(scope)?.get(name)
      if (list?.length) return list.filter((b) => b.line <= line).at(-1) ?? list[0]
    }
    return null
  }

  /**
   * A declared type, read in file `u`: types of the repository, or 'external' when it is imported
   * from outside or defined nowhere in the repository (a builtin such as `Map`), or null when
   * unknown. A name shaped like a type parameter (`T`, `TValue`) is unknown, not external.
   */
  const typeRef = (u: Unit, type: string): ReceiverType => {
    const dot = type.lastIndexOf('.')
    const name = type.slice(dot + 1)
    const found = dot > 0 ? qualifiedType(u, type.slice(0, dot), name) : typeNamed(u, name)
    if (found) return { syms: found.syms, confidence: Math.min(found.confidence, CONFIDENCE['receiver-type']) }
    const head = type.split('.')[0]
    const bound = bindingOf(u, head)
    if (bound.kind === 'external') return 'external'
    if (u.scoped && bound.kind === 'none' && (u.byName.get(head) ?? []).length === 0 && !/^[A-Z]\d*$|^T[A-Z]/.test(name)) return 'external'
    return definedNames.has(`${u.family}\0${name}`) || /^[A-Z]\d*$|^T[A-Z]/.test(name) ? null : 'external'
  }

  /** The type of a receiver (`x`, `this.f`, `x.f.g`) from the bindings of its variable and fields. */
  const receiverType = (u: Unit, receiver: string, from: number, line: number): ReceiverType => {
    const [head, ...chain] = receiver.split('.')
    let path = chain
    if (path.length > MAX_FIELD_CHAIN) return null
    let current: ReceiverType = null
    const cls = from >= 0 ? enclosingType(u, from) : null
    if (SELF.has(head)) {
      if (cls) current = { syms: [cls], confidence: CONFIDENCE['receiver-type'] }
    } else {
      const local = localBinding(u, head, from, line)
      // Java, Kotlin, C#: a field of the enclosing class needs no `this.`
      const field = !local && cls && !EXPLICIT_RECEIVER.has(u.f.language ?? '') ? fieldOf(cls, head)[0] : undefined
      if (local) current = typeRef(u, local.type)
      else if (field) current = typeRef(field.file, field.type)
      // a JS/TS name only inference types (no import, no definition of that name in the file)
      const inferred = u.family === 'js' && bindingOf(u, head).kind === 'none' && !u.byName.has(head)
      // the type the repository states for that name, when no declaration in scope states one
      const named = current === null && !local && inferred ? typeOfName(u, head) : null
      if (named) current = { syms: [named], confidence: NAME_TYPE }
      // or its first field's, if one class alone declares it
      if (current === null && path.length > 0 && inferred) {
        const unique = uniqueField(u, path[0])
        const type = unique ? typeRef(unique.file, unique.type) : null
        if (type !== null && type !== 'external') {
          current = { syms: type.syms, confidence: Math.min(type.confidence, UNIQUE_FIELD) }
          path = path.slice(1)
        }
      }
    }
    for (const part of path) {
      if (current === null || current === 'external') return current
      const field = current.syms.flatMap((c) => fieldOf(c, part))[0]
      if (!field) return null
      const next: ReceiverType = typeRef(field.file, field.type)
      current = next === null || next === 'external' ? next : { syms: next.syms, confidence: Math.min(next.confidence, current.confidence) }
    }
    return current
  }

  /** Candidates of a guess by name: nothing calls into a test file it does not import. */
  const guessable = (candidates: Sym[] | undefined): Sym[] => (candidates ?? []).filter((c) => !c.file.isTest)

  const byUniqueness = (candidates: Sym[]): { syms: Sym[]; reason: CallReason } | null => {
    if (candidates.length === 1) return { syms: candidates, reason: 'unique-name' }
    if (candidates.length > 1 && candidates.length <= MAX_AMBIGUOUS) return { syms: candidates, reason: 'ambiguous' }
    return null
  }

  for (const u of units.values()) {
    if (reuse && !reuse.dirty.has(u.f.path)) continue
    const seen = new Set<string>()
    let moduleCalls = false
    const emit = (fromIndex: number, syms: Sym[], reason: CallReason, line: number, confidence = CONFIDENCE[reason]) => {
      const from = fromIndex >= 0 ? u.ids[fromIndex] : moduleSymbolId(u.f.path)
      for (const t of syms) {
        if (!CALLABLE.has(t.s.kind) || t.id === from) continue
        const key = `${from}\0${t.id}\0${line}`
        if (seen.has(key)) continue
        seen.add(key)
        out.calls.push({ from, to: t.id, confidence: reason === 'ambiguous' ? Math.round((confidence / syms.length) * 100) / 100 : confidence, reason, line })
      }
    }
    // the calls (a file cache written before they were kept apart has them among the references)
    for (const ref of u.f.calls ?? u.f.references ?? []) {
      if (ref.kind !== 'call') continue
      if (ref.from < 0) moduleCalls = true
      const r = resolveCall(u, ref.name, ref.receiver, ref.from, ref.line)
      if (r && r !== 'unresolved') {
        emit(ref.from, r.syms, r.reason, ref.line, r.confidence)
        if (r.overrides) emit(ref.from, r.overrides, r.reason, ref.line, DISPATCH)
      }
    }
    if (moduleCalls) out.modules.push({ path: u.f.path, id: moduleSymbolId(u.f.path), lines: u.f.lines })
    const targets = new Set(importsOf(u).flatMap((i) => i.targets))
    for (const to of [...targets].sort()) out.imports.push({ from: u.f.path, to })
  }

  /** What a call means; `overrides`: where it may go instead (`this.m()` on a subclass), each with the DISPATCH confidence. */
  function resolveCall(u: Unit, name: string, receiver: string | null, from: number, line: number): { syms: Sym[]; reason: CallReason; confidence?: number; overrides?: Sym[] } | 'unresolved' | null {
    if (receiver === null) {
      // enclosing scopes (nested functions), then the top level, then the class's own methods
      const named = u.byName.get(name) ?? []
      for (let i: number | null = from; i !== null && i >= 0; i = u.f.symbols[i].parentIndex) {
        const nested = named.filter((s) => s.s.parentIndex === i && s.s.kind !== 'method')
        if (nested.length) return { syms: nested, reason: 'same-scope' }
      }
      const local = named.filter((s) => s.s.parentIndex === null && s.s.kind !== 'method')
      if (local.length) return { syms: local, reason: 'same-scope' }
      if (from >= 0 && !EXPLICIT_RECEIVER.has(u.f.language ?? '')) {
        const cls = enclosingType(u, from)
        const own = cls ? methodInHierarchy(cls, name, false) : []
        if (own.length) return { syms: own, reason: 'receiver-type' }
      }
      const bound = bindingOf(u, name)
      if (bound.kind === 'symbols') return { syms: bound.syms, reason: 'import-resolved' }
      if (bound.kind !== 'none') return null
      const pkg = samePackage(u, name)
      if (pkg.length) return { syms: pkg, reason: 'same-scope', confidence: SAME_PACKAGE }
      for (const { record, targets } of importsOf(u)) {
        if (record.bindings.length > 0 || (u.resolver !== 'python' && u.resolver !== 'java' && u.resolver !== 'rust')) continue
        const wild = targets.flatMap((t) => exportOf(units.get(t), name, 0))
        if (wild.length) return { syms: wild, reason: 'import-resolved' }
      }
      const guess = byUniqueness(guessable(topByName.get(`${u.family}\0${name}`)))
      if (guess?.reason === 'unique-name' && u.scoped) return { ...guess, confidence: GUESS_UNBOUND }
      return guess ?? (topByName.has(`${u.family}\0${name}`) ? 'unresolved' : null)
    }
    const typed = receiver === '?' || SELF.has(receiver) || receiver === 'super' ? null : receiverType(u, receiver, from, line)
    if (typed === 'external') return null
    if (typed) {
      const hits = typed.syms.flatMap((c) => methodInHierarchy(c, name, false))
      if (hits.length) return { syms: hits, reason: 'receiver-type', confidence: typed.confidence }
      // an interface (its methods are no symbols) or a base without the method: the implementations
      const below = typed.syms.flatMap((c) => implementationsOf(c, name))
      if (below.length > 0 && below.length <= MAX_DISPATCH) return { syms: below, reason: 'receiver-type', confidence: Math.min(typed.confidence, DISPATCH) }
    }
    // Rust `crate::a::f()`, `super::f()`, `self::f()`, `net::client::f()`: a path of modules
    if (u.resolver === 'rust' && (/^(crate|super|self)(\.|$)/.test(receiver) || receiver.includes('.')) && !(receiver === 'self' && from >= 0 && enclosingType(u, from))) {
      const targets = receiver === 'self' ? [u.f.path] : modules.resolve('rust', u.f.path, receiver.replaceAll('.', '::'))
      const syms = targets.flatMap((t) => exportOf(units.get(t), name, 0))
      if (syms.length) return { syms, reason: 'import-resolved' }
    }
    if (SELF.has(receiver) || receiver === 'super') {
      const cls = from >= 0 ? enclosingType(u, from) : null
      const hits = cls ? methodInHierarchy(cls, name, receiver === 'super') : []
      // `this` may be a subclass that overrides the method (an abstract one always is): each override below the class
      const overrides = cls && hits.length && receiver !== 'super' ? implementationsOf(cls, name) : []
      if (hits.length) return { syms: hits, reason: 'receiver-type', ...(overrides.length > 0 && overrides.length <= MAX_DISPATCH ? { overrides } : {}) }
    } else if (receiver !== '?') {
      const bound = bindingOf(u, receiver)
      if (bound.kind === 'external') return null
      if (bound.kind === 'module') {
        const syms = bound.targets.flatMap((t) => exportOf(units.get(t), name, 0))
        return syms.length ? { syms, reason: 'import-resolved' } : null
      }
      const type = bound.kind === 'symbols' ? { syms: bound.syms.filter((s) => TYPE_KINDS.has(s.s.kind)), reason: 'import-resolved' as CallReason, confidence: undefined } : typeNamed(u, receiver)
      if (type && type.syms.length) {
        const hits = type.syms.flatMap((c) => methodInHierarchy(c, name, false))
        if (hits.length) return { syms: hits, reason: type.reason === 'unique-name' ? 'receiver-type' : type.reason }
      }
    }
    const candidates = guessable(methodsByName.get(`${u.family}\0${name}`))
    const r = byUniqueness(candidates)
    if (r) return r.reason === 'unique-name' ? { ...r, confidence: GUESS_METHOD } : r
    return candidates.length > 0 ? 'unresolved' : null
  }

  // a handler is resolved like a call from where it is registered; an ambiguous name makes no entry
  for (const u of units.values()) {
    for (const e of u.f.entries ?? []) {
      const r = e.name === null ? null : resolveCall(u, e.name, e.receiver, e.from, e.line)
      const symbol = e.name === null ? (e.from >= 0 ? u.ids[e.from] : moduleSymbolId(u.f.path)) : r && r !== 'unresolved' && r.reason !== 'ambiguous' && r.syms.length === 1 ? r.syms[0].id : null
      if (symbol) out.entries.push({ symbol, kind: e.kind, label: e.label, line: e.line })
    }
  }
  if (reuse) {
    const dirtyFrom = new Set<string>()
    for (const p of reuse.dirty) {
      const u = units.get(p)
      if (!u) continue
      for (const id of u.ids) dirtyFrom.add(id)
      dirtyFrom.add(moduleSymbolId(p))
    }
    // in the order a whole build gives: calls sorted below, modules and imports by file (imports stay sorted within one)
    for (const e of reuse.previous.calls) if (!dirtyFrom.has(e.from)) out.calls.push(e)
    for (const m of reuse.previous.modules) if (!reuse.dirty.has(m.path)) out.modules.push(m)
    for (const i of reuse.previous.imports) if (!reuse.dirty.has(i.from)) out.imports.push(i)
    const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
    out.modules.sort(byPath)
    out.imports.sort((a, b) => byPath({ path: a.from }, { path: b.from }))
  }
  out.calls.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.line - b.line || (a.to < b.to ? -1 : a.to > b.to ? 1 : 0)))
  return out
}

/** The file → file imports alone (the communities' structure). */
export function fileImports(files: readonly IndexedFile[], registry: LanguageRegistry): Array<{ from: string; to: string }> {
  const modules = new ModuleResolver(files)
  const out = new Map<string, { from: string; to: string }>()
  for (const f of files) {
    const resolver = f.language ? registry.get(f.language)?.imports?.resolver : undefined
    if (!resolver) continue
    for (const record of f.imports ?? []) for (const to of modules.resolve(resolver, f.path, record.source)) out.set(`${f.path}\0${to}`, { from: f.path, to })
  }
  return [...out.values()].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : 0))
}


/** The types a file states for the names of its parameters and variables (not fields), each pair once, sorted. */
function statedTypes(f: IndexedFile): Array<[string, string]> {
  const pairs = new Set((f.bindings ?? []).filter((b) => !b.field).map((b) => `${b.name}\0${b.type}`))
  return [...pairs].sort().map((p) => p.split('\0') as [string, string])
}

/**
 * What of a file the resolution of other files reads: its symbols' names, kinds, nesting and
 * exports, its heritage, its typed fields, the types it states for the names of its parameters
 * and variables (statedTypes), its imports, exports and module configuration. Two versions with
 * the same face resolve every other file alike (lines, bodies, calls and which local has which
 * type are its own business), so an update re-resolves just the files that changed.
 */
export function resolutionFace(f: IndexedFile): string {
  return JSON.stringify([
    f.language,
    f.symbols.map((s) => [s.name, s.qualifiedName, s.kind, s.exported, s.parentIndex]),
    (f.references ?? []).filter((r) => r.kind !== 'call').map((r) => [r.kind, r.name, r.receiver, r.from]),
    (f.bindings ?? []).filter((b) => b.field).map((b) => [b.name, b.type, b.from]),
    statedTypes(f),
    (f.imports ?? []).map((i) => [i.source, i.bindings, i.reexport]),
    f.exports ?? [],
    f.config ?? null,
  ])
}
