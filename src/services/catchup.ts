import { UserError, checkLimit } from '../errors.js'
import type { CatalogEntry } from '../history/commit-catalog.js'
import { IndexReader, withReader } from './index-reader.js'
import type { CommitCategory, CommitRef, IndexInfo } from './types.js'

export interface CatchupOptions {
  repo?: string
  /** An ISO date or date-time, `N days ago` (minutes, hours, days, weeks, months, years), `7d`, `yesterday`, `today`. */
  since: string
  /** Maximum commits listed (PR groups and loose commits together); 0 = no cap. Default 50. */
  limit?: number
  reader?: IndexReader
  /** The clock, for relative dates (tests pin it). */
  now?: Date
}

export interface CatchupPullRequest {
  number: number
  title: string
  url: string | null
  /** Committer date of its newest commit in the window (the merge, for a merged PR). */
  last_activity: string
  /** Its commits worth reading, newest first (merges, bots and formatting are only counted). */
  commits: CommitRef[]
  /** Its commits not listed: merges, bot and formatting commits, and any cut by the limit. */
  other_commits: number
}

export interface CatchupResult {
  since: string
  index: IndexInfo
  /** Commits committed since then (and the commits of PRs merged since then). */
  total: number
  by_category: Partial<Record<CommitCategory, number>>
  pull_requests: CatchupPullRequest[]
  /** Commits worth reading that belong to no PR, newest first. */
  commits: CommitRef[]
  /** Counted, not listed. */
  reduced: { merge: number; bot: number; formatting: number }
  /** Commits listed in `pull_requests` and `commits` together; `truncated` when the limit cut some. */
  shown: number
  truncated: boolean
  /** PRs the limit left out whole (their commits are all past it); a PR of only merge, bot or formatting commits is counted in `reduced` instead. */
  more_pull_requests: number
  /** Committer date of the indexed HEAD: the newest commit the answer can know of. */
  newest_indexed: string | null
  /** Set when the whole index is older than `since` (the answer is empty because of that). */
  note: string | null
}

const REDUCED = new Set<CommitCategory>(['merge', 'bot', 'formatting'])
const UNITS: Record<string, number> = { minute: 60, hour: 3600, day: 86400, week: 7 * 86400, month: 30 * 86400, year: 365 * 86400 }
const SHORT_UNITS: Record<string, string> = { m: 'minute', h: 'hour', d: 'day', w: 'week', y: 'year' }

/** A `since` value as a date: absolute (ISO) or relative to `now`, as `git log --since` reads them. */
export function parseSince(input: string, now: Date = new Date()): Date {
  const s = input.trim().toLowerCase()
  const ago = (n: number, unit: string) => {
    // months and years as git's approxidate counts them: on the calendar ("3 months ago" on
    // 2026-11-27 is 2026-08-27, not 90 days back)
    if (unit !== 'month' && unit !== 'year') return new Date(now.getTime() - n * UNITS[unit] * 1000)
    const d = new Date(now.getTime())
    d.setUTCMonth(d.getUTCMonth() - (unit === 'year' ? 12 * n : n))
    return d
  }
  const rel = /^(\d+)[\s.]*(minute|hour|day|week|month|year)s?[\s.]*ago$/.exec(s)
  if (rel) return ago(Number(rel[1]), rel[2])
  const short = /^(\d+)\s*([mhdwy])$/.exec(s)
  if (short) return ago(Number(short[1]), SHORT_UNITS[short[2]])
  if (s === 'today' || s === 'yesterday') {
    const d = new Date(now)
    d.setHours(0, 0, 0, 0)
    if (s === 'yesterday') d.setDate(d.getDate() - 1)
    return d
  }
  if (/^\d{4}-\d{2}-\d{2}([t ][\d:.]+(z|[+-]\d{2}:?\d{2})?)?$/.test(s)) {
    const d = new Date(s.replace(' ', 'T').toUpperCase())
    if (!Number.isNaN(d.getTime())) return d
  }
  throw new UserError(`cannot read the date "${input}"`, 'use an ISO date (2025-01-31, 2025-01-31T12:00:00Z) or a relative one: "7 days ago", "2 weeks ago", "3d", "yesterday"', 'bad_since')
}

/**
 * What changed since a date: commits grouped by PR, the rest listed by category, and the noise
 * (merges, bots, formatting sweeps) reduced to counts. Read from the commit catalog.
 */
