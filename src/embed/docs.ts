/**
 * What `gitwhy search` finds (issue 12): one document per symbol, commit, pull request and issue,
 * each a short text built from what the index already holds (a PR's or issue's title, and its
 * description once `gitwhy enrich` fetched it), scrubbed of secrets before it is stored, full-text
 * indexed and embedded.
 */
import { createHash } from 'node:crypto'
import { ftsTerms } from '../codegraph/fts-terms.js'
import { ASCII, identifierWords } from '../codegraph/search-text.js'
import { NO_WORDS } from '../graph/schema.js'
import { isTestPath } from '../parse/classify.js'
import { remembered } from '../runtime/remembered.js'
import type { CommitRow, IssueRow, PullRequestRow } from '../graph/types.js'
import { scrubSecrets } from '../text/scrub.js'
import { embeddingText } from './model.js'

export const DOC_KINDS = ['symbol', 'commit', 'pr', 'issue'] as const
export type DocKind = (typeof DOC_KINDS)[number]

export interface DocRow {
  /** Position in the index's vector table (DocVector.row): the key both tables share. */
  row: number
  /** symbol:<symbol id>, commit:<sha>, pr:<number>, issue:<number>. */
  id: string
  kind: DocKind
  /** The symbol id, commit sha, or PR / issue number. */
  ref: string
  /** The symbol's file ('' for the others). */
  path: string
  /** The symbol's first line (0 for the others). */
  line: number
  /** One line to show: the qualified name, the commit subject, the title. */
  title: string
  /** The summary, scrubbed: what the model embeds and answers show. */
  text: string
  /** The full-text index's words: the text's identifiers split and lower-cased, whole ones beside their parts, less what Kuzu's tokenizer drops (ftsTerms). */
  search: string
  /**
   * Content hash of what the model embeds (the vector cache's key): '' until `docInput` (the
   * embedder) works it out, so an index built without a model holds ''. Made on demand because
   * it costs the model's text preparation and a SHA-256 of every document (on git/git's 82,000
   * commit messages ~4.7 s of the main thread while the history is read) for nothing without one.
   */
  hash: string
  /**
   * A symbol's vector is not its summary's: it is made of the vector of its own text (name, kind,
   * signature, doc comment, path) and those of its owners' subjects, which other documents share
   * (composeVector). Absent: the text's own vector.
   */
  compose?: ComposedSource
  /** What the model reads when it is not the whole text (a bot's commit: its subject). Absent: the text. */
  input?: string
  /**
   * A document the model does not read: a symbol of a test file (isTestPath, set by symbolDoc), a
   * message of fewer than MIN_WORDS words (set by docInput). It is found by its words alone, and
   * its row has no DocVector.
   */
  unembedded?: true
}

/** The model inputs a composed vector is made of. */
export interface ComposedInput {
  own: string
  parts: string[]
}

/**
 * What a composed vector is made of, as the summary holds it (scrubbed): the symbol's own text and
 * its owners' subjects. The model's inputs are made from it when a model asks (composedInput):
 * without one, making them was ~1.2 s of rails/rails' 50,000 symbol documents for nothing.
 */
export interface ComposedSource {
  own: string
  subjects: string[]
}

/** The model inputs of a composed vector: its own text's and its distinct subjects'. */
export function composedInput(source: ComposedSource): ComposedInput {
  return { own: embeddingInput(source.own), parts: [...new Set(source.subjects.map((x) => embeddingInput(x)))].filter(Boolean) }
}

/** A commit message past this is mostly detail the model truncates anyway. */
const MAX_TEXT = 2000
/** Subjects of the commits owning most of a symbol's lines that its summary carries. */
const OWNER_SUBJECTS = 3

type DocDraft = Omit<DocRow, 'row' | 'hash' | 'search'>

