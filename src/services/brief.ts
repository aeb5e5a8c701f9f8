import { createHash, randomBytes } from 'node:crypto'
import { readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { UserError } from '../errors.js'
import { git, gitBuffer } from '../git/run.js'
import { informativeBody, informativeSubject, messageQuality } from '../history/message.js'
import { commitUnits, fileGroup, vagueCommit, type CommitUnit, type UnitCommit } from '../history/units.js'
import { generatedMessage, sentences } from '../knowledge/decision-language.js'
import { loadSynthesizer } from '../llm/index.js'
import type { EvidenceBlock, SynthesisResult, Synthesizer } from '../llm/types.js'
import { blockSentences, commentBlocks, commentLines, commentStyle, type CommentBlock } from '../text/comments.js'
import { scrubSecrets } from '../text/scrub.js'
import { community as communityOf, type CommunitySummary } from './analytics.js'
import { answerRecord, answerScope, recordAnswer } from './feedback.js'
import { governingDecisions, type GoverningDecision } from './decisions.js'
import { evidence } from './evidence.js'
import { symbolIds, type IndexedFile } from './index-layout.js'
import { IndexReader, withReader } from './index-reader.js'
import { findSymbol, resolveTarget, splitRange } from './resolve.js'
import { askOf, ownerLinesOf, riskFromOwnerLines, riskWithActivity, type AssessedRisk } from './risk.js'
import type { CommitRef, EvidenceItem, EvidenceResult, EvidenceTarget, IndexInfo, IssueRef, PullRequestRef } from './types.js'
import { gitwhyDir } from './workspace.js'

/**
 * `gitwhy brief` (issue 15): the rationale card of a symbol, file or range — what a developer or an
 * agent reads before editing it. Every line cites where it comes from: a commit `[a1b2c3d]`, a PR
 * `[PR #12]`, an issue `[#34]`, a decision `[d-64947207]`, or lines of the target's file `[L40-52]` for
 * what the code itself says.
 *
 *   purpose      kind, signature, doc comment, what the origin commit said it was for
 *   origin       why it exists: the oldest commit of its line history, its PR and issues
 *   changes      the key changes as commit units (src/history/units.ts): eight "wip" commits are one line
 *   constraints  sentences of commit messages, PR/issue titles, doc and code comments with
 *                must / never / always / do not / workaround for / because / otherwise / required
 *   trade-offs   … with instead of / rather than / at the cost of / trade-off / slower / faster
 *   risks, owners, decisions   from the analytics (risk.ts, file-based) and the recorded decisions
 *   questions    TODO/FIXME/HACK/XXX in the lines, reverts in its history, changes that give no reason
 *
 * The rationale part (everything but risks, owners and decisions) is extractive, or written by an
 * LLM when one is configured (src/llm: the synthesizer gets the card's evidence as blocks and its
 * cited sentences replace the sections it wrote; when it declines the extractive card stands). It
 * is cached in `.gitwhy/briefs/` — outside the rebuildable index directories — under a fingerprint
 * of its evidence (the commits with their blame lines, PR and issue titles, the file's blob, the
 * card format and the synthesizer's name): a new commit touching the code is a new fingerprint.
 * Risks, owners and decisions are read on every call (cheap, and they move without the code).
 */

/** Bumped whenever the card's content or shape changes: older cached cards are then not read. */
export const BRIEF_FORMAT = 1
export const BRIEFS_DIR = 'briefs'
/** Cached cards kept; beyond it the oldest are removed. */
const MAX_CARDS = 5000

export type BriefSectionId = 'purpose' | 'origin' | 'changes' | 'constraints' | 'tradeoffs' | 'risks' | 'owners' | 'decisions' | 'questions'

export const SECTION_TITLES: Record<BriefSectionId, string> = {
  purpose: 'purpose',
  origin: 'why it exists',
  changes: 'key changes',
  constraints: 'constraints',
  tradeoffs: 'trade-offs',
  risks: 'risks',
  owners: 'owners to ask',
  decisions: 'governing decisions',
  questions: 'open questions',
}
const ORDER: BriefSectionId[] = ['purpose', 'origin', 'changes', 'constraints', 'tradeoffs', 'risks', 'owners', 'decisions', 'questions']
/** The sections the synthesizer may write (the others are computed facts). */
const WRITABLE: BriefSectionId[] = ['purpose', 'origin', 'changes', 'constraints', 'tradeoffs', 'questions']

export interface BriefLine {
  /** The sentence, its citations at the end as `[ref]`. */
  text: string
  /** Refs as in the text, without brackets: `a1b2c3d`, `PR #12`, `#34`, `L40-52`, a decision id. */
  citations: string[]
}

export interface BriefSection {
  id: BriefSectionId
  title: string
  lines: BriefLine[]
  /** extractive: the evidence's own words; llm: the synthesizer's sentences; analytics: computed on every call. */
  written_by: 'extractive' | 'llm' | 'analytics'
}

/** A commit unit as the card lists it (src/history/units.ts). */
export interface BriefUnit {
  kind: CommitUnit['kind']
  /** Full SHAs, oldest first. */
  shas: string[]
  author: string
  /** ISO dates of its first and last commit. */
  start: string
  end: string
  subjects: string[]
  folded: Array<[string, number]>
  group?: CommitUnit['group']
  pull_requests: number[]
  issues: number[]
  /** Has a subject or body that says why. */
  informative: boolean
}

export interface BriefStatement {
  text: string
  source: 'comment' | 'commit' | 'pr' | 'issue'
  /** The word that made it one: `must`, `because`, `instead of` … */
  cue: string
  citations: string[]
}

export interface BriefQuestion {
  kind: 'todo' | 'revert' | 'vague' | 'undecided'
  text: string
  citations: string[]
}

export interface BriefCitation {
  ref: string
  kind: 'commit' | 'pr' | 'issue' | 'lines' | 'decision'
  sha?: string
  number?: number
  start?: number
  end?: number
  /** The commit's subject, the PR's or issue's title, the decision's title, or the lines' first words. */
  subject: string
}

export interface BriefResult {
  target: EvidenceTarget
  /** `gitwhy feedback ID up|down` names the card by it (answer-id.ts). */
  answer_id: string
  card: {
    format: number
    /** The evidence fingerprint the card is cached under. */
    fingerprint: string
    /** The rationale was read from `.gitwhy/briefs/` (no history read, no LLM call). */
    cached: boolean
    /** `extractive`, or the synthesizer that wrote it (`openai-compatible:qwen2.5`). */
    written_by: string
    model: string | null
    /** Why a configured synthesizer's answer was not used (the card is extractive), else null. */
    declined: string | null
  }
  sections: BriefSection[]
  origin: { commit: CommitRef; pull_requests: PullRequestRef[]; issues: IssueRef[] } | null
  /** The key changes listed (best by message, shown oldest first). */
  changes: BriefUnit[]
  constraints: BriefStatement[]
  tradeoffs: BriefStatement[]
  questions: BriefQuestion[]
  risk: { level: string; score: number; reasons: string[]; of: 'symbol' | 'file' } | null
  owners: Array<{ name: string; email: string; share: number; last_active: string | null }>
  decisions: GoverningDecision[]
  citations: BriefCitation[]
  counts: { commits: number; units: number; changes_listed: number; vague_commits: number }
  undecided: EvidenceResult['undecided']
  index: IndexInfo
}

/** The part of a card that is cached: everything read from the history and the code, or written from it. */
interface Rationale {
  sections: BriefSection[]
  origin: BriefResult['origin']
  changes: BriefUnit[]
  constraints: BriefStatement[]
  tradeoffs: BriefStatement[]
  questions: BriefQuestion[]
  citations: BriefCitation[]
  counts: BriefResult['counts']
  written_by: string
  model: string | null
}

interface CachedCard {
  format: number
  fingerprint: string
  target: string
  created: string
  rationale: Rationale
}

export interface BriefOptions {
  repo?: string
  reader?: IndexReader
  /** A symbol, a file, or `PATH:START-END`. */
  target: string
  /**
   * The LLM that writes the rationale: undefined = the configured one (`loadSynthesizer`), null =
   * none (extractive). Tests inject their own.
   */
  synthesizer?: Synthesizer | null
  /** Recompute the rationale even when a cached card matches (and write the new one). */
  refresh?: boolean
  /** Record the card under its id for `gitwhy feedback` (.gitwhy/answers.jsonl); default true. */
  record?: boolean
}

const short = (sha: string) => sha.slice(0, 7)
const iso = (t: number) => new Date(t * 1000).toISOString()
const quote = (s: string) => `"${s.replace(/[.\s]+$/, '')}"`
const lineRef = (a: number, b: number = a) => (a === b ? `L${a}` : `L${a}-${b}`)
const cite = (refs: string[]) => refs.map((r) => `[${r}]`).join(' ')
const line = (text: string, citations: string[]): BriefLine => {
  const refs = [...new Set(citations)]
  return { text: refs.length ? `${text} ${cite(refs)}` : text, citations: refs }
}
function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > n ? `${t.slice(0, n - 1).trimEnd()}…` : t
}

