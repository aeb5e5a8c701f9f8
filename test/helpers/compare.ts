/**
 * Compare gitwhy's answers with plain git and describe every difference precisely (which query,
 * which SHAs are missing or extra, with their subjects).
 */
import { isUtf8 } from 'node:buffer'
import type { EvidenceItem, EvidenceResult, HistoryResult } from '../../src/services/types.js'
import {
  blameLines, blobAtHead, blobExists, dirsAtHead, filesAtHead, followNames, followSet, indentHeuristicSensitive,
  lineCount, lineLogSet, pathLogSet, restrictBlame, shallowBoundary, subjects, type BlameLine,
} from './oracle.js'
import { tableDef } from '../../src/graph/schema.js'
import type { TestRepo } from './repo.js'
import type { Services } from './services.js'
import { fixtureSymbols, type FixtureSymbol } from './symbols.js'
import { rng } from './scenarios.js'

export type Range = [number, number]

/** Everything about the repository at HEAD the comparisons need, computed once. */
export interface RepoFacts {
  repo: TestRepo
  files: string[]
  dirs: string[]
  lineCounts: Map<string, number>
  blame: Map<string, BlameLine[]>
  /** Files whose diffs depend on the indent heuristic: no -L comparison there. */
  heuristicSensitive: Set<string>
  boundary: Set<string>
  symbols: FixtureSymbol[]
  subjects: Map<string, string>
}

export function gatherFacts(repo: TestRepo): RepoFacts {
  const files = filesAtHead(repo)
  const lineCounts = new Map<string, number>()
  const blame = new Map<string, BlameLine[]>()
  const heuristicSensitive = new Set<string>()
  const symbols: FixtureSymbol[] = []
  for (const f of files) {
    const bytes = blobAtHead(repo, f)
    const n = lineCount(bytes)
    lineCounts.set(f, n)
    if (n > 0) blame.set(f, blameLines(repo, f))
    if (indentHeuristicSensitive(repo, f)) heuristicSensitive.add(f)
    // a file that is not UTF-8 is Latin-1 in the fixtures
    symbols.push(...fixtureSymbols(f, bytes.toString(isUtf8(bytes) ? 'utf8' : 'latin1')))
  }
  return { repo, files, dirs: dirsAtHead(repo), lineCounts, blame, heuristicSensitive, boundary: shallowBoundary(repo), symbols, subjects: subjects(repo) }
}

/** Single lines, sliding windows of 3 (stride 2), halves and the whole file. */
export function blameRanges(n: number): Range[] {
  if (n === 0) return []
  const out: Range[] = []
  for (let i = 1; i <= n; i++) out.push([i, i])
  for (let i = 1; i + 2 <= n; i += 2) out.push([i, i + 2])
  out.push([1, n])
  if (n >= 4) out.push([1, Math.floor(n / 2)], [Math.floor(n / 2) + 1, n])
  return dedupe(out)
}

/** Ranges for -L: the whole file, halves, windows of 3 (stride 3), plus a few seeded random ones. */
export function lineLogRanges(n: number, seed: number, randomCount = 3): Range[] {
  if (n === 0) return []
  const out: Range[] = [[1, n]]
  if (n >= 4) out.push([1, Math.floor(n / 2)], [Math.floor(n / 2) + 1, n])
  for (let i = 1; i <= n; i += 3) out.push([i, Math.min(n, i + 2)])
  const rand = rng(seed)
  for (let k = 0; k < randomCount; k++) {
    const a = 1 + Math.floor(rand() * n)
    const b = 1 + Math.floor(rand() * n)
    out.push([Math.min(a, b), Math.max(a, b)])
  }
  return dedupe(out)
}

