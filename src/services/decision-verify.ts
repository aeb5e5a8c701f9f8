/**
 * Deterministic verification of decisions against the indexed HEAD (the TaskWing seed's rules):
 *   evidence   a document range still holds its snippet (VERIFIED), holds it elsewhere in the
 *              file or something close to it (PARTIAL, with a similarity), or not (REJECTED);
 *              history (commit, PR, issue) is VERIFIED while the index has it, else REJECTED
 *   targets    every governed file and symbol still exists, following renames (and a symbol
 *              moved to another file when its name is unique)
 *   stale      an active decision whose governed lines are mostly (> STALE_SHARE) owned by
 *              commits after it was decided: those commits are listed
 *   check      a regex (forbid / require) or tree-sitter query checked on the governed files at
 *              HEAD; each violation with the commit that owns its line
 * A decision all of whose evidence is rejected is not served by the answers.
 */
import { UserError } from '../errors.js'
import { listTree, readBlobs } from '../git/tree.js'
import { DECISION_QUERIES } from '../graph/queries.js'
import { checkRegex, evidenceText, targetText, type Decision, type DecisionEvidence, type DecisionStatus, type GovernedTarget } from '../knowledge/decision-model.js'
import { readDecisions } from '../knowledge/decision-store.js'
import { QueryChecker } from '../knowledge/query-check.js'
import { evidence as evidenceFor } from './evidence.js'
import { IndexReader, withReader } from './index-reader.js'
import type { IndexInfo } from './types.js'

export type EvidenceVerdict = 'VERIFIED' | 'PARTIAL' | 'REJECTED' | 'SKIPPED'

/** Share of a decision's governed lines that later commits may own before it is stale. */
export const STALE_SHARE = 0.5
/** Below this similarity a document range that lost its snippet is REJECTED, not PARTIAL. */
export const PARTIAL_SIMILARITY = 0.6
const ADJUST: Record<EvidenceVerdict, number> = { VERIFIED: 0, PARTIAL: -0.1, REJECTED: -0.3, SKIPPED: 0 }
const MAX_VIOLATIONS = 50

export interface EvidenceCheck {
  evidence: string
  kind: DecisionEvidence['kind']
  verdict: EvidenceVerdict
  /** 0..1 for a document range (1: the snippet is there); null for history. */
  similarity: number | null
  note: string
}

export interface TargetCheck {
  target: string
  exists: boolean
  /** Where it is now when that differs (a rename or a move), else null. */
  now: string | null
  note: string
}

export interface CommitBrief {
  sha: string
  short: string
  date: string
  subject: string
}

export interface Violation {
  path: string
  line: number
  text: string
  commit: CommitBrief | null
}

export interface DecisionVerification {
  id: string
  title: string
  kind: Decision['kind']
  recorded_status: Decision['status']
  /** The recorded status, or `stale`. */
  status: DecisionStatus
  /** Not served by the answers: rejected, or every evidence item rejected. */
  served: boolean
  confidence: number
  evidence: EvidenceCheck[]
  targets: TargetCheck[]
  stale: { share: number; threshold: number; governed_lines: number; later_lines: number; commits: Array<CommitBrief & { lines: number }> } | null
  check: { kind: 'regex' | 'query'; checked_files: number; violations: Violation[]; error: string | null } | null
}

export interface VerifyResult {
  decisions: DecisionVerification[]
  summary: { total: number; verified: number; stale: number; not_served: number; violations: number; missing_targets: number }
  index: IndexInfo
}

/** HEAD's files as text, read once each (one `git cat-file --batch` for many). */
class HeadFiles {
  private tree: Promise<Map<string, string>> | null = null
  private readonly texts = new Map<string, string | null>()

  constructor(private readonly repo: string, private readonly head: string) {}

  private blobs(): Promise<Map<string, string>> {
    this.tree ??= listTree(this.repo, this.head).then((entries) => new Map(entries.map((e) => [e.path, e.blob])))
    return this.tree
  }

