import { embed, embeddingText } from '../embed/model.js'
import { loadSynthesizer, type Synthesizer } from '../llm/index.js'
import { governingDecisions, governingLines, type GoverningDecision } from './decisions.js'
import { UserError, checkLimit } from '../errors.js'
import { CODE_QUERIES, QUERIES } from '../graph/queries.js'
import { scrubSecrets } from '../text/scrub.js'
import { related } from './analytics.js'
import { answerRecord, answerScope, readFeedback, recordAnswer, rerankByFeedback } from './feedback.js'
import { evidence } from './evidence.js'
import { IndexReader, NEAREST_KEPT, withReader } from './index-reader.js'
import { withTrajectory, type TrajectoryItem } from './trajectory.js'
import { answerWithLlm, llmLines, type WhyLlm } from './why-llm.js'
import { gitwhyDir } from './workspace.js'
import { trajectoryAppendix } from '../views/trajectory.js'
import { resolveTarget, splitRange } from './resolve.js'
import { isTestPath } from '../parse/classify.js'
import { matchedWords, questionWords, search, type SearchHit, type SearchMode } from './search.js'
import type { CommitRef, EvidenceItem, EvidenceTarget, IndexInfo } from './types.js'
import { informativeBody, informativeSubject, messageQuality, statedReason } from '../history/message.js'

export { informativeSubject, messageQuality }

/**
 * `why` (issue 12): why a path, range or symbol exists, or the answer to a question in words
 * (located first through search), as a few sentences taken from the evidence's own words —
 * commit subjects and bodies, PR and issue titles — each claim cited, with a confidence computed
 * from how good that evidence is. Below MIN_CONFIDENCE it says there is not enough evidence and
 * lists the best instead of guessing. The sentences come from an `Answerer`: the extractive one
 * here; when an LLM is configured (`llm` in .gitwhy/config.json, issue 15) and the confidence
 * reaches MIN_CONFIDENCE, it writes them from the same evidence instead (why-llm.ts), and when it
 * declines the extractive answer stands, saying why.
 */

export const MIN_CONFIDENCE = 0.4

export interface WhyEvidence extends Omit<EvidenceItem, 'source'> {
  /** blame / history: from the target's (or the located symbol's) lines; search: the question found the commit, its PR or issue. */
  source: 'blame' | 'history' | 'search'
  /** Rank score within this answer (higher first). */
  score: number
  /** Why it ranks where it does, in words. */
  reasons: string[]
}

export interface WhyCitation {
  /** As it appears in the sentences: `[a1b2c3d]`, `[PR #12]`, `[#34]` without the brackets. */
  ref: string
  kind: 'commit' | 'pr' | 'issue'
  sha?: string
  number?: number
  /** The commit's subject, the PR's or issue's title. */
  subject: string
}

export interface WhySentence {
  text: string
  citations: string[]
}

export interface WhyLocated {
  kind: SearchHit['kind']
  /** Symbol id, commit sha, or PR / issue number. */
  id: string
  path: string
  score: number
}

export interface WhyResult {
  /** The code explained: the target given, or the symbol a question was located to (null: none). */
  target: EvidenceTarget | null
  /** The question in words, or null when a target was given. */
  question: string | null
  /** For a question: the search mode asked and answered (hybrid falls back to bm25 without embeddings), and why. */
  search: { mode: SearchMode; answered: SearchMode; note: string | null } | null
  located: WhyLocated[]
  answer: { text: string; sentences: WhySentence[]; answerer: string }
  /**
   * The answer's id for `gitwhy feedback ID up|down` (answer-id.ts): the same question over the
   * same evidence gets the same id in any process.
   */
  answer_id: string
  confidence: number
  enough_evidence: boolean
  /** What the confidence is made of, each in [0, 1]. */
  confidence_factors: { message: number; agreement: number; match: number }
  /** Best first: every commit of the evidence, each followed by its PRs and issues. */
  citations: WhyCitation[]
  evidence: WhyEvidence[]
  /** Files or symbols that usually change with the target (co-change), with an example commit. */
  changes_with: Array<{ path: string; qualified_name: string | null; shared: number; example: string | null }>
  /** The recorded decisions governing the target (`gitwhy decisions for`), stale ones flagged. */
  decisions: GoverningDecision[]
  total: number
  index: IndexInfo
  /** Recorded edits of the target no indexed commit holds (the edit trajectory), newest first; absent when none. */
  trajectory?: TrajectoryItem[]
  /** What the configured LLM did (answered, declined and why, not called) or would cost (`--estimate`); absent when none is configured. */
  llm?: WhyLlm
}

