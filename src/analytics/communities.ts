/**
 * Symbol communities: groups of symbols that belong together, found by Louvain modularity
 * clustering over one weighted graph that mixes history (co-change) with structure (containment,
 * same-file siblings, imports, calls). Pure: the same input gives the same communities, ids and labels.
 * See docs/communities.md for the weights and the reasoning behind them.
 */
import louvainModule from 'graphology-communities-louvain'
import type { AnalyticsConfig, AnalyticsInput, CoChange, Community } from './types.js'

// The package is CommonJS (`module.exports = fn`) but its .d.ts says `export default`: under
// NodeNext TypeScript types the default import as the module object while Node (and esbuild)
// hand over the function itself. Accept both shapes so neither tsc nor a bundler breaks it.
type Louvain = typeof louvainModule.default
const louvainInterop = louvainModule as unknown as Louvain | { default: Louvain }
const louvain: Louvain = typeof louvainInterop === 'function' ? louvainInterop : louvainInterop.default

/** Symbol → its enclosing symbol: a class and its methods are one unit of code. */
export const CONTAINMENT_WEIGHT = 4
/** Each top-level symbol → its file's anchor node: siblings belong together unless history splits them. */
export const SIBLING_WEIGHT = 1
/** File anchor ↔ file anchor, once per imported file pair: a light pull between modules that use each other. */
export const IMPORT_WEIGHT = 0.5
/** Symbol ↔ symbol, once per pair that calls (either way), times the best call's confidence: code that calls belongs together. */
export const CALL_WEIGHT = 1
/** Calls below this confidence (the guesses by name: 0.4 or less) say nothing about structure. */
export const CALL_MIN_CONFIDENCE = 0.5
/** A co-change pair at degree 100 with at least COCHANGE_FULL_SHARED shared revisions. */
export const COCHANGE_WEIGHT = 2
/** Shared revisions at which a co-change pair counts fully; fewer scale the weight down linearly. */
export const COCHANGE_FULL_SHARED = 10
/** Louvain's random walk order comes from this seed, never from Math.random. */
export const LOUVAIN_SEED = 0x9e3779b9
/** A label's file or folder must hold at least this share of the members. */
export const LABEL_SHARE = 0.6
/** A label's name word must be in at least this share of the members' names. */
export const STEM_SHARE = 0.25
/** Shorter name words ("a", "is") say nothing. */
export const MIN_STEM_LENGTH = 3

export interface CommunityInput {
  symbols: AnalyticsInput['symbols']
  files: AnalyticsInput['files']
  symbolCoChange: CoChange[]
  /** File-level imports (paths at HEAD), when the parser provides them. */
  imports?: Array<{ from: string; to: string }>
  /** Symbol-level calls of the code graph, with their confidence. */
  calls?: Array<{ from: string; to: string; confidence: number }>
}

export interface CommunityResult {
  communities: Community[]
  /** symbol id → community id; symbols of folded communities are absent. */
  memberOf: Map<string, string>
}

/** Weight of one co-change pair: coupling strength (degree) scaled by how much evidence backs it (shared). */
export function coChangeWeight(pair: Pick<CoChange, 'shared' | 'degree'>): number {
  return COCHANGE_WEIGHT * (Math.min(100, Math.max(0, pair.degree)) / 100) * Math.min(1, pair.shared / COCHANGE_FULL_SHARED)
}

