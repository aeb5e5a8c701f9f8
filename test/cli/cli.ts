/**
 * Helpers for the end-to-end CLI tests: spawn the built CLI (`bin/run.js` → `dist/`), parse its
 * JSON, and check JSON shapes against pinned specs (exact key sets, so an accidental change of
 * the documented contract fails a test).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const BIN = join(ROOT, 'bin', 'run.js')

if (!existsSync(join(ROOT, 'dist', 'commands')) || !existsSync(BIN)) {
  throw new Error(`the built CLI is missing (${join(ROOT, 'dist')}): run npm run build`)
}

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface CliOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
  /** Written to the command's stdin (default: no stdin). */
  input?: string
}

/** The environment handed to the CLI: the caller's (isolated git) env without GITWHY_REPO. */
function cliEnv(env: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  const out = { ...(env ?? process.env) }
  delete out.GITWHY_REPO
  delete out.FORCE_COLOR
  out.NO_COLOR = '1'
  return out
}

/** Start the CLI without waiting (for the kill test). */
export function startCli(args: string[], opts: CliOptions = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? ROOT, env: cliEnv(opts.env), stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] })
  if (opts.input !== undefined) {
    child.stdin!.on('error', () => {})
    child.stdin!.end(opts.input)
  }
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const timeoutMs = opts.timeoutMs ?? 60_000
  const done = new Promise<CliResult>((resolveDone, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`gitwhy ${args.join(' ')} timed out after ${timeoutMs} ms\nstderr: ${stderr}`))
    }, timeoutMs)
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolveDone({ code, signal, stdout, stderr })
    })
  })
  return { child, done }
}

/** Run the CLI to completion. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return startCli(args, opts).done
}

function describeRun(args: string[], r: CliResult): string {
  return `gitwhy ${args.join(' ')} → exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`
}

/**
 * Run with --json (appended unless present), expect exit 0 and a stdout that is exactly one JSON
 * document (JSON.parse of the whole stdout, nothing before or after it).
 */
export async function runJson<T = any>(args: string[], opts: CliOptions = {}): Promise<{ json: T; result: CliResult }> {
  const full = args.includes('--json') ? args : [...args, '--json']
  const result = await runCli(full, opts)
  expect(result.code, describeRun(full, result)).toBe(0)
  return { json: parseWhole<T>(full, result), result }
}

function parseWhole<T>(args: string[], result: CliResult): T {
  expect(result.stdout.trim().length, describeRun(args, result)).toBeGreaterThan(0)
  try {
    return JSON.parse(result.stdout) as T
  } catch (e) {
    throw new Error(`stdout is not exactly one JSON document (${(e as Error).message})\n${describeRun(args, result)}`)
  }
}

export interface CliErrorDoc {
  error: { code: string; message: string; remedy: string }
}

/**
 * A user-fixable failure: exit 1, stderr says what happened and how to fix it ("error: …" then
 * "fix: …"), and with --json stdout is exactly `{"error": {"code", "message", "remedy"}}` with the
 * expected code. With `plain`, the command is also run without --json (in parallel): the same
 * message on stderr, nothing on stdout.
 */
export async function expectUserError(args: string[], code: string, opts: CliOptions = {}, { plain = false } = {}): Promise<CliErrorDoc['error']> {
  const plainArgs = args.filter((a) => a !== '--json')
  // --json must come before a `--` separator to be read as a flag.
  const sep = plainArgs.indexOf('--')
  const jsonArgs = sep >= 0 ? [...plainArgs.slice(0, sep), '--json', ...plainArgs.slice(sep)] : [...plainArgs, '--json']
  const [j, p] = await Promise.all([runCli(jsonArgs, opts), plain ? runCli(plainArgs, opts) : null])

  expect(j.code, describeRun(jsonArgs, j)).toBe(1)
  const doc = parseWhole<CliErrorDoc>(jsonArgs, j)
  expectShape(doc, ERROR_DOC, 'error document')
  expect(doc.error.code, describeRun(jsonArgs, j)).toBe(code)
  expect(doc.error.message.length).toBeGreaterThan(0)
  expect(doc.error.remedy.length).toBeGreaterThan(0)
  expect(j.stderr, describeRun(jsonArgs, j)).toMatch(/error: [\s\S]+\n\s*fix: .+/)
  expect(j.stderr).toContain(`fix: ${doc.error.code === 'usage' ? '' : doc.error.remedy}`)
  expect(j.stderr, 'a user error is not reported as a bug').not.toMatch(/gitwhy bug/)

  if (p) {
    expect(p.code, describeRun(plainArgs, p)).toBe(1)
    expect(p.stderr, describeRun(plainArgs, p)).toMatch(/error: [\s\S]+\n\s*fix: .+/)
    expect(p.stderr).toContain(doc.error.message.split('\n')[0])
    expect(p.stdout.trim(), 'a failing command prints nothing on stdout without --json').toBe('')
  }
  return doc.error
}

