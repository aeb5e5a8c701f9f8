/**
 * Answer feedback (issue 15). Every `why` answer (and `brief`'s) carries an `answer_id`; what the
 * answer rested on is recorded under that id, and `gitwhy feedback ID up|down` (MCP `feedback`)
 * votes on it. Later answers re-rank their evidence by the votes (`rerankByFeedback`).
 *
 *   .gitwhy/answers.jsonl   one AnswerRecord a line, appended per answer; trimmed to the newest
 *                           answers (one line per id) when it passes ANSWERS_MAX_BYTES
 *   .gitwhy/feedback.jsonl  one FeedbackRecord a line, append-only; each vote carries a copy of
 *                           what its answer rested on, so that trimming the answers loses no vote
 *   .gitwhy/answers.lock    held (across processes) while either file is written
 *
 * Both live outside every rebuildable `index-*` directory: `analyze --force` keeps them. Every
 * write takes the lock and then runs synchronously (append, or read-trim-rename), so concurrent
 * writers (several MCP servers, the CLI) queue and none loses a line; a reader never sees half a
 * line but the one a crash cut short, which is skipped.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { answerId } from './answer-id.js'
import { questionWords } from './search.js'
import { ensureGitwhyDir, gitwhyDir, lockHolder, tryLock } from './workspace.js'

export const ANSWERS_FILE = 'answers.jsonl'
export const FEEDBACK_FILE = 'feedback.jsonl'
const LOCK_FILE = 'answers.lock'
/** answers.jsonl is trimmed to half of this (newest answers first) when an append takes it past. */
export const ANSWERS_MAX_BYTES = 2 * 1024 * 1024
/** Evidence ids kept per recorded answer (the id itself is computed over all of them). */
const EVIDENCE_KEPT = 40
const LOCK_WAIT_MS = 10_000
const NOTE_MAX = 2000

export type AnswerKind = 'why' | 'brief'
export type Vote = 'up' | 'down'

/** What an answer was about: the same or an overlapping target, or a similar question, makes votes on it count for another. */
export interface AnswerScope {
  /** What was asked, as the answer id hashes it: `PATH:START-END` for code, the question's words for a question. */
  target: string
  /** The code answered about (for a question: the code it was located to), or null. */
  path: string | null
  /** 1-based inclusive line range in `path`. */
  lines: [number, number] | null
  /** The question in words, or null when code was named. */
  question: string | null
}

export interface AnswerRecord extends AnswerScope {
  id: string
  kind: AnswerKind
  /** The evidence ids it rested on, best first (commit SHAs, `PR #12`, `#34`), at most EVIDENCE_KEPT. */
  evidence: string[]
  /** The commits its claim cites (full SHAs; the first sentence that cites one): what a vote on it moves. */
  cited: string[]
  /** ISO 8601. */
  at: string
}

export interface FeedbackRecord extends AnswerScope {
  id: string
  kind: AnswerKind
  vote: Vote
  note: string | null
  cited: string[]
  at: string
}

const answersFile = (repo: string) => path.join(gitwhyDir(repo), ANSWERS_FILE)
const feedbackFile = (repo: string) => path.join(gitwhyDir(repo), FEEDBACK_FILE)

/** The scope of an answer about code (`PATH:START-END`) or a question (and the code it was located to). */
export function answerScope(code: { path: string; line_start: number; line_end: number } | null, question: string | null): AnswerScope {
  // the same words asked again are the same question (spacing and the final question mark aside)
  const q = question === null ? null : question.replace(/\s+/g, ' ').trim().replace(/\s*[?!.]+$/, '')
  return {
    target: q ?? (code ? `${code.path}:${code.line_start}-${code.line_end}` : ''),
    path: code?.path ?? null,
    lines: code ? [code.line_start, code.line_end] : null,
    question: q,
  }
}

/** An answer's id and the record to keep under it (see answerId: the same question over the same evidence, the same id). */
export function answerRecord(kind: AnswerKind, scope: AnswerScope, evidence: readonly string[], cited: readonly string[]): AnswerRecord {
  return { id: answerId(kind, scope.target, evidence), kind, ...scope, evidence: [...new Set(evidence)].slice(0, EVIDENCE_KEPT), cited: [...new Set(cited)], at: new Date().toISOString() }
}