export function detectCommunities(input: CommunityInput, config: AnalyticsConfig): CommunityResult {
  // A repeated id (the first in the input wins) would be a second node with the same key. The ids
  // are sorted as strings (code-unit order, as compare; without a comparator called per pair).
  const byId = new Map<string, SymbolRow>()
  for (const s of input.symbols) if (!byId.has(s.id)) byId.set(s.id, s)
  const symbols = [...byId.keys()].sort().map((id) => byId.get(id)!)
  const { graph, index } = buildGraph(input, symbols, byId)

  // the lists as the graph Louvain reads (WeightedGraph: the only methods it calls)
  const detailed = louvain.detailed(graph as unknown as Parameters<typeof louvain.detailed>[0], { getEdgeWeight: 'weight', rng: mulberry32(LOUVAIN_SEED) })
  // Modularity ≤ 0 means no split beats "everything together" (one tightly coupled component,
  // typical of a small repository); Louvain then stops at an arbitrary tie such as one symbol per
  // community. Whole connected components are the honest answer there.
  const byNode: ArrayLike<number> = detailed.modularity > 0 ? graph.byIndex(detailed.communities) : connectedComponents(graph)
  const communityOf = (id: string): number => byNode[index.get(id)!]
  // sorted, so that float sums cannot depend on the input order
  const cohesionOf = cohesions([...input.symbolCoChange].sort((x, y) => compare(x.a, y.a) || compare(x.b, y.b)), communityOf, byId)

  const communityAt = new Int32Array(symbols.length)
  const groups = new Map<number, SymbolRow[]>()
  symbols.forEach((s, k) => {
    const c = (communityAt[k] = communityOf(s.id))
    const members = groups.get(c)
    if (members) members.push(s)
    else groups.set(c, [s])
  })

  const kept = [...groups.entries()]
    .filter(([, members]) => members.length >= Math.max(1, config.minCommunitySize))
    .map(([louvainId, members]) => ({ louvainId, members, label: baseLabel(members), cohesion: cohesionOf.get(louvainId) ?? 0 }))
    // members are sorted by id, so members[0] breaks a size-and-label tie the same way every run
    .sort((x, y) => y.members.length - x.members.length || compare(x.label, y.label) || compare(x.members[0]!.id, y.members[0]!.id))

  const used = new Set<string>()
  const communities: Community[] = []
  const idOf = new Map<number, string>()
  kept.forEach((c, i) => {
    const id = `c${i + 1}`
    let label = c.label
    for (let n = 2; used.has(label); n++) label = `${c.label} (${n})`
    used.add(label)
    communities.push({ id, label, size: c.members.length, cohesion: c.cohesion })
    idOf.set(c.louvainId, id)
  })
  // in id order, as the symbols are
  const memberOf = new Map<string, string>()
  symbols.forEach((s, k) => {
    const id = idOf.get(communityAt[k])
    if (id !== undefined) memberOf.set(s.id, id)
  })
  return { communities, memberOf }
}

/**
 * The weighted graph Louvain runs on, as lists: the nodes in order, each edge's ends (node
 * indexes) and weight in order. graphology-communities-louvain (2.0) reads a graph only to index
 * it (graphology-indices' UndirectedLouvainIndex: its order and size, every node in order with its
 * degree, every edge in order with its weight), so this class gives it those and nothing else:
 * building a graphology graph of git/git's ~15,000 symbols and ~50,000 edges to be read once was
 * ~0.22 s of an update whose co-change pairs changed (more than Louvain itself). The nodes and
 * edges come in the order a graphology graph would give them (insertion order), so the index, and
 * the communities, are the same (test/unit/communities.test.ts compares the two on random graphs).
 */
export class WeightedGraph {
  readonly type = 'undirected'
  readonly multi = false
  readonly selfLoopCount = 0
  private readonly degree: Int32Array
  /**
   * The keys Louvain knows the nodes by: their indexes ("0", "1", …), not their names. The index
   * keeps a node's position in an object by its key, and the result is such an object: V8 holds
   * integer keys as array elements and 50,000 symbol ids as a dictionary (rails/rails: the index
   * took 77 ms of an update's 155 ms of Louvain). `byIndex` gives the result by node index.
   */
  private readonly keys: string[]

  constructor(
    readonly nodes: readonly string[],
    readonly source: Int32Array,
    readonly target: Int32Array,
    readonly weight: Float64Array,
  ) {
    this.degree = new Int32Array(nodes.length)
    for (let e = 0; e < source.length; e++) {
      this.degree[source[e]]++
      this.degree[target[e]]++
    }
    this.keys = nodes.map((_, i) => String(i))
  }

  get order(): number {
    return this.nodes.length
  }

  get size(): number {
    return this.source.length
  }

  forEachNode(fn: (node: string, attributes: Record<string, never>) => void): void {
    const none = {}
    for (const key of this.keys) fn(key, none)
  }