// ---------------------------------------------------------------- target

type Resolved = { given: { path?: string; symbol?: string }; kind: 'symbol' | 'file' | 'range' }

function resolveBrief(reader: IndexReader, text: string): Resolved {
  const t = text.trim()
  if (!t) throw new UserError('nothing to brief', 'pass a symbol, a file or PATH:START-END', 'bad_option')
  let range = false
  try {
    range = splitRange(reader, t).start !== undefined
  } catch (error) {
    if (!(error instanceof UserError && error.code === 'bad_range')) throw error
  }
  if (range) return { given: { path: t }, kind: 'range' }
  // `PATH:Name` of an indexed file is a symbol: found in that file, without reading every file as resolveTarget would
  const colon = t.lastIndexOf(':')
  if (colon > 0 && !/[/\\]/.test(t.slice(colon + 1)) && reader.file(reader.relativePath(t.slice(0, colon))) && !reader.file(reader.relativePath(t))) return { given: { symbol: findSymbol(reader, t).id }, kind: 'symbol' }
  const found = resolveTarget(reader, t)
  if (found.kind === 'symbol') return { given: { symbol: found.id }, kind: 'symbol' }
  if (found.kind === 'file') return { given: { path: found.path }, kind: 'file' }
  throw new UserError(`${found.path.replace(/\/$/, '') || '.'} is a directory`, 'brief takes a symbol, a file or PATH:START-END; for a directory use `gitwhy history DIR`, or `gitwhy brief --all --community ID` for an area', 'is_directory')
}

/** The symbol the range is exactly (its id and its index in the file), if any. */
function symbolAt(file: IndexedFile, target: EvidenceTarget): { id: string; index: number } | null {
  if (!target.symbol) return null
  const ids = symbolIds(file)
  const i = file.symbols.findIndex((s) => s.qualifiedName === target.symbol!.qualified_name && s.startLine === target.line_start && s.endLine === target.line_end)
  return i < 0 ? null : { id: ids[i], index: i }
}

// ---------------------------------------------------------------- cache

function briefsDir(repo: string): string {
  return path.join(gitwhyDir(repo), BRIEFS_DIR)
}

/**
 * A cached card, if it is one this evidence would give: its format and fingerprint, and every
 * citation one of the evidence's commits, PRs, issues or the file's lines (a card put there by
 * anything else is recomputed, not believed).
 */
function readCard(repo: string, fingerprint: string, items: EvidenceItem[], lines: number): Rationale | null {
  try {
    const file = path.join(briefsDir(repo), `${fingerprint}.json`)
    const card = written.get(file) ?? (JSON.parse(readFileSync(file, 'utf8')) as CachedCard)
    if (card.format !== BRIEF_FORMAT || card.fingerprint !== fingerprint || !Array.isArray(card.rationale?.sections) || !Array.isArray(card.rationale.citations)) return null
    const shas = new Set(items.map((e) => e.commit.sha))
    const prs = new Set(items.flatMap((e) => e.pull_requests.map((p) => p.number)))
    const issues = new Set(items.flatMap((e) => e.issues.map((i) => i.number)))
    const known = (c: BriefCitation) =>
      c.kind === 'commit' ? c.sha !== undefined && shas.has(c.sha) && c.ref === short(c.sha)
      : c.kind === 'pr' ? prs.has(c.number ?? -1) && c.ref === `PR #${c.number}`
      : c.kind === 'issue' ? issues.has(c.number ?? -1) && c.ref === `#${c.number}`
      : c.kind === 'lines' ? Number.isInteger(c.start) && Number.isInteger(c.end) && c.start! >= 1 && c.end! >= c.start! && c.end! <= lines && c.ref === lineRef(c.start!, c.end)
      : false
    if (!card.rationale.citations.every(known)) return null
    const refs = new Set(card.rationale.citations.map((c) => c.ref))
    return card.rationale.sections.every((s) => Array.isArray(s.lines) && s.lines.every((l) => typeof l.text === 'string' && Array.isArray(l.citations) && l.citations.every((r) => refs.has(r)))) ? card.rationale : null
  } catch {
    return null
  }
}

/** Cards this process is writing: read from here until their file is on disk. */
const written = new Map<string, CachedCard>()
const pending = new Set<Promise<void>>()

/**
 * Kept in memory at once, written to disk in the background (the answer does not wait for the
 * file system): whole or not at all, a temporary file renamed, so concurrent readers never see
 * half a card; a read-only `.gitwhy/` is no error.
 */
