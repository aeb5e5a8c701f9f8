import { scrubSecrets } from '../text/scrub.js'
import { issueUrl, pullRequestUrl } from '../history/remote.js'
import { UserError } from '../errors.js'
import { QUERIES } from '../graph/queries.js'
import type { IndexReader } from './index-reader.js'
import type { CommitRef, IndexInfo, IssueRef, PullRequestRef } from './types.js'

/** One commit, PR, issue or the repository as a whole, as the MCP resources show them. */

export interface CommitDetail {
  commit: CommitRef & { committer_date: string; body: string; parent_count: number; additions: number; deletions: number }
  parents: Array<{ sha: string; subject: string }>
  pull_requests: PullRequestRef[]
  issues: IssueRef[]
  files: Array<{ path: string; change: string; old_path: string | null; additions: number; deletions: number }>
  /** Symbols (at the indexed HEAD) whose line history includes this commit. */
  symbols: Array<{ path: string; qualified_name: string; kind: string; start_line: number; end_line: number; added: number; removed: number }>
  /** Lines of indexed symbols this commit still owns at the indexed HEAD (blame). */
  owns: { symbols: number; lines: number }
  index: IndexInfo
}

/** What forge enrichment (`gitwhy enrich`) adds to a PR or an issue: present only on rows it filled (source `api`). */
export interface ForgeDetail {
  body?: string
  labels?: string[]
  state?: string
  author?: string
  merged_at?: string | null
  /** A PR's review comments on indexed files, one per line. */
  reviews?: string
}

export interface PullRequestDetail {
  pull_request: PullRequestRef & { source: string } & ForgeDetail
  commits: CommitRef[]
  files: Array<{ path: string; commits: number; additions: number; deletions: number }>
  closes: Array<{ number: number; title: string; url: string | null }>
  index: IndexInfo
}

export interface IssueDetail {
  issue: { number: number; title: string; url: string | null; source: string } & ForgeDetail
  commits: Array<CommitRef & { closes: boolean }>
  closed_by: PullRequestRef[]
  index: IndexInfo
}

export interface RepoOverview {
  repo: string
  index: IndexInfo & { built_at: string; shallow: boolean }
  counts: Record<string, number>
  first_commit: string | null
  last_commit: string | null
  languages: Array<{ language: string; files: number }>
  top_contributors: Array<{ name: string; email: string; commits: number; last_commit: string }>
}

const nullIfEmpty = (s: string | null | undefined): string | null => (s ? s : null)

function commitRefs(reader: IndexReader, shas: string[]): CommitRef[] {
  return shas.flatMap((sha) => {
    const e = reader.commits().get(sha)
    return e ? [e.commit] : []
  })
}

/** A full or abbreviated (at least 4 hex digits) SHA as the full SHA of an indexed commit. */
export async function resolveSha(reader: IndexReader, input: string): Promise<string> {
  const prefix = input.trim().toLowerCase()
  if (!/^[0-9a-f]{4,40}$/.test(prefix)) throw new UserError(`${input} is not a commit id`, 'pass a full SHA or at least its first 4 hex digits', 'bad_sha')
  if (prefix.length === 40 && reader.commits().get(prefix)) return prefix
  const rows = await (await reader.graph()).query<{ sha: string }>(QUERIES.commitsByPrefix, { prefix })
  if (rows.length === 1) return rows[0].sha
  if (rows.length === 0) throw new UserError(`no indexed commit ${input} (index at ${reader.meta.head.slice(0, 7)})`, 'check the SHA; a commit newer than the index needs `gitwhy analyze` first', 'unknown_commit')
  throw new UserError(`${input} is ambiguous: ${rows.map((r) => r.sha.slice(0, 12)).join(', ')}`, 'pass more digits of the SHA', 'ambiguous_commit')
}

export async function commitDetail(reader: IndexReader, sha: string): Promise<CommitDetail> {
  const full = await resolveSha(reader, sha)
  const g = await reader.graph()
  const [row] = await g.query<Record<string, string & number>>(QUERIES.commit, { sha: full })
  const entry = reader.commits().get(full)
  const [parents, files, symbols, owned] = await Promise.all([
    g.query<{ sha: string; subject: string }>(QUERIES.commitParents, { sha: full }),
    g.query<CommitDetail['files'][number]>(QUERIES.commitFiles, { sha: full }),
    g.query<CommitDetail['symbols'][number]>(QUERIES.commitSymbols, { sha: full }),
    g.query<{ symbols: number; lines: number | null }>(QUERIES.commitOwnedLines, { sha: full }),
  ])
  return {
    commit: {
      ...(entry?.commit ?? { sha: full, short: full.slice(0, 7), author: row.author, email: row.email, date: row.author_date, subject: row.subject, category: row.category as CommitRef['category'] }),
      committer_date: row.committer_date,
      body: row.body,
      parent_count: row.parent_count,
      additions: row.additions,
      deletions: row.deletions,
    },
    parents,
    pull_requests: entry?.pull_requests ?? [],
    issues: entry?.issues ?? [],
    files: files.map((f) => ({ ...f, old_path: nullIfEmpty(f.old_path) })),
    symbols,
    owns: { symbols: owned[0]?.symbols ?? 0, lines: owned[0]?.lines ?? 0 },
    index: await reader.indexInfo(),
  }
}

