/**
 * GitHub's REST API for `gitwhy enrich`: where it is (origin remote, GITWHY_GITHUB_API_URL,
 * `.gitwhy/config.json` forge.apiUrl), the token (GITHUB_TOKEN, GH_TOKEN, `gh auth token`), a
 * client (@octokit/rest with the throttling and retry plugins, loaded only here, on first use),
 * and the records the cache keeps, normalised from the API's JSON and scrubbed of secrets.
 */
import { execFile } from 'node:child_process'
import { accessSync, constants, existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import type { RemoteWeb } from '../history/remote.js'
import { scrubSecrets } from '../text/scrub.js'
import type { ForgeIssue, ForgePull, ForgePullLight, ForgeReviewComment } from './cache.js'

/** Where the repository's issues and pull requests are. */
export interface GitHubTarget {
  api: string
  owner: string
  name: string
  /** The web address of the repository (`https://host/owner/name`). */
  web: string
  host: string
}

/** The forge settings of `.gitwhy/config.json`: `{"forge": {"apiUrl": "https://ghe.example.com/api/v3"}}`. */
export function readForgeConfig(gitwhyDir: string): { apiUrl: string | null } {
  const file = path.join(gitwhyDir, 'config.json')
  if (!existsSync(file)) return { apiUrl: null }
  let parsed: { forge?: { apiUrl?: unknown } }
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as typeof parsed
  } catch (error) {
    throw new UserError(`${file} is not valid JSON (${(error as Error).message})`, 'fix or delete the file', 'bad_config')
  }
  const apiUrl = parsed.forge?.apiUrl
  if (apiUrl !== undefined && (typeof apiUrl !== 'string' || !/^https?:\/\/\S+$/.test(apiUrl))) {
    throw new UserError(`${file}: forge.apiUrl must be an http(s) URL, got ${JSON.stringify(apiUrl)}`, 'e.g. "https://github.example.com/api/v3"', 'bad_config')
  }
  return { apiUrl: apiUrl ?? null }
}

/**
 * The API of a GitHub remote: GITWHY_GITHUB_API_URL, else the config's forge.apiUrl, else
 * api.github.com for github.com and `https://HOST/api/v3` for a GitHub Enterprise host. Null when
 * the remote is not on GitHub (or has no owner/name path).
 */
export function githubTarget(remote: RemoteWeb | null, configApi: string | null, env: NodeJS.ProcessEnv = process.env): GitHubTarget | null {
  if (!remote || remote.forge !== 'github') return null
  const url = new URL(remote.web)
  const parts = url.pathname.replace(/^\/+|\/+$/g, '').split('/')
  if (parts.length !== 2) return null
  const host = url.host.toLowerCase()
  const override = env.GITWHY_GITHUB_API_URL?.trim() || configApi
  const api = (override || (host === 'github.com' ? 'https://api.github.com' : `${url.protocol}//${host}/api/v3`)).replace(/\/+$/, '')
  return { api, owner: parts[0], name: parts[1], web: remote.web, host }
}

/** Whether an executable of that name is on PATH. */
function onPath(command: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue
    for (const name of process.platform === 'win32' ? [`${command}.exe`, `${command}.cmd`] : [command]) {
      try {
        accessSync(path.join(dir, name), constants.X_OK)
        return true
      } catch {
        // not here
      }
    }
  }
  return false
}

export type TokenSource = 'GITHUB_TOKEN' | 'GH_TOKEN' | 'gh auth token'

/**
 * The token to ask with: GITHUB_TOKEN, then GH_TOKEN, then `gh auth token` (only when `gh` is on
 * PATH; 3 s at most). Null when none. The token itself is never printed or stored.
 */
