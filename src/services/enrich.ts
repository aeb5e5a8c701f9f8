/**
 * `gitwhy enrich` (issue 15): the pull requests and issues the indexed history references, fetched
 * from GitHub — title, description, labels, state, author, merge time, merge commit, the issues a
 * description closes, the review comments on indexed files — into the forge cache
 * (`.gitwhy/forge/`, src/forge/cache.ts), then into the index by an analyze (a PR/issue delta when
 * HEAD has not moved: src/forge/apply.ts).
 *
 * Efficient: three paginated listings, 100 items a page, newest updated first — pulls (state=all,
 * for the merge commits too), issues (state=all; its pull requests are left to the pulls listing)
 * and review comments — each going back only to where the last complete run started; one request
 * per item only for what they cannot have given (a number the listings never showed: deleted,
 * transferred, or merged before the clone had its commit). Polite: every page is asked with the
 * ETag of its last answer (a 304 costs no rate limit; an unchanged repository costs three 304s),
 * rate-limit waits honour `x-ratelimit-reset` with a progress line, and the cache is checkpointed
 * after every page: a run that stops (Ctrl-C, a kill, --limit, a network failure) goes on from
 * there the next time without fetching a page again.
 *
 * Offline, no token, no GitHub `origin`: a one-line notice, and nothing changes.
 */
import path from 'node:path'
import { UserError, isUserError } from '../errors.js'
import { ForgeCacheWriter, forgeFingerprint, LISTINGS, NO_FORGE, newForgeState, readForgeState, resetForgeCache, type ForgeCounts, type ForgeRecord, type ListingKind, type ListingRun, type ListingState } from '../forge/cache.js'
import { ForgeError, GitHubClient, githubTarget, lightPull, normalizeComment, normalizeIssue, normalizePull, readable, readForgeConfig, resolveToken, type GitHubTarget, type RawIssue, type RawPull, type RawReviewComment, type TokenSource } from '../forge/github.js'
import { closingReferences, parseMessageRefs } from '../history/refs.js'
import { git } from '../git/run.js'
import { packageVersion } from '../setup/launcher.js'
import { analyze, type AnalyzeSummary, type ProgressFn } from './analyze.js'
import { parseSince } from './catchup.js'
import { IndexReader } from './index-reader.js'
import { gitwhyDir, originRemote, readMeta, resolveRepo, tryLock } from './workspace.js'

export interface EnrichOptions {
  repo?: string
  /** Only what was updated at or after this date (ISO, or relative: "30 days ago", "2w"); the single-item requests are skipped. */
  since?: string
  /** At most this many API requests in this run (0: no cap); the next run goes on where it stopped. */
  limit?: number
  onProgress?: ProgressFn
  onWarning?: (message: string) => void
  /** A line to show as it happens (a rate-limit wait). */
  onNote?: (message: string) => void
  /** Milliseconds per unit of the retry back-off after a 5xx (1, 4, 9 units; default 1000): tests. */
  retryBaseMs?: number
  env?: NodeJS.ProcessEnv
}

export type EnrichStatus = 'enriched' | 'partial' | 'unchanged' | 'skipped'

export interface EnrichResult {
  repo: string
  /** enriched: every listing done; partial: stopped (--limit, network), the next run goes on; unchanged: nothing new; skipped: nothing asked (see notice). */
  status: EnrichStatus
  /** Why it was skipped or stopped, in one line; null when it was not. */
  notice: string | null
  forge: { kind: 'github'; repo: string; api: string; token: TokenSource } | null
  requests: { total: number; not_modified: number; rate_limit_waits: number; single_items: number }
  /** Records this run added or changed in the cache. */
  fetched: { pull_requests: number; issues: number; review_comments: number }
  /** What the cache holds now (null: none). */
  cache: (ForgeCounts & { enriched_at: string | null; complete: boolean }) | null
  /** The analyze that put the cache into the index (null: none was needed, or it could not run). */
  index: { mode: AnalyzeSummary['mode']; head: string } | null
  /** Asking the forge, and putting the cache into the index (the analyze; 0 when none ran). */
  timings: { fetch_ms: number; index_ms: number; total_ms: number }
}