  async exists(path: string): Promise<boolean> {
    return (await this.blobs()).has(path)
  }

  async read(paths: string[]): Promise<void> {
    const blobs = await this.blobs()
    const wanted = paths.filter((p) => !this.texts.has(p))
    for (const p of wanted) if (!blobs.has(p)) this.texts.set(p, null)
    const byBlob = new Map<string, string[]>()
    for (const p of wanted) if (blobs.has(p)) byBlob.set(blobs.get(p)!, [...(byBlob.get(blobs.get(p)!) ?? []), p])
    await readBlobs(this.repo, [...byBlob.keys()], (blob, content) => {
      for (const p of byBlob.get(blob) ?? []) this.texts.set(p, content.toString('utf8'))
    })
  }

  async text(path: string): Promise<string | null> {
    if (!this.texts.has(path)) await this.read([path])
    return this.texts.get(path) ?? null
  }
}

const normalise = (s: string) => s.replace(/\s+/g, ' ').trim()
const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9_]+/g) ?? [])

/** Dice similarity of the word sets (0..1). */
export function similarity(a: string, b: string): number {
  const x = words(a)
  const y = words(b)
  if (x.size === 0 && y.size === 0) return 1
  let shared = 0
  for (const w of x) if (y.has(w)) shared++
  return (2 * shared) / (x.size + y.size)
}

/** A document range against the file at HEAD. */
export function checkDocument(text: string | null, e: Extract<DecisionEvidence, { kind: 'document' }>): Omit<EvidenceCheck, 'evidence' | 'kind'> {
  if (text === null) return { verdict: 'REJECTED', similarity: 0, note: `${e.path} is not in HEAD` }
  const lines = text.split('\n')
  const snippet = normalise(e.snippet)
  const at = normalise(lines.slice(e.start_line - 1, e.end_line).join('\n'))
  if (snippet === '') return { verdict: 'SKIPPED', similarity: null, note: 'no snippet recorded' }
  if (at === snippet || (at.includes(snippet) && snippet.length > 20)) return { verdict: 'VERIFIED', similarity: 1, note: 'the lines still hold the snippet' }
  const span = e.end_line - e.start_line + 1
  const whole = normalise(text)
  if (whole.includes(snippet)) {
    // where it went: the first window of the same height that holds it
    for (let s = 1; s + span - 1 <= lines.length; s++) {
      if (normalise(lines.slice(s - 1, s - 1 + span).join('\n')).includes(snippet)) return { verdict: 'PARTIAL', similarity: 1, note: `the snippet moved to lines ${s}-${s + span - 1}` }
    }
    return { verdict: 'PARTIAL', similarity: 1, note: 'the snippet is in the file, not at the lines' }
  }
  const sim = Math.round(similarity(at, snippet) * 100) / 100
  return sim >= PARTIAL_SIMILARITY
    ? { verdict: 'PARTIAL', similarity: sim, note: `the lines changed (similarity ${sim})` }
    : { verdict: 'REJECTED', similarity: sim, note: `the lines no longer hold the snippet (similarity ${sim})` }
}

interface Located {
  target: GovernedTarget
  check: TargetCheck
  /** The file and lines it covers at HEAD (none for a community or a missing target). */
  ranges: Array<{ path: string; start: number | null; end: number | null }>
}

async function renamedTo(reader: IndexReader, path: string): Promise<string | null> {
  const g = await reader.graph()
  let at = path
  for (let hop = 0; hop < 20; hop++) {
    const next = await g.query<{ path: string; present: boolean }>(DECISION_QUERIES.renamedTo, { path: at })
    if (next.length === 0) return null
    const present = next.find((n) => n.present)
    if (present && reader.file(present.path)) return present.path
    at = next[0].path
  }
  return null
}

/** Whether a governed target still exists, and where it is now when a rename or a move took it elsewhere. */
export async function locateTarget(reader: IndexReader, t: GovernedTarget): Promise<TargetCheck> {
  return (await locate(reader, t)).check
}

