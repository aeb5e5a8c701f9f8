import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { isBot } from './categorize.js'

/**
 * One person, one author. git's `.mailmap` is applied first (commits are read with %aN/%aE);
 * beyond it, author signatures (name + email) are grouped into identities when they share
 *  - an email (case-insensitive),
 *  - a normalised name (Unicode-decomposed, accents dropped, lower case, whitespace collapsed),
 *    unless the name is a placeholder ("root", "unknown", "Your Name", …),
 *  - a GitHub login: `123+login@users.noreply.github.com` and `login@users.noreply.github.com`
 *    are the same login, which also joins the signatures whose name is that login,
 *  - an explicit `identities.merge` list in `.gitwhy/config.json`.
 * Emails listed in `identities.split` join others only by exact email or an explicit merge.
 * A bot never joins a person by name or login. The identity's canonical email is its most
 * recently used email that is not a noreply address (ties: more commits, then the smaller
 * email), its name the newest name used with that email.
 */
export interface IdentityConfig {
  merge: string[][]
  split: string[]
}

export const DEFAULT_IDENTITY_CONFIG: IdentityConfig = { merge: [], split: [] }

export interface Identity {
  email: string
  name: string
  /** Every email of the identity, sorted. */
  emails: string[]
}

/** Raw author email → identity. An email not in the map keeps its own signature. */
export type IdentityMap = Map<string, Identity>

export interface AuthorSignature {
  authorName: string
  authorEmail: string
  /** An ISO date: only the order matters. */
  authorDate: string
  /** How many commits this signature stands for (a summary's entry; default 1). */
  count?: number
}

/** One entry per (email, name) with its newest date and count: what an update needs to regroup. */
export function summariseSignatures(commits: readonly AuthorSignature[]): AuthorSignature[] {
  const by = new Map<string, AuthorSignature & { count: number }>()
  for (const c of commits) {
    const key = `${c.authorEmail}\0${c.authorName}`
    const have = by.get(key)
    if (!have) by.set(key, { authorName: c.authorName, authorEmail: c.authorEmail, authorDate: c.authorDate, count: c.count ?? 1 })
    else {
      have.count += c.count ?? 1
      if (Date.parse(c.authorDate) > Date.parse(have.authorDate)) have.authorDate = c.authorDate
    }
  }
  return [...by.values()].sort((a, b) => (a.authorEmail < b.authorEmail ? -1 : a.authorEmail > b.authorEmail ? 1 : a.authorName < b.authorName ? -1 : 1))
}

const PLACEHOLDER_NAMES = new Set(['', 'root', 'unknown', 'none', 'nobody', 'anonymous', 'user', 'admin', 'administrator', 'your name', 'you', 'name', 'github', 'ubuntu', 'localhost', 'git', 'developer', 'dev', 'test'])
const NOREPLY = /^(?:\d+\+)?([^@]+)@users\.noreply\.github\.com$/i

export function normaliseName(name: string): string {
  return name.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/\s+/g, ' ').trim()
}

/** The GitHub login of a noreply address, lower case, or null. */
export function githubLogin(email: string): string | null {
  const m = NOREPLY.exec(email.trim())
  return m ? m[1].toLowerCase() : null
}

function isNoreply(email: string): boolean {
  return /noreply|no-reply/i.test(email)
}

class UnionFind {
  private readonly parent = new Map<string, string>()
  find(x: string): string {
    let p = this.parent.get(x) ?? x
    if (p === x) return x
    p = this.find(p)
    this.parent.set(x, p)
    return p
  }
  union(a: string, b: string): void {
    const ra = this.find(a)
    const rb = this.find(b)
    if (ra !== rb) this.parent.set(ra, rb)
  }
}

/**
 * Group the signatures of `commits` into identities. With `enabled` false, every email is its own
 * author (as before: .mailmap only). Returns the identity of each raw email.
 */
