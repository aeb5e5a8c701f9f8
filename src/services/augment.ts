import { RE2JS } from 're2js'
import { UserError, checkLimit } from '../errors.js'
import { followHistories } from '../history/area.js'
import { indexClock, type CommitCatalog } from '../history/commit-catalog.js'
import type { HistoryGraph } from '../history/graph.js'
import { mapHistory, type MapTarget } from '../history/hunk-mapper.js'
import type { PathIndex } from '../history/path-index.js'
import { isTestPath } from '../parse/classify.js'
import { indexedFiles, type IndexedFile } from './index-layout.js'
import type { CommitRef, IndexInfo, PullRequestRef } from './types.js'

/**
 * History next to search results: for the symbols and files a search pattern matches (what an
 * agent greps or globs for), who changed each last, when, in which PR, why, and how often it
 * changes. Answered from the index's JSON caches only (no git, no database), so that the Claude
 * Code hook can answer within its time budget.
 */

export interface AugmentQuery {
  /** What was searched for: a regular expression (as rg/grep take it) or a path glob. */
  pattern: string
  /** `regex`: symbol names and file paths the pattern matches; `glob`: file paths. */
  mode: 'regex' | 'glob'
  ignoreCase?: boolean
  /** The pattern is a literal string (grep -F). */
  fixed?: boolean
  /** Whole words only (grep -w). */
  word?: boolean
  /** Only files at or under these repository-relative paths (empty or absent: everywhere). */
  within?: string[]
  /** Path globs a file must match (ripgrep `-g` semantics; a leading `!` excludes). */
  globs?: string[]
}

export interface AugmentMatch {
  kind: 'symbol' | 'file'
  path: string
  symbol: { name: string; qualified_name: string; kind: string; line_start: number; line_end: number } | null
  /** The newest commit in the match's history (null: no commit in the indexed history). */
  last_change: { commit: CommitRef; pull_request: PullRequestRef | null } | null
  /** The last change's PR title, else its commit subject. */
  why: string | null
  /**
   * How often it changes: commits in its history (a symbol: the commits that changed its lines,
   * as `git log -L`; a file: as `git log --follow`), and those committed in the last 90 days.
   */
  commits: { total: number; last_90_days: number }
  /** The history is cut (shallow clone or --max-commits): older commits may be missing. */
  truncated: boolean
}

export interface AugmentResult {
  query: { pattern: string; mode: 'regex' | 'glob' }
  index: IndexInfo
  matches: AugmentMatch[]
  /** Matches before the limit. */
  total: number
}

/** What an answer reads: an IndexReader, or the hook's lighter equivalent (no git, no database). */
export interface AugmentIndex {
  readonly dir: string
  /** `options.ignoreRevs`: the commits blame looks through, never shown as the last change or the why. */
  readonly meta: { head: string; options?: { ignoreRevs?: string[] | null } }
  pathIndex(): PathIndex
  commits(): CommitCatalog
}

export interface AugmentOptions {
  /** Maximum matches; 0 = no cap. Default 5. */
  limit?: number
  /** Epoch seconds the 90-day window ends at (default: the indexed HEAD's committer date, as every recency in gitwhy). */
  now?: number
  /** Called between the steps of an answer (the hook uses it to give up past its deadline). */
  checkpoint?: () => void
}

export const DEFAULT_AUGMENT_LIMIT = 5
const WINDOW_SECONDS = 90 * 24 * 3600

/** The CLI / MCP entry: open the repository's index and answer. */
export async function augment(options: AugmentOptions & { repo?: string; query: AugmentQuery }): Promise<AugmentResult> {
  const limit = options.limit ?? DEFAULT_AUGMENT_LIMIT
  checkLimit(limit)
  if (options.query.pattern === '') throw new UserError('the pattern is empty', 'pass what you search for, e.g. `gitwhy augment createRouter`', 'bad_option')
  // loaded here rather than at the top: the hook imports this module and must not pay for git and
  // workspace code it never runs
  const { IndexReader } = await import('./index-reader.js')
  const reader = await IndexReader.open(options.repo)
  try {
    const { matches, total } = augmentIndex(reader, options.query, { ...options, limit })
    return { query: { pattern: options.query.pattern, mode: options.query.mode }, index: await reader.indexInfo(), matches, total }
  } finally {
    await reader.close()
  }
}