/**
 * Run `write` holding the answers lock. The lock is across processes; within this one the write
 * is synchronous, so no other call of this process runs while it is held.
 */
async function locked<T>(repo: string, write: () => T): Promise<T> {
  const file = path.join(ensureGitwhyDir(repo), LOCK_FILE)
  const until = Date.now() + LOCK_WAIT_MS
  for (let wait = 1; ; wait = Math.min(wait * 2, 25)) {
    const release = tryLock(file)
    if (release) {
      try {
        return write()
      } finally {
        release()
      }
    }
    if (Date.now() > until) {
      const pid = lockHolder(file)
      throw new UserError(`the answer log of ${repo} is locked${pid !== null ? ` by process ${pid}` : ''}`, 'try again in a moment; if no gitwhy runs, delete .gitwhy/answers.lock', 'locked')
    }
    await new Promise((r) => setTimeout(r, wait + Math.random() * wait))
  }
}

function readLines<T>(file: string, valid: (x: unknown) => x is T): T[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return []
  }
  const out: T[] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      const x = JSON.parse(line) as unknown
      if (valid(x)) out.push(x)
    } catch {
      // a line a crash cut short
    }
  }
  return out
}

const isScope = (x: Record<string, unknown>) =>
  typeof x.target === 'string' && (x.path === null || typeof x.path === 'string') && (x.question === null || typeof x.question === 'string') && (x.lines === null || (Array.isArray(x.lines) && x.lines.length === 2 && x.lines.every((n) => typeof n === 'number')))
const isAnswer = (x: unknown): x is AnswerRecord =>
  !!x && typeof x === 'object' && typeof (x as AnswerRecord).id === 'string' && Array.isArray((x as AnswerRecord).cited) && Array.isArray((x as AnswerRecord).evidence) && isScope(x as Record<string, unknown>)
const isFeedback = (x: unknown): x is FeedbackRecord =>
  !!x && typeof x === 'object' && typeof (x as FeedbackRecord).id === 'string' && ((x as FeedbackRecord).vote === 'up' || (x as FeedbackRecord).vote === 'down') && Array.isArray((x as FeedbackRecord).cited) && isScope(x as Record<string, unknown>)

/**
 * Keep the newest answers, one line per id, within half of `maxBytes` (so that trimming is rare).
 * Pure: the file's lines in, the kept lines out, oldest first.
 */
export function trimAnswers(lines: string[], maxBytes: number): string[] {
  const budget = Math.floor(maxBytes / 2)
  const seen = new Set<string>()
  const kept: string[] = []
  let bytes = 0
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]
    if (!line.trim()) continue
    let id: string
    try {
      const x = JSON.parse(line) as unknown
      if (!isAnswer(x)) continue
      id = x.id
    } catch {
      continue
    }
    if (seen.has(id)) continue
    const size = Buffer.byteLength(line) + 1
    if (bytes + size > budget) break
    seen.add(id)
    kept.push(line)
    bytes += size
  }
  return kept.reverse()
}

/**
 * Record what an answer rested on under its id (appended; the file is trimmed to the newest
 * answers when it passes `maxBytes`). Never fails the answer: a repository where .gitwhy/ cannot
 * be written answers without recording.
 */
export async function recordAnswer(repo: string, record: AnswerRecord, maxBytes = ANSWERS_MAX_BYTES): Promise<void> {
  try {
    await locked(repo, () => {
      const file = answersFile(repo)
      appendFileSync(file, `${JSON.stringify(record)}\n`)
      if (statSync(file).size <= maxBytes) return
      const kept = trimAnswers(readFileSync(file, 'utf8').split('\n'), maxBytes)
      const tmp = `${file}.${process.pid}.tmp`
      writeFileSync(tmp, kept.map((l) => `${l}\n`).join(''))
      renameSync(tmp, file)
    })
  } catch {
    // not recorded: feedback on this answer's id says it is unknown
  }
}

/** The recorded answer with this id (the newest record of it), or null. */
export function findAnswer(repo: string, id: string): AnswerRecord | null {
  const all = readLines(answersFile(repo), isAnswer)
  for (let i = all.length - 1; i >= 0; i--) if (all[i].id === id) return all[i]
  return null
}