export async function resolveToken(host = 'github.com', env: NodeJS.ProcessEnv = process.env): Promise<{ token: string; source: TokenSource } | null> {
  for (const name of ['GITHUB_TOKEN', 'GH_TOKEN'] as const) {
    const value = env[name]?.trim()
    if (value) return { token: value, source: name }
  }
  if (!onPath('gh', env)) return null
  const args = ['auth', 'token', ...(host === 'github.com' ? [] : ['--hostname', host])]
  const token = await new Promise<string>((resolve) => {
    execFile('gh', args, { timeout: 3000, env: { ...env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1' }, windowsHide: true }, (error, stdout) => resolve(error ? '' : String(stdout).trim()))
  })
  return token && !/\s/.test(token) ? { token, source: 'gh auth token' } : null
}

/** A failure that ends a run (the checkpoint keeps what was fetched). */
export class ForgeError extends Error {
  override name = 'ForgeError'
  constructor(
    message: string,
    /** network: no answer; auth: 401; not_found: 404/410; http: any other status. */
    readonly kind: 'network' | 'auth' | 'not_found' | 'http',
    readonly status: number | null,
  ) {
    super(message)
  }
}

/** One answer: 200 with its items, or 304 (the ETag still holds: nothing changed, and no rate limit spent). */
export interface ApiPage<T> {
  status: 200 | 304
  data: T
  etag: string | null
  next: boolean
  /** The last page's number (Link rel="last"), when given. */
  lastPage: number | null
  /** The server's clock (Date header), epoch ms. */
  date: number | null
}

export interface ClientOptions {
  target: GitHubTarget
  token: string
  userAgent: string
  /** A limit hit: the plugin waits `seconds` before asking again. */
  onWait?: (seconds: number, why: 'rate limit' | 'secondary rate limit') => void
  /** The answer after a wait arrived. */
  onResume?: () => void
  onWarning?: (message: string) => void
  /** Milliseconds per unit of the retry plugin's back-off after a 5xx (1, 4, 9 units); default 1000. */
  retryBaseMs?: number
  /** Each request's deadline (default 30 s). */
  timeoutMs?: number
}

/** Synthetic status of a request that got no answer (network down, timeout): never retried, ends the run. */
const NO_ANSWER = 599
/** Retries of one request after a rate limit. */
const LIMIT_RETRIES = 3

type Octo = {
  request: (route: string, params: Record<string, unknown>) => Promise<{ status: number; data: unknown; headers: Record<string, string | undefined> }>
}

/** A GitHub REST client that counts its requests and keeps every answer's ETag. */
export class GitHubClient {
  /** HTTP requests sent (retries included). */
  requests = 0
  notModified = 0
  waits = 0
  private waiting = false

  private constructor(
    private readonly octokit: Octo,
    readonly target: GitHubTarget,
  ) {}

  static async create(o: ClientOptions): Promise<GitHubClient> {
    // loaded here only: no other command pays for octokit
    const [{ Octokit }, { throttling }, { retry }] = await Promise.all([import('@octokit/rest'), import('@octokit/plugin-throttling'), import('@octokit/plugin-retry')])
    let client: GitHubClient | null = null
    const timeoutMs = o.timeoutMs ?? 30_000
    const fetcher = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
      if (client) {
        client.requests++
        if (client.waiting) {
          client.waiting = false
          o.onResume?.()
        }
      }
      let response: Response
      try {
        response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause
        const why = (error as Error).name === 'TimeoutError' ? `no answer within ${Math.round(timeoutMs / 1000)} s` : (cause?.code ?? cause?.message ?? (error as Error).message)
        return new Response(JSON.stringify({ message: `network: ${why}` }), { status: NO_ANSWER, headers: { 'content-type': 'application/json' } })
      }
      if (response.status === 304 && client) client.notModified++
      return response
    }
    const MyOctokit = Octokit.plugin(throttling, retry)
    const limit = (why: 'rate limit' | 'secondary rate limit') => (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number) => {
      if (retryCount >= LIMIT_RETRIES) return false
      if (client) {
        client.waits++
        client.waiting = true
      }
      o.onWait?.(retryAfter, why)
      return true
    }
    const warn = (message: string) => o.onWarning?.(message)
    const octokit = new MyOctokit({
      auth: o.token,
      baseUrl: o.target.api,
      userAgent: o.userAgent,
      request: { fetch: fetcher },
      log: { debug: () => {}, info: () => {}, warn, error: () => {} },
      throttle: { onRateLimit: limit('rate limit'), onSecondaryRateLimit: limit('secondary rate limit') },
      retry: { doNotRetry: [304, 400, 401, 403, 404, 410, 422, 451, NO_ANSWER], ...(o.retryBaseMs !== undefined ? { retryAfterBaseValue: o.retryBaseMs } : {}) },
    })
    client = new GitHubClient(octokit as unknown as Octo, o.target)
    return client
  }

  /** GET a route (`/repos/{owner}/{repo}/pulls`) with its parameters, conditional on `etag` when given. */
  async get<T>(route: string, params: Record<string, unknown>, etag?: string | null): Promise<ApiPage<T>> {
    try {
      const res = await this.octokit.request(`GET ${route}`, { owner: this.target.owner, repo: this.target.name, ...params, ...(etag ? { headers: { 'if-none-match': etag } } : {}) })
      return { status: 200, data: res.data as T, etag: res.headers.etag ?? null, ...links(res.headers.link), date: serverDate(res.headers.date) }
    } catch (error) {
      const e = error as { status?: number; message?: string; response?: { headers?: Record<string, string | undefined>; data?: { message?: string } } }
      if (e.status === 304) return { status: 304, data: undefined as T, etag: etag ?? null, next: false, lastPage: null, date: serverDate(e.response?.headers?.date) }
      const message = e.response?.data?.message ?? e.message ?? String(error)
      if (e.status === NO_ANSWER) throw new ForgeError(`${this.target.api} did not answer (${message.replace(/^network: /, '')})`, 'network', null)
      if (e.status === 401) throw new ForgeError(`${this.target.api} refused the token (401 ${message})`, 'auth', 401)
      if (e.status === 404 || e.status === 410) throw new ForgeError(`${route} answered ${e.status}`, 'not_found', e.status)
      if (typeof e.status === 'number') throw new ForgeError(`${this.target.api} answered ${e.status} (${message})`, 'http', e.status)
      throw error
    }
  }
}

function serverDate(header: string | undefined): number | null {
  const t = header ? Date.parse(header) : NaN
  return Number.isFinite(t) ? t : null
}

/** rel="next" and rel="last" of a Link header. */
export function links(header: string | undefined): { next: boolean; lastPage: number | null } {
  let next = false
  let lastPage: number | null = null
  for (const part of (header ?? '').split(',')) {
    const m = /<([^>]*)>\s*;\s*rel="([^"]+)"/.exec(part)
    if (!m) continue
    if (m[2] === 'next') next = true
    if (m[2] === 'last') {
      const page = /[?&]page=(\d+)/.exec(m[1])
      if (page) lastPage = Number(page[1])
    }
  }
  return { next, lastPage }
}

