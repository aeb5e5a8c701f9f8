/**
 * Decisions: recorded by hand (`decision add`), mined (`decisions mine`: ADRs, decision language
 * in commit messages, dependencies in manifests) and accepted, kept true (decision-verify.ts),
 * and answered per file or symbol (`decisions for`). The decision files are the source of truth
 * (knowledge/decision-store.ts); analyze loads them into the graph.
 */
import { createHash, randomBytes } from 'node:crypto'
import { UserError, nearest } from '../errors.js'
import { listTree, readBlobs } from '../git/tree.js'
import { DECISION_QUERIES } from '../graph/queries.js'
import { parseAdr, isAdrPath } from '../knowledge/adr.js'
import { decisionSentences } from '../knowledge/decision-language.js'
import { DECISION_KINDS, DECISION_ID, STORED_STATUSES, checkRegex, DecisionFormatError, targetText, type Decision, type DecisionCheck, type DecisionEvidence, type DecisionKind, type GovernedTarget } from '../knowledge/decision-model.js'
import { readDecisions, updateDecisions, DECISION_FILE, type DecisionFileProblem } from '../knowledge/decision-store.js'
import { importsDependency, isManifestPath, manifestDependencies } from '../knowledge/manifests.js'
import { QueryChecker } from '../knowledge/query-check.js'
import { readmeFeatures } from '../knowledge/readme-features.js'
import { isTestPath } from '../parse/index.js'
import { scrubSecrets } from '../text/scrub.js'
import { locateTarget, verifyDecisions, type DecisionVerification } from './decision-verify.js'
import { evidence as evidenceFor } from './evidence.js'
import { IndexReader, withReader } from './index-reader.js'
import { resolveSha } from './lookup.js'
import { resolveTarget } from './resolve.js'
import type { IndexInfo } from './types.js'
import { resolveRepo } from './workspace.js'

const MAX_STATEMENT = 2000

/** The indexed HEAD's date: "now" for a decision recorded against this index (one clock). */
function headDate(reader: IndexReader): string {
  return reader.commits().get(reader.meta.head)?.commit.date ?? new Date().toISOString()
}

function hashId(prefix: string, key: string): string {
  return `${prefix}-${createHash('sha256').update(key).digest('hex').slice(0, 10)}`
}

/** A target as the user writes it, through the one resolver (plus `community:ID`). */
export async function resolveGoverned(reader: IndexReader, input: string): Promise<GovernedTarget> {
  const community = /^community:(.+)$/.exec(input.trim())
  if (community) {
    const rows = await (await reader.graph()).query(DECISION_QUERIES.communityExists, { id: community[1] })
    if (rows.length === 0) throw new UserError(`no community ${community[1]} in the index`, 'list them with `gitwhy communities`', 'unknown_community')
    return { kind: 'community', id: community[1] }
  }
  const t = resolveTarget(reader, input)
  if (t.kind === 'directory') {
    if (t.path === '') throw new UserError('a decision about the whole repository governs no particular code', 'leave out --applies-to (it then applies everywhere), or name a directory, file or symbol', 'bad_option')
    return { kind: 'directory', path: t.path }
  }
  if (t.kind === 'file') return { kind: 'file', path: t.path }
  return { kind: 'symbol', path: t.path, symbol: t.qualified_name }
}

export const EVIDENCE_FORMS = 'a commit SHA (4+ hex digits), PR #N (or pr:N), #N (or issue:N) for an issue, or PATH:START-END of a document'