function writeCard(repo: string, card: CachedCard): void {
  const dir = briefsDir(repo)
  const file = path.join(dir, `${card.fingerprint}.json`)
  written.set(file, card)
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  const write = (async () => {
    try {
      await mkdir(dir, { recursive: true })
      await writeFile(tmp, JSON.stringify(card))
      await rename(tmp, file)
      pruneCards(dir)
    } catch {
      await rm(tmp, { force: true }).catch(() => {})
    }
  })()
  pending.add(write)
  void write.finally(() => {
    pending.delete(write)
    if (written.get(file) === card) written.delete(file)
  })
}

/** Wait for the cards still being written (a CLI run before it exits). */
export async function briefWrites(): Promise<void> {
  while (pending.size > 0) await Promise.all([...pending])
}

let writes = 0
/** Every 50th write: beyond MAX_CARDS cached cards, the least recently written go. */
function pruneCards(dir: string): void {
  if (++writes % 50 !== 0) return
  const names = readdirSync(dir).filter((n) => n.endsWith('.json'))
  if (names.length <= MAX_CARDS) return
  const aged = names.map((n) => ({ n, t: statSync(path.join(dir, n)).mtimeMs })).sort((a, b) => a.t - b.t)
  for (const { n } of aged.slice(0, names.length - Math.floor(MAX_CARDS * 0.9))) rmSync(path.join(dir, n), { force: true })
}

/** The evidence fingerprint: what the rationale is computed from, and how. */
function fingerprintOf(parts: { key: string; blob: string; target: EvidenceTarget; items: EvidenceItem[]; undecided: EvidenceResult['undecided']; writer: string }): string {
  const h = createHash('sha256')
  h.update(`gitwhy brief ${BRIEF_FORMAT}\0${parts.writer}\0${parts.key}\0${parts.blob}\0${parts.target.line_start}-${parts.target.line_end}\0${parts.undecided?.lines ?? 0}\0`)
  const ids = parts.items.map((e) =>
    [e.commit.sha, e.source, e.lines ?? '', e.ignored ? 'i' : '', ...e.pull_requests.map((p) => `PR #${p.number}:${p.title}`), ...e.issues.map((i) => `#${i.number}:${i.title}:${i.closes ? 1 : 0}`)].join('\u0001'),
  )
  for (const id of ids.sort()) h.update(`${id}\0`)
  return h.digest('hex').slice(0, 32)
}

// ---------------------------------------------------------------- reading the repository

/**
 * The file's text at the indexed HEAD, kept with the reader: the work tree's copy when it is that
 * blob (hashed as git hashes it: no git process), else the blob itself.
 */
function fileText(reader: IndexReader, file: IndexedFile): Promise<string[]> {
  return reader.memo(`brief\0blob\0${file.blob}`, async () => {
    try {
      const disk = readFileSync(path.join(reader.repo, file.path))
      const id = createHash('sha1').update(`blob ${disk.length}\0`).update(disk).digest('hex')
      if (id === file.blob) return disk.toString('utf8').split('\n')
    } catch {
      // not in the work tree (deleted, or a sparse checkout): git has it
    }
    try {
      return (await gitBuffer(reader.repo, ['cat-file', 'blob', file.blob])).stdout.toString('utf8').split('\n')
    } catch {
      return []
    }
  })
}

/**
 * The full bodies of some commits and, when asked, the files each touched (first parent; for
 * decomposing mega-commits): one git call, the SHAs on its stdin. What git cannot say (a pruned
 * object) is left out: the catalog's body paragraph (`why`) stands in, the commit stays one unit.
 */
async function commitDetails(repo: string, shas: string[], withFiles: boolean): Promise<{ bodies: Map<string, string>; files: Map<string, string[]> }> {
  const bodies = new Map<string, string>()
  const files = new Map<string, string[]>()
  if (shas.length === 0) return { bodies, files }
  try {
    const args = ['log', '--no-walk=unsorted', '--stdin', '-z', '--format=%x1e%H%x1f%b%x1f', ...(withFiles ? ['--name-only', '--no-renames'] : [])]
    const text = await git(repo, args, { input: `${shas.join('\n')}\n` })
    for (const rec of text.split('\x1e')) {
      const [sha, body, rest] = rec.split('\x1f')
      if (!sha || body === undefined) continue
      bodies.set(sha.trim(), body)
      if (withFiles) files.set(sha.trim(), (rest ?? '').split('\0').map((f) => f.replace(/^\n+/, '')).filter(Boolean))
    }
  } catch {
    // nothing from git: the catalog's paragraphs stand in
  }
  return { bodies, files }
}

// ---------------------------------------------------------------- statements