/** What an answerer is given: the ranked, scrubbed evidence and its confidence. */
export interface WhyFacts {
  /** What is being explained, in words (`function parse in src/a.ts`). */
  label: string
  evidence: WhyEvidence[]
  changesWith: WhyResult['changes_with']
  confidence: number
  enough: boolean
  /** The lines of the target given (a file, range or symbol); null for a question's located code. */
  lines: number | null
  /** The commits that changed the target's own lines (a question's first located symbol); the rest of the evidence is elsewhere. */
  onTarget: ReadonlySet<string>
}

export interface Answerer {
  readonly name: string
  answer(facts: WhyFacts): Promise<{ text: string; sentences: WhySentence[] }>
}

/** How much a self-explaining message lifts a commit (against up to 1.2 for owning every line, 0.3 for introducing them). */
const MESSAGE_WEIGHT = 0.3

/** Commits whose lines say little about intent: they rank low whatever they own. */
const NOISE = new Set<CommitRef['category']>(['formatting', 'bot', 'mega'])

const round = (x: number) => Math.round(x * 1000) / 1000

const short = (sha: string) => sha.slice(0, 7)

/** The text for `target` is a target when it names an indexed file, range or symbol; words that name none are a question. */
function asTarget(reader: IndexReader, text: string): { path?: string; symbol?: string } | null {
  const t = text.trim()
  if (!t) throw new UserError('nothing to explain', 'pass a path, PATH:START-END, a symbol, or a question in words', 'bad_option')
  if (/\s/.test(t) && !reader.file(reader.relativePath(t))) return null
  try {
    if (isRange(reader, t)) return { path: t }
    const found = resolveTarget(reader, t)
    if (found.kind === 'symbol') return { symbol: found.id }
    if (found.kind === 'file') return { path: found.path }
    throw new UserError(`${found.path.replace(/\/$/, '') || '.'} is a directory`, 'why takes a file, PATH:START-END, a symbol or a question; for a directory use `gitwhy history DIR`', 'is_directory')
  } catch (error) {
    // one word that names nothing is a question (`why caching`); a path that names nothing is a mistake
    if (error instanceof UserError && ['unknown_symbol', 'bad_range'].includes(error.code) && !t.includes('/')) return null
    throw error
  }
}

/** `PATH:START[-END]`; `PATH:Name` is not a range but a symbol, left to the resolver. */
function isRange(reader: IndexReader, text: string): boolean {
  try {
    return splitRange(reader, text).start !== undefined
  } catch (error) {
    if (error instanceof UserError && error.code === 'bad_range') return false
    throw error
  }
}

interface Candidate extends WhyEvidence {
  committed: number
}

/** The evidence for one range, each commit scored by what it owns, whether it introduced the range, and its message. */
function scoreRange(items: EvidenceItem[], lines: number, weight: number, into: Map<string, Candidate>, why: string): void {
  const oldest = items.at(-1)?.commit.sha
  for (const item of items) {
    const reasons: string[] = []
    let score = 0
    // what the code is now comes from its owners: a commit whose lines are all gone explains less
    if (item.source === 'blame') {
      const share = (item.lines ?? 0) / Math.max(1, lines)
      score += 0.2 + share
      reasons.push(`owns ${item.lines} of ${lines} lines of ${why}`)
    } else {
      score += 0.05
      reasons.push(`changed ${why} earlier`)
    }
    if (item.commit.sha === oldest) {
      score += 0.3
      reasons.push(`introduced ${why}`)
    }
    add(into, item, weight * score, reasons, item.source === 'blame' ? 'blame' : 'history')
  }
}