/**
 * Whether a pattern given on the command line is a path glob rather than a regular expression:
 * it has `**`, a `*` or `?` at the start or right after a `/` (`src/*.ts`, `*router*`), or a brace
 * list (`*.{ts,tsx}`). Anything else (`createRouter`, `auth.*token`, `router.ts`) is a regex.
 */
export function looksLikeGlob(pattern: string): boolean {
  return pattern.includes('**') || /(^|\/)[*?]/.test(pattern) || /\{[^{}]*[^\d{},][^{}]*,[^{}]*\}/.test(pattern)
}

/** Find the matches of `query` in the index and give the best `limit` their history. */
export function augmentIndex(index: AugmentIndex, query: AugmentQuery, options: AugmentOptions = {}): { matches: AugmentMatch[]; total: number } {
  const limit = options.limit ?? DEFAULT_AUGMENT_LIMIT
  const checkpoint = options.checkpoint ?? (() => {})
  const candidates = findCandidates(index.dir, query)
  checkpoint()
  const chosen = limit === 0 ? candidates : candidates.slice(0, limit)
  if (chosen.length === 0) return { matches: [], total: 0 }

  // One sparse graph for every chosen path: a walk over it answers each path as its own graph would.
  const graph = index.pathIndex().graphFor([...new Set(chosen.map((c) => c.file.path))])
  checkpoint()
  const symbolHistory = symbolHistories(graph, chosen)
  checkpoint()
  const filePaths = chosen.filter((c) => !c.symbol).map((c) => c.file.path)
  const fileHistory = new Map(filePaths.length === 0 ? [] : followHistories(graph, 0, filePaths).map((r, k) => [filePaths[k], r]))
  checkpoint()
  const now = options.now ?? indexClock(index)
  const catalog = index.commits()
  const ignored = new Set(index.meta.options?.ignoreRevs ?? [])
  const matches = chosen.map((c, i): AugmentMatch => {
    let commits: number[]
    let truncated: boolean
    const sym = c.symbol
    if (sym) {
      ;({ commits, truncated } = symbolHistory[i]!)
    } else {
      const area = fileHistory.get(c.file.path)!
      commits = area.hits.map((h) => h.commit)
      truncated = area.truncated
    }
    // newest by committer date, as git log orders (a line history is in topological order); a
    // formatting sweep on the blame ignore list is not why the code is as it is
    let newest = -1
    for (const k of commits) if (!ignored.has(graph.shas[k]) && (newest < 0 || graph.dates[k] > graph.dates[newest])) newest = k
    const entry = newest >= 0 ? catalog.get(graph.shas[newest]) : undefined
    const pr = entry?.pull_requests[0] ?? null
    return {
      kind: sym ? 'symbol' : 'file',
      path: c.file.path,
      symbol: sym ? { name: sym.name, qualified_name: sym.qualifiedName, kind: sym.kind, line_start: sym.startLine, line_end: sym.endLine } : null,
      last_change: entry ? { commit: entry.commit, pull_request: pr } : null,
      why: entry ? (pr?.title || entry.commit.subject) : null,
      commits: { total: commits.length, last_90_days: commits.filter((k) => graph.dates[k] > now - WINDOW_SECONDS).length },
      truncated,
    }
  })
  return { matches, total: candidates.length }
}

/** The line history (`git log -L`) of each chosen symbol, in one walk; undefined for files. */
function symbolHistories(graph: HistoryGraph, chosen: Candidate[]): Array<{ commits: number[]; truncated: boolean } | undefined> {
  const targets: MapTarget[] = []
  const slot = new Map<string, number>()
  const where: Array<[number, number] | undefined> = chosen.map((c) => {
    if (!c.symbol) return undefined
    let t = slot.get(c.file.path)
    if (t === undefined) {
      t = targets.length
      slot.set(c.file.path, t)
      targets.push({ path: c.file.path, lines: c.file.lines, ranges: [] })
    }
    targets[t].ranges.push({ start: c.symbol.startLine, end: c.symbol.endLine })
    return [t, targets[t].ranges.length - 1]
  })
  if (targets.length === 0) return where.map(() => undefined)
  const result = mapHistory(graph, 0, targets)
  return where.map((w) => (w ? { commits: result.rangeHistory[w[0]][w[1]].map((ch) => ch.commit), truncated: result.rangeTruncated[w[0]][w[1]] } : undefined))
}