function dedupe(ranges: Range[]): Range[] {
  const seen = new Set<string>()
  return ranges.filter(([s, e]) => {
    const k = `${s},${e}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

function describeSha(facts: RepoFacts, sha: string): string {
  return `${sha.slice(0, 10)} "${facts.subjects.get(sha) ?? '?'}"`
}

function setDiff(facts: RepoFacts, label: string, expected: Iterable<string>, actual: Iterable<string>): string[] {
  const e = new Set(expected)
  const a = new Set(actual)
  const missing = [...e].filter((x) => !a.has(x))
  const extra = [...a].filter((x) => !e.has(x))
  const out: string[] = []
  if (missing.length) out.push(`${label}: missing ${missing.map((s) => describeSha(facts, s)).join(', ')}`)
  if (extra.length) out.push(`${label}: extra ${extra.map((s) => describeSha(facts, s)).join(', ')}`)
  return out
}

function bySource(items: EvidenceItem[], source: string): EvidenceItem[] {
  return items.filter((i) => i.source === source)
}

function structural(where: string, result: EvidenceResult | HistoryResult): string[] {
  const out: string[] = []
  if (result.total !== result.evidence.length) out.push(`${where}: total ${result.total} but ${result.evidence.length} items with limit 0`)
  const seen = new Set<string>()
  for (const item of result.evidence) {
    const k = `${item.source}:${item.commit.sha}`
    if (seen.has(k)) out.push(`${where}: duplicate item ${k}`)
    seen.add(k)
  }
  return out
}

/**
 * Check an evidence answer for PATH:[s,e] against git. `compareLog` adds the `git log -L`
 * comparison (history = log -L minus blame).
 */
export function checkEvidence(facts: RepoFacts, result: EvidenceResult, path: string, s: number, e: number, compareLog: boolean): string[] {
  const where = `evidence ${path}:${s}-${e}`
  const out = structural(where, result)
  if (result.target.path !== path || result.target.line_start !== s || result.target.line_end !== e) {
    out.push(`${where}: target is ${result.target.path}:${result.target.line_start}-${result.target.line_end}`)
  }
  const all = facts.blame.get(path) ?? []
  const expected = restrictBlame(all, s, e)
  const blame = bySource(result.evidence, 'blame')
  out.push(...setDiff(facts, `${where} blame`, expected.keys(), blame.map((i) => i.commit.sha)))
  for (const item of blame) {
    const want = expected.get(item.commit.sha)
    if (want !== undefined && item.lines !== want) out.push(`${where} blame: ${describeSha(facts, item.commit.sha)} owns ${want} lines, gitwhy says ${item.lines}`)
  }
  const history = bySource(result.evidence, 'history')
  const blameShas = new Set(blame.map((i) => i.commit.sha))
  for (const item of history) {
    if (blameShas.has(item.commit.sha)) out.push(`${where}: ${describeSha(facts, item.commit.sha)} is both blame and history`)
  }
  if (compareLog) {
    const log = lineLogSet(facts.repo, path, s, e)
    const expectedHistory = [...log].filter((sha) => !expected.has(sha))
    out.push(...setDiff(facts, `${where} history (git log -L ${s},${e}:${path} minus blame)`, expectedHistory, history.map((i) => i.commit.sha)))
  }
  const undecidedLines = all.filter((l) => l.line >= s && l.line <= e && facts.boundary.has(l.sha)).length
  if (undecidedLines > 0) {
    if (result.undecided === null) out.push(`${where}: ${undecidedLines} lines are owned by the shallow boundary but undecided is null`)
    else if (result.undecided.lines !== undecidedLines) out.push(`${where}: undecided.lines ${result.undecided.lines}, expected ${undecidedLines} (lines owned by the shallow boundary)`)
  } else if (result.undecided !== null) {
    out.push(`${where}: undecided is ${JSON.stringify(result.undecided)} but no line is owned by a shallow boundary`)
  }
  return out
}

export async function checkFileBlame(svc: Services, facts: RepoFacts, path: string): Promise<string[]> {
  const out: string[] = []
  for (const [s, e] of blameRanges(facts.lineCounts.get(path) ?? 0)) {
    const result = await svc.evidence({ repo: facts.repo.dir, path, lineStart: s, lineEnd: e, limit: 0 })
    out.push(...checkEvidence(facts, result, path, s, e, false))
  }
  return out
}

export async function checkFileLineLog(svc: Services, facts: RepoFacts, path: string, seed: number): Promise<string[]> {
  if (facts.heuristicSensitive.has(path)) return []
  const out: string[] = []
  for (const [s, e] of lineLogRanges(facts.lineCounts.get(path) ?? 0, seed)) {
    const result = await svc.evidence({ repo: facts.repo.dir, path, lineStart: s, lineEnd: e, limit: 0 })
    out.push(...checkEvidence(facts, result, path, s, e, true))
  }
  return out
}

/** evidence({ symbol }) must target the symbol's range and answer as for that range. */
export async function checkSymbol(svc: Services, facts: RepoFacts, sym: FixtureSymbol): Promise<string[]> {
  const where = `evidence --symbol ${sym.qualifiedName}`
  let result: EvidenceResult
  try {
    result = await svc.evidence({ repo: facts.repo.dir, symbol: sym.qualifiedName, limit: 0 })
  } catch (e) {
    return [`${where}: threw ${(e as Error).name}: ${(e as Error).message}`]
  }
  const t = result.target
  const out: string[] = []
  if (t.path !== sym.path || t.line_start !== sym.startLine || t.line_end !== sym.endLine) {
    out.push(`${where}: target ${t.path}:${t.line_start}-${t.line_end}, expected ${sym.path}:${sym.startLine}-${sym.endLine}`)
  }
  if (t.symbol?.qualified_name !== sym.qualifiedName) out.push(`${where}: target.symbol is ${JSON.stringify(t.symbol)}`)
  if (t.path === sym.path) {
    out.push(...checkEvidence(facts, result, t.path, t.line_start, t.line_end, !facts.heuristicSensitive.has(t.path)).map((m) => `${where} → ${m}`))
  }
  return out
}

export async function checkFileHistory(svc: Services, facts: RepoFacts, path: string): Promise<string[]> {
  const out: string[] = []
  const repo = facts.repo
  const shallow = facts.boundary.size > 0
  const follow = await svc.history({ repo: repo.dir, path, limit: 0 })
  const where = `history ${path}`
  out.push(...structural(where, follow))
  if (follow.target.kind !== 'file') out.push(`${where}: kind ${follow.target.kind}`)
  if (follow.truncated !== shallow) out.push(`${where}: truncated ${follow.truncated}, repository shallow: ${shallow}`)
  const area = bySource(follow.evidence, 'area')
  if (area.length !== follow.evidence.length) out.push(`${where}: items with a source other than area`)
  out.push(...setDiff(facts, `${where} (git log --follow -- ${path})`, followSet(repo, path), area.map((i) => i.commit.sha)))
  const names = followNames(repo, path)
  for (const item of area) {
    const p = item.path_at_commit
    const want = names.get(item.commit.sha)
    if (p === undefined) out.push(`${where}: ${describeSha(facts, item.commit.sha)} has no path_at_commit`)
    else if (want !== undefined && p !== want) out.push(`${where}: ${describeSha(facts, item.commit.sha)} path_at_commit "${p}", git says "${want}"`)
    else if (want === undefined && !blobExists(repo, item.commit.sha, p)) out.push(`${where}: ${describeSha(facts, item.commit.sha)} path_at_commit "${p}" does not exist in that commit`)
  }
  const plain = await svc.history({ repo: repo.dir, path, limit: 0, followRenames: false })
  out.push(...structural(`${where} --no-renames`, plain))
  if (plain.target.follow_renames !== false) out.push(`${where} --no-renames: target.follow_renames is ${plain.target.follow_renames}`)
  out.push(...setDiff(facts, `${where} --no-renames (git log -- ${path})`, pathLogSet(repo, path), bySource(plain.evidence, 'area').map((i) => i.commit.sha)))
  return out
}

export async function checkDirHistory(svc: Services, facts: RepoFacts, dir: string): Promise<string[]> {
  const out: string[] = []
  const result = await svc.history({ repo: facts.repo.dir, path: dir, limit: 0 })
  const where = `history ${dir}/`
  out.push(...structural(where, result))
  if (result.target.kind !== 'directory') out.push(`${where}: kind ${result.target.kind}`)
  out.push(...setDiff(facts, `${where} (git log -- ${dir})`, pathLogSet(facts.repo, dir), bySource(result.evidence, 'area').map((i) => i.commit.sha)))
  return out
}

/** Throw one readable error listing every mismatch (capped). */
export function assertNoMismatches(label: string, mismatches: string[], cap = 40): void {
  if (mismatches.length === 0) return
  const shown = mismatches.slice(0, cap).map((m) => `  - ${m}`).join('\n')
  const more = mismatches.length > cap ? `\n  … and ${mismatches.length - cap} more` : ''
  throw new Error(`${label}: ${mismatches.length} mismatch(es) with git\n${shown}${more}`)
}

/** Run a check, turning a thrown error into a mismatch line (so one bad query does not hide the rest). */
export async function guarded(where: string, run: () => Promise<string[]>): Promise<string[]> {
  try {
    return await run()
  } catch (e) {
    const err = e as Error
    return [`${where}: threw ${err.name}: ${err.message.split('\n')[0]}`]
  }
}

/** Every check of the oracle suite on one analyzed repository; returns all mismatches. */
export async function checkEverything(svc: Services, facts: RepoFacts, seed = 1): Promise<string[]> {
  const out: string[] = []
  for (const path of facts.files) {
    out.push(...(await guarded(`evidence ${path}`, () => checkFileBlame(svc, facts, path))))
    out.push(...(await guarded(`evidence ${path}`, () => checkFileLineLog(svc, facts, path, seed++))))
    out.push(...(await guarded(`history ${path}`, () => checkFileHistory(svc, facts, path))))
  }
  for (const sym of facts.symbols) out.push(...(await checkSymbol(svc, facts, sym)))
  for (const dir of facts.dirs) out.push(...(await guarded(`history ${dir}/`, () => checkDirHistory(svc, facts, dir))))
  return out
}

/**
 * The answers gitwhy gives for a fixed set of queries over `facts` (evidence on ranges and
 * symbols, history on files and directories), keyed by query, as JSON. Errors are answers too.
 * With the same seed it asks the same queries as checkEverything.
 */
export async function collectAnswers(svc: Services, facts: RepoFacts, repoDir: string, seed = 1): Promise<Map<string, string>> {
  const answers = new Map<string, string>()
  const ask = async (key: string, run: () => Promise<unknown>): Promise<void> => {
    try {
      answers.set(key, JSON.stringify(await run()))
    } catch (e) {
      answers.set(key, JSON.stringify({ error: (e as Error).name, message: (e as Error).message }))
    }
  }
  for (const path of facts.files) {
    const n = facts.lineCounts.get(path) ?? 0
    const ranges = dedupe([...blameRanges(n), ...lineLogRanges(n, seed++)])
    for (const [s, e] of ranges) await ask(`evidence ${path}:${s}-${e}`, () => svc.evidence({ repo: repoDir, path, lineStart: s, lineEnd: e, limit: 0 }))
    await ask(`evidence ${path}:${1}-${Math.min(n, 3)} limit 2`, () => svc.evidence({ repo: repoDir, path, lineStart: 1, lineEnd: Math.max(1, Math.min(n, 3)), limit: 2 }))
    await ask(`history ${path}`, () => svc.history({ repo: repoDir, path, limit: 0 }))
    await ask(`history ${path} --no-renames`, () => svc.history({ repo: repoDir, path, limit: 0, followRenames: false }))
  }
  for (const sym of facts.symbols) await ask(`evidence --symbol ${sym.qualifiedName}`, () => svc.evidence({ repo: repoDir, symbol: sym.qualifiedName, limit: 0 }))
  for (const dir of facts.dirs) await ask(`history ${dir}/`, () => svc.history({ repo: repoDir, path: dir, limit: 0 }))
  return answers
}

/** Differences between two answer sets (same queries): one line per query, the first differing item. */
export function diffAnswers(a: Map<string, string>, b: Map<string, string>, labelA: string, labelB: string): string[] {
  const out: string[] = []
  for (const [key, va] of a) {
    const vb = b.get(key)
    if (vb === undefined) out.push(`${key}: only asked of ${labelA}`)
    else if (va !== vb) out.push(`${key}:\n      ${labelA}: ${va.slice(0, 600)}\n      ${labelB}: ${vb.slice(0, 600)}`)
  }
  return out
}

/** Every code-graph edge of an index (CALLS with their properties, IMPORTS, EXTENDS, IMPLEMENTS), the <module> symbols and the flows (Process, STEP_IN), sorted, as JSON lines. */
export async function codeGraphEdges(repo: string): Promise<Record<string, string[]>> {
  const { cypher } = await import('../../src/services/cypher.js')
  const q = async (statement: string) => (await cypher({ repo, statement })).rows.map((r) => JSON.stringify(r)).sort()
  return {
    calls: await q('MATCH (a:Symbol)-[c:CALLS]->(b:Symbol) RETURN a.id AS from, b.id AS to, c.reason AS reason, c.line AS line, c.confidence AS confidence'),
    imports: await q('MATCH (a:File)-[:IMPORTS]->(b:File) RETURN a.path AS from, b.path AS to'),
    extends: await q('MATCH (a:Symbol)-[:EXTENDS]->(b:Symbol) RETURN a.id AS from, b.id AS to'),
    implements: await q('MATCH (a:Symbol)-[:IMPLEMENTS]->(b:Symbol) RETURN a.id AS from, b.id AS to'),
    modules: await q("MATCH (f:File)-[:DEFINES]->(s:Symbol) WHERE s.name = '<module>' RETURN f.path AS path, s.id AS id"),
    processes: await q('MATCH (p:Process) RETURN p.id AS id, p.label AS label, p.kind AS kind, p.entry AS entry, p.steps AS steps, p.depth AS depth'),
    steps: await q('MATCH (s:Symbol)-[r:STEP_IN]->(p:Process) RETURN s.id AS symbol, p.id AS process, r.step AS step'),
    search: await fullTextAnswers(repo),
  }
}

/**
 * The graph's history and analytics edges, each row as text, sorted: an updated graph must hold
 * exactly the rows a fresh build writes (Kuzu once lost whole tables on an update: delta.ts).
 */
export async function historyEdges(repo: string): Promise<Record<string, string[]>> {
  const { cypher } = await import('../../src/services/cypher.js')
  const q = async (statement: string) => (await cypher({ repo, statement, maxRows: 0 })).rows.map((r) => JSON.stringify(r)).sort()
  return {
    blamedOn: await q('MATCH (s:Symbol)-[b:BLAMED_ON]->(c:Commit) RETURN s.id AS symbol, c.sha AS sha, b.lines AS lines'),
    changed: await q('MATCH (c:Commit)-[r:CHANGED]->(s:Symbol) RETURN c.sha AS sha, s.id AS symbol, r.added AS added, r.removed AS removed'),
    touched: await q('MATCH (c:Commit)-[t:TOUCHED]->(f:File) RETURN c.sha AS sha, f.path AS path, t.change AS change'),
    // an update's new commits take the ages after the stored ones': a build's numbering
    ages: await q('MATCH (c:Commit) RETURN c.sha AS sha, c.age AS age'),
    defines: await q('MATCH (f:File)-[:DEFINES]->(s:Symbol) RETURN f.path AS path, s.id AS symbol'),
    contains: await q('MATCH (a:Symbol)-[:CONTAINS]->(b:Symbol) RETURN a.id AS parent, b.id AS child'),
    memberOf: await q('MATCH (s:Symbol)-[:MEMBER_OF]->(c:Community) RETURN s.id AS symbol, c.label AS community'),
    ownedBy: await q('MATCH (f:File)-[o:OWNED_BY]->(a:Author) RETURN f.path AS path, a.email AS email, o.lines AS lines, o.share AS share'),
    coChanged: await q('MATCH (a)-[r:CO_CHANGED]->(b) RETURN a.path AS a, b.path AS b, a.id AS symbolA, b.id AS symbolB, r.shared AS shared, r.degree AS degree, r.confidence AS confidence, r.reverse_confidence AS reverse_confidence'),
    // every column of every symbol: an update keeps unchanged symbols in place and sets the rest
    symbols: await q(`MATCH (s:Symbol) RETURN ${tableDef('Symbol').columns.map((c) => `s.${c.name} AS ${c.name}`).join(', ')}`),
    // and of every search document but its row number (an update numbers its new ones after the last)
    docs: await q(`MATCH (d:Doc) RETURN ${tableDef('Doc').columns.filter((c) => c.name !== 'row').map((c) => `d.${c.name} AS ${c.name}`).join(', ')}`),
  }
}

/**
 * What the full-text index answers for every word of every symbol's search text: the hits and
 * their BM25 scores, which depend on every indexed row (document count, lengths), so an index an
 * update kept current must answer exactly as one built from scratch.
 */
async function fullTextAnswers(repo: string): Promise<string[]> {
  const { cypher } = await import('../../src/services/cypher.js')
  const texts = (await cypher({ repo, statement: "MATCH (s:Symbol) WHERE s.name <> '<module>' RETURN s.search AS search" })).rows
  const words = new Set(texts.flatMap((r) => String(r.search).toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2)))
  const out: string[] = []
  for (const word of [...words].sort()) {
    const { rows } = await cypher({ repo, statement: 'CALL QUERY_FTS_INDEX(\'Symbol\', \'symbol_search\', $q) RETURN node.id AS id, score', params: { q: word } })
    out.push(`${word}: ${rows.map((r) => `${r.id}=${Number(r.score).toFixed(6)}`).sort().join(' ')}`)
  }
  return out
}
