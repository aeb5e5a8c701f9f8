/**
 * A decision, constraint, convention, pattern or feature of the project, as the user keeps it in
 * the decision file (one JSON object a line; see decision-store.ts). Pure: parsing, validation
 * and the one serialisation (fixed key order, so that a change is a one-line diff).
 */

export const DECISION_KINDS = ['feature', 'decision', 'constraint', 'pattern', 'convention'] as const
export type DecisionKind = (typeof DECISION_KINDS)[number]

/** What the file records. `stale` is never stored: verification derives it from the code (decision-verify.ts). */
export const STORED_STATUSES = ['proposed', 'active', 'superseded', 'rejected'] as const
export type StoredStatus = (typeof STORED_STATUSES)[number]
/** What answers show: the stored status, or `stale` for an active decision whose governed code was rewritten since. */
export type DecisionStatus = StoredStatus | 'stale'

export const DECISION_SOURCES = ['manual', 'mined', 'adr'] as const
export type DecisionSource = (typeof DECISION_SOURCES)[number]

/** Code a decision governs: a file, a directory (path ends in `/`), a symbol of a file, or a community of the index. */
export type GovernedTarget =
  | { kind: 'file'; path: string }
  | { kind: 'directory'; path: string }
  | { kind: 'symbol'; path: string; symbol: string }
  | { kind: 'community'; id: string }

/** Why the decision is believed: history (a commit, PR, issue) or a document's lines with the text they held. */
export type DecisionEvidence =
  | { kind: 'commit'; sha: string }
  | { kind: 'pr'; number: number }
  | { kind: 'issue'; number: number }
  | { kind: 'document'; path: string; start_line: number; end_line: number; snippet: string }

/**
 * A mechanically checkable rule: a regular expression that must not match (forbid) or must match
 * (require) the governed files at HEAD, or a tree-sitter query whose captures are forbidden.
 * `paths` narrows (or, for a decision governing nothing, names) the files checked: path prefixes.
 */
export type DecisionCheck =
  | { kind: 'regex'; pattern: string; mode: 'forbid' | 'require'; paths?: string[] }
  | { kind: 'query'; query: string; paths?: string[] }

export interface Decision {
  id: string
  kind: DecisionKind
  title: string
  statement: string
  rationale: string
  /** 0..1: how sure the miner (or the user) is that this is a real decision. */
  confidence: number
  status: StoredStatus
  /** When it was recorded (ISO 8601). */
  created: string
  /** When it was decided (ISO 8601): the evidence commit's date for a mined one, else `created`; later commits make it stale. */
  decided_at: string
  source: DecisionSource
  applies_to: GovernedTarget[]
  evidence: DecisionEvidence[]
  check: DecisionCheck | null
  superseded_by: string | null
}

export class DecisionFormatError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string') throw new DecisionFormatError(`${what} must be a string`)
  return v
}
const nat = (v: unknown, what: string): number => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new DecisionFormatError(`${what} must be a positive whole number`)
  return v
}
const oneOf = <T extends string>(v: unknown, values: readonly T[], what: string): T => {
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) throw new DecisionFormatError(`${what} must be one of ${values.join(', ')}`)
  return v as T
}
const date = (v: unknown, what: string): string => {
  const s = str(v, what)
  if (Number.isNaN(Date.parse(s))) throw new DecisionFormatError(`${what} must be an ISO 8601 date`)
  return s
}

function target(v: unknown): GovernedTarget {
  if (!isObject(v)) throw new DecisionFormatError('applies_to items must be objects')
  const kind = oneOf(v.kind, ['file', 'directory', 'symbol', 'community'] as const, 'applies_to.kind')
  if (kind === 'community') return { kind, id: str(v.id, 'applies_to.id') }
  const path = str(v.path, 'applies_to.path')
  if (kind === 'symbol') return { kind, path, symbol: str(v.symbol, 'applies_to.symbol') }
  return { kind, path }
}

function evidenceItem(v: unknown): DecisionEvidence {
  if (!isObject(v)) throw new DecisionFormatError('evidence items must be objects')
  const kind = oneOf(v.kind, ['commit', 'pr', 'issue', 'document'] as const, 'evidence.kind')
  if (kind === 'commit') {
    const sha = str(v.sha, 'evidence.sha')
    if (!/^[0-9a-f]{40}$/.test(sha)) throw new DecisionFormatError('evidence.sha must be a full 40-hex commit id')
    return { kind, sha }
  }
  if (kind === 'pr' || kind === 'issue') return { kind, number: nat(v.number, 'evidence.number') }
  const start = nat(v.start_line, 'evidence.start_line')
  const end = nat(v.end_line, 'evidence.end_line')
  if (end < start) throw new DecisionFormatError('evidence.end_line must not be before start_line')
  return { kind, path: str(v.path, 'evidence.path'), start_line: start, end_line: end, snippet: str(v.snippet, 'evidence.snippet') }
}