async function locate(reader: IndexReader, t: GovernedTarget): Promise<Located> {
  const text = targetText(t)
  if (t.kind === 'community') {
    const rows = await (await reader.graph()).query<{ id: string }>(DECISION_QUERIES.communityExists, { id: t.id })
    return { target: t, check: { target: text, exists: rows.length > 0, now: null, note: rows.length > 0 ? 'exists' : 'no such community in this index (ids change when communities are recomputed)' }, ranges: [] }
  }
  if (t.kind === 'directory') {
    const files = reader.files().filter((f) => f.path.startsWith(t.path))
    return { target: t, check: { target: text, exists: files.length > 0, now: null, note: files.length > 0 ? `${files.length} files` : 'no indexed file under it' }, ranges: files.map((f) => ({ path: f.path, start: null, end: null })) }
  }
  let path = t.path
  let file = reader.file(path)
  let moved: string | null = null
  if (!file) {
    const renamed = await renamedTo(reader, path)
    if (renamed) {
      moved = renamed
      path = renamed
      file = reader.file(renamed)
    }
  }
  if (t.kind === 'file') {
    if (!file) return { target: t, check: { target: text, exists: false, now: null, note: 'deleted (no rename found)' }, ranges: [] }
    return { target: t, check: { target: text, exists: true, now: moved, note: moved ? `renamed to ${moved}` : 'exists' }, ranges: [{ path, start: null, end: null }] }
  }
  const inFile = file?.symbols.find((s) => s.qualifiedName === t.symbol)
  if (file && inFile) return { target: t, check: { target: text, exists: true, now: moved ? `${moved}:${t.symbol}` : null, note: moved ? `its file was renamed to ${moved}` : 'exists' }, ranges: [{ path, start: inFile.startLine, end: inFile.endLine }] }
  const elsewhere = reader.files().flatMap((f) => f.symbols.filter((s) => s.qualifiedName === t.symbol).map((s) => ({ path: f.path, s })))
  if (elsewhere.length === 1) {
    const { path: p, s } = elsewhere[0]
    return { target: t, check: { target: text, exists: true, now: `${p}:${t.symbol}`, note: `moved to ${p}` }, ranges: [{ path: p, start: s.startLine, end: s.endLine }] }
  }
  return { target: t, check: { target: text, exists: false, now: null, note: file ? `no symbol ${t.symbol} in ${path} any more (renamed or deleted)` : `${t.path} is gone` }, ranges: [] }
}

function brief(reader: IndexReader, sha: string): CommitBrief | null {
  const c = reader.commits().get(sha)?.commit
  return c ? { sha: c.sha, short: c.short, date: c.date, subject: c.subject } : null
}

async function historyExists(reader: IndexReader, e: DecisionEvidence): Promise<boolean> {
  if (e.kind === 'commit') return reader.commits().get(e.sha) !== undefined
  const g = await reader.graph()
  if (e.kind === 'pr') return (await g.query(DECISION_QUERIES.pullRequestExists, { number: e.number })).length > 0
  if (e.kind === 'issue') return (await g.query(DECISION_QUERIES.issueExists, { number: e.number })).length > 0
  return false
}

