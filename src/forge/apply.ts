/**
 * What the forge cache gives the index, as a pure function of what the commit messages gave (the
 * offline rows) and the cache: the rows a full build loads, and the difference an update or a
 * refresh applies to an index built from an older cache. Both come from `deriveForge`, so an
 * index brought up to date by a delta holds exactly what a full build with the same cache holds.
 *
 * - A pull request the index knows (by a merge message, a squash subject, or a merge commit the
 *   forge names) takes the forge's title, description, labels, state, author, merge time and the
 *   review comments on indexed files (source `api`).
 * - A commit whose message names no pull request, and that no PR merge brought in, belongs to the
 *   PR whose merge commit it is (`merge_commit_sha`: a squash or rebase merge): a PART_OF edge.
 * - An issue the index knows (a #N in a message, or one an enriched PR's description closes) takes
 *   the forge's title, description, labels, state and author; a #N that is a pull request takes the
 *   PR's. A description's closing keywords (fixes #12) add CLOSES edges, and Issue nodes for issues
 *   no message names (source `pr-body`).
 */
import { createHash } from 'node:crypto'
import { NO_FORGE_ISSUE, NO_FORGE_PR, type GraphData, type IssueRow, type PullRequestRow } from '../graph/types.js'
import { firstParagraph } from '../history/message.js'
import { closingReferences } from '../history/refs.js'
import { NO_FORGE, type ForgeIssue, type ForgeItems, type ForgePull, type ForgePullLight, type ForgeReviewComment } from './cache.js'

/** The cache, arranged for the index. */
export interface ForgeData {
  fingerprint: string
  pulls: ReadonlyMap<number, ForgePull | ForgePullLight>
  issues: ReadonlyMap<number, ForgeIssue>
  /** Review comments per pull request, by path, line and id. */
  reviews: ReadonlyMap<number, ForgeReviewComment[]>
  /** Merge commit → the merged pull request. */
  mergedAs: ReadonlyMap<string, number>
}

export function forgeData(fingerprint: string, items: ForgeItems): ForgeData {
  const reviews = new Map<number, ForgeReviewComment[]>()
  for (const c of items.comments.values()) {
    const list = reviews.get(c.pr)
    if (list) list.push(c)
    else reviews.set(c.pr, [c])
  }
  for (const list of reviews.values()) list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || (a.line ?? 0) - (b.line ?? 0) || a.id - b.id)
  const mergedAs = new Map<string, number>()
  for (const p of items.pulls.values()) if (p.merged_at && p.merge_sha) mergedAs.set(p.merge_sha, p.n)
  return { fingerprint, pulls: items.pulls, issues: items.issues, reviews, mergedAs }
}

const NO_DATA: ForgeData = { fingerprint: NO_FORGE, pulls: new Map(), issues: new Map(), reviews: new Map(), mergedAs: new Map() }

/** What an index took from the forge cache: enough to bring it to another cache without a rebuild. */
export interface ForgeApplied {
  fingerprint: string
  /** PART_OF edges from merge commits: [sha, number], by sha. */
  mapped: Array<[string, number]>
  /** PullRequest nodes only a merge commit gave (no message names them). */
  added_prs: number[]
  /** Issue nodes only a description's closing keyword gave. */
  added_issues: number[]
  /** Rows that are not the messages' own, by number: a hash of the row. */
  prs: Record<string, string>
  issues: Record<string, string>
  /** CLOSES edges from descriptions that the messages do not give: "pr:issue". */
  closes: string[]
  /** CLOSES edges the messages give (a delta cannot tell them from the graph). */
  message_closes: string[]
}

/** What the commit messages alone give (commitTables): the start of every derivation. */
export interface OfflineView {
  prs: ReadonlySet<number>
  issues: ReadonlySet<number>
  /** Commits in no pull request by their messages (nor brought in by a PR merge). */
  unclaimed: Iterable<string>
  messageCloses: ReadonlySet<string>
}