// ---------------------------------------------------------------- matching and ranking

interface MatchedSymbol {
  name: string
  qualifiedName: string
  kind: string
  startLine: number
  endLine: number
}

export interface Candidate {
  file: IndexedFile
  symbol: MatchedSymbol | null
  score: number
}

/** Every symbol and file the query matches, best first. */
export function findCandidates(dir: string, query: AugmentQuery): Candidate[] {
  const matcher = compileQuery(query)
  const inScope = scopeFilter(query)
  const out: Candidate[] = []
  for (const file of indexedFiles(dir).scan(matcher.prefilter)) {
    if (!inScope(file.path)) continue
    const penalty = pathPenalty(file)
    const fileScore = matcher.file(file.path)
    if (fileScore > 0) out.push({ file, symbol: null, score: fileScore - penalty })
    if (query.mode === 'glob') continue
    // overloads (same qualified name) are one match spanning all their declarations
    const byName = new Map<string, Candidate>()
    // a symbol inside a matching one (a closure, a method of a matching class) repeats its match
    const matched = new Set<number>()
    file.symbols.forEach((s, i) => {
      const score = matcher.symbol(s.name, s.qualifiedName)
      if (score <= 0) return
      matched.add(i)
      for (let p = s.parentIndex; p !== null; p = file.symbols[p].parentIndex) if (matched.has(p)) return
      const have = byName.get(s.qualifiedName)
      if (have?.symbol) {
        have.symbol.startLine = Math.min(have.symbol.startLine, s.startLine)
        have.symbol.endLine = Math.max(have.symbol.endLine, s.endLine)
        return
      }
      const c: Candidate = {
        file,
        symbol: { name: s.name, qualifiedName: s.qualifiedName, kind: s.kind, startLine: s.startLine, endLine: s.endLine },
        score: score - penalty + (s.exported ? 5 : 0) - (s.parentIndex !== null ? 5 : 0),
      }
      byName.set(s.qualifiedName, c)
      out.push(c)
    })
  }
  out.sort(
    (a, b) =>
      b.score - a.score ||
      a.file.path.split('/').length - b.file.path.split('/').length ||
      a.file.path.length - b.file.path.length ||
      (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0) ||
      (a.symbol?.startLine ?? 0) - (b.symbol?.startLine ?? 0),
  )
  return out
}

const PERIPHERAL = /(^|\/)(examples?|docs?|www|website|fixtures?|benchmarks?|bench|scripts?|versioned_docs)\//

/** Tests, documentation and examples rank below the code they are about. */
function pathPenalty(file: IndexedFile): number {
  return (isTestPath(file.path) ? 25 : 0) + (file.language === null ? 15 : 0) + (PERIPHERAL.test(file.path) ? 20 : 0)
}

interface QueryMatcher {
  /** Score of a file path (0: no match). */
  file(p: string): number
  /** Score of a symbol (0: no match). */
  symbol(name: string, qualifiedName: string): number
  /** A shard of the per-file cache whose raw text this does not match holds no match (null: read all). */
  prefilter: RegExp | null
}