const LISTING: Record<ListingKind, { route: string; params: Record<string, unknown>; phase: string }> = {
  pulls: { route: '/repos/{owner}/{repo}/pulls', params: { state: 'all', sort: 'updated', direction: 'desc', per_page: 100 }, phase: 'pull requests' },
  issues: { route: '/repos/{owner}/{repo}/issues', params: { state: 'all', sort: 'updated', direction: 'desc', per_page: 100 }, phase: 'issues' },
  comments: { route: '/repos/{owner}/{repo}/pulls/comments', params: { sort: 'updated', direction: 'desc', per_page: 100 }, phase: 'review comments' },
}

/** A run's start is taken a minute early: clocks and replication lag. */
const SKEW_MS = 60_000

/** Why a run stops early; the checkpoint keeps what it fetched. */
class Stop extends Error {
  constructor(readonly notice: string) {
    super(notice)
  }
}

const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : NaN)

export async function enrich(options: EnrichOptions): Promise<EnrichResult> {
  const started = performance.now()
  const since = options.since === undefined ? null : parseSince(options.since).toISOString()
  const limit = options.limit ?? 0
  if (!Number.isInteger(limit) || limit < 0) throw new UserError(`--limit must be a whole number of requests ≥ 0, got ${limit}`, 'pass e.g. --limit 100, or 0 for no cap', 'bad_option')
  const env = options.env ?? process.env
  const repo = await resolveRepo(options.repo)
  const root = gitwhyDir(repo)
  // what the index references: needs an index (the usual errors when there is none)
  const reader = IndexReader.openRoot(repo)
  const result: EnrichResult = {
    repo,
    status: 'skipped',
    notice: null,
    forge: null,
    requests: { total: 0, not_modified: 0, rate_limit_waits: 0, single_items: 0 },
    fetched: { pull_requests: 0, issues: 0, review_comments: 0 },
    cache: null,
    index: null,
    timings: { fetch_ms: 0, index_ms: 0, total_ms: 0 },
  }
  const finish = () => {
    const state = readForgeState(root)
    result.cache = state ? { ...state.counts, enriched_at: state.enrichedAt, complete: LISTINGS.every((k) => state.listings[k].run === null) } : null
    result.timings.total_ms = Math.round(performance.now() - started)
    return result
  }
  let target: GitHubTarget | null
  try {
    const remote = await originRemote(repo)
    target = githubTarget(remote, readForgeConfig(root).apiUrl, env)
    if (!target) {
      result.notice = remote ? `enrich skipped: origin is on ${remote.forge} (${remote.web}); enrichment reads GitHub only` : 'enrich skipped: no GitHub `origin` remote to read pull requests and issues from'
      await reader.close()
      return finish()
    }
  } catch (error) {
    await reader.close()
    throw error
  }
  const token = await resolveToken(target.host, env)
  if (!token) {
    await reader.close()
    result.notice = `enrich skipped: no GitHub token (set GITHUB_TOKEN or GH_TOKEN, or log in with \`gh auth login\`)`
    return finish()
  }
  result.forge = { kind: 'github', repo: `${target.owner}/${target.name}`, api: target.api, token: token.source }

  const release = tryLock(path.join(root, 'enrich.lock'))
  if (!release) {
    await reader.close()
    throw new UserError(`another gitwhy enrich is running in ${repo}`, 'wait for it to finish (the index stays readable meanwhile)', 'locked')
  }
  let changed = 0
  try {
    let state = readForgeState(root)
    if (!state || state.api !== target.api || state.repo.toLowerCase() !== `${target.owner}/${target.name}`.toLowerCase()) {
      // another repository (or API) behind origin: its records are not this one's
      if (state) options.onWarning?.(`the forge cache was for ${state.repo} at ${state.api}: starting it afresh for ${target.owner}/${target.name}`)
      resetForgeCache(root)
      state = newForgeState(target.api, `${target.owner}/${target.name}`)
    }
    const cache = new ForgeCacheWriter(root, state)
    const client = await GitHubClient.create({
      target,
      token: token.token,
      userAgent: `gitwhy/${packageVersion()}`,
      retryBaseMs: options.retryBaseMs,
      onWarning: options.onWarning,
      ...waitReporter(options),
    })
    const run = new EnrichRun(reader, cache, client, { since, limit, onProgress: options.onProgress ?? (() => {}) })
    let stop: string | null = null
    try {
      await run.addUnindexed()
      await run.listings()
      await run.singleItems()
    } catch (error) {
      if (error instanceof Stop) stop = error.notice
      else if (error instanceof ForgeError) stop = forgeNotice(error, run.pagesDone > 0 || run.changedRecords > 0, target)
      else throw error
    } finally {
      const complete = LISTINGS.every((k) => cache.state.listings[k].run === null)
      cache.state.lastRun = { at: new Date().toISOString(), complete, requests: client.requests, not_modified: client.notModified }
      cache.checkpoint()
      if (complete) cache.compact()
      result.requests = { total: client.requests, not_modified: client.notModified, rate_limit_waits: client.waits, single_items: run.singleItemRequests }
      result.fetched = run.fetched
      changed = run.changedRecords
    }
    result.notice = stop
    const nothingAsked = stop !== null && run.pagesDone === 0 && run.singleItemRequests === 0 && changed === 0
    result.status = nothingAsked ? 'skipped' : stop ? 'partial' : changed > 0 ? 'enriched' : 'unchanged'
  } finally {
    release()
    await reader.close()
  }

  // into the index: an analyze applies the cache (a PR/issue delta when HEAD has not moved)
  result.timings.fetch_ms = Math.round(performance.now() - started)
  const meta = readMeta(repo)
  if ((meta?.forge?.fingerprint ?? NO_FORGE) !== forgeFingerprint(readForgeState(root))) {
    try {
      const t0 = performance.now()
      const summary = await analyze({ repo, onProgress: options.onProgress, onWarning: options.onWarning })
      result.timings.index_ms = Math.round(performance.now() - t0)
      result.index = { mode: summary.mode, head: summary.head }
    } catch (error) {
      if (!(isUserError(error) && error.code === 'locked')) throw error
      result.notice = `${result.notice ? `${result.notice}; ` : ''}the index is being updated by another analyze: run \`gitwhy analyze\` afterwards to take in what was fetched`
    }
  }
  return finish()
}