  undirectedDegreeWithoutSelfLoops(node: string): number {
    return this.degree[Number(node)]
  }

  /** Each edge in order; its key and the attributes object are not kept by the index (it reads the weight at once), so one of each serves every edge. */
  forEachEdge(fn: (edge: string, attributes: { weight: number }, source: string, target: string, sourceAttributes: Record<string, never>, targetAttributes: Record<string, never>, undirected: boolean) => void): void {
    const attributes = { weight: 0 }
    const none = {}
    for (let e = 0; e < this.source.length; e++) {
      attributes.weight = this.weight[e]
      fn('', attributes, this.keys[this.source[e]], this.keys[this.target[e]], none, none, true)
    }
  }

  /** What Louvain gave by node key (its communities), by node index. */
  byIndex(byKey: Record<string, number>): Int32Array {
    return Int32Array.from(this.keys, (key) => byKey[key])
  }

  /** Each node's neighbours (node indexes), for the connected components. */
  neighbours(): number[][] {
    const out: number[][] = this.nodes.map(() => [])
    for (let e = 0; e < this.source.length; e++) {
      out[this.source[e]].push(this.target[e])
      out[this.target[e]].push(this.source[e])
    }
    return out
  }

  // what graphology-utils' isGraph checks a graph has (Louvain never calls them)
  addUndirectedEdgeWithKey(): never {
    throw new Error('read-only graph')
  }

  dropNode(): never {
    throw new Error('read-only graph')
  }
}

/** File anchors live in the same graph as symbols; NUL cannot occur in a path or a symbol id. */
const ANCHOR_PREFIX = '\u0000file:'

type SymbolRow = CommunityInput['symbols'][number]

/**
 * One node per symbol and per file with top-level symbols (its anchor), every edge once with the
 * weights of parallel relations summed. Nodes and edges are listed sorted, because that is the
 * order Louvain walks them in. Edges are keyed by node index pairs while summed, not strings: at
 * 20k symbols string keys cost more than Louvain itself.
 */