export function resolveIdentities(commits: readonly AuthorSignature[], config: IdentityConfig = DEFAULT_IDENTITY_CONFIG, enabled = true): IdentityMap {
  // per raw email: newest time, newest name, commit count, bot
  const seen = new Map<string, { time: number; name: string; names: Set<string>; count: number; bot: boolean }>()
  for (const c of commits) {
    const time = Date.parse(c.authorDate)
    const s = seen.get(c.authorEmail)
    if (!s) seen.set(c.authorEmail, { time, name: c.authorName, names: new Set([c.authorName]), count: c.count ?? 1, bot: isBot(c.authorName, c.authorEmail) })
    else {
      s.count += c.count ?? 1
      s.names.add(c.authorName)
      if (time > s.time) {
        s.time = time
        s.name = c.authorName
      }
      if (!s.bot && isBot(c.authorName, c.authorEmail)) s.bot = true
    }
  }
  // no email is nobody's: each such commit keeps its own signature (name)
  seen.delete('')
  const out: IdentityMap = new Map()
  if (!enabled) {
    for (const [email, s] of seen) out.set(email, { email, name: s.name, emails: [email] })
    return out
  }
  const split = new Set(config.split.map((e) => e.toLowerCase()))
  const uf = new UnionFind()
  for (const [email, s] of seen) {
    const key = `e:${email}`
    const lower = email.toLowerCase()
    uf.union(key, `l:${lower}`)
    if (split.has(lower) || s.bot) continue
    const login = githubLogin(email)
    if (login) uf.union(key, `n:${login}`)
    for (const name of s.names) {
      const n = normaliseName(name)
      if (!PLACEHOLDER_NAMES.has(n) && /\p{L}/u.test(n)) uf.union(key, `n:${n}`)
    }
  }
  for (const group of config.merge) {
    const keys = group.map((e) => `l:${e.toLowerCase()}`)
    for (let i = 1; i < keys.length; i++) uf.union(keys[0], keys[i])
  }
  const groups = new Map<string, string[]>()
  for (const email of seen.keys()) {
    const root = uf.find(`e:${email}`)
    const list = groups.get(root)
    if (list) list.push(email)
    else groups.set(root, [email])
  }
  for (const emails of groups.values()) {
    const best = [...emails].sort((a, b) => {
      const sa = seen.get(a)!
      const sb = seen.get(b)!
      return Number(isNoreply(a)) - Number(isNoreply(b)) || sb.time - sa.time || sb.count - sa.count || (a < b ? -1 : a > b ? 1 : 0)
    })[0]
    const identity: Identity = { email: best, name: seen.get(best)!.name, emails: [...emails].sort() }
    for (const e of emails) out.set(e, identity)
  }
  return out
}

/** Read and check `identities` from a parsed `.gitwhy/config.json`; throws a message on a bad shape. */
export function parseIdentityConfig(value: unknown): IdentityConfig {
  if (value === undefined) return { ...DEFAULT_IDENTITY_CONFIG }
  const bad = (what: string) => new Error(`identities.${what}`)
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('must be an object like {"merge": [["a@x", "b@y"]], "split": ["c@z"]}')
  const v = value as Record<string, unknown>
  for (const key of Object.keys(v)) if (key !== 'merge' && key !== 'split') throw bad(`${key} is not a setting (use merge or split)`)
  const isEmails = (x: unknown): x is string[] => Array.isArray(x) && x.every((e) => typeof e === 'string' && e.length > 0)
  const merge = v.merge ?? []
  const split = v.split ?? []
  if (!Array.isArray(merge) || !merge.every(isEmails)) throw bad('merge must be a list of email lists, e.g. [["a@x", "b@y"]]')
  if (!isEmails(split)) throw bad('split must be a list of emails, e.g. ["c@z"]')
  return { merge: merge.map((g) => [...g]), split: [...split] }
}

/** The `identities` settings of `.gitwhy/config.json` (defaults when the file or the key is absent). */
export function readIdentityConfig(gitwhyDir: string): IdentityConfig {
  const file = path.join(gitwhyDir, 'config.json')
  if (!existsSync(file)) return { ...DEFAULT_IDENTITY_CONFIG }
  let parsed: { identities?: unknown }
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as typeof parsed
  } catch (error) {
    throw new UserError(`${file} is not valid JSON (${(error as Error).message})`, 'fix or delete the file; see "Who is one author" in the README', 'bad_config')
  }
  try {
    return parseIdentityConfig(parsed.identities)
  } catch (error) {
    throw new UserError(`${file}: ${(error as Error).message}`, 'fix the value; see "Who is one author" in the README', 'bad_config')
  }
}