const STRONG = /\b(must(?:n't)?|never|always|do not|don't|required|work ?around for|to work around)\b/i
const WEAK = /\b(because|otherwise)\b/i
const TRADE = /\b(instead of|rather than|at the cost of|trade-?offs?|slower|faster)\b/i
/** "returned X instead of Y": the bug a fix describes, not a choice (as decision-language.ts reads it). */
const BUG_REPORT = /\b(returned|returns|returning|produced|produces|was|were|got|gets|throws|threw|incorrectly|wrongly|erroneously|unexpectedly)\b[^.]*\binstead of\b/i

interface Candidate extends BriefStatement {
  kind: 'constraint' | 'tradeoff'
  score: number
  order: number
}

/** A sentence as a constraint, a trade-off, or neither. */
function classify(sentence: string): { kind: 'constraint' | 'tradeoff'; cue: string; strength: number } | null {
  const words = sentence.split(/\s+/).length
  if (words < 4 || words > 90) return null
  const strong = STRONG.exec(sentence)
  if (strong) return { kind: 'constraint', cue: strong[1].toLowerCase(), strength: 2 }
  const trade = TRADE.exec(sentence)
  if (trade && !BUG_REPORT.test(sentence)) return { kind: 'tradeoff', cue: trade[1].toLowerCase(), strength: 2 }
  const weak = WEAK.exec(sentence)
  if (weak) return { kind: 'constraint', cue: weak[1].toLowerCase(), strength: 1 }
  return null
}

// ---------------------------------------------------------------- the card

interface Context {
  reader: IndexReader
  key: string
  kind: Resolved['kind']
  target: EvidenceTarget
  file: IndexedFile
  symbol: { id: string; index: number } | null
  /** Newest first, as evidence gives them. */
  items: EvidenceItem[]
  undecided: EvidenceResult['undecided']
}

const MAX_CHANGES = 8
const MAX_CONSTRAINTS = 6
const MAX_TRADEOFFS = 4
const MAX_TODOS = 5
const MAX_CITED_VAGUE = 10
/** Units sent to a synthesizer, best first. */
const MAX_UNIT_BLOCKS = 30

/** The extractive rationale, and the synthesizer's evidence blocks for it. */
async function extractive(ctx: Context): Promise<{ rationale: Rationale; blocks: EvidenceBlock[]; unitOf: Map<string, string[]> }> {
  const { reader, target, file, items } = ctx
  const text = await fileText(reader, file)
  const byDate = [...items].reverse()
  const origin = byDate[0] ?? null
  const humans = items.filter((e) => e.commit.category !== 'bot')
  const megas = new Set(items.filter((e) => e.commit.category === 'mega').map((e) => e.commit.sha))
  const { bodies, files: allFiles } = await commitDetails(reader.repo, [...new Set([...humans.map((e) => e.commit.sha), ...megas])], megas.size > 0)
  const megaFiles = new Map([...allFiles].filter(([sha]) => megas.has(sha)))
  const body = (e: EvidenceItem) => scrubSecrets(bodies.get(e.commit.sha) ?? e.commit.why ?? '')
  const itemOf = new Map(items.map((e) => [e.commit.sha, e]))
  const citations = new Map<string, BriefCitation>()
  const citeCommit = (e: EvidenceItem) => {
    const ref = short(e.commit.sha)
    if (!citations.has(ref)) citations.set(ref, { ref, kind: 'commit', sha: e.commit.sha, subject: scrubSecrets(e.commit.subject) })
    return ref
  }
  const citePr = (p: PullRequestRef) => {
    const ref = `PR #${p.number}`
    if (!citations.has(ref)) citations.set(ref, { ref, kind: 'pr', number: p.number, subject: scrubSecrets(p.title) })
    return ref
  }
  const citeIssue = (i: IssueRef) => {
    const ref = `#${i.number}`
    if (!citations.has(ref)) citations.set(ref, { ref, kind: 'issue', number: i.number, subject: scrubSecrets(i.title) })
    return ref
  }
  const citeLines = (a: number, b: number = a) => {
    const ref = lineRef(a, b)
    if (!citations.has(ref)) citations.set(ref, { ref, kind: 'lines', start: a, end: b, subject: clip(scrubSecrets(text.slice(a - 1, Math.min(b, a + 3)).join(' ').trim()), 80) })
    return ref
  }
  const blocks: EvidenceBlock[] = []
  const sections: Record<BriefSectionId, BriefLine[]> = { purpose: [], origin: [], changes: [], constraints: [], tradeoffs: [], risks: [], owners: [], decisions: [], questions: [] }
  const whoWhen = (e: EvidenceItem) => `${e.commit.author}, ${e.commit.date.slice(0, 10)}`

  // --- the code's own words: signature, doc comment, comments of the range
  const style = commentStyle(file.path, file.language)
  const comments = reader.memo(`brief\0comments\0${file.blob}`, () => commentBlocks(commentLines(text, style), text))
  const sym = ctx.symbol ? file.symbols[ctx.symbol.index] : null
  // the doc comment above the symbol (decorators between them skipped), or the file's header comment
  let doc: CommentBlock | null = null
  if (sym) {
    let at = sym.startLine - 1
    while (at >= 1 && /^\s*@/.test(text[at - 1] ?? '')) at--
    // Python's docstring is the body's first statement
    doc = comments.find((b) => b.end === at) ?? (style.docstring ? comments.find((b) => b.start === sym.startLine + 1) ?? null : null)
  } else if (ctx.kind === 'file') {
    doc = comments.find((b) => b.start <= 3) ?? null
  }
  const license = (b: CommentBlock) => /\b(license|copyright|spdx|all rights reserved)\b/i.test(b.lines.map((l) => l.text).join(' '))
  if (doc && license(doc)) doc = null
  const inRange = comments.filter((b) => b.end >= target.line_start && b.start <= target.line_end && !license(b))
  const scanned = doc && !inRange.includes(doc) ? [doc, ...inRange] : inRange

  if (sym) {
    const sig = sym.signature || `${sym.kind} ${sym.name}`
    sections.purpose.push(line(`${sym.kind} ${sym.qualifiedName}${sym.exported ? ' (exported)' : ''}: \`${clip(sig, 200)}\``, [citeLines(sym.startLine)]))
    blocks.push({ id: lineRef(sym.startLine), text: `${sym.kind} ${sym.qualifiedName}: ${sig}` })
  } else if (ctx.kind === 'file') {
    const names = file.symbols.filter((s) => s.parentIndex === null).map((s) => s.name)
    sections.purpose.push(line(`file ${file.path}: ${file.language ?? 'text'}, ${file.lines} lines${names.length ? `, defines ${names.slice(0, 6).join(', ')}${names.length > 6 ? ` and ${names.length - 6} more` : ''}` : ''}`, [citeLines(1, Math.max(1, file.lines))]))
  } else {
    const around = file.symbols.filter((s) => s.startLine <= target.line_end && s.endLine >= target.line_start)
    const inner = around.filter((s) => s.startLine >= target.line_start && s.endLine <= target.line_end)
    const outer = around.filter((s) => s.startLine < target.line_start || s.endLine > target.line_end).sort((a, b) => b.startLine - a.startLine)[0]
    const what = [outer ? `inside ${outer.kind} ${outer.qualifiedName} (lines ${outer.startLine}-${outer.endLine})` : '', inner.length ? `holds ${inner.slice(0, 4).map((s) => `${s.kind} ${s.qualifiedName}`).join(', ')}${inner.length > 4 ? ` and ${inner.length - 4} more` : ''}` : ''].filter(Boolean).join('; ')
    sections.purpose.push(line(`lines ${target.line_start}-${target.line_end} of ${file.path}${what ? `: ${what}` : ''}`, [citeLines(target.line_start, target.line_end)]))
  }
  if (doc) {
    const said = doc.lines.map((l) => l.text).filter((t) => !/^@\w+/.test(t)).join(' ')
    const first = said ? clip(scrubSecrets(said), 300) : ''
    if (first) {
      const ref = citeLines(doc.start, doc.end)
      sections.purpose.push(line(`Its doc comment: ${quote(first)}`, [ref]))
      blocks.push({ id: ref, text: `doc comment: ${first}` })
    }
  }
  if (origin && origin.commit.category !== 'initial' && !vagueCommit({ subject: origin.commit.subject, why: origin.commit.why })) {
    sections.purpose.push(line(`Its origin commit says it was for: ${quote(scrubSecrets(origin.commit.subject))}`, [citeCommit(origin)]))
  }

  // --- why it exists: the origin
  if (origin) {
    const ref = citeCommit(origin)
    const size = origin.commit.category === 'initial' ? ', the repository\'s first commit' : origin.commit.category === 'mega' ? ', a large change' : origin.commit.category === 'merge' ? ', a merge' : ''
    sections.origin.push(line(`Introduced by ${quote(scrubSecrets(origin.commit.subject))} (${whoWhen(origin)}${size})`, [ref]))
    if (origin.commit.why) sections.origin.push(line(scrubSecrets(origin.commit.why), [ref]))
    for (const p of origin.pull_requests) sections.origin.push(line(`It came through PR #${p.number}${p.title && p.title !== origin.commit.subject ? ` ${quote(scrubSecrets(p.title))}` : ''}`, [citePr(p)]))
    for (const i of origin.issues) sections.origin.push(line(`It ${i.closes ? 'closes' : 'refers to'} issue #${i.number}${i.title ? ` ${quote(scrubSecrets(i.title))}` : ''}`, [citeIssue(i)]))
    if (ctx.undecided && ctx.undecided.lines > 0) sections.origin.push(line(`Some lines are older than the indexed history (${ctx.undecided.reason}): the origin shown is where the index starts`, [ref]))
    blocks.push({ id: ref, text: `origin commit (${whoWhen(origin)}): ${scrubSecrets(origin.commit.subject)}\n${clip(body(origin), 1500)}` })
  } else {
    sections.origin.push(line(`No indexed commit changed these lines`, [citeLines(target.line_start, target.line_end)]))
  }

  // --- key changes, as units
  const toUnit = (e: EvidenceItem): UnitCommit => ({ sha: e.commit.sha, author: e.commit.author, email: e.commit.email, time: Date.parse(e.commit.date) / 1000, subject: e.commit.subject, why: e.commit.why ?? null, category: e.commit.category, files: megaFiles.get(e.commit.sha) })
  const later = byDate.slice(1)
  const group = fileGroup(target.path)
  const allUnits = commitUnits(later.map(toUnit))
  // a mega-commit's part: the one of the target's group (its file may have lived elsewhere then: the largest)
  const units: CommitUnit[] = []
  const seenMega = new Set<string>()
  for (const u of allUnits) {
    if (u.kind !== 'part') units.push(u)
    else if (!seenMega.has(u.shas[0])) {
      const parts = allUnits.filter((x) => x.kind === 'part' && x.shas[0] === u.shas[0])
      units.push(parts.find((x) => x.group?.name === group) ?? parts[0])
      seenMega.add(u.shas[0])
    }
  }
  const unitItems = (u: CommitUnit) => u.shas.map((s) => itemOf.get(s)!).filter(Boolean)
  const unitScore = (u: CommitUnit) => Math.max(...unitItems(u).map((e) => messageQuality(e) + (e.source === 'blame' ? 0.3 : 0) + (e.commit.category === 'revert' ? 0.2 : 0)))
  const shown = units
    .map((u, i) => ({ u, i, s: unitScore(u) }))
    .sort((a, b) => b.s - a.s || b.i - a.i)
    .slice(0, MAX_CHANGES)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.u)
  const unitOf = new Map<string, string[]>()
  const briefUnits: BriefUnit[] = []
  const unitBlocks: Array<{ block: EvidenceBlock; score: number; items: EvidenceItem[] }> = []
  for (const u of units) {
    const its = unitItems(u)
    const refs = its.map(citeCommit)
    const prs = [...new Map(its.flatMap((e) => e.pull_requests).map((p) => [p.number, p])).values()]
    const issues = [...new Map(its.flatMap((e) => e.issues).map((i) => [i.number, i])).values()]
    const informative = u.subjects.length > 0 || its.some((e) => informativeBody(e.commit.why))
    unitOf.set(refs[0], refs)
    const first = its[0]
    const date = iso(u.start).slice(0, 10)
    const folded = u.folded.map(([s, n]) => `${quote(s)}${n > 1 ? ` ×${n}` : ''}`).join(', ')
    let sentence: string
    let blockText: string
    if (u.kind === 'run') {
      const minutes = Math.max(1, Math.round((u.end - u.start) / 60))
      const lead = u.subjects.length ? `${u.subjects.slice(0, 2).map((s) => quote(scrubSecrets(s))).join(' and ')} with ${u.shas.length - u.subjects.length} small follow-ups` : `${u.shas.length} small commits`
      sentence = `${date} ${u.author}: ${lead} within ${minutes} min, one unit${folded ? ` (${folded})` : ''}`
      blockText = `${u.shas.length} consecutive small commits by ${u.author} within ${minutes} minutes, one unit:\n${its.map((e) => `${short(e.commit.sha)} ${scrubSecrets(e.commit.subject)}${e.commit.why ? ` — ${scrubSecrets(e.commit.why)}` : ''}`).join('\n')}`
    } else {
      const why = first.commit.why ? `: ${clip(scrubSecrets(first.commit.why), 240)}` : ''
      const part = u.kind === 'part' && u.group ? ` (a ${u.group.total}-file change; its part in ${u.group.name}: ${u.group.files} files)` : ''
      const revert = first.commit.category === 'revert' ? ' (a revert)' : ''
      sentence = `${date} ${u.author}: ${quote(scrubSecrets(first.commit.subject))}${part}${revert}${why}`
      blockText = `change (${whoWhen(first)})${part}: ${scrubSecrets(first.commit.subject)}\n${clip(body(first), 800)}`
    }
    unitBlocks.push({ block: { id: refs[0], text: blockText }, score: unitScore(u), items: its })
    if (shown.includes(u)) {
      sections.changes.push(line(sentence, [...refs, ...prs.map(citePr), ...issues.map(citeIssue)]))
      briefUnits.push({ kind: u.kind, shas: u.shas, author: u.author, start: iso(u.start), end: iso(u.end), subjects: u.subjects.map(scrubSecrets), folded: u.folded, ...(u.group ? { group: u.group } : {}), pull_requests: prs.map((p) => p.number), issues: issues.map((i) => i.number), informative })
    }
  }
  // the synthesizer reads the best units (a hot file's history has hundreds), and the PRs and issues of those
  const sent = unitBlocks.sort((a, b) => b.score - a.score).slice(0, MAX_UNIT_BLOCKS)
  for (const { block } of sent) blocks.push(block)
  for (const e of [...(origin ? [origin] : []), ...sent.flatMap((x) => x.items)]) {
    // without a title (found offline in a message) a PR or issue is still what its commit names
    for (const p of e.pull_requests) blocks.push({ id: citePr(p), text: p.title ? `PR title: ${scrubSecrets(p.title)}` : `a PR that commit ${short(e.commit.sha)} is part of` })
    for (const i of e.issues) blocks.push({ id: citeIssue(i), text: i.title ? `issue title: ${scrubSecrets(i.title)}` : `an issue commit ${short(e.commit.sha)} ${i.closes ? 'closes' : 'refers to'}` })
  }

  // --- constraints and trade-offs: comments of the range first, then the messages
  const candidates: Candidate[] = []
  let order = 0
  const consider = (sentence: string, source: BriefStatement['source'], refs: string[], weight: number) => {
    const s = clip(scrubSecrets(sentence), 300)
    const c = classify(s)
    if (!c) return
    // a squash commit's subject is its PR's title with ` (#12)`: one statement, both cited
    const same = (t: string) => t.replace(/\s*\((?:[\w.-]+\/[\w.-]+)?#\d+\)\s*$/, '').replace(/[.\s]+$/, '').toLowerCase()
    const known = candidates.find((x) => same(x.text) === same(s))
    if (known) {
      for (const r of refs) if (!known.citations.includes(r)) known.citations.push(r)
      return
    }
    candidates.push({ text: s, source, cue: c.cue, citations: refs, kind: c.kind, score: c.strength + weight, order: order++ })
  }
  for (const b of scanned) {
    for (const s of blockSentences(b)) {
      if (/^\W*(TODO|FIXME|HACK|XXX)\b/.test(s.text)) continue
      consider(s.text, 'comment', [citeLines(s.start, s.end)], 1)
    }
  }
  const messageWeight = (e: EvidenceItem) => (e === origin ? 0.8 : e.source === 'blame' ? 0.6 : 0.4)
  for (const e of [...(origin ? [origin] : []), ...items.filter((x) => x !== origin)]) {
    if (e.commit.category === 'bot' || e.commit.category === 'merge' || generatedMessage(e.commit.subject)) continue
    const refs = [citeCommit(e)]
    consider(e.commit.subject, 'commit', refs, messageWeight(e))
    for (const s of sentences(body(e))) consider(s, 'commit', refs, messageWeight(e))
    for (const p of e.pull_requests) if (p.title && !generatedMessage(p.title)) consider(p.title, 'pr', [citePr(p)], 0.5)
    for (const i of e.issues) if (i.title) consider(i.title, 'issue', [citeIssue(i)], 0.5)
  }
  const pick = (kind: Candidate['kind'], max: number) =>
    candidates
      .filter((c) => c.kind === kind)
      .sort((a, b) => b.score - a.score || a.order - b.order)
      .slice(0, max)
      .map(({ text, source, cue, citations: refs }): BriefStatement => ({ text, source, cue, citations: refs }))
  const constraints = pick('constraint', MAX_CONSTRAINTS)
  const tradeoffs = pick('tradeoff', MAX_TRADEOFFS)
  for (const c of constraints) sections.constraints.push(line(quote(c.text), c.citations))
  for (const t of tradeoffs) sections.tradeoffs.push(line(quote(t.text), t.citations))
  for (const c of [...constraints, ...tradeoffs]) if (c.source === 'comment') blocks.push({ id: c.citations[0], text: `code comment: ${c.text}` })

  // --- open questions
  const questions: BriefQuestion[] = []
  const ask = (kind: BriefQuestion['kind'], sentence: string, refs: string[]) => {
    const l = line(sentence, refs)
    questions.push({ kind, text: l.text, citations: l.citations })
  }
  let todos = 0
  for (const b of scanned) {
    for (const l of b.lines) {
      if (l.line < target.line_start || l.line > target.line_end) continue
      const m = /\b(TODO|FIXME|HACK|XXX)\b(?:\([^)]*\))?[\s:\-–]*(.*)$/.exec(l.text)
      if (!m || todos >= MAX_TODOS) continue
      todos++
      const said = clip(scrubSecrets(m[2]), 160)
      const ref = citeLines(l.line)
      ask('todo', `${m[1]} at line ${l.line}${said ? `: ${quote(said)}` : ''}`, [ref])
      blocks.push({ id: ref, text: `${m[1]} comment: ${said}` })
    }
  }
  for (const e of items.filter((x) => x.commit.category === 'revert')) {
    const undone = e.commit.reverts ? itemOf.get(e.commit.reverts) : undefined
    const what = undone ? ` (it undoes ${quote(scrubSecrets(undone.commit.subject))})` : e.commit.reverts ? ` (it undoes ${short(e.commit.reverts)}, outside these lines' history)` : ''
    ask('revert', `Reverted once: ${quote(scrubSecrets(e.commit.subject))}${what}; check the reason still holds before redoing it`, [citeCommit(e), ...(undone ? [citeCommit(undone)] : [])])
  }
  if (origin && vagueCommit({ subject: origin.commit.subject, why: origin.commit.why }) && origin.pull_requests.length + origin.issues.length === 0) {
    ask('vague', `The origin commit gives no reason (${quote(scrubSecrets(origin.commit.subject))}): why it was written is not recorded`, [citeCommit(origin)])
  }
  const vague = later.filter((e) => e.commit.category !== 'merge' && e.commit.category !== 'bot' && vagueCommit({ subject: e.commit.subject, why: e.commit.why }) && e.pull_requests.length + e.issues.length === 0)
  if (vague.length > 0) {
    const n = new Map<string, number>()
    for (const e of vague) n.set(e.commit.subject.trim().toLowerCase(), (n.get(e.commit.subject.trim().toLowerCase()) ?? 0) + 1)
    const said = [...n].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([s, k]) => `${quote(scrubSecrets(s))}${k > 1 ? ` ×${k}` : ''}`).join(', ')
    const folded = units.filter((u) => u.shas.some((s) => vague.some((e) => e.commit.sha === s))).length
    ask('vague', `${vague.length} of ${later.length} later changes give no reason (${said}${n.size > 4 ? ', …' : ''}; ${folded} unit${folded === 1 ? '' : 's'}): only their diffs say what they did`, vague.slice(-MAX_CITED_VAGUE).map(citeCommit))
  }
  if (ctx.undecided && ctx.undecided.lines > 0) ask('undecided', `${ctx.undecided.lines} lines come from beyond the indexed history (${ctx.undecided.reason})`, [citeLines(target.line_start, target.line_end)])
  for (const q of questions) sections.questions.push({ text: q.text, citations: q.citations })

  const rationale: Rationale = {
    sections: WRITABLE.map((id) => ({ id, title: SECTION_TITLES[id], lines: sections[id], written_by: 'extractive' })),
    origin: origin ? { commit: { ...origin.commit, subject: scrubSecrets(origin.commit.subject), ...(origin.commit.why ? { why: scrubSecrets(origin.commit.why) } : {}) }, pull_requests: origin.pull_requests.map((p) => ({ ...p, title: scrubSecrets(p.title) })), issues: origin.issues.map((i) => ({ ...i, title: scrubSecrets(i.title) })) } : null,
    changes: briefUnits,
    constraints,
    tradeoffs,
    questions,
    citations: [...citations.values()],
    counts: { commits: items.length, units: units.length + (origin ? 1 : 0), changes_listed: briefUnits.length, vague_commits: vague.length },
    written_by: 'extractive',
    model: null,
  }
  // the same evidence once, best first: the code, the origin, the units, then the titles
  const seen = new Set<string>()
  const unique = blocks.filter((b) => (seen.has(b.id) ? false : (seen.add(b.id), true)))
  return { rationale, blocks: unique, unitOf }
}