// The API's JSON, as much of it as normalising reads.
interface RawUser {
  login?: string | null
}
interface RawLabel {
  name?: string | null
}
export interface RawPull {
  number: number
  title?: string | null
  body?: string | null
  state?: string
  user?: RawUser | null
  labels?: Array<RawLabel | string>
  merged_at?: string | null
  merge_commit_sha?: string | null
  updated_at?: string
}
export interface RawIssue {
  number: number
  title?: string | null
  body?: string | null
  state?: string
  user?: RawUser | null
  labels?: Array<RawLabel | string>
  updated_at?: string
  pull_request?: { merged_at?: string | null } | null
}
export interface RawReviewComment {
  id: number
  path?: string
  line?: number | null
  original_line?: number | null
  body?: string | null
  user?: RawUser | null
  pull_request_url?: string
  created_at?: string
  updated_at?: string
}

/** A description as the index keeps it: HTML comments (templates' hints) out, scrubbed, at most 8,000 characters. */
const MAX_BODY = 8000
export function cleanBody(body: unknown): string {
  const text = str(body).replace(/\r\n?/g, '\n').replace(/<!--[\s\S]*?(?:-->|$)/g, '').replace(/\n{3,}/g, '\n\n').trim()
  return scrubSecrets(text.length > MAX_BODY ? `${text.slice(0, MAX_BODY - 1)}…` : text)
}