function add(into: Map<string, Candidate>, item: Omit<EvidenceItem, 'source'>, score: number, reasons: string[], source: WhyEvidence['source']): void {
  const known = into.get(item.commit.sha)
  if (known) {
    known.score += score
    known.reasons.push(...reasons)
    if (known.source === 'search' && source !== 'search') known.source = source
    if (item.lines !== undefined && known.lines === undefined) known.lines = item.lines
    return
  }
  const { commit, pull_requests, issues, lines, ignored } = item
  into.set(commit.sha, { commit, pull_requests, issues, ...(lines !== undefined ? { lines } : {}), ...(ignored ? { ignored } : {}), source, score, reasons: [...reasons], committed: Date.parse(commit.date) })
}

/** Scrubbed copies of the texts an answer repeats (commit messages are hostile input). */
function scrubbed(e: Candidate): WhyEvidence {
  const commit: CommitRef = { ...e.commit, subject: scrubSecrets(e.commit.subject) }
  if (e.commit.why) commit.why = scrubSecrets(e.commit.why)
  const { committed, ...rest } = e
  return {
    ...rest,
    commit,
    pull_requests: e.pull_requests.map((p) => ({ ...p, title: scrubSecrets(p.title), ...(p.why ? { why: scrubSecrets(p.why) } : {}) })),
    issues: e.issues.map((i) => ({ ...i, title: scrubSecrets(i.title), ...(i.why ? { why: scrubSecrets(i.why) } : {}) })),
    score: round(e.score),
  }
}

export interface WhyOptions {
  repo?: string
  reader?: IndexReader
  /** A path, `PATH:START-END`, a symbol, or a question in words. */
  text: string
  /** How a question is searched for (default hybrid; bm25 without embeddings). */
  mode?: SearchMode
  /** Evidence items shown; 0 = all. Default 10. */
  limit?: number
  /** Sentences from this answerer, and no LLM. */
  answerer?: Answerer
  /** The LLM: as configured when absent or true; false: extractive only (`--no-llm`); a synthesizer: that one. */
  llm?: boolean | Synthesizer
  /** Estimate the LLM call (tokens, cost) and make none (`--estimate`). */
  estimate?: boolean
  /** Record the answer under its id for `gitwhy feedback` (.gitwhy/answers.jsonl); default true. */
  record?: boolean
}

/** How much closeness to the question weighs against ownership of the located lines (at most 0.8 + 0.3). */
const RELEVANCE_WEIGHT = 1

/** Cosine below this says nothing with the bundled model (unrelated sentences score about that); 1 at COSINE_FULL. */
const COSINE_FLOOR = 0.3
const COSINE_FULL = 0.8

/**
 * Each commit's closeness to the question in [0, 1]: the share of the question's words its
 * message (subject, body paragraph, PR and issue titles) holds, and, where the index has vectors
 * and the mode uses them, the cosine of its embedded message to the embedded question.
 */