/** The progress line of a rate-limit wait: counts the seconds until the answer after it arrives. */
function waitReporter(options: EnrichOptions): { onWait: (seconds: number, why: string) => void; onResume: () => void } {
  let timer: NodeJS.Timeout | null = null
  let total = 0
  const progress = options.onProgress ?? (() => {})
  const end = () => {
    if (!timer) return
    clearInterval(timer)
    timer = null
    progress('rate limit wait', total, total)
  }
  return {
    onWait(seconds, why) {
      end()
      total = Math.max(1, Math.round(seconds))
      const until = new Date(Date.now() + total * 1000).toISOString().slice(11, 19)
      options.onNote?.(`gitwhy: GitHub ${why} reached: waiting ${total} s (until ${until} UTC) before asking again`)
      const t0 = Date.now()
      progress('rate limit wait', 0, total)
      timer = setInterval(() => progress('rate limit wait', Math.min(total - 1, Math.round((Date.now() - t0) / 1000)), total), 1000)
      timer.unref()
    },
    onResume: end,
  }
}

function forgeNotice(error: ForgeError, fetchedSome: boolean, target: GitHubTarget): string {
  const again = fetchedSome ? '; what was fetched is kept: run `gitwhy enrich` again to go on' : ''
  switch (error.kind) {
    case 'network':
      return `enrich ${fetchedSome ? 'stopped' : 'skipped'}: ${error.message} (offline?)${again}`
    case 'auth':
      return `enrich skipped: ${target.api} refused the token (401): check GITHUB_TOKEN / GH_TOKEN or \`gh auth status\``
    case 'not_found':
      return `enrich ${fetchedSome ? 'stopped' : 'skipped'}: ${target.owner}/${target.name} was not found at ${target.api} (404): a private repository needs a token that can read it${again}`
    default:
      return `enrich ${fetchedSome ? 'stopped' : 'skipped'}: ${error.message}${again}`
  }
}