// ---------------------------------------------------------------- shape checking

export type Spec =
  | { kind: 'string'; pattern?: RegExp }
  | { kind: 'int' }
  | { kind: 'number' }
  | { kind: 'boolean' }
  | { kind: 'null' }
  | { kind: 'literal'; values: readonly unknown[] }
  | { kind: 'array'; of: Spec }
  | { kind: 'object'; keys: Record<string, Spec>; optional: readonly string[] }
  | { kind: 'record'; of: Spec }
  | { kind: 'union'; of: Spec[] }

export const t = {
  str: (pattern?: RegExp): Spec => ({ kind: 'string', pattern }),
  int: (): Spec => ({ kind: 'int' }),
  num: (): Spec => ({ kind: 'number' }),
  bool: (): Spec => ({ kind: 'boolean' }),
  nul: (): Spec => ({ kind: 'null' }),
  lit: (...values: unknown[]): Spec => ({ kind: 'literal', values }),
  arr: (of: Spec): Spec => ({ kind: 'array', of }),
  /** An object with exactly these keys (plus, optionally, the ones named in `optional`). */
  obj: (keys: Record<string, Spec>, optional: readonly string[] = []): Spec => ({ kind: 'object', keys, optional }),
  /** A map with arbitrary keys. */
  rec: (of: Spec): Spec => ({ kind: 'record', of }),
  or: (...of: Spec[]): Spec => ({ kind: 'union', of }),
}

/** Every way `value` deviates from `spec` (empty: it conforms). */
export function shapeErrors(value: unknown, spec: Spec, at = '$'): string[] {
  const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value
  const fail = (what: string) => [`${at}: expected ${what}, got ${got} ${JSON.stringify(value)?.slice(0, 80)}`]
  switch (spec.kind) {
    case 'string':
      if (typeof value !== 'string') return fail('string')
      return spec.pattern && !spec.pattern.test(value) ? fail(`string matching ${spec.pattern}`) : []
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) ? [] : fail('integer')
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? [] : fail('number')
    case 'boolean':
      return typeof value === 'boolean' ? [] : fail('boolean')
    case 'null':
      return value === null ? [] : fail('null')
    case 'literal':
      return spec.values.includes(value) ? [] : fail(`one of ${JSON.stringify(spec.values)}`)
    case 'array':
      if (!Array.isArray(value)) return fail('array')
      return value.flatMap((v, i) => shapeErrors(v, spec.of, `${at}[${i}]`))
    case 'record':
      if (got !== 'object') return fail('object')
      return Object.entries(value as object).flatMap(([k, v]) => shapeErrors(v, spec.of, `${at}.${k}`))
    case 'object': {
      if (got !== 'object') return fail('object')
      const obj = value as Record<string, unknown>
      const errors: string[] = []
      for (const k of Object.keys(obj)) if (!(k in spec.keys)) errors.push(`${at}: unexpected key "${k}"`)
      for (const [k, s] of Object.entries(spec.keys)) {
        if (!(k in obj)) {
          if (!spec.optional.includes(k)) errors.push(`${at}: missing key "${k}"`)
          continue
        }
        errors.push(...shapeErrors(obj[k], s, `${at}.${k}`))
      }
      return errors
    }
    case 'union': {
      const all = spec.of.map((s) => shapeErrors(value, s, at))
      return all.some((e) => e.length === 0) ? [] : [`${at}: matches none of the alternatives: ${all.map((e) => e.join('; ')).join(' | ')}`]
    }
  }
}