async function questionRelevance(reader: IndexReader, question: string, mode: SearchMode, commits: Candidate[]): Promise<Map<string, number>> {
  const out = new Map<string, number>()
  if (commits.length === 0) return out
  const words = questionWords(question)
  if (mode !== 'vector' && words.length > 0) {
    for (const c of commits) {
      const text = [c.commit.subject, c.commit.why ?? '', ...c.pull_requests.flatMap((p) => [p.title, p.why ?? '']), ...c.issues.map((i) => i.title)].join(' ')
      out.set(c.commit.sha, matchedWords(words, text).length / words.length)
    }
  }
  if (mode !== 'bm25') {
    const g = await reader.graph()
    // the cosines of the question's nearest NEAREST_KEPT documents, what the reader keeps of the
    // question's search anyway (reading the candidates' stored vectors back costs seconds on a
    // large index): a candidate beyond them is too far to count anyway
    const [[q], docs] = await Promise.all([embed([embeddingText(question)]), g.query<{ ref: string; row: number }>(CODE_QUERIES.docRowsOf, { kind: 'commit', refs: commits.map((c) => c.commit.sha) })])
    if (docs.length > 0) {
      const cosine = new Map((await reader.nearestDocs(q, NEAREST_KEPT)).map((n) => [Number(n.row), 1 - Number(n.distance)]))
      for (const d of docs) {
        const c = cosine.get(Number(d.row))
        if (c === undefined) continue
        const closeness = Math.min(1, Math.max(0, (c - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR)))
        out.set(d.ref, Math.max(out.get(d.ref) ?? 0, closeness))
      }
    }
  }
  return out
}

/** Symbols of a question's hits whose evidence is read (the best few: each costs a line-history walk). */
const SYMBOLS_READ = 3
/**
 * The weight of the lines of a located symbol after the first (the target). A test that names the
 * question's words is read too, and its own commit ("Cover backoff retry of the upload") would
 * otherwise outrank the commit that wrote the code asked about.
 */
const OTHER_SYMBOL_WEIGHT = 0.5
const OTHERS_READ = 10
const HITS_READ = 20

/** A question about tests says so: "why is the cache test skipped?". */
const ABOUT_TESTS = /\b(tests?|specs?|testing|fixtures?)\b/i

/**
 * The symbol hits a question is located to, the code's before the tests' (each in search's
 * order), unless the question asks about tests. A test names what it tests, and so often matches
 * the words of a question best: on rails/rails, "why does the connection pool reap dead
 * connections" found three test methods before `ConnectionPool#reap`, and the answer explained
 * the tests.
 */
function codeFirst(hits: SearchHit[], question: string): SearchHit[] {
  if (ABOUT_TESTS.test(question)) return hits
  return [...hits.filter((h) => !isTestPath(h.path)), ...hits.filter((h) => isTestPath(h.path))]
}

