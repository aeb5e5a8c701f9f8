/**
 * Web links for pull requests and issues, derived from the `origin` remote's URL. analyze records
 * the remote's web address and forge in meta.json (every analyze, so a changed remote shows at
 * the next one); answers build the links from it when they are read.
 */

export type Forge = 'github' | 'gitlab' | 'bitbucket' | 'gitea'

export interface RemoteWeb {
  /** `https://host/owner/repo`, credentials and `.git` removed. */
  web: string
  forge: Forge
}

/** Hosts whose forge is known by name; any other host is recognised by a forge's name in it. */
const KNOWN_HOSTS: Record<string, Forge> = { 'github.com': 'github', 'gitlab.com': 'gitlab', 'bitbucket.org': 'bitbucket', 'codeberg.org': 'gitea', 'gitea.com': 'gitea' }
const HOST_HINTS: Array<[RegExp, Forge]> = [
  [/(^|[.-])github([.-]|$)/, 'github'],
  [/(^|[.-])gitlab([.-]|$)/, 'gitlab'],
  [/(^|[.-])bitbucket([.-]|$)/, 'bitbucket'],
  [/(^|[.-])(gitea|forgejo|codeberg)([.-]|$)/, 'gitea'],
]

/**
 * The web address of a remote URL: `git@host:owner/repo.git`, `ssh://[user@]host[:port]/owner/repo`,
 * `git://host/…`, `https://[user[:token]@]host[:port]/owner/repo.git`. Null for a local path, a
 * URL without an owner/repo path, or a host of no known forge (a link there would be a guess).
 */
export function remoteWeb(url: string): RemoteWeb | null {
  const raw = url.trim()
  let scheme = 'https'
  let host: string
  let repoPath: string
  const scp = /^(?:[^@/:]+@)?([^/:]+):(?!\/\/)(.+)$/.exec(raw)
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    let parsed: URL
    try {
      parsed = new URL(raw)
    } catch {
      return null
    }
    const protocol = parsed.protocol.replace(/:$/, '').toLowerCase()
    if (protocol === 'http' || protocol === 'https') {
      scheme = protocol
      host = parsed.host // keeps a web port; user and password are left out
    } else if (protocol === 'ssh' || protocol === 'git' || protocol === 'git+ssh' || protocol === 'ssh+git') {
      host = parsed.hostname // an ssh port is not the web server's
    } else return null
    repoPath = decodeURIComponent(parsed.pathname)
  } else if (scp && !/^[a-z]:$/i.test(`${scp[1]}:`) && !raw.startsWith('/') && !raw.startsWith('.')) {
    host = scp[1]
    repoPath = scp[2]
  } else return null
  host = host.toLowerCase()
  const hostname = host.replace(/:\d+$/, '')
  const forge = KNOWN_HOSTS[hostname] ?? HOST_HINTS.find(([re]) => re.test(hostname))?.[1]
  if (!forge) return null
  repoPath = repoPath.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '')
  // Bitbucket Server's ssh paths start with a user-less `scm/`
  if (forge === 'bitbucket') repoPath = repoPath.replace(/^scm\//, '')
  if (!/^[^/\s]+(\/[^/\s]+)+$/.test(repoPath)) return null
  return { web: `${scheme}://${host}/${repoPath}`, forge }
}

/** The link of pull request (merge request) `n`. */
export function pullRequestUrl(remote: RemoteWeb | null | undefined, n: number): string | null {
  if (!remote) return null
  switch (remote.forge) {
    case 'github':
      return `${remote.web}/pull/${n}`
    case 'gitlab':
      return `${remote.web}/-/merge_requests/${n}`
    case 'bitbucket':
      return `${remote.web}/pull-requests/${n}`
    case 'gitea':
      return `${remote.web}/pulls/${n}`
  }
}

/** The link of issue `n`. */
export function issueUrl(remote: RemoteWeb | null | undefined, n: number): string | null {
  if (!remote) return null
  return remote.forge === 'gitlab' ? `${remote.web}/-/issues/${n}` : `${remote.web}/issues/${n}`
}