export function expectShape(value: unknown, spec: Spec, label = 'document'): void {
  const errors = shapeErrors(value, spec)
  expect(errors, `${label} does not have the documented shape:\n${errors.join('\n')}\n${JSON.stringify(value, null, 2).slice(0, 3000)}`).toEqual([])
}

// ---------------------------------------------------------------- the documented shapes

export const SHA = /^[0-9a-f]{40}$/
export const SHORT = /^[0-9a-f]{7,}$/
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/

export const ERROR_DOC = t.obj({ error: t.obj({ code: t.str(/^[a-z_]+$/), message: t.str(), remedy: t.str() }) })

export const COUNT_KEYS = ['commits', 'files', 'symbols', 'calls', 'imports', 'authors', 'pull_requests', 'issues', 'blamed_on', 'changed', 'docs', 'decisions'] as const
export const SKIPPED_KEYS = ['binary', 'generated', 'vendored', 'minified', 'too_large'] as const
export const FULL_TIMING_KEYS = ['history_ms', 'files_ms', 'reverts_ms', 'hunk_map_ms', 'rows_ms', 'code_graph_ms', 'analytics_ms', 'graph_load_ms', 'save_ms', 'embeddings_ms', 'manifest_ms', 'total_ms'] as const

const fixedKeys = (keys: readonly string[], spec: Spec): Spec => t.obj(Object.fromEntries(keys.map((k) => [k, spec])))

export const COUNTS = fixedKeys(COUNT_KEYS, t.int())
export const SKIPPED = fixedKeys(SKIPPED_KEYS, t.int())
export const FULL_TIMINGS = fixedKeys(FULL_TIMING_KEYS, t.int())

export const ANALYZE_FULL = t.obj({
  repo: t.str(),
  head: t.str(SHA),
  mode: t.lit('full'),
  new_commits: t.int(),
  counts: COUNTS,
  skipped: SKIPPED,
  timings: FULL_TIMINGS,
  peak_mb: fixedKeys(FULL_TIMING_KEYS.filter((k) => k !== 'total_ms').map((k) => k.replace(/_ms$/, '')), t.int()),
  embeddings: t.obj({ model: t.or(t.str(), t.nul()), embedded: t.int() }),
})

export const ANALYZE_NOOP = t.obj({
  repo: t.str(),
  head: t.str(SHA),
  mode: t.lit('noop'),
  new_commits: t.lit(0),
  counts: COUNTS,
  skipped: SKIPPED,
  timings: t.obj({ total_ms: t.int() }),
  embeddings: t.obj({ model: t.or(t.str(), t.nul()), embedded: t.lit(0) }),
})

export const INDEX_INFO = t.obj({ head: t.str(SHA), stale: t.bool(), commits_behind: t.or(t.int(), t.nul()) })

/** `gitwhy enrich`'s state in status (null until it ran). */
const ENRICHMENT = t.obj({
  forge: t.lit('github'),
  repo: t.str(),
  api: t.str(),
  pull_requests: t.int(),
  issues: t.int(),
  review_comments: t.int(),
  enriched_at: t.or(t.str(ISO), t.nul()),
  last_run: t.or(t.str(ISO), t.nul()),
  complete: t.bool(),
  in_index: t.bool(),
  index_pull_requests: t.int(),
  index_issues: t.int(),
})
/** `status`'s answer feedback counts (src/services/feedback.ts). */
export const FEEDBACK_COUNTS = t.obj({ up: t.int(), down: t.int(), voted_answers: t.int(), recorded_answers: t.int() })