export async function why(options: WhyOptions): Promise<WhyResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 10
    checkLimit(limit)
    const given = asTarget(reader, options.text)
    const candidates = new Map<string, Candidate>()
    const onTarget = new Set<string>()
    let target: EvidenceTarget | null = null
    let located: WhyLocated[] = []
    let searched: WhyResult['search'] = null
    let match = 1
    if (given) {
      const r = await evidence({ reader, ...given, limit: 0 })
      target = r.target
      for (const item of r.evidence) onTarget.add(item.commit.sha)
      scoreRange(r.evidence, target.line_end - target.line_start + 1, 1, candidates, 'the range')
    } else {
      const r = await search({ reader, text: options.text, mode: options.mode, limit: HITS_READ })
      searched = { mode: r.mode, answered: r.answered, note: r.note }
      located = r.hits.map((h) => ({ kind: h.kind, id: h.ref, path: h.path, score: h.score }))
      const top = r.hits[0]?.score ?? 0
      const words = questionWords(options.text).length
      // how well the question matched: the best hit's share of its words, or its cosine
      match = r.hits.length === 0 ? 0 : 0.5 + 0.5 * Math.max(...r.hits.slice(0, 3).map((h) => Math.max(words ? h.why.words.length / words : 0, Math.min(1, Math.max(0, ((h.why.cosine ?? 0) - 0.2) / 0.4)))))
      const symbolHits = codeFirst(r.hits.filter((h) => h.kind === 'symbol'), options.text).slice(0, SYMBOLS_READ)
      const otherHits = r.hits.filter((h) => h.kind !== 'symbol').slice(0, OTHERS_READ)
      const weight = (h: SearchHit) => (top > 0 ? h.score / top : 0)
      // the PRs' and issues' commits are asked for at once, while the symbols' lines are walked
      const g = otherHits.some((h) => h.kind !== 'commit') ? await reader.graph() : null
      const found = Promise.all(
        otherHits.map(async (h) =>
          h.kind === 'commit' ? [h.ref] : (await g!.query<{ sha: string }>(h.kind === 'pr' ? QUERIES.pullRequestCommits : QUERIES.issueCommits, { number: Number(h.ref) })).map((c) => c.sha),
        ),
      )
      for (const h of symbolHits) {
        const ev = await evidence({ reader, symbol: h.ref, limit: 0 })
        // the first is the code the answer explains; the others' lines support it at half weight
        const first = !target
        if (first) for (const item of ev.evidence) onTarget.add(item.commit.sha)
        target ??= ev.target
        scoreRange(ev.evidence, ev.target.line_end - ev.target.line_start + 1, weight(h) * (first ? 1 : OTHER_SYMBOL_WEIGHT), candidates, ev.target.symbol?.qualified_name ?? h.ref)
      }
      const shasOf = await found
      otherHits.forEach((h, i) => {
        const what = h.kind === 'commit' ? 'its message matches the question' : `${h.kind === 'pr' ? 'PR' : 'issue'} #${h.ref} matches the question`
        for (const item of reader.evidenceItems(shasOf[i].map((sha) => ({ sha, source: 'history' })))) add(candidates, item, weight(h) * 0.6, [what], 'search')
      })
    }

    const partners = target ? coChanges(reader, target) : Promise.resolve([])
    // a question ranks the commits found by how close their messages are to it (words, meaning)
    if (searched) {
      const relevance = await questionRelevance(reader, options.text, searched.answered, [...candidates.values()])
      for (const c of candidates.values()) {
        const r = relevance.get(c.commit.sha) ?? 0
        c.score += RELEVANCE_WEIGHT * r
        if (r > 0) c.reasons.push(`its message is close to the question (${round(r)})`)
      }
    }
    // the message counts for every commit: an explained change outranks a "wip" that owns as much
    for (const c of candidates.values()) {
      const q = messageQuality(c)
      c.score = (c.score + MESSAGE_WEIGHT * q) * (NOISE.has(c.commit.category) || c.ignored ? 0.3 : 1)
    }
    // votes on earlier answers about the same or overlapping code, or a similar question (feedback.ts)
    const scope = answerScope(target, given ? null : options.text)
    rerankByFeedback([...candidates.values()], scope, readFeedback(reader.repo))
    // a PR's merge commit says what the PR's own commits say: it is left out when one of them is in
    // (psf/requests listed "Merge pull request #2193 from …" beside the commit it merged)
    const viaCommits = new Set([...candidates.values()].filter((c) => c.commit.category !== 'merge').flatMap((c) => c.pull_requests.map((p) => p.number)))
    const ranked = [...candidates.values()]
      .filter((c) => c.commit.category !== 'merge' || c.pull_requests.length === 0 || !c.pull_requests.every((p) => viaCommits.has(p.number)))
      .sort((a, b) => b.score - a.score || b.committed - a.committed || (a.commit.sha < b.commit.sha ? -1 : 1))
    const best = ranked[0]
    const message = best ? messageQuality(best) : 0
    // blame and line history agree: the best commit owns most of the lines and introduced them, or two sources name it
    // (a vote on an earlier answer is not a source of evidence)
    const agreement = !best ? 0 : new Set(best.reasons.filter((r) => !/^(up|down)-voted /.test(r)).map((r) => r.split(' ')[0])).size >= 2 ? 1 : best.source === 'blame' ? 0.5 : 0
    const confidence = round(match * Math.min(1, 0.15 + 0.6 * message + 0.15 * agreement + (ranked.length > 1 && messageQuality(ranked[1]) >= 0.5 ? 0.1 : 0)))
    const enough = confidence >= MIN_CONFIDENCE

    const evidenceOut = ranked.map(scrubbed)
    const changesWith = await partners
    const label = !target ? 'this' : target.symbol ? `${target.symbol.kind} ${target.symbol.qualified_name} (${target.path}:${target.line_start}-${target.line_end})` : `${target.path}:${target.line_start}-${target.line_end}`
    const answerer = options.answerer ?? extractiveAnswerer
    const facts: WhyFacts = { label, evidence: evidenceOut, changesWith, confidence, enough, lines: given && target ? target.line_end - target.line_start + 1 : null, onTarget }
    let text = { ...(await answerer.answer(facts)), answerer: answerer.name }
    let llm: WhyLlm | undefined
    const synthesizer = options.answerer || options.llm === false ? null : typeof options.llm === 'object' ? options.llm : await loadSynthesizer(gitwhyDir(reader.repo))
    if (synthesizer || options.estimate) ({ answer: text, llm } = await answerWithLlm(synthesizer, facts, text, given ? null : options.text, options.estimate === true))
    const recorded = answerRecord('why', scope, evidenceIds(evidenceOut), claimShas(text.sentences, evidenceOut))
    if (options.record !== false) await recordAnswer(reader.repo, recorded)
    const answer = {
      target,
      question: given ? null : options.text,
      search: searched,
      located,
      answer: text,
      answer_id: recorded.id,
      confidence,
      enough_evidence: enough,
      confidence_factors: { message: round(message), agreement, match: round(match) },
      citations: citationsOf(evidenceOut),
      evidence: limit === 0 ? evidenceOut : evidenceOut.slice(0, limit),
      changes_with: changesWith,
      decisions: target ? await governingDecisions(reader, [{ kind: target.symbol ? 'symbol' : 'file', path: target.path, qualified_name: target.symbol?.qualified_name ?? null, start: target.line_start, end: target.line_end }]) : [],
      total: evidenceOut.length,
      index: await reader.indexInfo(),
      ...(llm ? { llm } : {}),
    }
    return target ? withTrajectory(reader, target, answer) : answer
  })
}