const ANSWER_ID = /^[wb]-[0-9a-f]{12}$/

export interface FeedbackResult {
  answer_id: string
  vote: Vote
  note: string | null
  /** What the answer was about and the commits the vote moves. */
  answer: { kind: AnswerKind; target: string; cited: string[] }
  /** Every vote on this answer so far, this one included. */
  votes: { up: number; down: number }
  recorded_at: string
}

/** Record a vote on an answer given in this repository; an id no answer here carried is a UserError. */
export async function giveFeedback(options: { repo: string; id: string; vote: string; note?: string | null }): Promise<FeedbackResult> {
  const id = options.id.trim()
  if (!ANSWER_ID.test(id)) throw new UserError(`${printableId(id)} is not an answer id`, 'pass the answer_id of a why answer (like w-1a2b3c4d5e6f), as its --json or MCP answer gives it', 'bad_answer_id')
  if (options.vote !== 'up' && options.vote !== 'down') throw new UserError(`the vote must be up or down, got ${printableId(options.vote)}`, 'pass up (the answer helped) or down (it did not)', 'bad_option')
  const note = options.note ? options.note.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, NOTE_MAX) || null : null
  const repo = options.repo
  // an answer trimmed from the answer log since is still known by an earlier vote on it
  const known: AnswerRecord | FeedbackRecord | null = findAnswer(repo, id) ?? lastVoteOn(repo, id)
  if (!known) {
    throw new UserError(
      `no answer with id ${id} was given in ${repo}`,
      'pass the answer_id of a why answer given in this repository (answers are kept until .gitwhy/answers.jsonl passes 2 MB, newest first); ask again for a fresh id',
      'unknown_answer',
    )
  }
  const record: FeedbackRecord = { id, kind: known.kind, target: known.target, path: known.path, lines: known.lines, question: known.question, cited: known.cited, vote: options.vote, note, at: new Date().toISOString() }
  const votes = await locked(repo, () => {
    appendFileSync(feedbackFile(repo), `${JSON.stringify(record)}\n`)
    const all = readFeedback(repo).filter((f) => f.id === id)
    return { up: all.filter((f) => f.vote === 'up').length, down: all.filter((f) => f.vote === 'down').length }
  })
  return { answer_id: id, vote: record.vote, note, answer: { kind: record.kind, target: record.target, cited: record.cited }, votes, recorded_at: record.at }
}

function lastVoteOn(repo: string, id: string): FeedbackRecord | null {
  const votes = readFeedback(repo)
  for (let i = votes.length - 1; i >= 0; i--) if (votes[i].id === id) return votes[i]
  return null
}

/** The text answer of `feedback`, for the terminal and the MCP tool alike. */
export function feedbackLines(r: FeedbackResult): string[] {
  return [
    `recorded ${r.vote} for ${r.answer_id} (${r.answer.kind} ${r.answer.target})${r.note ? `: ${r.note}` : ''}`,
    `this answer has ${r.votes.up} up, ${r.votes.down} down; later answers about the same or overlapping code, or a similar question, rank the commit${r.answer.cited.length === 1 ? '' : 's'} its claim cited (${r.answer.cited.map((sha) => sha.slice(0, 7)).join(', ') || 'none'}) ${r.vote === 'up' ? 'higher' : 'lower'}`,
  ]
}

const printableId = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s)

let cache: { file: string; stamp: string; votes: FeedbackRecord[] } | null = null

/** Every vote of the repository, oldest first (kept while the file is unchanged: a long-lived server reads it once per change). */
export function readFeedback(repo: string): FeedbackRecord[] {
  const file = feedbackFile(repo)
  let stamp: string
  try {
    const s = statSync(file)
    stamp = `${s.ino}:${s.size}:${s.mtimeMs}`
  } catch {
    return []
  }
  if (cache && cache.file === file && cache.stamp === stamp) return cache.votes
  const votes = readLines(feedbackFile(repo), isFeedback)
  cache = { file, stamp, votes }
  return votes
}