/** A pattern as a JS RegExp: rg/grep syntax mostly is JS syntax; what is not is read as a literal. */
export function toRegExp(pattern: string, options: { ignoreCase?: boolean; fixed?: boolean; word?: boolean } = {}): RegExp {
  let source = pattern
  let flags = options.ignoreCase ? 'i' : ''
  if (options.fixed) source = escapeRegExp(source)
  else {
    const inline = /^\(\?([imsx]+)\)/.exec(source)
    if (inline) {
      source = source.slice(inline[0].length)
      if (inline[1].includes('i') && !flags.includes('i')) flags += 'i'
    }
    source = source.replace(/\(\?P</g, '(?<')
  }
  if (options.word) source = `\\b(?:${source})\\b`
  for (const f of [flags, flags + 'u']) {
    try {
      return new RegExp(source, f)
    } catch {
      // try the next reading
    }
  }
  return new RegExp(options.word ? `\\b${escapeRegExp(pattern)}\\b` : escapeRegExp(pattern), flags)
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

/** A compiled user pattern: where its first match starts in a text (-1: none). */
interface Pattern {
  find(text: string): number
  /** Whether the whole text matches. */
  whole(text: string): boolean
  /** A pre-test for raw shard text, when one is sound and cheap (null: read every shard). */
  prefilter: RegExp | null
}

/**
 * A pattern that can backtrack (nested or repeated quantifiers, backreferences, lookarounds)
 * could run for minutes in JS's engine on a long name or a shard's text: `(a+)+$`. Such patterns
 * run in RE2 (re2js: linear time, the syntax rg itself uses); simple ones, the usual search for a
 * name, keep JS's faster engine.
 */
export function compilePattern(pattern: string, options: { ignoreCase?: boolean; fixed?: boolean; word?: boolean } = {}): Pattern {
  const re = toRegExp(pattern, options)
  if (!canBacktrack(re.source)) {
    const full = new RegExp(`^(?:${re.source})$`, re.flags)
    // the raw text of a shard holds every name and path verbatim, so an unanchored pattern that
    // matches one of them matches the text; anchors, lookarounds and escapes JSON rewrites do not carry over
    const prefilter = /[\^$"]|\\\\|\\B|\(\?[=!<]/.test(re.source) ? null : re
    return { find: (text) => text.search(re), whole: (text) => full.test(text), prefilter }
  }
  const flags = re.flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0
  let linear: RE2JS
  let full: RE2JS
  try {
    linear = RE2JS.compile(re.source, flags)
    full = RE2JS.compile(`^(?:${re.source})$`, flags)
  } catch {
    // what RE2 cannot read (a backreference, a lookaround) is taken literally, as elsewhere
    linear = RE2JS.compile(RE2JS.quote(pattern), flags)
    full = RE2JS.compile(`^${RE2JS.quote(pattern)}$`, flags)
  }
  return {
    find: (text) => {
      const m = linear.matcher(text)
      return m.find() ? m.start() : -1
    },
    whole: (text) => full.test(text),
    prefilter: null,
  }
}

/** Whether JS's backtracking engine could take more than linear time: more than one unbounded or any quantified group, backreferences, lookarounds. */
function canBacktrack(source: string): boolean {
  if (/\\[1-9]|\\k<|\(\?<?[=!]/.test(source)) return true
  let unbounded = 0
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') {
      i++
      continue
    }
    if (inClass) {
      if (c === ']') inClass = false
      continue
    }
    if (c === '[') inClass = true
    else if ((c === '*' || c === '+' || c === '{' || c === '?') && source[i - 1] === ')') return true
    else if (c === '*' || c === '+' || (c === '{' && /^\{\d+,\}/.test(source.slice(i)))) unbounded++
  }
  return unbounded > 1
}

function compileQuery(query: AugmentQuery): QueryMatcher {
  if (query.mode === 'glob') {
    const g = globToRegExp(query.pattern, query.ignoreCase)
    return { file: (p) => (g.test(p) ? 50 : 0), symbol: () => 0, prefilter: globPrefilter(query.pattern, query.ignoreCase) }
  }
  const re = compilePattern(query.pattern, query)
  const file = (p: string): number => {
    const base = p.slice(p.lastIndexOf('/') + 1)
    const stem = base.includes('.') ? base.slice(0, base.indexOf('.')) : base
    if (re.whole(stem) || re.whole(base)) return 90
    if (re.find(base) >= 0) return 65
    return re.find(p) >= 0 ? 40 : 0
  }
  const symbol = (name: string, qualifiedName: string): number => {
    if (re.whole(name)) return 100
    const at = re.find(name)
    if (at >= 0) return at === 0 ? 80 : 70
    // `Class.method`-style patterns; a match inside one segment is the enclosing symbol's match
    if (qualifiedName !== name && re.find(qualifiedName) >= 0 && !qualifiedName.split('.').some((seg) => re.find(seg) >= 0)) return 60
    return 0
  }
  return { file, symbol, prefilter: re.prefilter }
}

/** A glob as an anchored RegExp over repository paths; a glob without `/` matches the file name at any depth. */
export function globToRegExp(glob: string, ignoreCase = false): RegExp {
  let g = glob.replace(/^\.\//, '')
  if (!g.includes('/')) g = `**/${g}`
  else if (g.startsWith('/')) g = g.slice(1)
  return new RegExp(`^${globSource(g)}$`, ignoreCase ? 'i' : '')
}

function globSource(g: string): string {
  let out = ''
  let braces = 0
  for (let i = 0; i < g.length; i++) {
    const c = g[i]
    if (c === '*') {
      if (g[i + 1] === '*') {
        const slash = g[i + 2] === '/'
        out += slash ? '(?:.*/)?' : '.*'
        i += slash ? 2 : 1
      } else out += '[^/]*'
    } else if (c === '?') out += '[^/]'
    else if (c === '[') {
      const end = g.indexOf(']', i + 2)
      if (end < 0) out += '\\['
      else {
        let cls = g.slice(i + 1, end)
        if (cls.startsWith('!')) cls = '^' + cls.slice(1)
        out += `[${cls.replace(/\\/g, '\\\\')}]`
        i = end
      }
    } else if (c === '{') {
      braces++
      out += '(?:'
    } else if (c === '}' && braces > 0) {
      braces--
      out += ')'
    } else if (c === ',' && braces > 0) out += '|'
    else if (c === '\\' && i + 1 < g.length) out += escapeRegExp(g[++i])
    else out += escapeRegExp(c)
  }
  return out + ')'.repeat(braces)
}

/** The glob's longest literal run as a prefilter over raw shard text (null: too short to help). */
function globPrefilter(glob: string, ignoreCase = false): RegExp | null {
  const runs = glob.split(/[*?[\]{},/]+/).filter((r) => !r.includes('\\'))
  const best = runs.reduce((a, b) => (b.length > a.length ? b : a), '')
  return best.length >= 3 ? new RegExp(escapeRegExp(best), ignoreCase ? 'i' : '') : null
}

/** `within` and `globs` as one predicate on repository-relative paths. */
function scopeFilter(query: AugmentQuery): (p: string) => boolean {
  const within = (query.within ?? []).map((w) => w.replace(/^(\.\/)+/, '').replace(/\/+$/, ''))
  // a search of the whole repository ('' or '.') among them lifts the restriction
  const roots = within.some((w) => w === '' || w === '.') ? [] : within
  const include: RegExp[] = []
  const exclude: RegExp[] = []
  for (const g of query.globs ?? []) {
    if (g.startsWith('!')) exclude.push(globToRegExp(g.slice(1)))
    else if (g !== '') include.push(globToRegExp(g))
  }
  return (p) =>
    (roots.length === 0 || roots.some((w) => p === w || p.startsWith(w + '/'))) &&
    (include.length === 0 || include.some((r) => r.test(p))) &&
    !exclude.some((r) => r.test(p))
}

// ---------------------------------------------------------------- rendering

/** The answer as a few plain lines per match, written for an LLM's context. */
export function renderAugment(result: { query: { pattern: string }; matches: AugmentMatch[]; total: number }, index: { head: string; note?: string | null }): string[] {
  const n = result.total
  const lines = [`gitwhy: history of what \`${result.query.pattern}\` matches (${n} match${n === 1 ? '' : 'es'}; index at ${index.head.slice(0, 7)}${index.note ? `, ${index.note}` : ''}):`]
  for (const m of result.matches) {
    lines.push(m.symbol ? `- ${m.symbol.kind} ${m.symbol.qualified_name}  ${m.path}:${m.symbol.line_start}-${m.symbol.line_end}` : `- file ${m.path}`)
    if (m.last_change) {
      const c = m.last_change.commit
      const pr = m.last_change.pull_request
      lines.push(`  last changed ${c.date.slice(0, 10)} by ${c.author} in ${c.short}${pr ? ` (PR #${pr.number})` : ''}: ${m.why}`)
      if (c.why) lines.push(`    ${c.why}`)
    } else lines.push('  not changed in the indexed history')
    const total = `${m.commits.total} commit${m.commits.total === 1 ? '' : 's'}${m.truncated ? ' (history cut: maybe more)' : ''}`
    lines.push(`  ${total}, ${m.commits.last_90_days} in the last 90 days`)
  }
  if (n > result.matches.length) lines.push(`… ${n - result.matches.length} more (\`gitwhy augment --limit 0\` lists all)`)
  return lines
}
