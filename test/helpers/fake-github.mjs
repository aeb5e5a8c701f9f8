// A fake GitHub REST API on 127.0.0.1 (node:http) for `gitwhy enrich`: the tests and bench/enrich.mjs.
// It answers the endpoints enrich uses with the shapes GitHub's API gives (field names and nesting as
// in api.github.com's pulls, issues and review comments JSON), paginates with a `Link` header (next,
// last), sends a weak ETag with every answer and 304 to a matching If-None-Match, checks the token,
// and sends the rate-limit headers. Faults are queued per request: a 403 with
// x-ratelimit-remaining 0 and a reset time, a 404, a 502, a closed socket. Every request is logged.
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'

const API_VERSION = '2022-11-28'

function user(login, id) {
  return {
    login,
    id,
    node_id: `MDQ6VXNlcj${id}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url: `https://api.github.com/users/${login}`,
    html_url: `https://github.com/${login}`,
    followers_url: `https://api.github.com/users/${login}/followers`,
    following_url: `https://api.github.com/users/${login}/following{/other_user}`,
    gists_url: `https://api.github.com/users/${login}/gists{/gist_id}`,
    starred_url: `https://api.github.com/users/${login}/starred{/owner}{/repo}`,
    subscriptions_url: `https://api.github.com/users/${login}/subscriptions`,
    organizations_url: `https://api.github.com/users/${login}/orgs`,
    repos_url: `https://api.github.com/users/${login}/repos`,
    events_url: `https://api.github.com/users/${login}/events{/privacy}`,
    received_events_url: `https://api.github.com/users/${login}/received_events`,
    type: 'User',
    user_view_type: 'public',
    site_admin: false,
  }
}

function label(name, id) {
  return { id, node_id: `LA_kwDO${id}`, url: `https://api.github.com/repos/o/r/labels/${encodeURIComponent(name)}`, name, color: 'd73a4a', default: false, description: null }
}

const reactions = (url) => ({ url: `${url}/reactions`, total_count: 0, '+1': 0, '-1': 0, laugh: 0, hooray: 0, confused: 0, heart: 0, rocket: 0, eyes: 0 })

/**
 * A pull request as `GET /repos/{owner}/{repo}/pulls` lists it.
 * @param {{owner: string, repo: string, number: number, title: string, body?: string|null, state?: 'open'|'closed', merged_at?: string|null,
 *   merge_commit_sha?: string|null, created_at: string, updated_at: string, login?: string, labels?: string[]}} p
 */