// ---------------------------------------------------------------- synthesis

const INSTRUCTIONS = [
  'Write the rationale card of this code for a developer who is about to edit it.',
  'Write short sentences. Start each with one of these labels: "purpose:" (what the code is for), "why:" (why it exists: its origin), "changes:" (the key changes and their reasons), "constraints:" (rules it must keep: must, never, always, because, workarounds), "trade-offs:" (what was chosen over what, at what cost), "questions:" (what the history leaves open: TODOs, reverts, changes that give no reason).',
  'Cite after each sentence, in square brackets, the ids of the evidence it rests on ([a1b2c3d], [PR #12], [#34], [L40-52]). An id that stands for several small commits folded into one unit stands for all of them.',
  'Use only the evidence. Leave a label out rather than guess. At most 14 sentences.',
].join('\n')

const LABEL = /^\s*(purpose|why|origin|changes?|constraints?|trade-?offs?|questions?|open questions)\s*:\s*/i
const SECTION_OF: Record<string, BriefSectionId> = { purpose: 'purpose', why: 'origin', origin: 'origin', change: 'changes', changes: 'changes', constraint: 'constraints', constraints: 'constraints', tradeoff: 'tradeoffs', tradeoffs: 'tradeoffs', 'trade-off': 'tradeoffs', 'trade-offs': 'tradeoffs', question: 'questions', questions: 'questions', 'open questions': 'questions' }