function buildGraph(input: CommunityInput, symbols: SymbolRow[], byId: Map<string, SymbolRow>): { graph: WeightedGraph; index: Map<string, number> } {
  // A parent missing from the input (filtered out upstream) makes the symbol top-level.
  const parentOf = (s: SymbolRow): string | null => (s.parent !== null && s.parent !== s.id && byId.has(s.parent) ? s.parent : null)
  const anchoredFiles = new Set(symbols.filter((s) => parentOf(s) === null).map((s) => s.path))
  // the symbols come sorted by id, and every anchor (NUL first) sorts before every id: only the
  // anchors need sorting (rails/rails' 55,000 names sorted whole took ~25 ms of an update)
  const names = [...[...anchoredFiles].map((path) => ANCHOR_PREFIX + path).sort(compare), ...symbols.map((s) => s.id)]
  if (!names.every((name, i) => i === 0 || compare(names[i - 1], name) <= 0)) names.sort(compare)
  const index = new Map(names.map((name, i) => [name, i]))
  const n = names.length
  const pairKey = (a: string, b: string): number => {
    const i = index.get(a)!
    const j = index.get(b)!
    return i < j ? i * n + j : j * n + i
  }
  const weights = new Map<number, number>()
  const addKey = (key: number, w: number): void => {
    if (w > 0) weights.set(key, (weights.get(key) ?? 0) + w)
  }
  const add = (a: string, b: string, w: number): void => {
    if (a !== b) addKey(pairKey(a, b), w)
  }

  // a file's anchor found by its path (not by a name made again for each of its symbols)
  const anchorOf = new Map([...anchoredFiles].map((path) => [path, index.get(ANCHOR_PREFIX + path)!]))
  for (const s of symbols) {
    const parent = parentOf(s)
    if (parent !== null) add(s.id, parent, CONTAINMENT_WEIGHT)
    else {
      const i = index.get(s.id)!
      const j = anchorOf.get(s.path)!
      addKey(i < j ? i * n + j : j * n + i, SIBLING_WEIGHT)
    }
  }

  // Sorted so that float sums of repeated pairs cannot depend on the input order.
  const pairs = input.symbolCoChange
    .filter((p) => byId.has(p.a) && byId.has(p.b))
    .sort((x, y) => compare(x.a, y.a) || compare(x.b, y.b) || x.shared - y.shared || x.degree - y.degree)
  for (const pair of pairs) add(pair.a, pair.b, coChangeWeight(pair))

  // One edge per imported file pair however many import statements: an import says "related",
  // not "how much". Only present files with an anchor take part.
  const present = new Set(input.files.map((f) => f.path))
  const imported = new Set<number>()
  for (const { from, to } of input.imports ?? []) {
    if (from === to || !present.has(from) || !present.has(to) || !anchoredFiles.has(from) || !anchoredFiles.has(to)) continue
    const key = pairKey(ANCHOR_PREFIX + from, ANCHOR_PREFIX + to)
    if (imported.has(key)) continue
    imported.add(key)
    add(ANCHOR_PREFIX + from, ANCHOR_PREFIX + to, IMPORT_WEIGHT)
  }

  // One edge per calling pair however many call sites, at the best call's confidence; sorted first
  // so that the maximum (and the sum with other relations) cannot depend on the input order.
  const called = new Map<number, number>()
  for (const { from, to, confidence } of input.calls ?? []) {
    if (from === to || confidence < CALL_MIN_CONFIDENCE) continue
    // both ends symbols of the input (the index's other names are file anchors, which no call names)
    const i = index.get(from)
    const j = index.get(to)
    if (i === undefined || j === undefined) continue
    const key = i < j ? i * n + j : j * n + i
    called.set(key, Math.max(called.get(key) ?? 0, confidence))
  }
  for (const key of Float64Array.from(called.keys()).sort()) addKey(key, CALL_WEIGHT * called.get(key)!)

  const keys = Float64Array.from(weights.keys()).sort()
  const source = new Int32Array(keys.length)
  const target = new Int32Array(keys.length)
  const weight = new Float64Array(keys.length)
  keys.forEach((key, e) => {
    const i = Math.floor(key / n)
    source[e] = i
    target[e] = key - i * n
    weight[e] = weights.get(key)!
  })
  return { graph: new WeightedGraph(names, source, target, weight), index }
}

/** Each node's component number (by node index), components numbered in node order. */
function connectedComponents(graph: WeightedGraph): Int32Array {
  const component = new Int32Array(graph.order).fill(-1)
  const neighbours = graph.neighbours()
  let next = 0
  for (let start = 0; start < graph.order; start++) {
    if (component[start] !== -1) continue
    const stack = [start]
    component[start] = next
    while (stack.length > 0) {
      for (const neighbour of neighbours[stack.pop()!]) {
        if (component[neighbour] !== -1) continue
        component[neighbour] = next
        stack.push(neighbour)
      }
    }
    next++
  }
  return component
}

/**
 * Per Louvain community: the co-change weight between two members over the co-change weight
 * incident to its members (coChangeWeight of every pair). Structure (containment, same file,
 * imports) is left out: Louvain keeps it inside by construction, so counting it made every
 * community's cohesion 0.99–1.00. 0 when no member co-changes with anything. Rounded to 0.001.
 */
function cohesions(pairs: CoChange[], communityOf: (id: string) => number, symbols: ReadonlyMap<string, unknown>): Map<number, number> {
  const internal = new Map<number, number>()
  const incident = new Map<number, number>()
  for (const p of pairs) {
    if (!symbols.has(p.a) || !symbols.has(p.b)) continue
    const w = coChangeWeight(p)
    const ca = communityOf(p.a)
    const cb = communityOf(p.b)
    incident.set(ca, (incident.get(ca) ?? 0) + w)
    if (cb !== ca) incident.set(cb, (incident.get(cb) ?? 0) + w)
    else internal.set(ca, (internal.get(ca) ?? 0) + w)
  }
  const result = new Map<number, number>()
  for (const [c, total] of incident) result.set(c, total === 0 ? 0 : Math.round(((internal.get(c) ?? 0) / total) * 1000) / 1000)
  return result
}