/** One run over the listings and the single items, checkpointing after each page and item. */
class EnrichRun {
  pagesDone = 0
  singleItemRequests = 0
  changedRecords = 0
  readonly fetched = { pull_requests: 0, issues: 0, review_comments: 0 }
  private readonly known: { pullRequests: Set<number>; issues: Set<number> }
  private readonly shas: Set<string>

  constructor(
    private readonly reader: IndexReader,
    private readonly cache: ForgeCacheWriter,
    private readonly client: GitHubClient,
    private readonly o: { since: string | null; limit: number; onProgress: ProgressFn },
  ) {
    const catalog = reader.commits()
    this.known = catalog.known()
    this.shas = new Set(catalog.subjects().map((c) => c.sha))
  }

  /**
   * The commits since the indexed HEAD count too (the analyze that ends the run indexes them): their
   * SHAs, and the PRs and issues their messages name. Not when the history was rewritten.
   */
  async addUnindexed(): Promise<void> {
    const info = await this.reader.indexInfo()
    if (!info.stale || info.commits_behind === null || info.commits_behind === 0) return
    const out = await git(this.reader.repo, ['log', '--format=%H%x00%B%x1e', `${this.reader.meta.head}..HEAD`])
    for (const record of out.split('\x1e')) {
      const [sha, message] = record.replace(/^\n/, '').split('\0')
      if (!sha || message === undefined) continue
      this.shas.add(sha)
      const refs = parseMessageRefs(message)
      if (refs.pullRequest) this.known.pullRequests.add(refs.pullRequest.number)
      for (const i of refs.issues) this.known.issues.add(i.number)
    }
  }

  private budget(): void {
    if (this.o.limit > 0 && this.client.requests >= this.o.limit) throw new Stop(`enrich stopped after ${this.client.requests} requests (--limit ${this.o.limit}): run \`gitwhy enrich\` again to go on where it stopped`)
  }

  private add(records: ForgeRecord[]): void {
    for (const r of this.cache.add(records)) {
      this.changedRecords++
      if (r.k === 'pr' || r.k === 'prl') this.fetched.pull_requests++
      else if (r.k === 'issue') this.fetched.issues++
      else this.fetched.review_comments++
    }
  }

  /** A PR the index references: by a message (PR or #N), by its merge commit, or one the cache already keeps whole. */
  private relevantPull(n: number, mergeSha: string | null): boolean {
    return this.known.pullRequests.has(n) || this.known.issues.has(n) || (mergeSha !== null && this.shas.has(mergeSha)) || this.cache.items.pulls.get(n)?.k === 'pr'
  }

  /** The issues the descriptions of the PRs the index references close. */
  private closers(): Set<number> {
    const out = new Set<number>()
    for (const p of this.cache.items.pulls.values()) {
      if (p.k !== 'pr' || !(this.known.pullRequests.has(p.n) || (p.merge_sha !== null && this.shas.has(p.merge_sha)))) continue
      for (const n of closingReferences(p.body)) out.add(n)
    }
    return out
  }

  private isIndexedPath(p: string): boolean {
    return this.reader.file(p) !== undefined || this.reader.pathIndex().has(p)
  }

  private keep(kind: ListingKind, items: unknown[], closers: Set<number>): ForgeRecord[] {
    const out: ForgeRecord[] = []
    for (const raw of items) {
      if (!readable(raw, kind === 'comments' ? 'id' : 'number')) continue
      if (kind === 'pulls') {
        const p = normalizePull(raw as RawPull)
        if (this.relevantPull(p.n, p.merge_sha)) out.push(p)
        else if (p.merge_sha) out.push(lightPull(raw as RawPull))
      } else if (kind === 'issues') {
        const i = raw as RawIssue
        // its pull requests come from the pulls listing, with their merge commits
        if (i.pull_request) continue
        if (this.known.issues.has(i.number) || closers.has(i.number) || this.cache.items.issues.has(i.number)) out.push(normalizeIssue(i))
      } else {
        const c = normalizeComment(raw as RawReviewComment)
        if (c && this.cache.items.pulls.get(c.pr)?.k === 'pr' && this.isIndexedPath(c.path)) out.push(c)
      }
    }
    return out
  }