/** Verifies one decision (the caller shares `files` and `queries` across decisions). */
async function verifyOne(reader: IndexReader, d: Decision, files: HeadFiles): Promise<DecisionVerification> {
  const evidence: EvidenceCheck[] = []
  for (const e of d.evidence) {
    if (e.kind === 'document') {
      evidence.push({ evidence: evidenceText(e), kind: e.kind, ...checkDocument(await files.text(e.path), e) })
      continue
    }
    const ok = await historyExists(reader, e)
    evidence.push({ evidence: evidenceText(e), kind: e.kind, verdict: ok ? 'VERIFIED' : 'REJECTED', similarity: null, note: ok ? 'in the indexed history' : 'not in the indexed history (rewritten, or beyond the indexed commits)' })
  }
  const located: Located[] = []
  for (const t of d.applies_to) located.push(await locate(reader, t))

  // stale: the governed lines (files and symbols) owned by commits after the decision
  let stale: DecisionVerification['stale'] = null
  const decided = Date.parse(d.decided_at)
  const cited = new Set(d.evidence.flatMap((e) => (e.kind === 'commit' ? [e.sha] : [])))
  let governed = 0
  let later = 0
  const laterCommits = new Map<string, number>()
  for (const r of located.flatMap((l) => (l.target.kind === 'directory' ? [] : l.ranges))) {
    const file = reader.file(r.path)
    if (!file || file.lines === 0) continue
    const result = await evidenceFor({ reader, path: r.path, lineStart: r.start ?? 1, lineEnd: r.end ?? file.lines, limit: 0 })
    for (const item of result.evidence) {
      if (item.source !== 'blame' || !item.lines) continue
      governed += item.lines
      if (Date.parse(item.commit.date) > decided && !cited.has(item.commit.sha)) {
        later += item.lines
        laterCommits.set(item.commit.sha, (laterCommits.get(item.commit.sha) ?? 0) + item.lines)
      }
    }
  }
  if (governed > 0) {
    const share = Math.round((later / governed) * 100) / 100
    stale = {
      share,
      threshold: STALE_SHARE,
      governed_lines: governed,
      later_lines: later,
      commits: [...laterCommits].sort((a, b) => b[1] - a[1]).flatMap(([sha, lines]) => {
        const c = brief(reader, sha)
        return c ? [{ ...c, lines }] : []
      }),
    }
  }

  const check = d.check ? await runCheck(reader, d, located, files) : null
  const adjust = evidence.reduce((sum, e) => sum + ADJUST[e.verdict], 0)
  const confidence = Math.max(0, Math.min(1, Math.round((d.confidence + adjust) * 100) / 100))
  const allRejected = evidence.length > 0 && evidence.every((e) => e.verdict === 'REJECTED')
  const isStale = d.status === 'active' && stale !== null && stale.share > STALE_SHARE
  return {
    id: d.id,
    title: d.title,
    kind: d.kind,
    recorded_status: d.status,
    status: isStale ? 'stale' : d.status,
    served: d.status !== 'rejected' && !allRejected,
    confidence,
    evidence,
    targets: located.map((l) => l.check),
    stale,
    check,
  }
}

async function runCheck(reader: IndexReader, d: Decision, located: Located[], files: HeadFiles): Promise<NonNullable<DecisionVerification['check']>> {
  const check = d.check!
  let ranges = located.flatMap((l) => l.ranges)
  if (check.paths && check.paths.length > 0) {
    const wanted = check.paths
    const narrowed = ranges.filter((r) => wanted.some((p) => r.path.startsWith(p)))
    ranges = ranges.length > 0 ? narrowed : reader.files().filter((f) => wanted.some((p) => f.path.startsWith(p))).map((f) => ({ path: f.path, start: null, end: null }))
  }
  await files.read([...new Set(ranges.map((r) => r.path))])
  const violations: Violation[] = []
  let error: string | null = null
  const checker = check.kind === 'query' ? new QueryChecker(check.query) : null
  try {
    const regex = check.kind === 'regex' ? checkRegex(check.pattern) : null
    for (const r of ranges) {
      const text = await files.text(r.path)
      if (text === null) continue
      const lines = text.split('\n')
      const start = r.start ?? 1
      const end = r.end ?? lines.length
      const inRange = (line: number) => line >= start && line <= end
      let hits: Array<{ line: number; text: string }> = []
      if (regex) {
        for (let i = start; i <= Math.min(end, lines.length); i++) if (regex.test(lines[i - 1])) hits.push({ line: i, text: lines[i - 1].trim() })
        if (check.kind === 'regex' && check.mode === 'require') {
          if (hits.length === 0) violations.push({ path: r.path, line: start, text: `no line matches /${check.pattern}/`, commit: null })
          continue
        }
      } else {
        hits = ((await checker!.check(r.path, text)) ?? []).filter((h) => inRange(h.line))
      }
      for (const h of hits) violations.push({ path: r.path, line: h.line, text: h.text.slice(0, 200), commit: null })
    }
  } catch (e) {
    error = e instanceof Error ? e.message : String(e)
  } finally {
    checker?.close()
  }
  // who wrote each violating line (blame at the indexed HEAD)
  for (const v of violations.slice(0, MAX_VIOLATIONS)) {
    if (v.text.startsWith('no line matches')) continue
    const owner = (await evidenceFor({ reader, path: v.path, lineStart: v.line, lineEnd: v.line, limit: 0 })).evidence.find((e) => e.source === 'blame')
    v.commit = owner ? { sha: owner.commit.sha, short: owner.commit.short, date: owner.commit.date, subject: owner.commit.subject } : null
  }
  return { kind: check.kind, checked_files: new Set(ranges.map((r) => r.path)).size, violations: violations.slice(0, MAX_VIOLATIONS), error }
}