export const STATUS_INDEXED = t.obj({
  repo: t.str(),
  indexed: t.lit(true),
  head: t.str(SHA),
  index: t.obj({
    head: t.str(SHA),
    stale: t.bool(),
    commits_behind: t.or(t.int(), t.nul()),
    built_at: t.str(ISO),
    schema_version: t.int(),
    size_bytes: t.int(),
    spare_bytes: t.int(),
    shallow: t.bool(),
    max_commits: t.or(t.int(), t.nul()),
  }),
  counts: COUNTS,
  skipped: SKIPPED,
  timings: FULL_TIMINGS,
  enrichment: t.or(t.nul(), ENRICHMENT),
  feedback: FEEDBACK_COUNTS,
})

export const STATUS_UNINDEXED = t.obj({
  repo: t.str(),
  indexed: t.lit(false),
  head: t.or(t.str(SHA), t.nul()),
  index: t.nul(),
  counts: t.obj({}),
  skipped: t.obj({}),
  timings: t.obj({}),
  enrichment: t.or(t.nul(), ENRICHMENT),
  feedback: FEEDBACK_COUNTS,
})

export const COMMIT = t.obj({
  sha: t.str(SHA),
  short: t.str(SHORT),
  author: t.str(),
  email: t.str(),
  date: t.str(ISO),
  subject: t.str(),
  category: t.lit('merge', 'initial', 'bot', 'revert', 'formatting', 'micro', 'normal', 'mega'),
  why: t.str(),
}, ['why'])

const PR = t.obj({ number: t.int(), title: t.str(), url: t.or(t.str(), t.nul()), why: t.str() }, ['why'])
const ISSUE = t.obj({ number: t.int(), title: t.str(), url: t.or(t.str(), t.nul()), closes: t.bool(), why: t.str() }, ['why'])

const PATCH = t.arr(t.obj({ path: t.str(), hunks: t.arr(t.obj({ header: t.str(/^@@ -\d+(,\d+)? \+\d+(,\d+)? @@$/), lines: t.arr(t.str(/^[-+]/)) })) }))

export const BLAME_OR_HISTORY_ITEM = t.or(
  t.obj({ commit: COMMIT, source: t.lit('blame'), lines: t.int(), pull_requests: t.arr(PR), issues: t.arr(ISSUE), patch: PATCH }, ['patch']),
  t.obj({ commit: COMMIT, source: t.lit('history'), pull_requests: t.arr(PR), issues: t.arr(ISSUE), patch: PATCH }, ['patch']),
)

export const AREA_ITEM = t.obj({ commit: COMMIT, source: t.lit('area'), path_at_commit: t.str(), pull_requests: t.arr(PR), issues: t.arr(ISSUE) })

export const EVIDENCE_DOC = t.obj({
  target: t.obj({
    path: t.str(),
    line_start: t.int(),
    line_end: t.int(),
    symbol: t.or(t.nul(), t.obj({ qualified_name: t.str(), kind: t.str() })),
  }),
  index: INDEX_INFO,
  evidence: t.arr(BLAME_OR_HISTORY_ITEM),
  total: t.int(),
  undecided: t.or(t.nul(), t.obj({ lines: t.int(), reason: t.str() })),
  clamped: t.or(t.nul(), t.obj({ requested_line_end: t.int(), note: t.str() })),
})

const WHY_COMMIT = t.obj({ ...(COMMIT as { keys: Record<string, Spec> }).keys, reverts: t.str(SHA) }, ['why', 'reverts'])

export const WHY_ITEM = t.obj(
  { commit: WHY_COMMIT, source: t.lit('blame', 'history', 'search'), lines: t.int(), ignored: t.lit(true), pull_requests: t.arr(PR), issues: t.arr(ISSUE), score: t.num(), reasons: t.arr(t.str()) },
  ['lines', 'ignored'],
)

/** A decision in the answers that include the governing ones (decisions for, why, detect-changes). */
export const GOVERNING_DECISION = t.obj({
  id: t.str(/^[a-z]{1,3}-[0-9a-f]{6,16}$/),
  kind: t.lit('feature', 'decision', 'constraint', 'pattern', 'convention'),
  title: t.str(),
  statement: t.str(),
  rationale: t.str(),
  status: t.lit('active', 'stale'),
  confidence: t.num(),
  via: t.lit('symbol', 'contains', 'file', 'directory', 'community'),
  applies_to: t.str(),
  evidence: t.arr(t.str()),
  stale_commits: t.arr(t.obj({ short: t.str(SHORT), subject: t.str(), lines: t.int() })),
  violations: t.arr(t.obj({ path: t.str(), line: t.int(), text: t.str(), commit: t.or(t.nul(), t.str(SHORT)) })),
})