/** The synthesizer's sentences in place of the extractive lines of each section it wrote; declined: null and why. */
async function synthesize(synth: Synthesizer, label: string, rationale: Rationale, blocks: EvidenceBlock[], unitOf: Map<string, string[]>): Promise<{ rationale: Rationale; declined: string | null }> {
  let result: Awaited<ReturnType<Synthesizer['synthesize']>>
  try {
    result = await synth.synthesize({ task: 'brief', subject: label, instructions: INSTRUCTIONS, evidence: blocks, maxOutputTokens: 900 })
  } catch (error) {
    return { rationale, declined: `error: ${(error as Error)?.message ?? String(error)}` }
  }
  if (!result.ok) return { rationale, declined: result.reason }
  const known = new Set(blocks.map((b) => b.id))
  const written = new Map<BriefSectionId, BriefLine[]>()
  for (const s of (result as SynthesisResult).sentences) {
    const m = LABEL.exec(s.text)
    const id: BriefSectionId = m ? SECTION_OF[m[1].toLowerCase()] ?? 'purpose' : 'purpose'
    const refs = s.citations.filter((c) => known.has(c)).flatMap((c) => unitOf.get(c) ?? [c])
    if (refs.length === 0) continue
    let text = s.text.replace(LABEL, '')
    for (const c of s.citations) text = text.split(`[${c}]`).join('')
    text = text.replace(/\s+([.,;:])/g, '$1').replace(/\s+/g, ' ').trim()
    if (!text) continue
    const list = written.get(id) ?? []
    list.push(line(text, refs))
    written.set(id, list)
  }
  if (written.size === 0) return { rationale, declined: 'uncited' }
  // every block's id is among the rationale's citations: the brief keeps those the lines cite
  const sections = rationale.sections.map((s): BriefSection => (written.has(s.id) ? { ...s, lines: written.get(s.id)!, written_by: 'llm' } : s))
  return {
    rationale: { ...rationale, sections, written_by: synth.name, model: (result as SynthesisResult).model },
    declined: null,
  }
}

