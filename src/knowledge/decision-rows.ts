/**
 * Decisions as graph rows: a Decision node each, GOVERNS edges to what they govern and
 * EVIDENCED_BY edges to what they cite. An edge exists when both its ends are in the graph (a
 * governed file that is gone, a commit outside the indexed history: no edge; `decisions verify`
 * says so). A full build filters by the rows it loads, an update by MATCHing in the graph
 * (graph/delta.ts): the same rule, so an update gives the graph a full build gives.
 */
import type { DecisionLinkRow, DecisionRow, DecisionSimilarRow, EvidencedByRow, GovernsRow, GraphData } from '../graph/types.js'
import { createHash } from 'node:crypto'
import { formatDecision, symbolId, targetText, type Decision } from './decision-model.js'
import { readDecisions } from './decision-store.js'

export interface DecisionEdges {
  governsSymbol: GovernsRow[]
  governsFile: GovernsRow[]
  governsCommunity: GovernsRow[]
  /** Directory targets: every File under the prefix is governed. */
  governsDirectory: Array<{ decision: string; prefix: string; applies_to: string }>
  evidencedByCommit: EvidencedByRow[]
  evidencedByPullRequest: EvidencedByRow[]
  evidencedByIssue: EvidencedByRow[]
  evidencedByDocument: EvidencedByRow[]
}

export interface DecisionGraph extends DecisionEdges {
  decisions: DecisionRow[]
  /** Decisions governing the same code (from < to). */
  relatesTo: DecisionLinkRow[]
  /** A decision naming the dependency a "uses X" finding records. */
  dependsOn: DecisionLinkRow[]
  /** Decisions that say much the same (decision-similar.ts; none without embeddings). */
  similarTo: DecisionSimilarRow[]
}

/** What analyze loads: every decision of the committed file, and the candidates still proposed. */
export function loadableDecisions(repo: string, onWarning?: (message: string) => void): Decision[] {
  const state = readDecisions(repo)
  for (const p of state.problems.slice(0, 3)) onWarning?.(`skipped line ${p.line} of ${p.file}: ${p.message}`)
  return [...state.decisions, ...state.proposed.filter((d) => d.status === 'proposed')]
}

/** What the graph's decisions were loaded from (meta.json `decisions`): a changed file refreshes them, HEAD unchanged. */
export function decisionsFingerprint(decisions: Decision[]): string {
  return createHash('sha256').update(decisions.map(formatDecision).join('\n')).digest('hex')
}

/** The fingerprint of no decisions (an index built before they were recorded in meta.json). */
export const NO_DECISIONS = decisionsFingerprint([])

export function decisionGraph(decisions: Decision[], similarTo: DecisionSimilarRow[] = []): DecisionGraph {
  const g: DecisionGraph = { decisions: [], governsSymbol: [], governsFile: [], governsCommunity: [], governsDirectory: [], evidencedByCommit: [], evidencedByPullRequest: [], evidencedByIssue: [], evidencedByDocument: [], relatesTo: [], dependsOn: [], similarTo }
  for (const d of decisions) {
    g.decisions.push({
      id: d.id,
      kind: d.kind,
      title: d.title,
      statement: d.statement,
      rationale: d.rationale,
      confidence: d.confidence,
      status: d.status,
      created: d.created,
      decided_at: d.decided_at,
      source: d.source,
      applies_to: d.applies_to.map(targetText).join(' '),
      check: d.check ? JSON.stringify(d.check) : '',
      superseded_by: d.superseded_by ?? '',
    })
    const seen = new Set<string>()
    for (const t of d.applies_to) {
      const applies_to = targetText(t)
      if (seen.has(applies_to)) continue
      seen.add(applies_to)
      if (t.kind === 'symbol') g.governsSymbol.push({ decision: d.id, target: symbolId(t), applies_to })
      else if (t.kind === 'file') g.governsFile.push({ decision: d.id, target: t.path, applies_to })
      else if (t.kind === 'community') g.governsCommunity.push({ decision: d.id, target: t.id, applies_to })
      else g.governsDirectory.push({ decision: d.id, prefix: t.path, applies_to })
    }
    const cited = new Set<string>()
    for (const e of d.evidence) {
      const key = JSON.stringify(e.kind === 'document' ? [e.kind, e.path, e.start_line, e.end_line] : e)
      if (cited.has(key)) continue
      cited.add(key)
      if (e.kind === 'commit') g.evidencedByCommit.push({ decision: d.id, target: e.sha, start_line: 0, end_line: 0 })
      else if (e.kind === 'pr') g.evidencedByPullRequest.push({ decision: d.id, target: e.number, start_line: 0, end_line: 0 })
      else if (e.kind === 'issue') g.evidencedByIssue.push({ decision: d.id, target: e.number, start_line: 0, end_line: 0 })
      else g.evidencedByDocument.push({ decision: d.id, target: e.path, start_line: e.start_line, end_line: e.end_line })
    }
  }
  g.relatesTo = relations(decisions)
  g.dependsOn = dependencies(decisions)
  return g
}