/** An evidence id as the user writes it, checked against the index (a document range: read at the indexed HEAD). */
export async function resolveEvidence(reader: IndexReader, input: string): Promise<DecisionEvidence> {
  const text = input.trim()
  const pr = /^(?:pr|PR|pull)\s*[:#]?\s*(\d+)$/.exec(text)
  const issue = /^(?:#|issue:|issue\s*#)(\d+)$/i.exec(text)
  const g = await reader.graph()
  if (pr) {
    const number = Number(pr[1])
    if ((await g.query(DECISION_QUERIES.pullRequestExists, { number })).length === 0) throw new UserError(`PR #${number} is not mentioned in the indexed history`, 'PRs are found in merge and squash commit messages; check the number', 'unknown_pr')
    return { kind: 'pr', number }
  }
  if (issue) {
    const number = Number(issue[1])
    if ((await g.query(DECISION_QUERIES.issueExists, { number })).length === 0) throw new UserError(`issue #${number} is not mentioned in the indexed history`, 'issues are found as #N references in commit messages; check the number', 'unknown_issue')
    return { kind: 'issue', number }
  }
  if (/^[0-9a-f]{4,40}$/i.test(text)) return { kind: 'commit', sha: await resolveSha(reader, text) }
  const range = /^(.+):(\d+)(?:-(\d+))?$/.exec(text)
  if (range) {
    const path = reader.relativePath(range[1])
    const start = Number(range[2])
    const end = range[3] === undefined ? start : Number(range[3])
    if (start < 1 || end < start) throw new UserError(`bad line range in ${text}`, 'use PATH:START-END with 1 ≤ START ≤ END', 'bad_range')
    let content: string | null = null
    const entry = (await listTree(reader.repo, reader.meta.head)).find((e) => e.path === path)
    if (entry) await readBlobs(reader.repo, [entry.blob], (_, c) => (content = c.toString('utf8')))
    if (content === null) throw new UserError(`${path} is not in the indexed HEAD (${reader.meta.head.slice(0, 7)})`, 'commit the document and run `gitwhy analyze` first, or cite a committed file', 'unknown_path')
    const lines = (content as string).split('\n')
    if (end > lines.length) throw new UserError(`${path} has ${lines.length} lines; ${start}-${end} is past its end`, `pick lines within 1-${lines.length}`, 'bad_range')
    return { kind: 'document', path, start_line: start, end_line: end, snippet: lines.slice(start - 1, end).join('\n') }
  }
  throw new UserError(`${JSON.stringify(input)} is not evidence gitwhy knows`, `pass ${EVIDENCE_FORMS}`, 'bad_evidence')
}

export interface AddDecisionOptions {
  repo?: string
  reader?: IndexReader
  statement: string
  why?: string
  title?: string
  kind?: DecisionKind
  appliesTo?: string[]
  evidence?: string[]
  /** A regex no governed line may match. */
  forbid?: string
  /** A regex every governed file must match somewhere. */
  require?: string
  /** A tree-sitter query whose captures are forbidden in the governed files. */
  forbidQuery?: string
  /** Path prefixes the check covers (default: the governed code). */
  checkPaths?: string[]
  confidence?: number
}

function buildCheck(o: AddDecisionOptions): DecisionCheck | null {
  const given = [o.forbid, o.require, o.forbidQuery].filter((v) => v !== undefined)
  if (given.length > 1) throw new UserError('a decision carries one check', 'pass only one of --forbid, --require and --forbid-query', 'bad_option')
  const paths = o.checkPaths && o.checkPaths.length > 0 ? { paths: o.checkPaths } : {}
  try {
    if (o.forbid !== undefined) return (checkRegex(o.forbid), { kind: 'regex', pattern: o.forbid, mode: 'forbid', ...paths })
    if (o.require !== undefined) return (checkRegex(o.require), { kind: 'regex', pattern: o.require, mode: 'require', ...paths })
  } catch (error) {
    if (error instanceof DecisionFormatError) throw new UserError(error.message, 'pass a JavaScript regular expression (matched against each line)', 'bad_option')
    throw error
  }
  if (o.forbidQuery !== undefined) {
    if (!o.forbidQuery.trim()) throw new UserError('the tree-sitter query is empty', 'pass a query such as \'(call_expression function: (identifier) @f (#eq? @f "eval"))\'', 'bad_option')
    return { kind: 'query', query: o.forbidQuery, ...paths }
  }
  if (o.checkPaths && o.checkPaths.length > 0) throw new UserError('--check-path narrows a check, and none was given', 'add --forbid, --require or --forbid-query', 'bad_option')
  return null
}

function checkText(statement: string, what: string): string {
  const s = statement.trim()
  if (!s) throw new UserError(`the ${what} is empty`, `say what was decided, e.g. gitwhy decision add "All SQL goes through db/query.ts" --why "…"`, 'bad_option')
  if (s.length > MAX_STATEMENT) throw new UserError(`the ${what} has ${s.length} characters (at most ${MAX_STATEMENT})`, 'keep it to a few sentences; cite documents with --evidence PATH:START-END', 'bad_option')
  return s
}

export interface DecisionAnswer {
  decision: Decision
  file: string
}

/** Record a decision by hand: targets and evidence resolved and checked before anything is written. */
export async function addDecision(o: AddDecisionOptions): Promise<DecisionAnswer> {
  return withReader(o, async (reader) => {
    const statement = checkText(o.statement, 'statement')
    const why = o.why === undefined ? '' : o.why.trim()
    if (why.length > MAX_STATEMENT) throw new UserError(`--why has ${why.length} characters (at most ${MAX_STATEMENT})`, 'keep the rationale short; cite the rest with --evidence', 'bad_option')
    const kind = o.kind ?? 'decision'
    if (!DECISION_KINDS.includes(kind)) throw new UserError(`unknown kind ${kind}`, `pass one of ${DECISION_KINDS.join(', ')}`, 'bad_option')
    const confidence = o.confidence ?? 1
    if (!(confidence >= 0 && confidence <= 1)) throw new UserError(`--confidence must be from 0 to 1, got ${confidence}`, 'pass e.g. --confidence 0.8', 'bad_option')
    const check = buildCheck(o)
    const applies_to: GovernedTarget[] = []
    for (const t of o.appliesTo ?? []) {
      const target = await resolveGoverned(reader, t)
      if (!applies_to.some((a) => targetText(a) === targetText(target))) applies_to.push(target)
    }
    const evidence: DecisionEvidence[] = []
    for (const e of o.evidence ?? []) evidence.push(await resolveEvidence(reader, e))
    const title = (o.title?.trim() || statement.split('\n')[0]).slice(0, 120)
    const decided = headDate(reader)
    const decision = await updateDecisions(reader.repo, (state) => {
      const taken = new Set([...state.decisions, ...state.proposed].map((d) => d.id))
      let id = ''
      do id = `d-${randomBytes(4).toString('hex')}`
      while (taken.has(id))
      const d: Decision = { id, kind, title, statement, rationale: why, confidence, status: 'active', created: new Date().toISOString(), decided_at: decided, source: 'manual', applies_to, evidence, check, superseded_by: null }
      state.decisions.push(d)
      return d
    })
    return { decision, file: DECISION_FILE }
  })
}

export interface ListDecisionsOptions {
  repo?: string
  /** Recorded statuses to list (default active and superseded; proposed lists the mined candidates). */
  status?: string[]
  kind?: string
  source?: string
  /** Maximum decisions; 0 = no cap. */
  limit?: number
}

export interface DecisionList {
  decisions: Decision[]
  total: number
  /** Candidates waiting for `decisions accept`. */
  proposed: number
  problems: DecisionFileProblem[]
}

function requireId(id: string): string {
  if (!DECISION_ID.test(id)) throw new UserError(`${JSON.stringify(id)} is not a decision id`, 'pass an id as `gitwhy decisions list` shows it, e.g. d-1a2b3c4d', 'bad_option')
  return id
}

function unknownDecision(id: string, known: Decision[]): UserError {
  const near = nearest(id, known.map((d) => d.id), 3)
  return new UserError(`no decision ${id}`, near.length ? `did you mean: ${near.join(', ')}? (\`gitwhy decisions list --status all\` lists them)` : 'list them with `gitwhy decisions list --status all`', 'unknown_decision')
}

export const LIST_STATUSES = [...STORED_STATUSES, 'all'] as const

export async function listDecisions(o: ListDecisionsOptions): Promise<DecisionList> {
  const repo = await resolveRepo(o.repo)
  const state = readDecisions(repo)
  const statuses = o.status && o.status.length > 0 ? o.status : ['active', 'superseded']
  for (const s of statuses) if (!(LIST_STATUSES as readonly string[]).includes(s)) throw new UserError(`unknown status ${s}`, `pass --status with some of ${LIST_STATUSES.join(', ')}`, 'bad_option')
  const all = [...state.decisions, ...state.proposed]
  const picked = all.filter((d) => (statuses.includes('all') || statuses.includes(d.status)) && (!o.kind || d.kind === o.kind) && (!o.source || d.source === o.source))
  if (statuses.includes('proposed')) picked.sort((a, b) => b.confidence - a.confidence || a.id.localeCompare(b.id))
  const limit = o.limit ?? 0
  return { decisions: limit > 0 ? picked.slice(0, limit) : picked, total: picked.length, proposed: state.proposed.filter((d) => d.status === 'proposed').length, problems: state.problems }
}

export interface ShowDecisionResult extends DecisionAnswer {
  verification: DecisionVerification | null
  /** Why it was not verified (no index yet), else null. */
  note: string | null
}

function findDecision(repo: string, id: string): { decision: Decision; file: string } {
  requireId(id)
  const state = readDecisions(repo)
  const committed = state.decisions.find((d) => d.id === id)
  if (committed) return { decision: committed, file: DECISION_FILE }
  const proposed = state.proposed.find((d) => d.id === id)
  if (proposed) return { decision: proposed, file: '.gitwhy/decisions-proposed.jsonl' }
  throw unknownDecision(id, [...state.decisions, ...state.proposed])
}

export async function showDecision(o: { repo?: string; reader?: IndexReader; id: string }): Promise<ShowDecisionResult> {
  const repo = o.reader?.repo ?? (await resolveRepo(o.repo))
  const found = findDecision(repo, o.id)
  try {
    const v = await verifyDecisions({ repo, reader: o.reader, decisions: [found.decision] })
    return { ...found, verification: v.decisions[0], note: null }
  } catch (error) {
    if (error instanceof UserError && ['no_index', 'schema_mismatch', 'index_unverified'].includes(error.code)) return { ...found, verification: null, note: `not verified: ${error.message}` }
    throw error
  }
}

export async function supersedeDecision(o: { repo?: string; id: string; by: string }): Promise<DecisionAnswer & { by: Decision }> {
  const repo = await resolveRepo(o.repo)
  requireId(o.id)
  requireId(o.by)
  if (o.id === o.by) throw new UserError('a decision cannot supersede itself', 'pass the id of the decision that replaces it with --by', 'bad_option')
  return updateDecisions(repo, (state) => {
    const old = state.decisions.find((d) => d.id === o.id)
    const by = state.decisions.find((d) => d.id === o.by)
    const inProposed = [o.id, o.by].find((id) => state.proposed.some((d) => d.id === id))
    if (inProposed && !(old && by)) throw new UserError(`${inProposed} is a mined candidate, not a recorded decision`, `accept it first: gitwhy decisions accept ${inProposed}`, 'bad_option')
    if (!old) throw unknownDecision(o.id, state.decisions)
    if (!by) throw unknownDecision(o.by, state.decisions)
    if (by.status !== 'active') throw new UserError(`${by.id} is ${by.status}; only an active decision can supersede another`, `pick an active decision, or record the new one with gitwhy decision add`, 'bad_option')
    if (by.superseded_by === old.id) throw new UserError(`${by.id} is itself superseded by ${old.id}`, 'pick a decision that is not replaced by this one', 'bad_option')
    old.status = 'superseded'
    old.superseded_by = by.id
    return { decision: old, file: DECISION_FILE, by }
  })
}

export async function rejectDecision(o: { repo?: string; id: string }): Promise<DecisionAnswer> {
  const repo = await resolveRepo(o.repo)
  requireId(o.id)
  return updateDecisions(repo, (state) => {
    const committed = state.decisions.find((d) => d.id === o.id)
    if (committed) {
      committed.status = 'rejected'
      return { decision: committed, file: DECISION_FILE }
    }
    const candidate = state.proposed.find((d) => d.id === o.id)
    if (!candidate) throw unknownDecision(o.id, [...state.decisions, ...state.proposed])
    // kept (as rejected) so that mining again does not propose it again
    candidate.status = 'rejected'
    return { decision: candidate, file: '.gitwhy/decisions-proposed.jsonl' }
  })
}

export interface AcceptResult {
  accepted: Decision[]
  /** Candidates left waiting. */
  remaining: number
  file: string
}

/** Candidates become active decisions in the committed file: the ids given, or (auto) all at or above a confidence. */
export async function acceptDecisions(o: { repo?: string; ids?: string[]; auto?: number }): Promise<AcceptResult> {
  const repo = await resolveRepo(o.repo)
  const ids = o.ids ?? []
  if (ids.length === 0 && o.auto === undefined) throw new UserError('nothing to accept', 'pass candidate ids (gitwhy decisions list --status proposed), or --auto THRESHOLD', 'bad_option')
  if (o.auto !== undefined && !(o.auto >= 0 && o.auto <= 1)) throw new UserError(`--auto must be a confidence from 0 to 1, got ${o.auto}`, 'pass e.g. --auto 0.8', 'bad_option')
  ids.forEach(requireId)
  return updateDecisions(repo, (state) => {
    for (const id of ids) {
      const c = state.proposed.find((d) => d.id === id)
      if (!c) {
        if (state.decisions.some((d) => d.id === id)) throw new UserError(`${id} is already recorded`, 'nothing to accept; `gitwhy decision show ID` shows it', 'bad_option')
        throw unknownDecision(id, state.proposed)
      }
      if (c.status !== 'proposed') throw new UserError(`${id} was rejected`, `it stays rejected; record it by hand with gitwhy decision add if it is a decision after all`, 'bad_option')
    }
    const picked = state.proposed.filter((d) => d.status === 'proposed' && (ids.includes(d.id) || (o.auto !== undefined && d.confidence >= o.auto)))
    const accepted = picked.map((d) => ({ ...d, status: 'active' as const }))
    state.decisions.push(...accepted)
    const gone = new Set(picked.map((d) => d.id))
    state.proposed.splice(0, state.proposed.length, ...state.proposed.filter((d) => !gone.has(d.id)))
    return { accepted, remaining: state.proposed.filter((d) => d.status === 'proposed').length, file: DECISION_FILE }
  })
}

// ---------------------------------------------------------------- mining

export const MINE_SOURCES = ['adr', 'commits', 'manifests', 'readme'] as const
export type MineSource = (typeof MINE_SOURCES)[number]
/** What `decisions mine` reads unless told: README features are opt-in (a section is more often documentation than a finding). */
export const DEFAULT_MINE_SOURCES: readonly MineSource[] = ['adr', 'commits', 'manifests']

export interface MineOptions {
  repo?: string
  reader?: IndexReader
  sources?: MineSource[]
  /** Candidates below this confidence are dropped (default 0.4). */
  minConfidence?: number
  /** Accept every candidate at or above this confidence right away (CI). */
  auto?: number
  /** Only report; write nothing. */
  dryRun?: boolean
  /** Candidates listed in the answer (0 = all; the file gets all either way). */
  limit?: number
}

export interface MineResult {
  candidates: Decision[]
  /** New candidates by source (already recorded, accepted or rejected ones are not proposed again). readme only with --source readme. */
  found: Record<MineSource, number>
  proposed: number
  accepted: number
  /** ADR files read, and the records they held. */
  adr: { files: number; records: number }
  commits_scanned: number
  dry_run: boolean
  total: number
  index: IndexInfo
}

function clip(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ').trim()
  return one.length > n ? `${one.slice(0, n - 1)}…` : one
}

/** Indexed files a text names (`src/x.ts`, docs/y.md): what an ADR governs. */
function namedFiles(reader: IndexReader, text: string): GovernedTarget[] {
  const out: GovernedTarget[] = []
  for (const m of text.matchAll(/[\w.-]+(?:\/[\w.-]+)+\.[a-z0-9]+/gi)) {
    if (reader.file(m[0]) && !out.some((t) => t.kind === 'file' && t.path === m[0])) out.push({ kind: 'file', path: m[0] })
    if (out.length >= 10) break
  }
  return out
}

async function mineAdrs(reader: IndexReader, tree: Array<{ path: string; blob: string }>, decided: string, now: string): Promise<{ candidates: Decision[]; files: number; records: number }> {
  const adrs = tree.filter((e) => isAdrPath(e.path) && !/(^|\/)(node_modules|vendor|third_party)\//.test(e.path))
  const texts = new Map<string, string>()
  const byBlob = new Map(adrs.map((e) => [e.blob, e.path]))
  await readBlobs(reader.repo, [...byBlob.keys()], (blob, content) => texts.set(byBlob.get(blob)!, content.toString('utf8')))
  const candidates: Decision[] = []
  let records = 0
  for (const e of adrs) {
    const text = texts.get(e.path)
    if (text === undefined) continue
    for (const r of parseAdr(e.path, text)) {
      records++
      const confidence = r.status === 'accepted' ? 0.9 : r.status === 'proposed' || r.status === 'unknown' ? 0.6 : 0.3
      candidates.push({
        id: hashId('a', `${e.path}\0${r.title}`),
        kind: 'decision',
        title: clip(scrubSecrets(r.title), 120),
        statement: clip(scrubSecrets(r.statement), 600),
        rationale: clip(scrubSecrets(r.rationale + (r.status !== 'accepted' && r.status !== 'unknown' ? ` (ADR status: ${r.status})` : '')), 600),
        confidence,
        status: 'proposed',
        created: now,
        decided_at: r.date ? new Date(`${r.date}T00:00:00Z`).toISOString() : decided,
        source: 'adr',
        applies_to: namedFiles(reader, text),
        evidence: [{ kind: 'document', path: e.path, start_line: r.start_line, end_line: r.end_line, snippet: r.snippet }],
        check: null,
        superseded_by: null,
      })
    }
  }
  return { candidates, files: adrs.length, records }
}

async function mineCommits(reader: IndexReader, now: string): Promise<{ candidates: Decision[]; scanned: number }> {
  const g = await reader.graph()
  const rows = await g.query<{ sha: string; subject: string; body: string }>(DECISION_QUERIES.commitMessages, {})
  const candidates: Decision[] = []
  const byStatement = new Map<string, Decision>()
  for (const row of rows) {
    const [best] = decisionSentences(row.subject, row.body, 1)
    if (!best) continue
    // a squash and its merge (or a cherry-pick) say it twice: one candidate, both commits as evidence
    const same = byStatement.get(best.sentence)
    if (same) {
      same.evidence.push({ kind: 'commit', sha: row.sha })
      continue
    }
    const entry = reader.commits().get(row.sha)
    const owned = await g.query<{ path: string; qualified_name: string }>(DECISION_QUERIES.commitOwnedSymbols, { sha: row.sha, limit: 3 })
    const applies_to: GovernedTarget[] = owned.length > 0
      ? owned.map((s) => ({ kind: 'symbol' as const, path: s.path, symbol: s.qualified_name }))
      : (await g.query<{ path: string }>(DECISION_QUERIES.commitPresentFiles, { sha: row.sha, limit: 5 })).filter((f) => reader.file(f.path)).map((f) => ({ kind: 'file' as const, path: f.path }))
    const why = entry?.commit.why && !entry.commit.why.includes(best.sentence.slice(0, 40)) ? entry.commit.why : ''
    candidates.push({
      id: hashId('m', row.sha),
      kind: best.kind,
      title: clip(scrubSecrets(row.subject), 120),
      statement: clip(scrubSecrets(best.sentence), 600),
      rationale: clip(scrubSecrets(why), 600),
      confidence: best.confidence,
      status: 'proposed',
      created: now,
      decided_at: entry?.commit.date ?? now,
      source: 'mined',
      applies_to,
      evidence: [
        { kind: 'commit', sha: row.sha },
        ...(entry?.pull_requests ?? []).map((p) => ({ kind: 'pr' as const, number: p.number })),
        ...(entry?.issues ?? []).map((i) => ({ kind: 'issue' as const, number: i.number })),
      ],
      check: null,
      superseded_by: null,
    })
    byStatement.set(best.sentence, candidates[candidates.length - 1])
  }
  return { candidates, scanned: rows.length }
}

async function mineManifests(reader: IndexReader, tree: Array<{ path: string; blob: string }>, decided: string, now: string): Promise<Decision[]> {
  const manifests = tree.filter((e) => isManifestPath(e.path) && !/(^|\/)(node_modules|vendor|third_party|fixtures?|examples?|test|tests|__tests__)\//.test(e.path)).sort((a, b) => a.path.split('/').length - b.path.split('/').length || a.path.localeCompare(b.path))
  const texts = new Map<string, string>()
  const byBlob = new Map<string, string[]>()
  for (const m of manifests) byBlob.set(m.blob, [...(byBlob.get(m.blob) ?? []), m.path])
  await readBlobs(reader.repo, [...byBlob.keys()], (blob, content) => byBlob.get(blob)!.forEach((p) => texts.set(p, content.toString('utf8'))))
  // the product's code: not tests, examples, fixtures, scripts or tool configuration
  const code = reader.files().filter((f) => !isTestPath(f.path) && (f.imports?.length ?? 0) > 0 && !/(^|\/)(examples?|fixtures?|scripts|playground|benchmarks?|e2e)\/|(^|\/)[^/]*\.config\.[cm]?[jt]s$|(^|\/)\.[^/]+\//.test(f.path))
  // the repository's own packages (workspace dependencies) are no choice of a library
  const own = new Set([...texts.entries()].flatMap(([p, t]) => (p.endsWith('package.json') ? [/"name"\s*:\s*"([^"]+)"/.exec(t)?.[1] ?? ''] : [])).filter(Boolean))
  const seen = new Set<string>()
  const out: Decision[] = []
  for (const m of manifests) {
    const text = texts.get(m.path)
    if (text === undefined) continue
    const lines = text.split('\n')
    for (const dep of manifestDependencies(m.path, text)) {
      const key = `${dep.ecosystem}\0${dep.name}`
      if (dep.dev || seen.has(key) || own.has(dep.name) || /^(workspace|link|file|portal):|^\*$/.test(dep.version)) continue
      // a manifest speaks for the code under its directory
      const under = m.path.includes('/') ? m.path.slice(0, m.path.lastIndexOf('/') + 1) : ''
      const users = code.filter((f) => f.path.startsWith(under) && f.imports!.some((i) => importsDependency(dep, i.source)))
      if (users.length === 0) continue
      seen.add(key)
      const evidence: DecisionEvidence[] = [{ kind: 'document', path: m.path, start_line: dep.line, end_line: dep.line, snippet: lines[dep.line - 1] ?? '' }]
      let when = decided
      if (reader.file(m.path)) {
        const owner = (await evidenceFor({ reader, path: m.path, lineStart: dep.line, lineEnd: dep.line, limit: 0 })).evidence.find((e) => e.source === 'blame')
        if (owner) {
          evidence.push({ kind: 'commit', sha: owner.commit.sha })
          when = owner.commit.date
        }
      }
      const shown = users.slice(0, 3).map((f) => f.path).join(', ')
      out.push({
        id: hashId('p', key),
        kind: 'decision',
        title: `uses ${dep.name}`,
        statement: `The project depends on ${dep.name}${dep.version ? ` ${dep.version}` : ''} (${m.path}) and imports it in ${users.length} file${users.length === 1 ? '' : 's'}: ${shown}${users.length > 3 ? ', …' : ''}.`,
        rationale: '',
        confidence: Math.min(0.75, 0.45 + 0.05 * users.length),
        status: 'proposed',
        created: now,
        decided_at: when,
        source: 'mined',
        applies_to: users.slice(0, 10).map((f) => ({ kind: 'file' as const, path: f.path })),
        evidence,
        check: null,
        superseded_by: null,
      })
    }
  }
  return out
}

/** Features from the root README's sections (opt-in: `--source readme`). */
async function mineReadme(reader: IndexReader, tree: Array<{ path: string; blob: string }>, decided: string, now: string): Promise<Decision[]> {
  const readme = tree.find((e) => /^readme(\.md|\.markdown)?$/i.test(e.path))
  if (!readme) return []
  let text = ''
  await readBlobs(reader.repo, [readme.blob], (_, c) => (text = c.toString('utf8')))
  return readmeFeatures(text).map((f): Decision => ({
    id: hashId('f', `${readme.path}\0${f.title}`),
    kind: 'feature',
    title: clip(scrubSecrets(f.title), 120),
    statement: clip(scrubSecrets(f.statement), 600),
    rationale: '',
    confidence: 0.5,
    status: 'proposed',
    created: now,
    decided_at: decided,
    source: 'mined',
    applies_to: namedFiles(reader, f.snippet),
    evidence: [{ kind: 'document', path: readme.path, start_line: f.start_line, end_line: f.end_line, snippet: f.snippet }],
    check: null,
    superseded_by: null,
  }))
}

/**
 * Mine candidates and keep them as proposed (.gitwhy/decisions-proposed.jsonl), beside the
 * recorded ones: a candidate already recorded, accepted or rejected is not proposed again; the
 * proposed ones are replaced by this run's.
 */
export async function mineDecisions(o: MineOptions): Promise<MineResult> {
  return withReader(o, async (reader) => {
    const sources = o.sources && o.sources.length > 0 ? o.sources : [...DEFAULT_MINE_SOURCES]
    for (const s of sources) if (!MINE_SOURCES.includes(s)) throw new UserError(`unknown source ${s}`, `pass --source with some of ${MINE_SOURCES.join(', ')}`, 'bad_option')
    const min = o.minConfidence ?? 0.4
    if (!(min >= 0 && min <= 1)) throw new UserError(`--min-confidence must be from 0 to 1, got ${min}`, 'pass e.g. --min-confidence 0.5', 'bad_option')
    if (o.auto !== undefined && !(o.auto >= 0 && o.auto <= 1)) throw new UserError(`--auto must be a confidence from 0 to 1, got ${o.auto}`, 'pass e.g. --auto 0.8', 'bad_option')
    const limit = o.limit ?? 30
    const now = new Date().toISOString()
    const decided = headDate(reader)
    const tree = sources.some((s) => s !== 'commits') ? await listTree(reader.repo, reader.meta.head) : []
    const adr = sources.includes('adr') ? await mineAdrs(reader, tree, decided, now) : { candidates: [], files: 0, records: 0 }
    const commits = sources.includes('commits') ? await mineCommits(reader, now) : { candidates: [], scanned: 0 }
    const manifests = sources.includes('manifests') ? await mineManifests(reader, tree, decided, now) : []
    const readme = sources.includes('readme') ? await mineReadme(reader, tree, decided, now) : []
    const all = [...adr.candidates, ...commits.candidates, ...manifests, ...readme].filter((d) => d.confidence >= min)
    const bySource = (c: Decision): MineSource => (c.source === 'adr' ? 'adr' : c.id.startsWith('p-') ? 'manifests' : c.id.startsWith('f-') ? 'readme' : 'commits')
    const apply = (state: { decisions: Decision[]; proposed: Decision[] }) => {
      const known = new Set([...state.decisions.map((d) => d.id), ...state.proposed.filter((d) => d.status !== 'proposed').map((d) => d.id)])
      const fresh = all.filter((c) => !known.has(c.id))
      const accept = o.auto === undefined ? [] : fresh.filter((c) => c.confidence >= o.auto!)
      const acceptedIds = new Set(accept.map((c) => c.id))
      state.decisions.push(...accept.map((c) => ({ ...c, status: 'active' as const })))
      const kept = state.proposed.filter((d) => d.status !== 'proposed')
      state.proposed.splice(0, state.proposed.length, ...kept, ...fresh.filter((c) => !acceptedIds.has(c.id)))
      return { fresh, accepted: accept.length }
    }
    const { fresh, accepted } = o.dryRun ? apply(structuredClone(readDecisions(reader.repo))) : await updateDecisions(reader.repo, apply)
    const found = Object.fromEntries(MINE_SOURCES.map((s) => [s, fresh.filter((c) => bySource(c) === s).length])) as Record<MineSource, number>
    const ranked = [...fresh].sort((a, b) => b.confidence - a.confidence || a.id.localeCompare(b.id))
    return {
      candidates: limit === 0 ? ranked : ranked.slice(0, limit),
      found,
      proposed: fresh.length - accepted,
      accepted,
      adr: { files: adr.files, records: adr.records },
      commits_scanned: commits.scanned,
      dry_run: o.dryRun === true,
      total: fresh.length,
      index: await reader.indexInfo(),
    }
  })
}

// ---------------------------------------------------------------- answers

export interface GoverningDecision {
  id: string
  kind: DecisionKind
  title: string
  statement: string
  rationale: string
  /** active, or stale (the governed code was rewritten since: see stale_commits). */
  status: 'active' | 'stale'
  confidence: number
  /** How it reaches the target: it governs the symbol, the file, a directory holding it, or another symbol of its community. */
  via: 'symbol' | 'file' | 'directory' | 'community' | 'contains'
  /** The governed target that matched, as the decision names it. */
  applies_to: string
  evidence: string[]
  stale_commits: Array<{ short: string; subject: string; lines: number }>
  violations: Array<{ path: string; line: number; text: string; commit: string | null }>
}

export interface DecisionsForResult {
  target: { path: string; kind: 'file' | 'directory' | 'symbol'; qualified_name: string | null }
  decisions: GoverningDecision[]
  total: number
  index: IndexInfo
}

function match(t: GovernedTarget, now: string | null, target: { kind: 'file' | 'directory' | 'symbol'; path: string; qualified_name: string | null; start: number; end: number }, reader: IndexReader): GoverningDecision['via'] | null {
  if (t.kind === 'community') return null
  const path = now ? now.split(':')[0] : t.path
  if (target.kind === 'directory') {
    if (t.kind === 'directory') return t.path.startsWith(target.path) || target.path.startsWith(t.path) ? 'directory' : null
    return path.startsWith(target.path) ? (t.kind === 'symbol' ? 'symbol' : 'file') : null
  }
  if (t.kind === 'directory') return target.path.startsWith(t.path) ? 'directory' : null
  if (path !== target.path) return null
  if (t.kind === 'file') return 'file'
  if (target.kind === 'file') return 'symbol'
  const name = now ? now.slice(now.indexOf(':') + 1) : t.symbol
  if (name === target.qualified_name) return 'symbol'
  // a class governs its methods; a method's rule holds inside its class's answer too
  const s = reader.file(path)?.symbols.find((x) => x.qualifiedName === name)
  return s && s.startLine <= target.end && s.endLine >= target.start ? 'contains' : null
}

/** The decisions (active, stale ones flagged) that govern a path or symbol, its directories and its community. */
export async function decisionsFor(o: { repo?: string; reader?: IndexReader; target: string; limit?: number }): Promise<DecisionsForResult> {
  return withReader(o, async (reader) => {
    const resolved = resolveTarget(reader, o.target)
    const file = resolved.kind === 'file' || resolved.kind === 'symbol' ? reader.file(resolved.path) : undefined
    const target = {
      kind: resolved.kind,
      path: resolved.path,
      qualified_name: resolved.kind === 'symbol' ? resolved.qualified_name : null,
      start: resolved.kind === 'symbol' ? resolved.start_line : 1,
      end: resolved.kind === 'symbol' ? resolved.end_line : file?.lines ?? 0,
    }
    const governing = await governingDecisions(reader, [target])
    const limit = o.limit ?? 20
    return { target: { path: target.path, kind: target.kind, qualified_name: target.qualified_name }, decisions: limit === 0 ? governing : governing.slice(0, limit), total: governing.length, index: await reader.indexInfo() }
  })
}

/**
 * The active decisions governing any of these targets (files, directories, symbol ranges), by the
 * first target they reach; verified, the not-served ones dropped. Used by `decisions for`, why,
 * detect-changes and context-for-pr.
 */
export async function governingDecisions(reader: IndexReader, targets: Array<{ kind: 'file' | 'directory' | 'symbol'; path: string; qualified_name: string | null; start: number; end: number }>, options: { community?: boolean } = {}): Promise<GoverningDecision[]> {
  const active = readDecisions(reader.repo).decisions.filter((d) => d.status === 'active')
  if (active.length === 0 || targets.length === 0) return []
  // renamed files and moved symbols: matched where they are now
  const nowOf = new Map<string, string | null>()
  const reached = new Map<string, { d: Decision; via: GoverningDecision['via']; applies_to: string }>()
  for (const d of active) {
    for (const t of d.applies_to) {
      if (t.kind === 'community' || t.kind === 'directory') continue
      const present = t.kind === 'file' ? reader.file(t.path) !== undefined : reader.file(t.path)?.symbols.some((s) => s.qualifiedName === t.symbol)
      if (!present && !nowOf.has(targetText(t))) {
        nowOf.set(targetText(t), (await locateTarget(reader, t)).now)
      }
    }
  }
  for (const d of active) {
    for (const t of d.applies_to) {
      for (const target of targets) {
        const via = match(t, nowOf.get(targetText(t)) ?? null, target, reader)
        if (via && !reached.has(d.id)) reached.set(d.id, { d, via, applies_to: targetText(t) })
      }
    }
  }
  // the community: decisions governing other symbols of the target symbols' communities (or the community itself)
  const symbolIdsOf = targets.flatMap((t) => {
    if (t.kind === 'directory') return []
    const f = reader.file(t.path)
    return f ? f.symbols.filter((s) => t.kind === 'file' || (s.startLine <= t.end && s.endLine >= t.start)).slice(0, 200).map((s) => `${t.path}#${s.qualifiedName}`) : []
  })
  if (options.community !== false && symbolIdsOf.length > 0 && active.some((d) => !reached.has(d.id))) {
    const g = await reader.graph()
    const communities = await g.query<{ id: string }>(DECISION_QUERIES.communitiesOf, { ids: symbolIdsOf })
    if (communities.length > 0) {
      const ids = communities.map((c) => c.id)
      const members = new Set((await g.query<{ id: string }>(DECISION_QUERIES.communityMembers, { ids })).map((m) => m.id))
      for (const d of active) {
        if (reached.has(d.id)) continue
        const t = d.applies_to.find((t) => (t.kind === 'community' && ids.includes(t.id)) || (t.kind === 'symbol' && members.has(`${t.path}#${t.symbol}`)))
        if (t) reached.set(d.id, { d, via: 'community', applies_to: targetText(t) })
      }
    }
  }
  if (reached.size === 0) return []
  const verified = await verifyDecisions({ reader, decisions: [...reached.values()].map((r) => r.d) })
  const byId = new Map(verified.decisions.map((v) => [v.id, v]))
  const order: Record<GoverningDecision['via'], number> = { symbol: 0, contains: 1, file: 2, directory: 3, community: 4 }
  return [...reached.values()]
    .filter((r) => byId.get(r.d.id)!.served)
    .map(({ d, via, applies_to }): GoverningDecision => {
      const v = byId.get(d.id)!
      return {
        id: d.id,
        kind: d.kind,
        title: d.title,
        statement: d.statement,
        rationale: d.rationale,
        status: v.status === 'stale' ? 'stale' : 'active',
        confidence: v.confidence,
        via,
        applies_to,
        evidence: v.evidence.map((e) => `${e.evidence} ${e.verdict}`),
        stale_commits: v.status === 'stale' ? (v.stale?.commits ?? []).slice(0, 5).map((c) => ({ short: c.short, subject: c.subject, lines: c.lines })) : [],
        // the violations in the code asked about (a rule over src/ lists those of this file)
        violations: (v.check?.violations ?? []).filter((x) => targets.some((t) => (t.kind === 'directory' ? x.path.startsWith(t.path) : x.path === t.path && x.line >= t.start && x.line <= Math.max(t.end, t.start)))).slice(0, 10).map((x) => ({ path: x.path, line: x.line, text: x.text, commit: x.commit?.short ?? null })),
      }
    })
    .sort((a, b) => order[a.via] - order[b.via] || b.confidence - a.confidence || a.id.localeCompare(b.id))
}

/** Text lines of a governing decision, for CLI and MCP answers. */
export function governingLines(decisions: GoverningDecision[]): string[] {
  return decisions.flatMap((d) => [
    `${d.id} [${d.kind}${d.status === 'stale' ? ', STALE' : ''}] ${d.title}  (via ${d.via} ${d.applies_to}, confidence ${d.confidence})`,
    ...(d.statement !== d.title ? [`  ${clip(d.statement, 300)}`] : []),
    ...(d.rationale ? [`  why: ${clip(d.rationale, 300)}`] : []),
    ...(d.evidence.length ? [`  evidence: ${d.evidence.join(', ')}`] : []),
    ...(d.stale_commits.length ? [`  rewritten since by: ${d.stale_commits.map((c) => `${c.short} ${clip(c.subject, 60)} (${c.lines} lines)`).join('; ')}`] : []),
    ...d.violations.map((v) => `  VIOLATION ${v.path}:${v.line} ${clip(v.text, 100)}${v.commit ? ` (${v.commit})` : ''}`),
  ])
}

export interface ChangedCode {
  path: string
  /** The symbols the change touches (qualified names) at the indexed HEAD; null: the whole file counts. */
  symbols: Array<{ qualified_name: string; start: number; end: number }> | null
  /** The file's new content, and the new-side lines the change adds (1-based); null: not known (then no constraint is checked). */
  content: string | null
  added: number[] | null
}

export interface ChangeDecisions {
  /** Active decisions governing what the change touches (not through communities: too wide for a warning). */
  decisions: Array<GoverningDecision & { touched: string[] }>
  /** Lines the change adds that break a checkable constraint (or a file it leaves without a required match). */
  violations: Array<{ decision: string; title: string; path: string; line: number; text: string }>
}

/** Whether an active decision carries a check (then a change's new content is worth reading). */
export function hasCheckableDecisions(repo: string): boolean {
  return readDecisions(repo).decisions.some((d) => d.status === 'active' && d.check !== null)
}

/** What detect-changes and context-for-pr warn about: governed code the change touches, and constraints its added lines break. */
export async function changeDecisions(reader: IndexReader, changes: ChangedCode[]): Promise<ChangeDecisions> {
  if (!readDecisions(reader.repo).decisions.some((d) => d.status === 'active') || changes.length === 0) return { decisions: [], violations: [] }
  const out = new Map<string, GoverningDecision & { touched: string[] }>()
  for (const c of changes) {
    const file = reader.file(c.path)
    const targets = [
      ...(c.symbols ?? []).map((s) => ({ kind: 'symbol' as const, path: c.path, qualified_name: s.qualified_name, start: s.start, end: s.end })),
      { kind: 'file' as const, path: c.path, qualified_name: null, start: 1, end: file?.lines ?? 1 },
    ]
    const touchedNames = new Set((c.symbols ?? []).map((s) => s.qualified_name))
    for (const d of await governingDecisions(reader, targets, { community: false })) {
      // a rule on one symbol of the file is not touched by a change elsewhere in it
      if (d.via === 'symbol' && c.symbols !== null && !touchedNames.has(d.applies_to.slice(d.applies_to.lastIndexOf(':') + 1))) continue
      const known = out.get(d.id)
      if (known) known.touched.push(c.path)
      else out.set(d.id, { ...d, violations: [], touched: [c.path] })
    }
  }
  const violations: ChangeDecisions['violations'] = []
  const recorded = new Map(readDecisions(reader.repo).decisions.map((d) => [d.id, d]))
  for (const g of out.values()) {
    const check = recorded.get(g.id)?.check
    if (!check) continue
    for (const c of changes) {
      if (!g.touched.includes(c.path) || c.content === null) continue
      if (check.paths && !check.paths.some((p) => c.path.startsWith(p))) continue
      const lines = c.content.split('\n')
      const added = new Set(c.added ?? lines.map((_, i) => i + 1))
      if (check.kind === 'regex') {
        const re = new RegExp(check.pattern)
        if (check.mode === 'require') {
          if (!lines.some((l) => re.test(l))) violations.push({ decision: g.id, title: g.title, path: c.path, line: 1, text: `no line matches /${check.pattern}/ after the change` })
          continue
        }
        lines.forEach((l, i) => {
          if (added.has(i + 1) && re.test(l)) violations.push({ decision: g.id, title: g.title, path: c.path, line: i + 1, text: l.trim().slice(0, 200) })
        })
      } else {
        const checker = new QueryChecker(check.query)
        try {
          for (const h of (await checker.check(c.path, c.content)) ?? []) if (added.has(h.line)) violations.push({ decision: g.id, title: g.title, path: c.path, line: h.line, text: h.text.slice(0, 200) })
        } catch {
          // a query that does not compile for this language checks nothing here; verify reports it
        } finally {
          checker.close()
        }
      }
    }
  }
  return { decisions: [...out.values()], violations: violations.slice(0, 50) }
}

/** Text lines of a change's decision warnings. */
export function changeDecisionLines(r: ChangeDecisions): string[] {
  return [
    ...(r.decisions.length ? ['decisions governing the changed code (respect them, or supersede them):', ...r.decisions.flatMap((d) => governingLines([d]).map((l, i) => `  ${i === 0 ? `${l}  touched: ${d.touched.join(', ')}` : l}`))] : []),
    ...r.violations.map((v) => `VIOLATION of ${v.decision} (${clip(v.title, 60)}): ${v.path}:${v.line} ${clip(v.text, 100)}`),
  ]
}
