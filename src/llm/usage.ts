import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/**
 * Accounting (issue 15): every model call, and every answer served from the cache, is one JSON
 * line of `.gitwhy/llm-usage.jsonl`; the day's budget is read back from it (UTC days). Answers
 * are cached in `.gitwhy/llm-cache/<fingerprint>.json`, beside the rebuildable index directories
 * and never inside them, so that a rebuild keeps what was paid for.
 */
export const USAGE_FILE = 'llm-usage.jsonl'
export const CACHE_DIR = 'llm-cache'

export interface UsageLine {
  ts: string
  provider: string
  model: string
  task: string
  input_tokens: number
  output_tokens: number
  ms: number
  cache_hit: boolean
  /** answered, hedged, uncited, error */
  outcome: string
  /** In the configured price's currency; absent when no price is configured. */
  cost?: number
}

export function appendUsage(gitwhyDir: string, line: UsageLine): void {
  try {
    mkdirSync(gitwhyDir, { recursive: true })
    appendFileSync(path.join(gitwhyDir, USAGE_FILE), `${JSON.stringify(line)}\n`)
  } catch {
    // accounting must not break an answer: a read-only .gitwhy/ loses its log line
  }
}

/** Tokens (input + output) the usage log records for the UTC day of `now`. */
export function tokensOnDay(gitwhyDir: string, now: Date): number {
  const file = path.join(gitwhyDir, USAGE_FILE)
  if (!existsSync(file)) return 0
  const day = now.toISOString().slice(0, 10)
  let total = 0
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith(`{"ts":"${day}`)) continue
    try {
      const u = JSON.parse(line) as Partial<UsageLine>
      total += (Number(u.input_tokens) || 0) + (Number(u.output_tokens) || 0)
    } catch {
      // a torn line (two writers at once) counts nothing
    }
  }
  return total
}

export interface CachedAnswer {
  v: 1
  synthesizer: string
  task: string
  text: string
  tokens: { input: number; output: number }
  created: string
}

export function readCached(gitwhyDir: string, key: string): CachedAnswer | null {
  try {
    const c = JSON.parse(readFileSync(path.join(gitwhyDir, CACHE_DIR, `${key}.json`), 'utf8')) as CachedAnswer
    return c?.v === 1 && typeof c.text === 'string' ? c : null
  } catch {
    return null
  }
}

export function writeCached(gitwhyDir: string, key: string, answer: CachedAnswer): void {
  try {
    const dir = path.join(gitwhyDir, CACHE_DIR)
    mkdirSync(dir, { recursive: true })
    const tmp = path.join(dir, `${key}.${process.pid}.tmp`)
    writeFileSync(tmp, JSON.stringify(answer))
    renameSync(tmp, path.join(dir, `${key}.json`))
  } catch {
    // a cache that cannot be written costs a call next time, nothing more
  }
}