export interface ForgeRows {
  mapped: Map<string, number>
  /** Every row that is not the messages' own. */
  prRows: Map<number, PullRequestRow>
  issueRows: Map<number, IssueRow>
  addedPrs: number[]
  addedIssues: number[]
  /** From descriptions, not given by the messages. */
  closes: Array<{ pr: number; issue: number }>
  applied: ForgeApplied
}

const MAX_REVIEWS = 20
const MAX_REVIEW_TEXT = 4000
const MAX_REVIEW_COMMENT = 300

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim()

/** A PR's review comments as its `reviews` column holds them: `path:line login: text`, one a line. */
export function reviewText(comments: readonly ForgeReviewComment[] | undefined): string {
  const lines: string[] = []
  let size = 0
  for (const c of comments ?? []) {
    if (lines.length >= MAX_REVIEWS) break
    const body = oneLine(c.body)
    const line = `${c.path}:${c.line ?? ''} ${c.author}: ${body.length > MAX_REVIEW_COMMENT ? `${body.slice(0, MAX_REVIEW_COMMENT - 1)}…` : body}`
    if (size + line.length > MAX_REVIEW_TEXT) break
    lines.push(line)
    size += line.length + 1
  }
  return lines.join('\n')
}

function pullRow(p: ForgePull, reviews: readonly ForgeReviewComment[] | undefined): PullRequestRow {
  return { number: p.n, title: p.title, url: '', source: 'api', body: p.body, labels: p.labels.join(', '), state: p.state, author: p.author, merged_at: p.merged_at, reviews: reviewText(reviews) }
}

/** A PR known only by its merge commit, whose record the cache keeps short. */
function mergedOnlyRow(n: number, p: ForgePull | ForgePullLight | undefined): PullRequestRow {
  return { number: n, title: '', url: '', source: 'api', ...NO_FORGE_PR, state: 'merged', merged_at: p?.merged_at ?? null }
}

function issueRow(i: ForgeIssue | ForgePull): IssueRow {
  return { number: i.n, title: i.title, url: '', source: 'api', body: i.body, labels: i.labels.join(', '), state: i.state, author: i.author }
}

/** The row of an issue the messages name and the forge does not know (or no longer). */
export function offlineIssueRow(n: number): IssueRow {
  return { number: n, title: '', url: '', source: 'message', ...NO_FORGE_ISSUE }
}

const hashRow = (row: object) => createHash('sha256').update(JSON.stringify(row)).digest('hex').slice(0, 16)
const byNumber = (a: number, b: number) => a - b
const closeKey = (pr: number, issue: number) => `${pr}:${issue}`

/** Every row and edge the forge changes, from the messages' view and the cache. */
export function deriveForge(view: OfflineView, data: ForgeData | null): ForgeRows {
  const d = data ?? NO_DATA
  const mapped = new Map<string, number>()
  for (const sha of view.unclaimed) {
    const n = d.mergedAs.get(sha)
    if (n !== undefined) mapped.set(sha, n)
  }
  const addedPrs = [...new Set(mapped.values())].filter((n) => !view.prs.has(n)).sort(byNumber)
  const prRows = new Map<number, PullRequestRow>()
  const bodyCloses = new Map<string, { pr: number; issue: number }>()
  for (const n of [...view.prs, ...addedPrs]) {
    const p = d.pulls.get(n)
    if (p?.k === 'pr') {
      prRows.set(n, pullRow(p, d.reviews.get(n)))
      for (const issue of closingReferences(p.body)) if (issue !== n) bodyCloses.set(closeKey(n, issue), { pr: n, issue })
    } else if (!view.prs.has(n)) prRows.set(n, mergedOnlyRow(n, p))
  }
  const addedIssues = [...new Set([...bodyCloses.values()].map((c) => c.issue))].filter((i) => !view.issues.has(i)).sort(byNumber)
  const added = new Set(addedIssues)
  const issueRows = new Map<number, IssueRow>()
  for (const n of [...view.issues, ...addedIssues]) {
    const p = d.pulls.get(n)
    const record = d.issues.get(n) ?? (p?.k === 'pr' ? p : undefined)
    if (record) issueRows.set(n, issueRow(record))
    else if (added.has(n)) issueRows.set(n, { number: n, title: '', url: '', source: 'pr-body', ...NO_FORGE_ISSUE })
  }
  const closes = [...bodyCloses].filter(([key]) => !view.messageCloses.has(key)).map(([, c]) => c).sort((a, b) => a.pr - b.pr || a.issue - b.issue)
  const hashes = (rows: Map<number, object>) => Object.fromEntries([...rows].sort((a, b) => a[0] - b[0]).map(([n, row]) => [String(n), hashRow(row)]))
  const applied: ForgeApplied = {
    fingerprint: d.fingerprint,
    mapped: [...mapped].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
    added_prs: addedPrs,
    added_issues: addedIssues,
    prs: hashes(prRows),
    issues: hashes(issueRows),
    closes: closes.map((c) => closeKey(c.pr, c.issue)),
    message_closes: [...view.messageCloses].sort(),
  }
  return { mapped, prRows, issueRows, addedPrs, addedIssues, closes, applied }
}