function requireNumber(kind: string, n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new UserError(`${kind} number must be a positive whole number, got ${n}`, `pass e.g. gitwhy://${kind === 'PR' ? 'pr' : 'issue'}/123`, 'bad_number')
}

export async function pullRequestDetail(reader: IndexReader, number: number, fileLimit = 50): Promise<PullRequestDetail> {
  requireNumber('PR', number)
  const g = await reader.graph()
  const [pr] = await g.query<{ number: number; title: string; url: string; source: string } & ForgeColumns>(QUERIES.pullRequest, { number })
  if (!pr) throw new UserError(`PR #${number} is not mentioned in the indexed history`, 'PRs are found in merge and squash commit messages; check the number, or search with the cypher tool: MATCH (p:PullRequest) RETURN p.number, p.title', 'unknown_pr')
  const [commits, files, closes] = await Promise.all([
    g.query<{ sha: string }>(QUERIES.pullRequestCommits, { number }),
    g.query<PullRequestDetail['files'][number]>(QUERIES.pullRequestFiles, { number, limit: fileLimit }),
    g.query<{ number: number; title: string; url: string }>(QUERIES.pullRequestIssues, { number }),
  ])
  return {
    pull_request: { number: pr.number, title: pr.title, url: nullIfEmpty(pr.url) ?? pullRequestUrl(reader.meta.remote, pr.number), source: pr.source, ...forgeDetail(pr) },
    commits: commitRefs(reader, commits.map((c) => c.sha)),
    files,
    closes: closes.map((i) => ({ ...i, url: nullIfEmpty(i.url) ?? issueUrl(reader.meta.remote, i.number) })),
    index: await reader.indexInfo(),
  }
}

export async function issueDetail(reader: IndexReader, number: number): Promise<IssueDetail> {
  requireNumber('issue', number)
  const g = await reader.graph()
  const [issue] = await g.query<{ number: number; title: string; url: string; source: string } & ForgeColumns>(QUERIES.issue, { number })
  if (!issue) throw new UserError(`issue #${number} is not mentioned in the indexed history`, 'issues are found as #N references in commit messages; check the number', 'unknown_issue')
  const [commits, closedBy] = await Promise.all([
    g.query<{ sha: string; closes: boolean }>(QUERIES.issueCommits, { number }),
    g.query<{ number: number; title: string; url: string }>(QUERIES.issueClosedBy, { number }),
  ])
  const closes = new Map(commits.map((c) => [c.sha, c.closes]))
  return {
    issue: { number: issue.number, title: issue.title, url: nullIfEmpty(issue.url) ?? issueUrl(reader.meta.remote, issue.number), source: issue.source, ...forgeDetail(issue) },
    commits: commitRefs(reader, commits.map((c) => c.sha)).map((c) => ({ ...c, closes: closes.get(c.sha) ?? false })),
    closed_by: closedBy.map((p) => ({ ...p, url: nullIfEmpty(p.url) ?? pullRequestUrl(reader.meta.remote, p.number) })),
    index: await reader.indexInfo(),
  }
}

interface ForgeColumns {
  body: string
  labels: string
  state: string
  author: string
  merged_at?: string | null
  reviews?: string
}

/** The forge's columns of a row enrichment filled (scrubbed when fetched; again here, as every answer is). */
function forgeDetail(row: { source: string } & ForgeColumns): ForgeDetail {
  if (row.source !== 'api') return {}
  const out: ForgeDetail = { body: scrubSecrets(row.body), labels: row.labels ? row.labels.split(', ') : [], state: row.state, author: row.author }
  if (row.merged_at !== undefined) out.merged_at = row.merged_at ? new Date(row.merged_at).toISOString() : null
  if (row.reviews !== undefined) out.reviews = scrubSecrets(row.reviews)
  return out
}

export async function repoOverview(reader: IndexReader, contributors = 10): Promise<RepoOverview> {
  const g = await reader.graph()
  const [[range], languages, top] = await Promise.all([
    g.query<{ first: string | null; last: string | null }>(QUERIES.dateRange),
    g.query<{ language: string; files: number }>(QUERIES.languages),
    g.query<RepoOverview['top_contributors'][number]>(QUERIES.topContributors, { limit: contributors }),
  ])
  return {
    repo: reader.repo,
    index: { ...(await reader.indexInfo()), built_at: reader.meta.createdAt, shallow: reader.meta.shallow },
    counts: reader.meta.counts,
    first_commit: range?.first ?? null,
    last_commit: range?.last ?? null,
    languages,
    top_contributors: top,
  }
}