// ---------------------------------------------------------------- analytics (every call)

async function analytics(ctx: Context): Promise<{ risk: BriefResult['risk']; owners: BriefResult['owners']; decisions: GoverningDecision[]; sections: BriefSection[]; citations: BriefCitation[] }> {
  const { reader, target, items } = ctx
  const range = lineRef(target.line_start, target.line_end)
  const citations: BriefCitation[] = [{ ref: range, kind: 'lines', start: target.line_start, end: target.line_end, subject: `${target.path}:${target.line_start}-${target.line_end}` }]
  const blame = items.filter((e) => e.source === 'blame' && e.lines)
  let assessed: AssessedRisk
  let of: 'symbol' | 'file'
  let lines: Array<[string, number]>
  if (ctx.kind === 'file') {
    ;({ risk: assessed, lines } = await riskWithActivity(reader, { kind: 'file', path: target.path }))
    of = 'file'
  } else {
    lines = ownerLinesOf(reader, blame.map((e) => [e.commit.sha, e.lines!] as const))
    const sym = ctx.symbol ? ctx.reader.file(target.path)!.symbols[ctx.symbol.index] : null
    of = sym ? 'symbol' : 'file'
    assessed = await riskFromOwnerLines(reader, sym && ctx.symbol ? { kind: 'symbol', id: ctx.symbol.id, qualified_name: sym.qualifiedName, symbol_kind: sym.kind, path: target.path, start_line: sym.startLine, end_line: sym.endLine } : { kind: 'file', path: target.path }, lines)
  }
  const risks: BriefLine[] = [line(`${assessed.level} risk (${assessed.score.toFixed(2)}${of === 'file' && ctx.kind !== 'file' ? `, of the file ${target.path}` : ''})${assessed.reasons.length ? `: ${assessed.reasons.join('; ')}` : ': nothing stands out'}`, [range])]
  // the people to ask, as `risk` names them (their lines weighed by how recently they committed)
  const owners = await askOf(reader, lines)
  const ownerLines: BriefLine[] = []
  for (const o of owners) {
    // the owner's newest commit among the lines' blame (evidence is newest first)
    const theirs = blame.find((e) => e.commit.email === o.email) ?? items.find((e) => e.commit.email === o.email)
    const ref = theirs ? short(theirs.commit.sha) : range
    if (theirs && !citations.some((c) => c.ref === ref)) citations.push({ ref, kind: 'commit', sha: theirs.commit.sha, subject: scrubSecrets(theirs.commit.subject) })
    ownerLines.push(line(`${o.name} <${o.email}> owns ${Math.round(o.share * 100)} % of the lines${o.last_active ? `, last commit ${o.last_active.slice(0, 10)}` : ''}`, [ref]))
  }
  const decisions = await governingDecisions(reader, [{ kind: ctx.kind === 'symbol' ? 'symbol' : 'file', path: target.path, qualified_name: target.symbol?.qualified_name ?? null, start: target.line_start, end: target.line_end }])
  const decisionLines: BriefLine[] = []
  for (const d of decisions) {
    citations.push({ ref: d.id, kind: 'decision', subject: d.title })
    decisionLines.push(line(`${d.id} [${d.kind}${d.status === 'stale' ? ', STALE: the code was rewritten since' : ''}] ${clip(d.title, 200)} (via ${d.via} ${d.applies_to}, confidence ${d.confidence})`, [d.id]))
    if (d.rationale) decisionLines.push(line(`  why: ${clip(d.rationale, 300)}`, [d.id]))
    for (const v of d.violations) {
      const inside = v.path === target.path && v.line >= target.line_start && v.line <= target.line_end
      if (inside && !citations.some((c) => c.ref === lineRef(v.line))) citations.push({ ref: lineRef(v.line), kind: 'lines', start: v.line, end: v.line, subject: clip(v.text, 80) })
      decisionLines.push(line(`  VIOLATION ${v.path}:${v.line} ${clip(v.text, 100)}`, [inside ? lineRef(v.line) : d.id]))
    }
  }
  return {
    risk: { level: assessed.level, score: assessed.score, reasons: assessed.reasons, of },
    owners,
    decisions,
    sections: [
      { id: 'risks', title: SECTION_TITLES.risks, lines: risks, written_by: 'analytics' },
      { id: 'owners', title: SECTION_TITLES.owners, lines: ownerLines, written_by: 'analytics' },
      { id: 'decisions', title: SECTION_TITLES.decisions, lines: decisionLines, written_by: 'analytics' },
    ],
    citations,
  }
}