  /**
   * The three listings as one run: a new one starts them all; a run that stopped goes on with the
   * listings it had not finished (those it had are not asked again), unless --since asks for more
   * than it was going to read.
   */
  async listings(): Promise<void> {
    const L = this.cache.state.listings
    const since = this.o.since
    const goingOn = LISTINGS.some((k) => L[k].run !== null)
    const tooShort = since !== null && LISTINGS.some((k) => { const c = L[k].run?.cutoff; return c != null && time(c) > time(since) })
    if (!goingOn || tooShort) for (const k of LISTINGS) L[k].run = newRun(L[k], since)
    this.cache.checkpoint()
    for (const kind of LISTINGS) if (L[kind].run) await this.listing(kind, L[kind].run!)
  }

  private async listing(kind: ListingKind, run: ListingRun): Promise<void> {
    const L = this.cache.state.listings[kind]
    const { route, params, phase } = LISTING[kind]
    const closers = kind === 'issues' ? this.closers() : new Set<number>()
    this.o.onProgress(phase, 0, 0)
    for (;;) {
      this.budget()
      const key = `${kind}:${run.page}`
      const memo = this.cache.state.pages[key]
      const res = await this.client.get<unknown[]>(route, { ...params, page: run.page }, memo?.etag)
      const now = res.date ?? Date.now()
      run.startedAt ??= new Date(Math.min(now, Date.now()) - SKEW_MS).toISOString()
      let count: number
      let last: string | null
      let next: boolean
      if (res.status === 304 && memo) {
        ;({ count, last, next } = memo)
      } else {
        const items = Array.isArray(res.data) ? res.data : []
        this.add(this.keep(kind, items, closers))
        count = items.length
        last = (items.at(-1) as { updated_at?: string } | undefined)?.updated_at ?? null
        next = res.next
        if (res.etag) this.cache.state.pages[key] = { etag: res.etag, count, last, next, fetched: new Date(now).toISOString() }
      }
      if (res.lastPage) run.pages = res.lastPage
      this.pagesDone++
      this.o.onProgress(phase, run.page, Math.max(run.pages ?? run.page, run.page))
      const reachedCutoff = run.cutoff !== null && last !== null && time(last) < time(run.cutoff)
      // page 1 unchanged since a fetch after the cutoff: nothing was updated since (an update puts an item first)
      const unchanged = res.status === 304 && run.page === 1 && run.cutoff !== null && memo !== undefined && time(memo.fetched) >= time(run.cutoff)
      if (!next || count === 0 || reachedCutoff || unchanged) {
        completeRun(L, run)
        if (LISTINGS.every((k) => this.cache.state.listings[k].run === null)) this.cache.state.enrichedAt = new Date().toISOString()
        this.cache.checkpoint()
        this.o.onProgress(phase, run.page, run.page)
        return
      }
      run.page++
      this.cache.checkpoint()
    }
  }