/** A squash merge's subject ends in its pull request's number: `Fix the cache (#123)`. */
const PR_NUMBER_SUFFIX = /^([^\n]*?)[ \t]*\(#\d+\)[ \t]*(?=\n|$)/

/**
 * The text as the model reads it: identifiers split into words, and the first line's trailing
 * `(#N)` left out, so that a squash merge's subject and its pull request's title (the subject
 * without it) are one input, embedded once.
 */
export function embeddingInput(text: string): string {
  return embeddingText(text.replace(PR_NUMBER_SUFFIX, '$1'))
}

/** The vector cache's key of a model input. */
export function inputHash(input: string): string {
  return createHash('sha256').update(input).digest('hex').slice(0, 32)
}

/** How much more a symbol's own text weighs in its vector than the mean of its owners' subjects. */
const OWN_WEIGHT = 2

/**
 * A symbol's vector from the vectors of its own text and of its owners' subjects: the unit vector
 * of OWN_WEIGHT × own + their mean. On vuejs/core's 4,093 symbol documents its cosine to the vector of the
 * whole summary (own text and subjects in one input) is median 0.973, p10 0.956; the model reads
 * ~45 % fewer of their tokens, and the subjects' vectors are mostly those of documents embedded
 * anyway (a commit without a body, a pull request's title).
 */
export function composeVector(own: Float32Array, parts: readonly Float32Array[]): Float32Array {
  const v = new Float32Array(own.length)
  for (let i = 0; i < v.length; i++) v[i] = OWN_WEIGHT * own[i]
  for (const p of parts) for (let i = 0; i < v.length; i++) v[i] += p[i] / parts.length
  let sum = 0
  for (const x of v) sum += x * x
  const norm = Math.sqrt(sum)
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] /= norm
  return v
}

/**
 * The document of a draft: its text scrubbed and cut to MAX_TEXT, and the words the full-text index
 * keeps of it. `terms`: the words of the text's lines, when the caller has them (a symbol's owners'
 * subjects, the same for many symbols); used when the text is those lines unchanged (nothing
 * scrubbed or cut) and ASCII, where a text's words are its lines' words in order (identifierWords
 * and ftsTerms work token by token, and a line break ends a token).
 */
function finish(draft: DocDraft, compose?: ComposedSource, terms?: () => string[]): Omit<DocRow, 'row'> {
  const text = scrubSecrets(draft.text).slice(0, MAX_TEXT)
  const search = terms && text === draft.text && ASCII.test(text) ? terms().filter(Boolean).join(' ') : textTerms(text)
  return { ...draft, title: scrubSecrets(draft.title), text, search: search || NO_WORDS, hash: '', ...(compose ? { compose } : {}) }
}

const textTerms = (text: string): string => ftsTerms(identifierWords(text))

/**
 * A document's model input (null for a composed one, whose inputs are its parts, and for one the
 * model does not read: DocRow.unembedded, hash '') and its hash, which it keeps from then on
 * (DocRow.hash).
 */
export function docInput(d: Pick<DocRow, 'hash' | 'text' | 'compose' | 'input' | 'unembedded'>): { input: string | null; hash: string; composed?: ComposedInput } {
  if (d.unembedded) return { input: null, hash: '' }
  if (d.compose) {
    const composed = composedInput(d.compose)
    d.hash ||= inputHash(['composed', composed.own, ...composed.parts].join('\n'))
    return { input: null, hash: d.hash, composed }
  }
  const input = d.input ?? embeddingInput(d.text)
  // a message of fewer than MIN_WORDS words is found by its words alone (decided here, where the
  // model's input is made anyway: without a model no document pays for it)
  if (tooShort(input)) {
    d.unembedded = true
    return { input: null, hash: '' }
  }
  d.hash ||= inputHash(input)
  return { input, hash: d.hash }
}


/**
 * A `Signed-off-by:` trailer line: the Developer Certificate of Origin's sign-off, the same few
 * names on nearly every commit where a project asks for it (109,602 lines, 5.5 MB, of git/git's
 * 82,000 messages). It says nothing about why; the commit's author is in the index anyway.
 */
const SIGN_OFF = /^[ \t]*Signed-off-by:.*$/gim

/**
 * A commit's document: its subject and body, less the body's sign-off lines. A bot's commit
 * (categorize.ts isBot) is embedded by its subject alone: its body is a generated table of
 * versions and release notes that says nothing about why, and the model paid for it as for every
 * other commit message of vuejs/core together (Renovate's 1,091 commits there: 15 % of the
 * commits, 43 % of the commit messages' tokens). The full-text index still holds the whole text.
 */
export function commitDoc(c: Pick<CommitRow, 'sha' | 'subject' | 'body'>, options: { bot?: boolean } = {}): Omit<DocRow, 'row'> {
  const body = c.body.replace(SIGN_OFF, '').trim()
  const doc = finish({ id: `commit:${c.sha}`, kind: 'commit', ref: c.sha, path: '', line: 0, title: c.subject, text: body ? `${c.subject}\n${body}` : c.subject })
  return options.bot && body ? { ...doc, input: embeddingInput(doc.title) } : doc
}