// ---------------------------------------------------------------- the service

/** The rationale card of a symbol, file or range (see the top of this file). */
export async function brief(options: BriefOptions): Promise<BriefResult> {
  return withReader(options, async (reader) => {
    const resolved = resolveBrief(reader, options.target)
    const ev = await evidence({ reader, ...resolved.given, limit: 0 })
    const target = ev.target
    const file = reader.requireFile(target.path)
    const symbol = symbolAt(file, target)
    const kind: Resolved['kind'] = resolved.kind === 'range' && symbol ? 'symbol' : resolved.kind
    const key = kind === 'symbol' && symbol ? symbol.id : kind === 'file' ? target.path : `${target.path}:${target.line_start}-${target.line_end}`
    const ctx: Context = { reader, key, kind, target, file, symbol, items: ev.evidence, undecided: ev.undecided }
    const synth = options.synthesizer === undefined ? await loadSynthesizer(gitwhyDir(reader.repo)) : options.synthesizer
    const writer = synth ? synth.name : 'extractive'
    const fingerprint = fingerprintOf({ key, blob: file.blob, target, items: ev.evidence, undecided: ev.undecided, writer })
    let rationale = options.refresh ? null : readCard(reader.repo, fingerprint, ev.evidence, file.lines)
    const cached = rationale !== null
    let declined: string | null = null
    if (!rationale) {
      const built = await extractive(ctx)
      rationale = built.rationale
      if (synth) {
        const label = target.symbol ? `${target.symbol.kind} ${target.symbol.qualified_name} in ${target.path}:${target.line_start}-${target.line_end}` : `${target.path}:${target.line_start}-${target.line_end}`
        ;({ rationale, declined } = await synthesize(synth, label, rationale, built.blocks, built.unitOf))
      }
      // a declined synthesis is not cached: the next call asks again
      if (declined === null) writeCard(reader.repo, { format: BRIEF_FORMAT, fingerprint, target: key, created: new Date().toISOString(), rationale })
    }
    const live = await analytics(ctx)
    const byId = new Map<BriefSectionId, BriefSection>([...rationale.sections, ...live.sections].map((s) => [s.id, s]))
    const sections = ORDER.map((id) => byId.get(id)!).filter(Boolean)
    const citations = [...rationale.citations]
    for (const c of live.citations) if (!citations.some((x) => x.ref === c.ref)) citations.push(c)
    const used = new Set(sections.flatMap((s) => s.lines.flatMap((l) => l.citations)))
    const cited = citations.filter((c) => used.has(c.ref))
    // recorded under its id, so that `gitwhy feedback ID up|down` can name the card (feedback.ts)
    const recorded = answerRecord('brief', answerScope(target, null), cited.map((c) => c.sha ?? c.ref), cited.flatMap((c) => (c.sha ? [c.sha] : [])))
    if (options.record !== false) await recordAnswer(reader.repo, recorded)
    return {
      target,
      answer_id: recorded.id,
      card: { format: BRIEF_FORMAT, fingerprint, cached, written_by: rationale.written_by, model: rationale.model, declined },
      sections,
      origin: rationale.origin,
      changes: rationale.changes,
      constraints: rationale.constraints,
      tradeoffs: rationale.tradeoffs,
      questions: rationale.questions,
      risk: live.risk,
      owners: live.owners,
      decisions: live.decisions,
      citations: cited,
      counts: rationale.counts,
      undecided: ev.undecided,
      index: await reader.indexInfo(),
    }
  })
}

/** The card as text: a heading, each section's cited lines, then where it came from. */
export function briefLines(r: BriefResult): string[] {
  const t = r.target
  const out = [`${t.symbol ? `${t.symbol.kind} ${t.symbol.qualified_name} — ` : ''}${t.path}:${t.line_start}-${t.line_end}  (answer ${r.answer_id})`]
  for (const s of r.sections) {
    if (s.lines.length === 0) continue
    out.push(`${s.title}${s.written_by === 'llm' ? ` (written by ${r.card.written_by})` : ''}:`)
    for (const l of s.lines) out.push(`  ${l.text}`)
  }
  const more = r.counts.units - r.counts.changes_listed - (r.origin ? 1 : 0)
  if (more > 0) out.push(`(${more} more changes not listed: \`gitwhy evidence ${t.path}:${t.line_start}-${t.line_end}\` has every commit)`)
  out.push(`card: ${r.card.written_by}${r.card.model ? ` (${r.card.model})` : ''}${r.card.declined ? `, extractive because the synthesizer declined: ${r.card.declined}` : ''}; ${r.card.cached ? 'read from the cache' : 'computed'} (.gitwhy/briefs/${r.card.fingerprint}.json); [Ln-m] are lines of ${t.path}`)
  return out
}

// ---------------------------------------------------------------- a community's cards

export interface BriefAllResult {
  community: CommunitySummary
  symbols: number
  /** Cards computed now (and cached). */
  computed: number
  /** Cards already in the cache with the same evidence. */
  cached: number
  failed: Array<{ target: string; error: string }>
  written_by: string
  ms: number
  index: IndexInfo
}

/** Precompute (and cache) the card of every symbol of a community. */
export async function briefCommunity(options: { repo?: string; reader?: IndexReader; community: string; synthesizer?: Synthesizer | null; refresh?: boolean; onProgress?: (done: number, total: number) => void }): Promise<BriefAllResult> {
  return withReader(options, async (reader) => {
    const started = Date.now()
    const c = await communityOf({ reader, name: options.community, limit: 0 })
    const synth = options.synthesizer === undefined ? await loadSynthesizer(gitwhyDir(reader.repo)) : options.synthesizer
    const out: BriefAllResult = { community: c.community, symbols: c.members.length, computed: 0, cached: 0, failed: [], written_by: synth ? synth.name : 'extractive', ms: 0, index: await reader.indexInfo() }
    options.onProgress?.(0, c.members.length)
    for (const [i, m] of c.members.entries()) {
      try {
        const r = await brief({ reader, target: m.id, synthesizer: synth, refresh: options.refresh })
        if (r.card.cached) out.cached++
        else out.computed++
      } catch (error) {
        if (!(error instanceof UserError)) throw error
        out.failed.push({ target: m.id, error: error.message })
      }
      options.onProgress?.(i + 1, c.members.length)
    }
    await briefWrites()
    out.ms = Date.now() - started
    return out
  })
}