export async function catchup(options: CatchupOptions): Promise<CatchupResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 50
    checkLimit(limit)
    const since = parseSince(options.since, options.now)
    const catalog = reader.commits()
    const window = catalog.since(Math.floor(since.getTime() / 1000))
    // A PR merged in the window brought its commits with it, however old they are.
    const prsInWindow = new Set(window.flatMap((e) => e.pull_requests.map((p) => p.number)))
    const included = new Map(window.map((e) => [e.commit.sha, e]))
    if (prsInWindow.size > 0) {
      for (const e of catalog.since(0)) if (!included.has(e.commit.sha) && e.pull_requests.some((p) => prsInWindow.has(p.number))) included.set(e.commit.sha, e)
    }
    const entries = [...included.values()].sort((a, b) => b.committed - a.committed || (a.commit.sha < b.commit.sha ? -1 : 1))

    const byCategory: Partial<Record<CommitCategory, number>> = {}
    const reduced = { merge: 0, bot: 0, formatting: 0 }
    const groups = new Map<number, Group>()
    const loose: CommitRef[] = []
    let shown = 0
    let truncated = false
    for (const e of entries) {
      const category = e.commit.category
      byCategory[category] = (byCategory[category] ?? 0) + 1
      if (REDUCED.has(category)) reduced[category as keyof typeof reduced]++
      const pr = e.pull_requests[0]
      const group = pr ? groupFor(groups, pr, e) : null
      if (REDUCED.has(category) || (limit > 0 && shown >= limit)) {
        if (!REDUCED.has(category)) {
          truncated = true
          if (group) group.cut++
        }
        if (group) group.other_commits++
        continue
      }
      shown++
      if (group) group.commits.push(e.commit)
      else loose.push(e.commit)
    }
    // a PR with nothing listed is not listed: past the limit it is counted, all noise it is in `reduced`
    const listed = [...groups.values()].filter((g) => g.commits.length > 0)
    const morePullRequests = [...groups.values()].filter((g) => g.commits.length === 0 && g.cut > 0).length
    const pullRequests = listed.sort((a, b) => b.newest - a.newest || b.number - a.number).map(({ newest, cut, ...g }) => g)
    const head = catalog.get(reader.meta.head)
    const newest = head ? head.committed : null
    const sinceSeconds = Math.floor(since.getTime() / 1000)
    const note =
      newest !== null && newest < sinceSeconds
        ? `the newest indexed commit (${head!.commit.short}, ${new Date(newest * 1000).toISOString().slice(0, 10)}) is ${Math.floor((sinceSeconds - newest) / 86400)} days older than ${since.toISOString().slice(0, 10)}: nothing in the index is that recent${(await reader.indexInfo()).stale ? '; run `gitwhy analyze` to index the newer commits' : ''}`
        : null
    return {
      since: since.toISOString(),
      index: await reader.indexInfo(),
      total: entries.length,
      by_category: byCategory,
      pull_requests: pullRequests,
      commits: loose,
      reduced,
      shown,
      truncated,
      more_pull_requests: morePullRequests,
      newest_indexed: newest === null ? null : new Date(newest * 1000).toISOString(),
      note,
    }
  })
}

type Group = CatchupPullRequest & { newest: number; cut: number }

function groupFor(groups: Map<number, Group>, pr: CatalogEntry['pull_requests'][number], e: CatalogEntry): Group {
  let g = groups.get(pr.number)
  if (!g) {
    g = { number: pr.number, title: pr.title, url: pr.url, last_activity: new Date(e.committed * 1000).toISOString(), commits: [], other_commits: 0, newest: e.committed, cut: 0 }
    groups.set(pr.number, g)
  }
  return g
}

const line = (c: CommitRef) => `${c.short} ${c.date.slice(0, 10)} ${c.author}: ${c.subject}${c.category === 'normal' ? '' : ` [${c.category}]`}`

/** The text answer, for the CLI and the MCP tool alike. */
export function renderCatchup(r: CatchupResult): string[] {
  const counts = Object.entries(r.by_category).map(([k, n]) => `${n} ${k}`).join(', ')
  const out = [`since ${r.since.slice(0, 16).replace('T', ' ')}: ${r.total} commits${counts ? ` (${counts})` : ''}`]
  for (const pr of r.pull_requests) {
    out.push(`PR #${pr.number} ${pr.title}${pr.other_commits ? ` (+${pr.other_commits} not listed: merge, bot, formatting or past the limit)` : ''}`)
    for (const c of pr.commits) out.push(`  ${line(c)}`)
  }
  if (r.commits.length) out.push('not in a PR:', ...r.commits.map((c) => `  ${line(c)}`))
  const noise = Object.entries(r.reduced).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`)
  if (noise.length) out.push(`counted only: ${noise.join(', ')}`)
  if (r.truncated) out.push(`showing ${r.shown} commits${r.more_pull_requests ? ` (${r.more_pull_requests} more PR${r.more_pull_requests === 1 ? '' : 's'} past the limit)` : ''}; raise limit (0 = all) for the rest`)
  if (r.note) out.push(`note: ${r.note}`)
  return out
}