/**
 * Co-change partners of the symbol, or of the file: when `PATH:Name` does not name one symbol
 * (the file defines the name twice, or the name looks like a path: `../..`, `index.ts`).
 */
async function coChanges(reader: IndexReader, target: EvidenceTarget): Promise<WhyResult['changes_with']> {
  const ask = (key: string) => related({ reader, target: key, limit: 3, examples: 1 })
  let r
  try {
    r = await ask(target.symbol ? `${target.path}:${target.symbol.qualified_name}` : target.path)
  } catch (error) {
    if (!(error instanceof UserError && target.symbol)) throw error
    r = await ask(target.path)
  }
  return r.related.map((p) => ({ path: p.path, qualified_name: p.qualified_name ?? null, shared: p.shared, example: p.examples[0]?.sha ?? null }))
}

/** The ids an answer rests on, best first: every commit, then its PRs and issues. */
function evidenceIds(evidence: WhyEvidence[]): string[] {
  return evidence.flatMap((e) => [e.commit.sha, ...e.pull_requests.map((p) => `PR #${p.number}`), ...e.issues.map((i) => `#${i.number}`)])
}

/**
 * The commits the answer's claim cites: the full SHAs behind the first sentence that cites a
 * commit (the extractive answerer's best commit; later sentences add context). A vote moves these.
 */
function claimShas(sentences: WhySentence[], evidence: WhyEvidence[]): string[] {
  const byShort = new Map<string, string>()
  for (const e of evidence) byShort.set(short(e.commit.sha), e.commit.sha)
  for (const s of sentences) {
    const shas = [...new Set(s.citations.map((c) => byShort.get(c)).filter((sha): sha is string => sha !== undefined))]
    if (shas.length > 0) return shas
  }
  return []
}