/**
 * Where the members live and what they are about: the file holding at least LABEL_SHARE of them,
 * else the deepest folder that does, else the file holding most; then the name words most members
 * share (up to two, each in at least STEM_SHARE of the names and at least two of them), e.g.
 * `packages/runtime-core/src/renderer.ts: patch, mount`.
 */
function baseLabel(members: CommunityInput['symbols']): string {
  const words = sharedWords(members.map((m) => m.qualified_name))
  const where = place(members)
  if (words.length === 0) return where.path
  return where.dominant ? `${where.path}: ${words.join(', ')}` : words.join(', ')
}

/** The file or deepest folder holding LABEL_SHARE of the members (dominant), else the file holding most. */
function place(members: CommunityInput['symbols']): { path: string; dominant: boolean } {
  const need = LABEL_SHARE * members.length
  const perFile = new Map<string, number>()
  for (const m of members) perFile.set(m.path, (perFile.get(m.path) ?? 0) + 1)
  const [topFile, inTop] = [...perFile].sort((x, y) => y[1] - x[1] || compare(x[0], y[0]))[0]!
  if (inTop >= need) return { path: topFile, dominant: true }

  // each folder a member's path lies in: the path up to each of its slashes
  const folders = new Map<string, number>()
  for (const m of members) {
    for (let slash = m.path.indexOf('/'); slash >= 0; slash = m.path.indexOf('/', slash + 1)) {
      const folder = m.path.slice(0, slash)
      folders.set(folder, (folders.get(folder) ?? 0) + 1)
    }
  }
  let folder: string | null = null
  for (const [f, count] of folders) {
    if (count < need) continue
    if (folder === null || depth(f) > depth(folder) || (depth(f) === depth(folder) && f < folder)) folder = f
  }
  return folder === null ? { path: topFile, dominant: false } : { path: folder, dominant: true }
}

/** Words that name nothing in particular. */
const STOP_WORDS = new Set(['get', 'set', 'has', 'the', 'and', 'for', 'with', 'from', 'new', 'default', 'init', 'value', 'type', 'data', 'options', 'props', 'create'])

/**
 * The name words (split at camelCase, digits and punctuation, compared case-insensitively, at
 * least MIN_STEM_LENGTH letters, not a STOP_WORD) held by the most names: up to two, each held by at
 * least STEM_SHARE of the names and by two or more; spelled as in the first name holding it.
 */
function sharedWords(names: string[]): string[] {
  // a word's spelling is its first in the first name (in code-unit order) that holds it: the
  // names are not sorted for that, each word keeps the least name it came from
  const counts = new Map<string, { count: number; spelling: string; name: string }>()
  for (const name of names) {
    const seen = new Set<string>()
    NAME_WORD.lastIndex = 0
    for (let m = NAME_WORD.exec(name); m !== null; m = NAME_WORD.exec(name)) {
      const word = m[0]
      const key = word.toLowerCase()
      if (key.length < MIN_STEM_LENGTH || STOP_WORDS.has(key) || seen.has(key)) continue
      seen.add(key)
      const entry = counts.get(key)
      if (!entry) counts.set(key, { count: 1, spelling: word, name })
      else {
        entry.count++
        if (compare(name, entry.name) < 0) [entry.spelling, entry.name] = [word, name]
      }
    }
  }
  const need = Math.max(2, STEM_SHARE * names.length)
  return [...counts]
    .filter(([, v]) => v.count >= need)
    .sort((x, y) => y[1].count - x[1].count || compare(x[0], y[0]))
    .slice(0, 2)
    .map(([, v]) => v.spelling)
}

function depth(folder: string): number {
  return folder.split('/').length
}

/**
 * A word of a qualified name: `RouterBuilder.create_v2` → Router, Builder, create, v, 2. Every ASCII
 * letter and digit starts one, so what lies between two words is never a letter or a digit.
 */
const NAME_WORD = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g

/** Code-unit order, the same on every machine and locale (localeCompare is not). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** A small, fast, seedable PRNG (Tommy Ettinger's mulberry32); quality is ample for a walk order. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