/** What a configured LLM did for a why answer (present only with one configured, or with --estimate). */
export const WHY_LLM = t.obj({
  synthesizer: t.or(t.nul(), t.str(/^(openai-compatible|anthropic|ollama):.+$/)),
  status: t.lit('answered', 'declined', 'not called', 'estimated'),
  reason: t.or(t.nul(), t.str()),
  warning: t.or(t.nul(), t.str()),
  cached: t.bool(),
  dropped_citations: t.int(),
  tokens: t.or(t.nul(), t.obj({ input: t.int(), output: t.int() })),
  ms: t.or(t.nul(), t.int()),
  estimate: t.or(
    t.nul(),
    t.obj({ synthesizer: t.or(t.nul(), t.str()), input_tokens: t.int(), output_tokens: t.int(), cost: t.or(t.nul(), t.num()), cached: t.bool(), budget: t.or(t.nul(), t.str()) }),
  ),
})

export const WHY_DOC = t.obj({
  target: t.or(t.nul(), t.obj({ path: t.str(), line_start: t.int(), line_end: t.int(), symbol: t.or(t.nul(), t.obj({ qualified_name: t.str(), kind: t.str() })) })),
  question: t.or(t.nul(), t.str()),
  search: t.or(t.nul(), t.obj({ mode: t.lit('hybrid', 'bm25', 'vector'), answered: t.lit('hybrid', 'bm25', 'vector'), note: t.or(t.nul(), t.str()) })),
  located: t.arr(t.obj({ kind: t.lit('symbol', 'commit', 'pr', 'issue'), id: t.str(), path: t.str(), score: t.num() })),
  answer: t.obj({ text: t.str(), sentences: t.arr(t.obj({ text: t.str(), citations: t.arr(t.str()) })), answerer: t.str() }),
  answer_id: t.str(/^w-[0-9a-f]{12}$/),
  confidence: t.num(),
  enough_evidence: t.bool(),
  confidence_factors: t.obj({ message: t.num(), agreement: t.num(), match: t.num() }),
  citations: t.arr(
    t.or(
      t.obj({ ref: t.str(SHORT), kind: t.lit('commit'), sha: t.str(SHA), subject: t.str() }),
      t.obj({ ref: t.str(/^(PR )?#\d+$/), kind: t.lit('pr', 'issue'), number: t.int(), subject: t.str() }),
    ),
  ),
  evidence: t.arr(WHY_ITEM),
  changes_with: t.arr(t.obj({ path: t.str(), qualified_name: t.or(t.nul(), t.str()), shared: t.int(), example: t.or(t.nul(), t.str(SHA)) })),
  decisions: t.arr(GOVERNING_DECISION),
  total: t.int(),
  index: INDEX_INFO,
  llm: WHY_LLM,
}, ['llm'])

export const HISTORY_DOC = t.obj({
  target: t.obj({ path: t.str(), kind: t.lit('file', 'directory'), follow_renames: t.bool() }),
  index: INDEX_INFO,
  evidence: t.arr(AREA_ITEM),
  total: t.int(),
  truncated: t.bool(),
})

const SCHEMA_PROPERTY = t.obj({ name: t.str(), type: t.str(), description: t.str(), nullable: t.bool() })

export const SCHEMA_DOC = t.obj({
  version: t.int(),
  nodes: t.arr(t.obj({ name: t.str(), description: t.str(), primary_key: t.str(), properties: t.arr(SCHEMA_PROPERTY) })),
  relationships: t.arr(t.obj({ name: t.str(), description: t.str(), from: t.str(), to: t.str(), properties: t.arr(SCHEMA_PROPERTY) })),
  notes: t.arr(t.str()),
})

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