/** Verifies decisions of the files (all, or the given ids; proposed ones only when asked). */
export async function verifyDecisions(options: { repo?: string; reader?: IndexReader; ids?: string[]; decisions?: Decision[]; includeProposed?: boolean }): Promise<VerifyResult> {
  return withReader(options, async (reader) => {
    let all = options.decisions
    if (!all) {
      const state = readDecisions(reader.repo)
      all = [...state.decisions, ...(options.includeProposed ? state.proposed.filter((d) => d.status === 'proposed') : [])]
    }
    if (options.ids && options.ids.length > 0) {
      const known = new Map(all.map((d) => [d.id, d]))
      const missing = options.ids.filter((id) => !known.has(id))
      if (missing.length > 0) throw new UserError(`no decision ${missing.join(', ')}`, 'list them with `gitwhy decisions list` (proposed ones with --status proposed)', 'unknown_decision')
      all = options.ids.map((id) => known.get(id)!)
    }
    const files = new HeadFiles(reader.repo, reader.meta.head)
    const decisions: DecisionVerification[] = []
    for (const d of all) decisions.push(await verifyOne(reader, d, files))
    return {
      decisions,
      summary: {
        total: decisions.length,
        verified: decisions.filter((d) => d.evidence.length > 0 && d.evidence.every((e) => e.verdict === 'VERIFIED')).length,
        stale: decisions.filter((d) => d.status === 'stale').length,
        not_served: decisions.filter((d) => !d.served).length,
        violations: decisions.reduce((n, d) => n + (d.check?.violations.length ?? 0), 0),
        missing_targets: decisions.reduce((n, d) => n + d.targets.filter((t) => !t.exists).length, 0),
      },
      index: await reader.indexInfo(),
    }
  })
}

/** What analyze says after indexing, on stderr: stale decisions, violated constraints, lost targets. */
export async function reportDecisionHealth(repo: string, onWarning?: (message: string) => void): Promise<void> {
  if (!onWarning) return
  const state = readDecisions(repo)
  const active = state.decisions.filter((d) => d.status === 'active')
  if (active.length === 0) return
  try {
    const { summary } = await verifyDecisions({ repo, decisions: active })
    const parts = [
      summary.stale && `${summary.stale} stale`,
      summary.violations && `${summary.violations} constraint violation${summary.violations === 1 ? '' : 's'}`,
      summary.missing_targets && `${summary.missing_targets} governed target${summary.missing_targets === 1 ? '' : 's'} gone`,
      summary.not_served && `${summary.not_served} with all evidence rejected`,
    ].filter(Boolean)
    if (parts.length > 0) onWarning(`decisions: ${parts.join(', ')} — see \`gitwhy decisions verify\``)
  } catch (error) {
    onWarning(`decisions were not verified: ${error instanceof Error ? error.message : String(error)}`)
  }
}
