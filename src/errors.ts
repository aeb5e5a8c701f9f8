/**
 * Two kinds of failure: a UserError the user can fix (it carries the remedy), and everything
 * else, which is a bug. One handler (BaseCommand.catch) renders both and sets the exit code.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly remedy: string,
    readonly code: string = 'user_error',
  ) {
    super(message)
    this.name = 'UserError'
  }
}

/**
 * By its shape as well as its class: a bundled entry (dist/bundle) has its own copy of this class,
 * and a UserError thrown by the unbundled service it loads is of the other copy.
 */
export function isUserError(error: unknown): error is UserError {
  if (error instanceof UserError) return true
  if (!(error instanceof Error) || error.name !== 'UserError') return false
  const e = error as Error & Partial<Pick<UserError, 'remedy' | 'code'>>
  return typeof e.remedy === 'string' && typeof e.code === 'string'
}

/** The largest --limit taken literally; beyond it a limit means nothing a list could hold (0 = no cap). */
export const MAX_LIMIT = 1_000_000

/** A --limit / `limit` value: a whole number, 0 meaning no cap. */
export function checkLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_LIMIT) throw new UserError(`--limit must be a whole number from 0 to ${MAX_LIMIT}, got ${limit}`, 'pass --limit 0 for no cap', 'bad_option')
}

/** Levenshtein-ranked suggestions, used when a path or symbol is unknown. */
export function nearest(query: string, candidates: Iterable<string>, max = 5): string[] {
  const q = query.toLowerCase()
  const scored: Array<[number, string]> = []
  for (const c of candidates) {
    const lc = c.toLowerCase()
    let score = editDistance(q, lc.length > q.length * 3 ? lc.slice(-q.length * 2) : lc)
    if (lc.includes(q)) score -= q.length
    if (lc.endsWith(q)) score -= 1
    scored.push([score, c])
  }
  scored.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]))
  return scored.slice(0, max).map(([, c]) => c)
}

export function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1)
  for (let j = 0; j <= b.length; j++) prev[j] = j
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = tmp
    }
  }
  return prev[b.length]
}