/** Words (a letter or digit run of 2 or more; each Han, kana or Hangul character) a text must have for the model to read it. */
const MIN_WORDS = 3
const WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}]{2,}/gu

/**
 * A model input of fewer than MIN_WORDS words (docInput leaves such a commit, PR or issue to its
 * words): its vector would say nothing, and sits where the model puts every text it cannot read,
 * near the middle, where it came first for questions the model reads no better (honojs/hono: "炎",
 * "Fixed example", "chore: denoify" before `stripWeak` for "etag weak comparison"). Releases
 * ("v2.7.3", "release: v3.3.7"), "chore: format": 124 of vuejs/core's 10,328 such documents.
 */
export function tooShort(input: string): boolean {
  return (input.match(WORD)?.length ?? 0) < MIN_WORDS
}

/**
 * A PR's document: its title, and once forge enrichment filled them, its labels, description and
 * the review comments on indexed files (the first 2,000 characters in all).
 */
export function pullRequestDoc(p: Pick<PullRequestRow, 'number' | 'title'> & Partial<Pick<PullRequestRow, 'body' | 'labels' | 'reviews'>>): Omit<DocRow, 'row'> | null {
  return p.title.trim() ? finish({ id: `pr:${p.number}`, kind: 'pr', ref: String(p.number), path: '', line: 0, title: p.title, text: entityText(p.title, p.labels, p.body, p.reviews) }) : null
}

/** An issue's document: its title, and with forge enrichment its labels and description. */
export function issueDoc(i: Pick<IssueRow, 'number' | 'title'> & Partial<Pick<IssueRow, 'body' | 'labels'>>): Omit<DocRow, 'row'> | null {
  return i.title.trim() ? finish({ id: `issue:${i.number}`, kind: 'issue', ref: String(i.number), path: '', line: 0, title: i.title, text: entityText(i.title, i.labels, i.body) }) : null
}

function entityText(title: string, labels = '', body = '', reviews = ''): string {
  return [title, labels.trim() ? `labels: ${labels.trim()}` : '', body.trim(), reviews.trim()].filter(Boolean).join('\n')
}

export interface SymbolSummaryInput {
  id: string
  qualifiedName: string
  kind: string
  path: string
  startLine: number
  signature: string
  doc: string
  /** Subjects of the commits that own its current lines, most lines first. */
  ownerSubjects: string[]
}

/**
 * A symbol's summary: its name in words, kind, signature, doc comment, path and the reasons its
 * lines were written. A test file's symbol is not embedded (DocRow.unembedded): half of the
 * symbols of vuejs/core, honojs/hono, spf13/cobra and psf/requests are test cases and helpers,
 * which a question by meaning is hardly after and `why` puts last anyway; their names and words
 * stay in the full-text index, their commits' messages among the vectors.
 */
export function symbolDoc(s: SymbolSummaryInput): Omit<DocRow, 'row'> {
  // the first OWNER_SUBJECTS distinct ones, scrubbed (each subject once: many symbols share it)
  const subjects: string[] = []
  for (const x of s.ownerSubjects) {
    const subject = scrubbedLine(x)
    if (subject && !subjects.includes(subject) && subjects.push(subject) === OWNER_SUBJECTS) break
  }
  const own = [`${embeddingText(s.qualifiedName)} (${s.kind})`, s.signature, s.doc]
    .map((x) => scrubSecrets(x).trim())
    .concat(scrubbedLine(s.path))
    .filter(Boolean)
    .join('\n')
  const draft: DocDraft = { id: `symbol:${s.id}`, kind: 'symbol', ref: s.id, path: s.path, line: s.startLine, title: s.qualifiedName, text: [own, ...subjects].join('\n') }
  const terms = () => [textTerms(own), ...subjects.map(subjectTerms)]
  return isTestPath(s.path) ? { ...finish(draft, undefined, terms), unembedded: true } : finish(draft, { own: own.slice(0, MAX_TEXT), subjects }, terms)
}

/**
 * A line scrubbed and trimmed, and a (scrubbed) subject's full-text words: each worked out once
 * (each of rails/rails' 50,000 symbol documents asks for its path and its owners' subjects until
 * three differ).
 */
const scrubbedLine = remembered((text) => scrubSecrets(text).trim(), 200_000)
const subjectTerms = remembered(textTerms, 200_000)

/** Rows numbered from `first` (a full build: 0; an update: after the previous index's last). */
export function numberDocs(docs: Array<Omit<DocRow, 'row'>>, first: number): DocRow[] {
  return docs.map((d, i) => ({ ...d, row: first + i }))
}