type ForgeTables = Pick<GraphData, 'commits' | 'pullRequests' | 'issues' | 'partOf' | 'closes'>

/** A full build: the forge's rows and edges into the messages' tables (in place); what it applied. */
export function applyForge(tables: ForgeTables, data: ForgeData | null): ForgeApplied {
  const claimed = new Set(tables.partOf.map((p) => p.sha))
  const view: OfflineView = {
    prs: new Set(tables.pullRequests.map((p) => p.number)),
    issues: new Set(tables.issues.map((i) => i.number)),
    unclaimed: tables.commits.filter((c) => !claimed.has(c.sha)).map((c) => c.sha),
    messageCloses: new Set(tables.closes.map((c) => closeKey(c.pr, c.issue))),
  }
  const rows = deriveForge(view, data)
  tables.pullRequests = tables.pullRequests.map((p) => rows.prRows.get(p.number) ?? p)
  for (const n of rows.addedPrs) tables.pullRequests.push(rows.prRows.get(n)!)
  for (const [sha, number] of rows.mapped) tables.partOf.push({ sha, number })
  tables.issues = tables.issues.map((i) => rows.issueRows.get(i.number) ?? i)
  for (const n of rows.addedIssues) tables.issues.push(rows.issueRows.get(n)!)
  tables.closes.push(...rows.closes)
  return rows.applied
}

/** What an index's commit catalog says (plus an update's new commits): the view a delta starts from. */
export interface IndexView {
  /** Every commit's pull requests, as the catalog links them (the forge's mapped ones included). */
  prsOf: ReadonlyMap<string, readonly number[]>
  /** Every issue a commit message names. */
  issueRefs: ReadonlySet<number>
  /** CLOSES edges an update's new commits' messages give. */
  freshCloses: ReadonlyArray<{ pr: number; issue: number }>
}

export interface ForgeDelta {
  applied: ForgeApplied
  /** Every row that is not the messages' own, changed or not (what an update's new commits' catalog entries show). */
  rows: { prs: Map<number, PullRequestRow>; issues: Map<number, IssueRow> }
  /** PRs and issues whose row is new or changed, with the new row (an issue back to the messages' row too). */
  prs: Map<number, PullRequestRow>
  issues: Map<number, IssueRow>
  /** Nodes the forge adds: no message names them. */
  newPrs: Set<number>
  newIssues: Set<number>
  /** New PART_OF edges (merge commits) and CLOSES edges (descriptions). */
  partOf: Array<{ sha: string; number: number }>
  closes: Array<{ pr: number; issue: number }>
}

/**
 * How to bring an index that applied `old` to the cache `data`: new and changed rows, new edges.
 * Null when the cache took back something the index holds (a mapping, an enriched PR, a closing
 * reference: a deleted cache, an edited description): only a rebuild takes an edge or a PR's
 * message title back.
 */