  /**
   * One request per item the index references that no listing gave: only after every listing saw
   * everything (no --since), so that what is missing is what they cannot give. A 404 or 410 is
   * remembered and not asked again.
   */
  async singleItems(): Promise<void> {
    const state = this.cache.state
    if (this.o.since !== null || !LISTINGS.every((k) => state.listings[k].run === null && state.listings[k].covered?.from === null)) return
    const items = this.cache.items
    const wanted = new Map<number, 'pull' | 'issue'>()
    for (const n of [...this.known.pullRequests, ...this.known.issues, ...this.closers()]) {
      if (items.issues.has(n) || items.pulls.get(n)?.k === 'pr' || state.missing[String(n)]) continue
      wanted.set(n, items.pulls.has(n) ? 'pull' : 'issue')
    }
    // merged before this clone had the commit: a short record now names an indexed commit
    for (const p of items.pulls.values()) if (p.k === 'prl' && p.merge_sha && this.shas.has(p.merge_sha) && !state.missing[String(p.n)]) wanted.set(p.n, 'pull')
    if (wanted.size === 0) return
    const sorted = [...wanted].sort((a, b) => a[0] - b[0])
    this.o.onProgress('single items', 0, sorted.length)
    let done = 0
    for (const [n, how] of sorted) {
      this.budget()
      this.singleItemRequests++
      try {
        if (how === 'pull') {
          const res = await this.client.get<RawPull>('/repos/{owner}/{repo}/pulls/{pull_number}', { pull_number: n })
          if (readable(res.data)) this.add([{ ...normalizePull(res.data), n }])
        } else {
          const res = await this.client.get<RawIssue>('/repos/{owner}/{repo}/issues/{issue_number}', { issue_number: n })
          // a transferred issue answers from its new place: kept under the number the history uses
          if (readable(res.data)) this.add([{ ...normalizeIssue(res.data), n }])
        }
      } catch (error) {
        if (!(error instanceof ForgeError && error.kind === 'not_found')) throw error
        state.missing[String(n)] = new Date().toISOString()
      }
      this.cache.checkpoint()
      this.o.onProgress('single items', ++done, sorted.length)
    }
  }
}

/** A new run of a listing: back to where the last complete run started, when it saw everything before. */
function newRun(L: ListingState, since: string | null): ListingRun {
  const cutoff = since ?? (L.covered && L.covered.from === null ? L.covered.to : null)
  return { startedAt: null, cutoff, page: 1, pages: null }
}

/** The run reached its cutoff (or the end): what the listing has seen grows by it. */
function completeRun(L: ListingState, run: ListingRun): void {
  const to = run.startedAt ?? new Date(Date.now() - SKEW_MS).toISOString()
  const prev = L.covered
  let from: string | null
  if (run.cutoff === null) from = null
  else if (prev && time(run.cutoff) <= time(prev.to)) from = prev.from === null || time(prev.from) <= time(run.cutoff) ? prev.from : run.cutoff
  else from = run.cutoff
  L.covered = { from, to }
  L.run = null
}


/** What `gitwhy enrich` prints without --json: one line when it skipped, else what it did. */
export function enrichLines(r: EnrichResult): string[] {
  if (r.status === 'skipped') return [r.notice ?? 'enrich skipped']
  const out: string[] = []
  const n = (x: number, one: string, many = `${one}s`) => `${x.toLocaleString('en-US')} ${x === 1 ? one : many}`
  const f = r.fetched
  const what = r.status === 'unchanged' ? 'nothing new' : `${n(f.pull_requests, 'PR')} · ${n(f.issues, 'issue')} · ${n(f.review_comments, 'review comment')} new or changed`
  out.push(`enriched ${r.forge?.repo ?? r.repo} from ${r.forge?.api ?? 'GitHub'}: ${what} (${n(r.requests.total, 'request')}, ${r.requests.not_modified.toLocaleString('en-US')} not modified, ${n(r.requests.rate_limit_waits, 'rate-limit wait')}, ${(r.timings.fetch_ms / 1000).toFixed(1)} s)`)
  if (r.cache) {
    const c = r.cache
    out.push(`  cache: ${n(c.pull_requests, 'PR')} · ${n(c.issues, 'issue')} · ${n(c.review_comments, 'review comment')}${c.merged_only ? ` · ${n(c.merged_only, 'merge commit')} of PRs the index does not name` : ''}${c.complete ? '' : ' (a run is under way: `gitwhy enrich` goes on)'}`)
  }
  if (r.index) out.push(`  index: ${r.index.mode === 'noop' ? 'unchanged' : `updated (${r.index.mode}, ${(r.timings.index_ms / 1000).toFixed(1)} s)`} at ${r.index.head.slice(0, 7)}: evidence, why and search show the enriched titles and descriptions`)
  if (r.notice) out.push(`  note: ${r.notice}`)
  return out
}