export function pullJson(p) {
  const base = `https://api.github.com/repos/${p.owner}/${p.repo}`
  const html = `https://github.com/${p.owner}/${p.repo}`
  const repoJson = { id: 1296269, node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5', name: p.repo, full_name: `${p.owner}/${p.repo}`, private: false, owner: user(p.owner, 583231), html_url: html, description: null, fork: false, url: base, default_branch: 'main' }
  const closed = p.state === 'closed' || !!p.merged_at
  return {
    url: `${base}/pulls/${p.number}`,
    id: 1000000 + p.number,
    node_id: `PR_kwDOAAABc${p.number}`,
    html_url: `${html}/pull/${p.number}`,
    diff_url: `${html}/pull/${p.number}.diff`,
    patch_url: `${html}/pull/${p.number}.patch`,
    issue_url: `${base}/issues/${p.number}`,
    number: p.number,
    state: closed ? 'closed' : 'open',
    locked: false,
    title: p.title,
    user: user(p.login ?? 'octocat', 1),
    body: p.body ?? null,
    created_at: p.created_at,
    updated_at: p.updated_at,
    closed_at: closed ? (p.merged_at ?? p.updated_at) : null,
    merged_at: p.merged_at ?? null,
    merge_commit_sha: p.merge_commit_sha ?? null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    labels: (p.labels ?? []).map((name, i) => label(name, 208045946 + i)),
    milestone: null,
    draft: false,
    commits_url: `${base}/pulls/${p.number}/commits`,
    review_comments_url: `${base}/pulls/${p.number}/comments`,
    review_comment_url: `${base}/pulls/comments{/number}`,
    comments_url: `${base}/issues/${p.number}/comments`,
    statuses_url: `${base}/statuses/${'6dcb09b5b57875f334f61aebed695e2e4193db5e'}`,
    head: { label: `${p.owner}:topic-${p.number}`, ref: `topic-${p.number}`, sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e', user: user(p.owner, 583231), repo: repoJson },
    base: { label: `${p.owner}:main`, ref: 'main', sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e', user: user(p.owner, 583231), repo: repoJson },
    _links: {
      self: { href: `${base}/pulls/${p.number}` },
      html: { href: `${html}/pull/${p.number}` },
      issue: { href: `${base}/issues/${p.number}` },
      comments: { href: `${base}/issues/${p.number}/comments` },
      review_comments: { href: `${base}/pulls/${p.number}/comments` },
      review_comment: { href: `${base}/pulls/comments{/number}` },
      commits: { href: `${base}/pulls/${p.number}/commits` },
      statuses: { href: `${base}/statuses/6dcb09b5b57875f334f61aebed695e2e4193db5e` },
    },
    author_association: 'CONTRIBUTOR',
    auto_merge: null,
    active_lock_reason: null,
  }
}

/** `GET /repos/{owner}/{repo}/pulls/{n}`: the list shape and the single pull's extra fields. */
function singlePullJson(p) {
  const pull = pullJson(p)
  return { ...pull, merged: !!p.merged_at, mergeable: null, rebaseable: null, mergeable_state: 'unknown', merged_by: p.merged_at ? user('octocat', 1) : null, comments: 0, review_comments: 0, maintainer_can_modify: false, commits: 1, additions: 3, deletions: 1, changed_files: 1 }
}

/**
 * An issue as `GET /repos/{owner}/{repo}/issues` lists it (a pull request too: it has `pull_request`).
 * @param {{owner: string, repo: string, number: number, title: string, body?: string|null, state?: 'open'|'closed', created_at: string,
 *   updated_at: string, login?: string, labels?: string[], pull_request?: {merged_at: string|null}}} i
 */
export function issueJson(i) {
  const base = `https://api.github.com/repos/${i.owner}/${i.repo}`
  const html = `https://github.com/${i.owner}/${i.repo}`
  const closed = i.state === 'closed'
  return {
    url: `${base}/issues/${i.number}`,
    repository_url: base,
    labels_url: `${base}/issues/${i.number}/labels{/name}`,
    comments_url: `${base}/issues/${i.number}/comments`,
    events_url: `${base}/issues/${i.number}/events`,
    html_url: `${html}/${i.pull_request ? 'pull' : 'issues'}/${i.number}`,
    id: 2000000 + i.number,
    node_id: `I_kwDOAAABc${i.number}`,
    number: i.number,
    title: i.title,
    user: user(i.login ?? 'octocat', 1),
    labels: (i.labels ?? []).map((name, k) => label(name, 308045946 + k)),
    state: closed ? 'closed' : 'open',
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: 0,
    created_at: i.created_at,
    updated_at: i.updated_at,
    closed_at: closed ? i.updated_at : null,
    author_association: 'CONTRIBUTOR',
    type: null,
    active_lock_reason: null,
    sub_issues_summary: { total: 0, completed: 0, percent_completed: 0 },
    ...(i.pull_request
      ? { draft: false, pull_request: { url: `${base}/pulls/${i.number}`, html_url: `${html}/pull/${i.number}`, diff_url: `${html}/pull/${i.number}.diff`, patch_url: `${html}/pull/${i.number}.patch`, merged_at: i.pull_request.merged_at } }
      : {}),
    body: i.body ?? null,
    closed_by: closed ? user('octocat', 1) : null,
    reactions: reactions(`${base}/issues/${i.number}`),
    timeline_url: `${base}/issues/${i.number}/timeline`,
    performed_via_github_app: null,
    state_reason: closed ? 'completed' : null,
  }
}

/**
 * A review comment as `GET /repos/{owner}/{repo}/pulls/comments` lists it.
 * @param {{owner: string, repo: string, id: number, pr: number, path: string, line?: number|null, body: string, created_at: string, updated_at: string, login?: string}} c
 */
export function reviewCommentJson(c) {
  const base = `https://api.github.com/repos/${c.owner}/${c.repo}`
  const html = `https://github.com/${c.owner}/${c.repo}`
  return {
    url: `${base}/pulls/comments/${c.id}`,
    pull_request_review_id: 42 + c.id,
    id: c.id,
    node_id: `PRRC_kwDOAAABc${c.id}`,
    diff_hunk: '@@ -16,33 +16,40 @@ public class Connection : IConnection...',
    path: c.path,
    commit_id: '6dcb09b5b57875f334f61aebed695e2e4193db5e',
    original_commit_id: '9c48853fa3dc5c1c3d6f1f1cd1f2743e72652840',
    user: user(c.login ?? 'reviewer', 2),
    body: c.body,
    created_at: c.created_at,
    updated_at: c.updated_at,
    html_url: `${html}/pull/${c.pr}#discussion_r${c.id}`,
    pull_request_url: `${base}/pulls/${c.pr}`,
    author_association: 'MEMBER',
    _links: { self: { href: `${base}/pulls/comments/${c.id}` }, html: { href: `${html}/pull/${c.pr}#discussion_r${c.id}` }, pull_request: { href: `${base}/pulls/${c.pr}` } },
    reactions: reactions(`${base}/pulls/comments/${c.id}`),
    start_line: null,
    original_start_line: null,
    start_side: null,
    line: c.line ?? null,
    original_line: c.line ?? null,
    side: 'RIGHT',
    original_position: 4,
    position: 4,
    subject_type: 'line',
  }
}

const byUpdated = (a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : (b.number ?? b.id) - (a.number ?? a.id))

/**
 * Start the server.
 * @param {{owner: string, repo: string, token?: string, pulls?: object[], issues?: object[], comments?: object[], gone?: number[]}} data
 *   pulls: pullJson items; issues: issueJson items of real issues (the PRs are added to the issues listing by the server, as GitHub does);
 *   comments: reviewCommentJson items; gone: numbers answered 410 (deleted issues).
 */
export async function startFakeGitHub(data) {
  const token = data.token ?? 'test-token'
  /** @type {Array<{method: string, path: string, query: Record<string, string>, status: number, etag: boolean, at: number}>} */
  const requests = []
  /** @type {Array<{match: (r: {path: string, query: Record<string,string>}) => boolean, respond: string, reset?: number}>} */
  const faults = []
  const state = { pulls: data.pulls ?? [], issues: data.issues ?? [], comments: data.comments ?? [], gone: new Set(data.gone ?? []), remaining: 5000 }
  const prefix = `/repos/${data.owner}/${data.repo}`

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const query = Object.fromEntries(url.searchParams)
    const entry = { method: req.method ?? 'GET', path: url.pathname, query, status: 0, etag: !!req.headers['if-none-match'], at: Date.now() }
    requests.push(entry)
    const reset = Math.floor(Date.now() / 1000) + 3600
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'x-github-api-version-selected': API_VERSION,
      'x-github-media-type': 'github.v3; format=json',
      'x-github-request-id': `CAFE:${requests.length.toString(16)}:1A2B3C:4D5E6F:67890ABC`,
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(state.remaining),
      'x-ratelimit-reset': String(reset),
      'x-ratelimit-used': String(5000 - state.remaining),
      'x-ratelimit-resource': 'core',
      'access-control-expose-headers': 'ETag, Link, Location, Retry-After, X-GitHub-OTP, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset',
    }
    const send = (status, body, extra = {}) => {
      entry.status = status
      res.writeHead(status, { ...headers, ...extra })
      res.end(body === undefined ? '' : JSON.stringify(body))
    }
    const auth = req.headers.authorization ?? ''
    if (auth !== `token ${token}` && auth !== `Bearer ${token}`) return send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' })
    const fault = faults.findIndex((f) => f.match({ path: url.pathname, query }))
    if (fault >= 0) {
      const [f] = faults.splice(fault, 1)
      if (f.respond === 'rate-limit') {
        return send(403, { message: `API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID.`, documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api', status: '403' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-used': '5000', 'x-ratelimit-reset': String(f.reset ?? Math.floor(Date.now() / 1000) + 1) })
      }
      if (f.respond === '502') return send(502, { message: 'Server Error' })
      if (f.respond === '404') return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' })
      if (f.respond === 'hang-up') {
        entry.status = -1
        return req.socket.destroy()
      }
    }
    if (state.remaining > 0) state.remaining--
    const answer = (body, link) => {
      const etag = `W/"${createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 40)}"`
      if (req.headers['if-none-match'] === etag) {
        // a conditional request that matches costs no rate limit
        state.remaining++
        entry.status = 304
        res.writeHead(304, { ...headers, 'x-ratelimit-remaining': String(state.remaining), etag, ...(link ? { link } : {}) })
        return res.end()
      }
      return send(200, body, { etag, ...(link ? { link } : {}) })
    }
    const page = (items) => {
      const perPage = Math.min(100, Math.max(1, Number(query.per_page ?? 30)))
      const n = Math.max(1, Number(query.page ?? 1))
      const pages = Math.max(1, Math.ceil(items.length / perPage))
      const at = (p) => {
        const u = new URL(`http://${req.headers.host}${url.pathname}`)
        for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v)
        u.searchParams.set('page', String(p))
        return `<${u}>`
      }
      const rels = []
      if (n > 1) rels.push(`${at(n - 1)}; rel="prev"`, `${at(1)}; rel="first"`)
      if (n < pages) rels.push(`${at(n + 1)}; rel="next"`, `${at(pages)}; rel="last"`)
      return answer(items.slice((n - 1) * perPage, n * perPage), rels.join(', ') || undefined)
    }
    if (req.method !== 'GET' || !url.pathname.startsWith(prefix)) return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' })
    const rest = url.pathname.slice(prefix.length)
    if (rest === '/pulls') return page([...state.pulls].sort(byUpdated))
    if (rest === '/pulls/comments') return page([...state.comments].sort(byUpdated))
    if (rest === '/issues') {
      const asIssues = state.pulls.map((p) => issueJson({ owner: data.owner, repo: data.repo, number: p.number, title: p.title, body: p.body, state: p.state, created_at: p.created_at, updated_at: p.updated_at, login: p.user.login, labels: p.labels.map((l) => l.name), pull_request: { merged_at: p.merged_at } }))
      return page([...state.issues, ...asIssues].sort(byUpdated))
    }
    let m = /^\/pulls\/(\d+)$/.exec(rest)
    if (m) {
      const p = state.pulls.find((x) => x.number === Number(m[1]))
      if (!p) return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/pulls/pulls#get-a-pull-request', status: '404' })
      return answer(singlePullJson({ owner: data.owner, repo: data.repo, number: p.number, title: p.title, body: p.body, state: p.state, merged_at: p.merged_at, merge_commit_sha: p.merge_commit_sha, created_at: p.created_at, updated_at: p.updated_at, login: p.user.login, labels: p.labels.map((l) => l.name) }))
    }
    m = /^\/issues\/(\d+)$/.exec(rest)
    if (m) {
      const n = Number(m[1])
      if (state.gone.has(n)) return send(410, { message: 'This issue was deleted', documentation_url: 'https://docs.github.com/rest/issues/issues#get-an-issue', status: '410' })
      const i = state.issues.find((x) => x.number === n)
      if (i) return answer(i)
      const p = state.pulls.find((x) => x.number === n)
      if (p) return answer(issueJson({ owner: data.owner, repo: data.repo, number: p.number, title: p.title, body: p.body, state: p.state, created_at: p.created_at, updated_at: p.updated_at, login: p.user.login, labels: p.labels.map((l) => l.name), pull_request: { merged_at: p.merged_at } }))
      return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/issues/issues#get-an-issue', status: '404' })
    }
    return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  return {
    url,
    token,
    requests,
    faults,
    state,
    /** Requests since `from` (an index into `requests`). */
    since(from) {
      return requests.slice(from)
    },
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  }
}