function citationsOf(evidence: WhyEvidence[]): WhyCitation[] {
  const out: WhyCitation[] = []
  const seen = new Set<string>()
  const push = (c: WhyCitation) => {
    if (seen.has(c.ref)) return
    seen.add(c.ref)
    out.push(c)
  }
  for (const e of evidence) {
    push({ ref: short(e.commit.sha), kind: 'commit', sha: e.commit.sha, subject: e.commit.subject })
    for (const p of e.pull_requests) push({ ref: `PR #${p.number}`, kind: 'pr', number: p.number, subject: p.title })
    for (const i of e.issues) push({ ref: `#${i.number}`, kind: 'issue', number: i.number, subject: i.title })
  }
  return out
}

const quote = (s: string) => `"${s.replace(/[.\s]+$/, '')}"`

/**
 * How the best commit, an owner of the lines, made them: "has most of its lines (12 of 20) from"
 * only when it owns more than half of the target given; else how many it owns, and whether that
 * is the largest share. A question's located code may span several ranges: its owners say "has
 * lines from".
 */
function ownsHow(best: WhyEvidence, facts: WhyFacts): string {
  if (facts.lines === null || best.lines === undefined) return 'has lines from'
  const [n, m] = [best.lines, facts.lines]
  if (n * 2 > m) return `has most of its lines (${n} of ${m}) from`
  const largest = facts.evidence.every((e) => e === best || e.source !== 'blame' || (e.lines ?? 0) < n)
  return `has ${n} of its ${m} lines${largest ? ', more than any other commit,' : ''} from`
}

/**
 * The extractive answerer: sentences made of the evidence's own words — the best commit's subject
 * and body, its PR and issues, the next explained changes, reverts, co-change — each citing where
 * it came from. Below the threshold only the best evidence, named as such.
 */
export const extractiveAnswerer: Answerer = {
  name: 'extractive',
  async answer(facts) {
    const s: WhySentence[] = []
    const [best, ...rest] = facts.evidence
    if (!best) {
      s.push({ text: `Not enough evidence: nothing in the index explains ${facts.label}.`, citations: [] })
    } else if (!facts.enough) {
      s.push({ text: `Not enough evidence to say why ${facts.label} exists (confidence ${facts.confidence.toFixed(2)}); the best evidence is listed below.`, citations: [] })
      s.push({ text: `The strongest is ${quote(best.commit.subject)} [${short(best.commit.sha)}].`, citations: [short(best.commit.sha)] })
    } else {
      const ref = short(best.commit.sha)
      const how = best.reasons.some((r) => r.startsWith('introduced')) ? 'was introduced by' : best.source === 'blame' ? ownsHow(best, facts) : best.source === 'history' ? 'was shaped by' : 'is explained by'
      s.push({ text: `${facts.label} ${how} ${quote(best.commit.subject)} [${ref}].`, citations: [ref] })
      if (best.commit.why) s.push({ text: `${best.commit.why} [${ref}]`, citations: [ref] })
      for (const p of best.pull_requests) {
        if (p.title && p.title !== best.commit.subject) s.push({ text: `It came through PR #${p.number} ${quote(p.title)} [PR #${p.number}].`, citations: [`PR #${p.number}`] })
        // the PR's description says why where the commit's body does not
        if (!informativeBody(best.commit.why) && informativeBody(p.why)) s.push({ text: `${p.why} [PR #${p.number}]`, citations: [`PR #${p.number}`] })
      }
      for (const i of best.issues) s.push({ text: `It refers to issue #${i.number}${i.title ? ` ${quote(i.title)}` : ''} [#${i.number}].`, citations: [`#${i.number}`] })
      // the code's own later and earlier changes, in date order; one that changed other code (another
      // symbol the question located, or a commit only its words found) is named as such
      const told = (e: WhyEvidence) => e.commit.category !== 'revert' && informativeSubject(e.commit.subject) && messageQuality(e) >= 0.5
      const here = (e: WhyEvidence) => facts.onTarget.has(e.commit.sha) || !facts.onTarget.has(best.commit.sha)
      const explained = rest.filter((e) => told(e) && here(e)).slice(0, 2)
      explained.sort((a, b) => (a.commit.date < b.commit.date ? -1 : a.commit.date > b.commit.date ? 1 : 0))
      for (const e of explained) {
        const r = short(e.commit.sha)
        const when = e.commit.date < best.commit.date ? 'Earlier' : 'Later'
        const reason = statedReason(e)
        const pr = reason?.pr ? `PR #${reason.pr}` : null
        s.push({ text: `${when}, ${quote(e.commit.subject)} [${r}]${reason ? `: ${reason.text}${pr ? ` [${pr}]` : ''}` : '.'}`, citations: pr ? [r, pr] : [r] })
      }
      const elsewhere = rest.find((e) => told(e) && !here(e))
      if (elsewhere) {
        const r = short(elsewhere.commit.sha)
        s.push({ text: `Outside this code, the question also matches ${quote(elsewhere.commit.subject)} [${r}].`, citations: [r] })
      }
    }
    const reverts = facts.evidence.filter((x) => x.commit.category === 'revert')
    if (reverts.length > 0) {
      const each = reverts.map((e) => `${quote(e.commit.subject)} [${short(e.commit.sha)}]${e.commit.reverts ? ` (it undoes ${short(e.commit.reverts)})` : ''}`)
      s.push({ text: `${reverts.length === 1 ? 'It was reverted once' : `It was reverted ${reverts.length} times`}: ${each.join('; ')}.`, citations: reverts.map((e) => short(e.commit.sha)) })
    }
    const partners = facts.changesWith.filter((p) => p.example)
    if (partners.length > 0 && best) {
      s.push({ text: `It usually changes together with ${partners.map((p) => `${p.qualified_name ? `${p.qualified_name} in ` : ''}${p.path} (${p.shared} shared commits, e.g. [${short(p.example!)}])`).join(', ')}.`, citations: partners.map((p) => short(p.example!)) })
    }
    return { text: s.map((x) => x.text).join(' '), sentences: s }
  },
}