/** The counts `gitwhy status` shows: votes up and down, on how many answers, and how many answers are recorded. */
export function feedbackCounts(repo: string): { up: number; down: number; voted_answers: number; recorded_answers: number } {
  const votes = existsSync(feedbackFile(repo)) ? readFeedback(repo) : []
  const answers = new Set(readLines(answersFile(repo), isAnswer).map((a) => a.id))
  return { up: votes.filter((v) => v.vote === 'up').length, down: votes.filter((v) => v.vote === 'down').length, voted_answers: new Set(votes.map((v) => v.id)).size, recorded_answers: answers.size }
}

// ---------------------------------------------------------------- re-ranking

/** A vote moves a commit's score by this factor per unit of relevance (up ×2, down ×½), at most FEEDBACK_MAX_UNITS units either way. */
export const FEEDBACK_FACTOR = 2
const FEEDBACK_MAX_UNITS = 2
/** Questions this similar (Jaccard of their words) share their votes. */
const SIMILAR_QUESTION = 0.5

/**
 * How much a vote on an answer about `voted` counts for an answer about `scope`, in [0, 1], and
 * why: the same target 1; an overlapping range of the same file, the overlap's share of the
 * smaller range (at least 0.5); a similar question, the share of words they have in common. Null:
 * the vote says nothing about this answer.
 */
export function feedbackRelevance(voted: AnswerScope, scope: AnswerScope): { weight: number; how: string } | null {
  if (voted.target !== '' && voted.target === scope.target) return { weight: 1, how: 'the same target' }
  let best: { weight: number; how: string } | null = null
  if (voted.path !== null && voted.path === scope.path && voted.lines && scope.lines) {
    const lo = Math.max(voted.lines[0], scope.lines[0])
    const hi = Math.min(voted.lines[1], scope.lines[1])
    if (hi >= lo) {
      const smaller = Math.min(voted.lines[1] - voted.lines[0], scope.lines[1] - scope.lines[0]) + 1
      best = { weight: Math.max(0.5, Math.min(1, (hi - lo + 1) / smaller)), how: 'an overlapping target' }
    }
  }
  if (voted.question !== null && scope.question !== null) {
    const a = new Set(questionWords(voted.question))
    const b = new Set(questionWords(scope.question))
    const shared = [...a].filter((w) => b.has(w)).length
    const union = new Set([...a, ...b]).size
    const similarity = union === 0 ? 0 : shared / union
    if (similarity >= SIMILAR_QUESTION && (!best || similarity > best.weight)) best = { weight: similarity, how: 'a similar question' }
  }
  return best
}

/**
 * Re-rank evidence by the votes on earlier answers: each commit an earlier answer's claim cited moves by
 * FEEDBACK_FACTOR per unit of that answer's relevance (up: × 2, down: × ½; the units summed, at
 * most FEEDBACK_MAX_UNITS either way), and says so in its `reasons`. Scores change in place; the
 * items come back best first (ties keep their order). `why` calls it before it ranks; `brief` can.
 */
export function rerankByFeedback<T extends { commit: { sha: string }; score: number; reasons: string[] }>(items: T[], scope: AnswerScope, votes: readonly FeedbackRecord[]): T[] {
  if (votes.length === 0 || items.length === 0) return items
  const units = new Map<string, number>()
  const reasons = new Map<string, string[]>()
  for (const v of votes) {
    const r = feedbackRelevance(v, scope)
    if (!r) continue
    for (const sha of new Set(v.cited)) {
      units.set(sha, (units.get(sha) ?? 0) + (v.vote === 'up' ? r.weight : -r.weight))
      const list = reasons.get(sha) ?? []
      list.push(`${v.vote === 'up' ? 'up' : 'down'}-voted in answer ${v.id} (${r.how})`)
      reasons.set(sha, list)
    }
  }
  if (units.size === 0) return items
  for (const item of items) {
    const u = units.get(item.commit.sha)
    if (u === undefined) continue
    const clamped = Math.max(-FEEDBACK_MAX_UNITS, Math.min(FEEDBACK_MAX_UNITS, u))
    item.score *= FEEDBACK_FACTOR ** clamped
    const said = reasons.get(item.commit.sha)!
    item.reasons.push(...[...new Set(said)].slice(0, 3), ...(said.length > 3 ? [`and ${said.length - 3} more votes`] : []))
  }
  return items.map((item, i) => ({ item, i })).sort((a, b) => b.item.score - a.item.score || a.i - b.i).map((x) => x.item)
}