/** Pairs of decisions governing the same file, or a file under the other's directory. */
function relations(decisions: Decision[]): DecisionLinkRow[] {
  const paths = decisions.map((d) => ({ id: d.id, files: new Set(d.applies_to.flatMap((t) => (t.kind === 'file' || t.kind === 'symbol' ? [t.path] : []))), dirs: d.applies_to.flatMap((t) => (t.kind === 'directory' ? [t.path] : [])) }))
  const out: DecisionLinkRow[] = []
  for (const a of paths) {
    for (const b of paths) {
      if (a.id >= b.id) continue
      const file = [...a.files].find((f) => b.files.has(f))
      const under = file ? null : [...a.files].find((f) => b.dirs.some((d) => f.startsWith(d))) ?? [...b.files].find((f) => a.dirs.some((d) => f.startsWith(d)))
      const dir = file || under ? null : a.dirs.find((d) => b.dirs.some((e) => d.startsWith(e) || e.startsWith(d)))
      const reason = file ? `both govern ${file}` : under ? `both govern ${under}` : dir ? `both govern ${dir}` : null
      if (reason) out.push({ from: a.id, to: b.id, reason })
    }
  }
  return out
}

/** A decision whose title or statement names the package a "uses X" finding is about. */
function dependencies(decisions: Decision[]): DecisionLinkRow[] {
  const uses = decisions.flatMap((d) => {
    const m = /^uses (\S{3,})$/.exec(d.title)
    return m ? [{ id: d.id, name: m[1] }] : []
  })
  const out: DecisionLinkRow[] = []
  for (const d of decisions) {
    const text = `${d.title}\n${d.statement}`.toLowerCase()
    for (const u of uses) {
      if (u.id === d.id) continue
      const name = u.name.toLowerCase()
      const at = text.indexOf(name)
      // a whole word: "kuzu" in "use Kuzu as", not in "kuzudb-extra"
      if (at >= 0 && !/[\w@/-]/.test(text[at - 1] ?? ' ') && !/[\w-]/.test(text[at + name.length] ?? ' ')) out.push({ from: d.id, to: u.id, reason: `names ${u.name}` })
    }
  }
  return out
}

/** The graph's nodes an edge can end at: every File path (directories expand over them) and the keys of the others. */
export interface DecisionEnds {
  files: readonly string[]
  symbols: ReadonlySet<string>
  commits: ReadonlySet<string>
  pullRequests: ReadonlySet<number>
  issues: ReadonlySet<number>
  communities: ReadonlySet<string>
}

/** A full build's ends: the rows it loads. */
export function endsOf(data: Pick<GraphData, 'files' | 'symbols' | 'commits' | 'pullRequests' | 'issues' | 'communities'>): DecisionEnds {
  return {
    files: data.files.map((f) => f.path),
    symbols: new Set(data.symbols.map((s) => s.id)),
    commits: new Set(data.commits.map((c) => c.sha)),
    pullRequests: new Set(data.pullRequests.map((p) => p.number)),
    issues: new Set(data.issues.map((i) => i.number)),
    communities: new Set(data.communities.map((c) => c.id)),
  }
}

/** The rows to load: the edges whose ends exist, directory targets expanded to the files under them. */
export function decisionTables(g: DecisionGraph, ends: DecisionEnds): Partial<GraphData> {
  const files = new Set(ends.files)
  const directory: GovernsRow[] = []
  for (const dir of g.governsDirectory) for (const f of ends.files) if (f.startsWith(dir.prefix)) directory.push({ decision: dir.decision, target: f, applies_to: dir.applies_to })
  const governedFiles = new Set<string>()
  // one edge per decision and file: a file target wins over a directory holding it
  const governsFile = [...g.governsFile.filter((r) => files.has(String(r.target))), ...directory].filter((r) => {
    const key = `${r.decision}\0${r.target}`
    if (governedFiles.has(key)) return false
    governedFiles.add(key)
    return true
  })
  return {
    decisions: g.decisions,
    governsSymbol: g.governsSymbol.filter((r) => ends.symbols.has(String(r.target))),
    governsFile,
    governsCommunity: g.governsCommunity.filter((r) => ends.communities.has(String(r.target))),
    evidencedByCommit: g.evidencedByCommit.filter((r) => ends.commits.has(String(r.target))),
    evidencedByPullRequest: g.evidencedByPullRequest.filter((r) => ends.pullRequests.has(Number(r.target))),
    evidencedByIssue: g.evidencedByIssue.filter((r) => ends.issues.has(Number(r.target))),
    evidencedByDocument: g.evidencedByDocument.filter((r) => files.has(String(r.target))),
    relatesTo: g.relatesTo,
    dependsOn: g.dependsOn,
    similarTo: g.similarTo,
  }
}

/** The keys a DecisionGraph's edges name, by table (what an update asks the graph for). */
export function namedEnds(g: DecisionGraph): { symbols: string[]; commits: string[]; pullRequests: number[]; issues: number[]; communities: string[] } {
  const keys = <T>(rows: Array<{ target: string | number }>, as: (v: string | number) => T): T[] => [...new Set(rows.map((r) => as(r.target)))]
  return {
    symbols: keys(g.governsSymbol, String),
    commits: keys(g.evidencedByCommit, String),
    pullRequests: keys(g.evidencedByPullRequest, Number),
    issues: keys(g.evidencedByIssue, Number),
    communities: keys(g.governsCommunity, String),
  }
}