// the API's JSON is read defensively: a field of another type is taken as absent
const str = (v: unknown): string => (typeof v === 'string' ? v : '')
/** One line of text (a title, a label, a login), scrubbed, at most `max` characters. */
const clean = (s: unknown, max = 1000) => {
  const line = str(s).replace(/[\r\n]+/g, ' ').trim()
  return scrubSecrets(line.length > max ? `${line.slice(0, max - 1)}…` : line)
}
const labelsOf = (labels: unknown) => (Array.isArray(labels) ? labels : []).slice(0, 50).map((l: unknown) => clean(typeof l === 'string' ? l : (l as RawLabel | null)?.name, 100)).filter(Boolean)
const when = (v: unknown): string | null => (typeof v === 'string' && Number.isFinite(Date.parse(v)) ? v : null)
const SHA = /^[0-9a-f]{40}$/
const mergeSha = (p: RawPull) => (when(p.merged_at) && typeof p.merge_commit_sha === 'string' && SHA.test(p.merge_commit_sha) ? p.merge_commit_sha : null)

/** An item of a listing that can be read at all: an object with a whole positive number (an id for comments). */
export function readable(item: unknown, key: 'number' | 'id' = 'number'): boolean {
  const v = (item as Record<string, unknown> | null)?.[key]
  return typeof item === 'object' && item !== null && typeof v === 'number' && Number.isSafeInteger(v) && v > 0
}

export function normalizePull(p: RawPull): ForgePull {
  const merged = when(p.merged_at)
  return {
    k: 'pr',
    n: p.number,
    title: clean(p.title),
    body: cleanBody(p.body),
    labels: labelsOf(p.labels),
    state: merged ? 'merged' : p.state === 'open' ? 'open' : 'closed',
    author: clean(p.user?.login, 100),
    merged_at: merged,
    merge_sha: mergeSha(p),
    updated_at: str(p.updated_at),
  }
}

export function lightPull(p: RawPull): ForgePullLight {
  return { k: 'prl', n: p.number, merged_at: when(p.merged_at), merge_sha: mergeSha(p), updated_at: str(p.updated_at) }
}

/** An issue; one the issues API answers for a pull request becomes a PR record (without its merge commit). */
export function normalizeIssue(i: RawIssue): ForgeIssue | ForgePull {
  const base = { n: i.number, title: clean(i.title), body: cleanBody(i.body), labels: labelsOf(i.labels), author: clean(i.user?.login, 100), updated_at: str(i.updated_at) }
  if (i.pull_request) {
    const merged = when(i.pull_request.merged_at)
    return { k: 'pr', ...base, state: merged ? 'merged' : i.state === 'open' ? 'open' : 'closed', merged_at: merged, merge_sha: null }
  }
  return { k: 'issue', ...base, state: i.state === 'open' ? 'open' : 'closed' }
}

const MAX_COMMENT = 1000
export function normalizeComment(c: RawReviewComment): ForgeReviewComment | null {
  const pr = Number(/\/pulls\/(\d+)$/.exec(str(c.pull_request_url))?.[1])
  if (!readable(c, 'id') || !Number.isSafeInteger(pr) || pr < 1 || !str(c.path)) return null
  const body = cleanBody(c.body)
  const line = [c.line, c.original_line].find((v) => typeof v === 'number' && Number.isSafeInteger(v)) ?? null
  return {
    k: 'rc',
    id: c.id,
    pr,
    path: str(c.path).slice(0, 1000),
    line,
    author: clean(c.user?.login, 100),
    body: body.length > MAX_COMMENT ? `${body.slice(0, MAX_COMMENT - 1)}…` : body,
    created_at: str(c.created_at),
    updated_at: str(c.updated_at),
  }
}