/** The answer, its confidence, then the evidence, as text lines. */
export function whyLines(r: WhyResult): string[] {
  const out: string[] = []
  if (r.search?.note) out.push(`note: ${r.search.note}`)
  const llm = llmLines(r.llm)
  out.push(...llm.before)
  if (r.question !== null && r.target) out.push(`located: ${r.target.symbol ? `${r.target.symbol.kind} ${r.target.symbol.qualified_name} ` : ''}${r.target.path}:${r.target.line_start}-${r.target.line_end} (search: ${r.search?.answered})`)
  for (const s of r.answer.sentences) out.push(s.text)
  out.push(...llm.after)
  out.push(`confidence ${r.confidence.toFixed(2)}${r.enough_evidence ? '' : ' (below 0.4: not enough evidence)'} — message ${r.confidence_factors.message}, agreement ${r.confidence_factors.agreement}, match ${r.confidence_factors.match}`)
  out.push(`answer ${r.answer_id} (did it help? feedback ${r.answer_id} up|down)`)
  if (r.evidence.length > 0) out.push('evidence:')
  for (const e of r.evidence) {
    const refs = [...e.pull_requests.map((p) => `PR #${p.number}`), ...e.issues.map((i) => `#${i.number}`)]
    out.push(`  ${e.commit.short}  ${e.commit.date.slice(0, 10)}  ${e.source.padEnd(7)}  ${e.commit.subject}${refs.length ? `  [${refs.join('; ')}]` : ''}  (${e.score}: ${[...new Set(e.reasons)].join('; ')})`)
    if (e.commit.why) out.push(`      ${e.commit.why}`)
    for (const p of e.pull_requests) if (p.why && !e.commit.why) out.push(`      PR #${p.number}: ${p.why}`)
  }
  if (r.total > r.evidence.length) out.push(`… ${r.total - r.evidence.length} more (--limit 0 for all)`)
  if (r.decisions.length > 0) out.push('decisions governing it:', ...governingLines(r.decisions).map((l) => `  ${l}`))
  out.push(...trajectoryAppendix(r.trajectory ?? []))
  return out
}