function check(v: unknown): DecisionCheck | null {
  if (v === null || v === undefined) return null
  if (!isObject(v)) throw new DecisionFormatError('check must be an object or null')
  const paths = v.paths === undefined ? undefined : (Array.isArray(v.paths) ? v.paths.map((p) => str(p, 'check.paths')) : (() => { throw new DecisionFormatError('check.paths must be a list') })())
  const kind = oneOf(v.kind, ['regex', 'query'] as const, 'check.kind')
  if (kind === 'query') return { kind, query: str(v.query, 'check.query'), ...(paths ? { paths } : {}) }
  const pattern = str(v.pattern, 'check.pattern')
  checkRegex(pattern)
  return { kind, pattern, mode: oneOf(v.mode, ['forbid', 'require'] as const, 'check.mode'), ...(paths ? { paths } : {}) }
}

/** A check's pattern compiles (JavaScript syntax, matched line by line). */
export function checkRegex(pattern: string): RegExp {
  try {
    return new RegExp(pattern)
  } catch (error) {
    throw new DecisionFormatError(`check pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${(error as Error).message}`)
  }
}

export const DECISION_ID = /^[a-z]{1,3}-[0-9a-f]{6,16}$/

/** One line of the decision file as a Decision (a DecisionFormatError says what is wrong). */
export function parseDecision(v: unknown): Decision {
  if (!isObject(v)) throw new DecisionFormatError('a decision must be a JSON object')
  const id = str(v.id, 'id')
  if (!DECISION_ID.test(id)) throw new DecisionFormatError(`id ${JSON.stringify(id)} is not a decision id (e.g. d-1a2b3c4d)`)
  const confidence = v.confidence
  if (typeof confidence !== 'number' || !(confidence >= 0 && confidence <= 1)) throw new DecisionFormatError('confidence must be a number from 0 to 1')
  const created = date(v.created, 'created')
  const statement = str(v.statement, 'statement')
  if (!statement.trim()) throw new DecisionFormatError('statement must not be empty')
  if (!Array.isArray(v.applies_to)) throw new DecisionFormatError('applies_to must be a list')
  if (!Array.isArray(v.evidence)) throw new DecisionFormatError('evidence must be a list')
  const superseded = v.superseded_by === undefined || v.superseded_by === null ? null : str(v.superseded_by, 'superseded_by')
  return {
    id,
    kind: oneOf(v.kind, DECISION_KINDS, 'kind'),
    title: str(v.title, 'title'),
    statement,
    rationale: v.rationale === undefined ? '' : str(v.rationale, 'rationale'),
    confidence,
    status: oneOf(v.status, STORED_STATUSES, 'status'),
    created,
    decided_at: v.decided_at === undefined ? created : date(v.decided_at, 'decided_at'),
    source: oneOf(v.source, DECISION_SOURCES, 'source'),
    applies_to: v.applies_to.map(target),
    evidence: v.evidence.map(evidenceItem),
    check: check(v.check),
    superseded_by: superseded,
  }
}

/** The one serialisation: keys in the model's order, one line. */
export function formatDecision(d: Decision): string {
  const ordered: Decision = {
    id: d.id,
    kind: d.kind,
    title: d.title,
    statement: d.statement,
    rationale: d.rationale,
    confidence: Math.round(d.confidence * 100) / 100,
    status: d.status,
    created: d.created,
    decided_at: d.decided_at,
    source: d.source,
    applies_to: d.applies_to,
    evidence: d.evidence,
    check: d.check,
    superseded_by: d.superseded_by,
  }
  return JSON.stringify(ordered)
}

/** A target as the user writes it: `path`, `dir/`, `path:Symbol`, `community:c3`. */
export function targetText(t: GovernedTarget): string {
  if (t.kind === 'community') return `community:${t.id}`
  if (t.kind === 'symbol') return `${t.path}:${t.symbol}`
  return t.path
}

export function evidenceText(e: DecisionEvidence): string {
  if (e.kind === 'commit') return e.sha.slice(0, 7)
  if (e.kind === 'pr') return `PR #${e.number}`
  if (e.kind === 'issue') return `#${e.number}`
  return `${e.path}:${e.start_line}-${e.end_line}`
}

/** The stable id of a governed symbol in the graph (index-layout.ts symbolIds: first of its name). */
export function symbolId(t: { path: string; symbol: string }): string {
  return `${t.path}#${t.symbol}`
}