export function forgeDelta(old: ForgeApplied, index: IndexView, data: ForgeData | null): ForgeDelta | null {
  const mappedBefore = new Map(old.mapped)
  const addedBefore = new Set(old.added_prs)
  const prs = new Set<number>()
  const unclaimed: string[] = []
  for (const [sha, list] of index.prsOf) {
    const own = list.filter((n) => mappedBefore.get(sha) !== n)
    for (const n of own) if (!addedBefore.has(n)) prs.add(n)
    if (own.length === 0) unclaimed.push(sha)
  }
  const messageCloses = new Set([...old.message_closes, ...index.freshCloses.map((c) => closeKey(c.pr, c.issue))])
  const rows = deriveForge({ prs, issues: index.issueRefs, unclaimed, messageCloses }, data)
  const now = rows.applied
  const issueNodes = new Set([...index.issueRefs, ...rows.addedIssues])
  const closesNow = new Set([...now.closes, ...messageCloses])
  if (
    old.mapped.some(([sha, n]) => rows.mapped.get(sha) !== n) ||
    Object.keys(old.prs).some((n) => !(n in now.prs)) ||
    old.added_issues.some((n) => !issueNodes.has(n)) ||
    old.closes.some((c) => !closesNow.has(c))
  ) {
    return null
  }
  const changedPrs = new Map<number, PullRequestRow>()
  for (const [n, row] of rows.prRows) if (old.prs[String(n)] !== now.prs[String(n)]) changedPrs.set(n, row)
  const changedIssues = new Map<number, IssueRow>()
  for (const [n, row] of rows.issueRows) if (old.issues[String(n)] !== now.issues[String(n)]) changedIssues.set(n, row)
  // an issue whose forge row went (an added one a message names now, and the forge does not know)
  for (const n of Object.keys(old.issues).map(Number)) if (!rows.issueRows.has(n)) changedIssues.set(n, offlineIssueRow(n))
  const oldCloses = new Set(old.closes)
  const oldIssues = new Set(old.added_issues)
  return {
    applied: now,
    rows: { prs: rows.prRows, issues: rows.issueRows },
    prs: changedPrs,
    issues: changedIssues,
    newPrs: new Set(rows.addedPrs.filter((n) => !addedBefore.has(n))),
    newIssues: new Set(rows.addedIssues.filter((n) => !oldIssues.has(n) && !index.issueRefs.has(n))),
    partOf: [...rows.mapped].filter(([sha]) => !mappedBefore.has(sha)).map(([sha, number]) => ({ sha, number })),
    closes: rows.closes.filter((c) => !oldCloses.has(closeKey(c.pr, c.issue))),
  }
}

/** Whether a delta changes anything at all. */
export function emptyDelta(d: ForgeDelta): boolean {
  return d.prs.size === 0 && d.issues.size === 0 && d.partOf.length === 0 && d.closes.length === 0
}

// a description's lines that say nothing in words: headings, task lists, tables, images, rules, fences, quotes
const NOT_PROSE = /^(?:#{1,6}\s|[-*+]\s+\[[ xX]\]|\||!\[|<\/?[a-z][^>]*>\s*$|(?:-{3,}|\*{3,}|_{3,})\s*$|```|~~~|>)/

/**
 * The paragraph of a PR or issue description that says why, as a commit body's does
 * (firstParagraph): template headings, task lists, tables, images and HTML left out; null when no
 * paragraph has three words.
 */
export function descriptionReason(body: string): string | null {
  if (!body.trim()) return null
  let fenced = false
  const kept: string[] = []
  for (const raw of body.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trim()
    if (/^(?:```|~~~)/.test(line)) {
      fenced = !fenced
      kept.push('')
      continue
    }
    kept.push(fenced || NOT_PROSE.test(line) ? '' : raw)
  }
  const paragraphs = kept.join('\n').split(/\n\s*\n/).filter((p) => p.trim().split(/\s+/).length >= 3)
  return firstParagraph(paragraphs.join('\n\n'))
}
