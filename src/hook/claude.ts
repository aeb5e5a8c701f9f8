import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { isatty } from 'node:tty'
import { gitDirsOf, headFromFiles } from '../git/git-dir.js'
import type { PathIndex } from '../history/path-index.js'
import { printable } from '../render.js'
import type { AugmentIndex, AugmentQuery } from '../services/augment.js'

/**
 * `gitwhy hook claude`: a Claude Code PreToolUse hook. When the agent searches the code (the Grep
 * and Glob tools, or rg / grep in a Bash command), it answers with the history of what the search
 * matches as `additionalContext`, next to the search results:
 *
 *   {"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"…"}}
 *
 * It never decides anything about the tool call (no permissionDecision) and never blocks it: any
 * other tool, a pattern too short to mean anything, no match, no git repository or no gitwhy
 * index, bad input, an error, or running past its deadline all end the same way: exit 0 and
 * nothing on stdout. It reads only the index's JSON caches (no git process, no database).
 *
 * Most events it sees are not searches (every Bash command comes through), so the code that
 * answers is imported only once an event turned out to be a search in an indexed repository.
 */

/**
 * The hook's time budget, in ms of its own work. Claude Code waits for the hook before running the
 * tool, so it must be quick; but what a quiet machine does in 170 ms from process start, a loaded
 * one spends on starting node alone (0.12–0.39 s measured on 2 busy cores), and a deadline counted
 * from process start then leaves nothing to answer with. So the deadline adapts: the observed
 * start-up cost (process start to the hook's first line, on performance.now()'s clock) plus a work
 * budget scaled by it, HOOK_BUDGET_MS on a machine that started in HOOK_NOMINAL_START_MS or less,
 * never past HOOK_MAX_MS. `GITWHY_HOOK_DEADLINE_MS` fixes the total from process start instead.
 */
export const HOOK_BUDGET_MS = 120
const HOOK_NOMINAL_START_MS = 60
const HOOK_MAX_MS = 1000
/** The deadline of a quiet machine, for help texts. */
export const HOOK_DEADLINE_MS = HOOK_NOMINAL_START_MS + HOOK_BUDGET_MS

/** The deadline (performance.now() ms) for a hook whose code started running at `startedAt`. */
export function hookDeadlineMs(startedAt = performance.now()): number {
  const fixed = Number(process.env.GITWHY_HOOK_DEADLINE_MS)
  if (Number.isFinite(fixed) && fixed > 0) return fixed
  const slowdown = Math.max(1, startedAt / HOOK_NOMINAL_START_MS)
  return Math.min(HOOK_MAX_MS, startedAt + HOOK_BUDGET_MS * slowdown)
}

/** Fewer literal characters in a row than this (once regex or glob syntax is dropped) is not worth an answer. */
export const MIN_LITERAL = 3
const MAX_EVENT_BYTES = 1 << 20

/** What a tool call searches for, before it is tied to a repository. */
export interface SearchIntent {
  tool: 'Grep' | 'Glob' | 'Bash'
  pattern: string
  mode: 'regex' | 'glob'
  ignoreCase: boolean
  fixed: boolean
  word: boolean
  /** The directory the search runs in (absolute): the event's cwd, after any `cd` in a Bash command. */
  cwd: string
  /** The files or directories searched, as given (relative to cwd or absolute); empty: cwd. */
  paths: string[]
  /** Path globs (`!` excludes), relative to the search directory. */
  globs: string[]
}

// ---------------------------------------------------------------- events

/** The search a PreToolUse event describes, or null (not a search, or not one worth answering). */
export function searchFromEvent(raw: string): SearchIntent | null {
  let event: unknown
  try {
    event = JSON.parse(raw)
  } catch {
    return null
  }
  if (!isObject(event) || !isObject(event.tool_input)) return null
  const input = event.tool_input
  const cwd = typeof event.cwd === 'string' && path.isAbsolute(event.cwd) ? event.cwd : process.cwd()
  let intent: SearchIntent | null = null
  switch (event.tool_name) {
    case 'Grep': {
      if (typeof input.pattern !== 'string') return null
      const globs = typeof input.glob === 'string' && input.glob !== '' ? splitGlobList(input.glob) : typeof input.type === 'string' ? typeGlobs(input.type) : []
      intent = { tool: 'Grep', pattern: input.pattern, mode: 'regex', ignoreCase: input['-i'] === true, fixed: false, word: false, cwd, paths: typeof input.path === 'string' && input.path !== '' ? [input.path] : [], globs }
      break
    }
    case 'Glob':
      if (typeof input.pattern !== 'string') return null
      intent = { tool: 'Glob', pattern: input.pattern, mode: 'glob', ignoreCase: false, fixed: false, word: false, cwd, paths: typeof input.path === 'string' && input.path !== '' ? [input.path] : [], globs: [] }
      break
    case 'Bash':
      if (typeof input.command !== 'string') return null
      intent = searchFromCommand(input.command, cwd)
      break
    default:
      return null
  }
  return intent && longestLiteral(intent) >= MIN_LITERAL ? intent : null
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The Grep tool's `glob` may hold several globs separated by spaces. */
function splitGlobList(glob: string): string[] {
  return glob.split(/\s+/).filter(Boolean)
}

/** The file types agents pass most (ripgrep's names), as globs. */
const TYPE_GLOBS: Record<string, string[]> = {
  js: ['*.js', '*.jsx', '*.mjs', '*.cjs', '*.vue'],
  ts: ['*.ts', '*.tsx', '*.cts', '*.mts'],
  py: ['*.py', '*.pyi'],
  go: ['*.go'],
  rust: ['*.rs'],
  java: ['*.java', '*.jsp'],
  md: ['*.md', '*.markdown', '*.mdx'],
  markdown: ['*.md', '*.markdown', '*.mdx'],
  json: ['*.json'],
  c: ['*.c', '*.h'],
  cpp: ['*.cpp', '*.cc', '*.cxx', '*.hpp', '*.hh', '*.h'],
  ruby: ['*.rb'],
  kotlin: ['*.kt', '*.kts'],
  swift: ['*.swift'],
}

function typeGlobs(type: string): string[] {
  return Object.hasOwn(TYPE_GLOBS, type) ? TYPE_GLOBS[type] : []
}

/**
 * The longest run of literal characters in the pattern once regex (or glob) syntax is dropped:
 * `\bfoo\b` → 3, `a.b` → 1, `**\/*.ts` → 2.
 */
export function longestLiteral(intent: Pick<SearchIntent, 'pattern' | 'mode' | 'fixed'>): number {
  if (intent.fixed) return intent.pattern.length
  if (intent.mode === 'glob') return Math.max(0, ...intent.pattern.split(/[*?[\]{},/.!]+/).map((r) => r.length))
  const p = intent.pattern
  let best = 0
  let run = 0
  // a run ends at any syntax; a quantifier after it makes its last character optional
  const end = (next: string) => {
    best = Math.max(best, '*?{'.includes(next) && next !== '' ? run - 1 : run)
    run = 0
  }
  for (let i = 0; i < p.length; i++) {
    const c = p[i]
    if (c === '\\') {
      const next = p[i + 1] ?? ''
      i++
      if (/[A-Za-z0-9]/.test(next)) end('') // \b \w \d \n \x41: not a literal character
      else run++ // \. \( \\: an escaped literal
    } else if (c === '[') {
      end(c)
      const close = p.indexOf(']', i + 2)
      i = close < 0 ? p.length : close
    } else if (c === '{') {
      end(c)
      const close = p.indexOf('}', i)
      i = close < 0 ? p.length : close
    } else if ('.*+?()|^$'.includes(c)) end(c)
    else run++
  }
  end('')
  return best
}

// ---------------------------------------------------------------- shell commands

type Token = { word: string } | { op: string }

/**
 * Shell words and operators, as far as a search command needs them: quotes, backslashes,
 * `$( … )` kept whole, redirections dropped with their targets, comments. Not a shell.
 */
export function shellTokens(command: string): Token[] {
  const out: Token[] = []
  let word: string | null = null
  let skipNext = false
  const push = () => {
    if (word === null) return
    if (skipNext) skipNext = false
    else out.push({ word })
    word = null
  }
  for (let i = 0; i < command.length; i++) {
    const c = command[i]
    if (c === ' ' || c === '\t') push()
    else if (c === '\\') {
      if (command[i + 1] === '\n') i++
      else word = (word ?? '') + (command[++i] ?? '')
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1)
      const stop = end < 0 ? command.length : end
      word = (word ?? '') + command.slice(i + 1, stop)
      i = stop
    } else if (c === '"') {
      let s = ''
      for (i++; i < command.length && command[i] !== '"'; i++) {
        if (command[i] === '\\' && '"\\$`\n'.includes(command[i + 1] ?? '')) s += command[++i] === '\n' ? '' : command[i]
        else s += command[i]
      }
      word = (word ?? '') + s
    } else if (c === '$' && command[i + 1] === '(') {
      let depth = 0
      let j = i + 1
      for (; j < command.length; j++) {
        if (command[j] === '(') depth++
        else if (command[j] === ')' && --depth === 0) break
      }
      word = (word ?? '') + command.slice(i, j + 1)
      i = j
    } else if (c === '#' && word === null) {
      const nl = command.indexOf('\n', i)
      i = nl < 0 ? command.length : nl - 1
    } else if (c === '>' || c === '<') {
      if (word !== null && /^\d+$/.test(word)) word = null // the fd of 2>…
      push()
      let j = i + 1
      while (j < command.length && '<>&|'.includes(command[j])) j++
      const op = command.slice(i, j)
      i = j - 1
      // `2>&1`, `>&2`: the target is the fd right after; otherwise the next word
      if (op.endsWith('&') && /\d/.test(command[j] ?? '')) {
        while (/\d/.test(command[i + 1] ?? '')) i++
      } else if (!op.startsWith('<<')) skipNext = true
    } else if (c === '&' && command[i + 1] === '>') {
      push()
      i++
      if (command[i + 1] === '>') i++
      skipNext = true
    } else if ('|&;()\n'.includes(c)) {
      push()
      const two = command.slice(i, i + 2)
      if (two === '&&' || two === '||' || two === '|&' || two === ';;') {
        out.push({ op: two })
        i++
      } else out.push({ op: c })
    } else word = (word ?? '') + c
  }
  push()
  return out
}

interface Simple {
  words: string[]
  /** The command reads a pipe: it is not the first of its pipeline. */
  piped: boolean
}

function simpleCommands(tokens: Token[]): Simple[] {
  const out: Simple[] = []
  let words: string[] = []
  let piped = false
  const end = (nextPiped: boolean) => {
    if (words.length > 0) out.push({ words, piped })
    words = []
    piped = nextPiped
  }
  for (const t of tokens) {
    if ('word' in t) words.push(t.word)
    else end(t.op === '|' || t.op === '|&')
  }
  end(false)
  return out
}

const WRAPPERS = new Set(['time', 'command', 'exec', 'nice', 'nohup', 'builtin'])

/** The first rg / grep / git grep in a shell command that searches files, as a search intent. */
export function searchFromCommand(command: string, cwd: string): SearchIntent | null {
  let dir = cwd
  for (const { words, piped } of simpleCommands(shellTokens(command))) {
    let i = 0
    while (i < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]) || WRAPPERS.has(words[i]) || words[i] === 'env')) i++
    const name = words[i] === undefined ? '' : path.basename(words[i])
    if (name === 'cd') {
      const target = words[i + 1]
      if (target !== undefined && target !== '-' && !target.startsWith('~') && !target.includes('$')) dir = path.resolve(dir, target)
      continue
    }
    let tool: 'rg' | 'grep' | 'git-grep' | null = null
    let args: string[] = []
    if (name === 'rg') tool = 'rg'
    else if (name === 'grep' || name === 'egrep' || name === 'fgrep') tool = 'grep'
    else if (name === 'git') {
      let j = i + 1
      while (j < words.length && words[j].startsWith('-')) j += words[j] === '-C' || words[j] === '-c' ? 2 : 1
      if (words[j] === 'grep') {
        tool = 'git-grep'
        args = words.slice(j + 1)
      }
    }
    if (!tool) continue
    if (tool !== 'git-grep') args = words.slice(i + 1)
    const parsed = parseSearchArgs(tool, args, name)
    if (!parsed) continue
    // without a path, grep reads stdin, and so does rg when it sits in a pipe
    const readsStdin = parsed.paths.length === 0 && (tool === 'grep' ? !parsed.recursive : tool === 'rg' && piped)
    if (readsStdin) continue
    const { recursive, ...search } = parsed
    return { tool: 'Bash', cwd: dir, ...search }
  }
  return null
}

const RG_VALUE_SHORT = new Set(['A', 'B', 'C', 'd', 'E', 'e', 'f', 'g', 'j', 'M', 'm', 'r', 't', 'T'])
const RG_VALUE_LONG = new Set([
  'regexp', 'file', 'glob', 'iglob', 'type', 'type-not', 'type-add', 'type-clear', 'after-context', 'before-context', 'context', 'max-count', 'max-columns',
  'threads', 'max-depth', 'maxdepth', 'encoding', 'replace', 'colors', 'color', 'sort', 'sortr', 'engine', 'pre', 'pre-glob', 'context-separator',
  'field-context-separator', 'field-match-separator', 'path-separator', 'ignore-file', 'max-filesize', 'dfa-size-limit', 'regex-size-limit', 'hyperlink-format', 'generate',
])
const GREP_VALUE_SHORT = new Set(['A', 'B', 'C', 'D', 'd', 'e', 'f', 'm'])
const GREP_VALUE_LONG = new Set(['regexp', 'file', 'max-count', 'after-context', 'before-context', 'context', 'directories', 'devices', 'include', 'exclude', 'exclude-dir', 'exclude-from', 'label', 'binary-files', 'group-separator', 'max-depth', 'threads'])

type ParsedSearch = Omit<SearchIntent, 'tool' | 'cwd'> & { recursive: boolean }

function parseSearchArgs(tool: 'rg' | 'grep' | 'git-grep', args: string[], name: string): ParsedSearch | null {
  const valueShort = tool === 'rg' ? RG_VALUE_SHORT : GREP_VALUE_SHORT
  const valueLong = tool === 'rg' ? RG_VALUE_LONG : GREP_VALUE_LONG
  const patterns: string[] = []
  const positional: string[] = []
  const globs: string[] = []
  const types: string[] = []
  let syntax: 'bre' | 'ere' | 'fixed' = tool === 'rg' ? 'ere' : name === 'egrep' ? 'ere' : name === 'fgrep' ? 'fixed' : 'bre'
  let ignoreCase = false
  let smartCase = false
  let word = false
  let recursive = tool !== 'grep'
  let listFiles = false
  const flag = (f: string, value: string | undefined): boolean => {
    switch (f) {
      case 'e': case 'regexp': patterns.push(value ?? ''); break
      case 'f': case 'file': return false // patterns from a file: unknown here
      case 'v': case 'invert-match': return false // searching for what does not match
      case 'i': case 'ignore-case': case 'y': ignoreCase = true; break
      case 'S': case 'smart-case': if (tool === 'rg') smartCase = true; break
      case 's': case 'case-sensitive': if (tool === 'rg') ignoreCase = smartCase = false; break
      case 'F': case 'fixed-strings': syntax = 'fixed'; break
      case 'E': case 'extended-regexp': if (tool !== 'rg') syntax = 'ere'; break
      case 'P': case 'perl-regexp': case 'pcre2': syntax = 'ere'; break
      case 'G': case 'basic-regexp': if (tool !== 'rg') syntax = 'bre'; break
      case 'w': case 'word-regexp': word = true; break
      case 'r': case 'R': case 'recursive': case 'dereference-recursive': if (tool !== 'rg') recursive = true; break
      case 'g': case 'glob': case 'iglob': globs.push(value ?? ''); break
      case 'include': globs.push(value ?? ''); break
      case 'exclude': globs.push(`!${value ?? ''}`); break
      case 't': case 'type': types.push(value ?? ''); break
      case 'files': listFiles = tool === 'rg'; break
    }
    return true
  }
  for (let k = 0; k < args.length; k++) {
    const a = args[k]
    if (a === '--') {
      positional.push(...args.slice(k + 1))
      break
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=')
      const f = eq < 0 ? a.slice(2) : a.slice(2, eq)
      let value: string | undefined = eq < 0 ? undefined : a.slice(eq + 1)
      if (value === undefined && valueLong.has(f)) value = args[++k]
      if (!flag(f, value)) return null
    } else if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const f = a[j]
        if (valueShort.has(f)) {
          const value = j + 1 < a.length ? a.slice(j + 1) : args[++k]
          if (!flag(f, value)) return null
          break
        }
        if (!flag(f, undefined)) return null
      }
    } else positional.push(a)
  }
  if (listFiles) {
    // `rg --files -g GLOB`: a file search by glob
    const include = globs.filter((g) => !g.startsWith('!'))
    if (include.length !== 1) return null
    return { pattern: include[0], mode: 'glob', ignoreCase: false, fixed: false, word: false, paths: positional, globs: [], recursive }
  }
  if (patterns.length === 0) {
    const p = positional.shift()
    if (p === undefined) return null
    patterns.push(p)
  }
  if (smartCase && !patterns.some((p) => /[A-Z]/.test(p))) ignoreCase = true
  const sources = patterns.map((p) => (syntax === 'bre' ? breToEre(p) : syntax === 'fixed' ? p : p.replace(/\\[<>]/g, '\\b')))
  const fixed = syntax === 'fixed' && sources.length === 1
  const pattern = sources.length === 1 ? sources[0] : sources.map((s) => `(?:${syntax === 'fixed' ? s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') : s})`).join('|')
  for (const t of types) globs.push(...typeGlobs(t))
  // git grep's pathspecs may be globs (`'*.ts'`); a shell has already expanded rg's and grep's
  const paths = tool === 'git-grep' ? positional.filter((p) => !/[*?[]/.test(p)) : positional
  if (tool === 'git-grep') globs.push(...positional.filter((p) => /[*?[]/.test(p)))
  return { pattern, mode: 'regex', ignoreCase, fixed, word, paths, globs, recursive }
}

/** A POSIX basic regex (grep's default) in extended syntax: `\|`, `\(`, `\+` … become operators, bare ones literals. */
export function breToEre(bre: string): string {
  let out = ''
  for (let i = 0; i < bre.length; i++) {
    const c = bre[i]
    if (c === '\\' && i + 1 < bre.length) {
      const n = bre[++i]
      if ('|(){}+?'.includes(n)) out += n
      else if (n === '<' || n === '>') out += '\\b'
      else out += '\\' + n
    } else if ('|(){}+?'.includes(c)) out += '\\' + c
    else out += c
  }
  return out
}

// ---------------------------------------------------------------- answering

/** The repository a directory is in: the nearest directory upwards holding `.git` (a directory, or a worktree's file). */
export function findRepoRoot(start: string): string | null {
  let dir = path.resolve(start)
  while (!existsSync(dir)) dir = path.dirname(dir)
  if (!statSync(dir).isDirectory()) dir = path.dirname(dir)
  for (;;) {
    if (existsSync(path.join(dir, '.git'))) return dir
    const up = path.dirname(dir)
    if (up === dir) return null
    dir = up
  }
}

/** The repository's active gitwhy index, read without git: null when there is none (or not a usable one). */
async function openIndex(root: string): Promise<AugmentIndex | null> {
  const metaFile = path.join(root, '.gitwhy', 'meta.json')
  if (!existsSync(metaFile)) return null
  const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { schemaVersion?: number; indexDir?: string; head?: string; manifest?: string; remote?: import('../history/remote.js').RemoteWeb | null; options?: { ignoreRevs?: string[] | null } }
  const [{ SCHEMA_VERSION }, { INDEX_FILES }, { PathIndex }, { loadCommitCatalog }, { checkOnOpen, damagedIndex }, { isTrusted }] = await Promise.all([
    import('../graph/schema.js'),
    import('../services/index-layout.js'),
    import('../history/path-index.js'),
    import('../history/commit-catalog.js'),
    import('../services/index-integrity.js'),
    import('../services/index-trust.js'),
  ])
  if (meta.schemaVersion !== SCHEMA_VERSION || typeof meta.indexDir !== 'string' || typeof meta.head !== 'string') return null
  const dir = path.join(root, '.gitwhy', meta.indexDir)
  // a damaged or unverified index is never read; the error only reaches GITWHY_HOOK_DEBUG's stderr
  const missing = INDEX_FILES.filter((f) => !existsSync(path.join(dir, f)))
  if (missing.length > 0) throw damagedIndex(dir, `${missing.join(', ')} missing`)
  checkOnOpen(dir, meta.manifest)
  if (!isTrusted(root, dir, meta.manifest)) throw new Error(`the index in ${dir} was not built on this machine: \`gitwhy analyze\` verifies it`)
  let paths: PathIndex | null = null
  return { dir, meta: { head: meta.head, options: meta.options }, pathIndex: () => (paths ??= PathIndex.open(dir)), commits: () => loadCommitCatalog(dir, meta.remote) }
}

/** The search as a query on a repository's index: paths and globs made repository-relative. */
export function queryFor(intent: SearchIntent, root: string): AugmentQuery | null {
  const base = intent.cwd
  const rel = (p: string): string | null => {
    const r = path.relative(root, path.resolve(base, p))
    return r.startsWith('..') || path.isAbsolute(r) ? null : r.split(path.sep).join('/')
  }
  const within: string[] = []
  for (const p of intent.paths.length > 0 ? intent.paths : ['.']) {
    const r = rel(p)
    if (r !== null) within.push(r)
  }
  if (within.length === 0) return null // every searched path is outside the repository
  // globs with a `/` are anchored at the search directory; rebase them on the repository root
  const searchDir = intent.paths.length === 1 ? within[0] : rel('.') ?? ''
  const anchor = (g: string) => {
    const neg = g.startsWith('!')
    let body = neg ? g.slice(1) : g
    if (path.isAbsolute(body)) {
      const r = rel(body)
      if (r === null) return null
      body = r
    } else if (body.includes('/') && searchDir !== '') body = `${searchDir}/${body.replace(/^\.\//, '')}`
    return (neg ? '!' : '') + body
  }
  let pattern = intent.pattern
  if (intent.mode === 'glob') {
    const anchored = anchor(pattern)
    if (anchored === null) return null
    pattern = anchored
  }
  const globs = intent.globs.map(anchor).filter((g): g is string => g !== null)
  return { pattern, mode: intent.mode, ignoreCase: intent.ignoreCase, fixed: intent.fixed, word: intent.word, within, globs }
}

/** The hook's whole answer to one event: the JSON line to print, or null to stay silent. */
export async function answerEvent(raw: string, options: { checkpoint?: () => void; now?: number } = {}): Promise<string | null> {
  const intent = searchFromEvent(raw)
  if (!intent) return null
  // the repository of what is searched (a Grep path may lie in another repository than cwd)
  const anchorPath = intent.paths[0] !== undefined ? path.resolve(intent.cwd, intent.paths[0]) : intent.cwd
  const root = findRepoRoot(anchorPath)
  if (!root) return null
  const query = queryFor(intent, root)
  if (!query) return null
  const [index, { augmentIndex, renderAugment }] = await Promise.all([openIndex(root), import('../services/augment.js')])
  if (!index) return null
  options.checkpoint?.()
  const result = augmentIndex(index, query, { checkpoint: options.checkpoint, now: options.now })
  if (result.matches.length === 0) return null
  const dirs = gitDirsOf(root)
  const head = dirs ? headFromFiles(dirs) : null
  const note = head && head !== index.meta.head ? 'HEAD has moved since: line numbers may be off; `gitwhy analyze` refreshes it' : null
  const lines = renderAugment({ query: { pattern: intent.pattern }, ...result }, { head: index.meta.head, note })
  lines.push('(`gitwhy evidence PATH:START-END` and `gitwhy history PATH` give the full history.)')
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: lines.map(printable).join('\n') } }) + '\n'
}

class DeadlinePassed extends Error {}

/**
 * Run the hook on this process's stdin/stdout and exit 0. `deadline` is in ms on the
 * performance.now() clock, whose origin is the process start.
 */
export async function runClaudeHook(deadline = hookDeadlineMs()): Promise<never> {
  const started = performance.now()
  const quit = (): never => process.exit(0)
  // stays armed until the process exits: a stuck read or write cannot outlive the deadline
  const timer = setTimeout(() => {
    if (process.env.GITWHY_HOOK_DEBUG) process.stderr.write(`gitwhy hook: deadline passed (${Math.round(deadline)} ms after process start; started at ${Math.round(started)} ms): no answer\n`)
    quit()
  }, Math.max(0, deadline - performance.now()))
  process.on('uncaughtException', quit)
  process.stdout.on('error', quit)
  try {
    const raw = isatty(0) ? '' : await readStdin()
    const checkpoint = () => {
      if (performance.now() > deadline) throw new DeadlinePassed(`deadline passed (${Math.round(deadline)} ms after process start; started at ${Math.round(started)} ms): no answer`)
    }
    const out = raw === '' ? null : await answerEvent(raw, { checkpoint })
    if (out !== null && performance.now() <= deadline) {
      clearTimeout(timer)
      process.stdout.write(out, quit)
      return await new Promise<never>(() => {})
    }
  } catch (error) {
    // silent by design: the agent's tool call goes on as if the hook were not there
    // (GITWHY_HOOK_DEBUG=1 says why on stderr, which Claude Code does not show the model)
    if (process.env.GITWHY_HOOK_DEBUG) process.stderr.write(`gitwhy hook: ${error instanceof DeadlinePassed ? error.message : ((error as Error)?.stack ?? String(error))}\n`)
  }
  if (process.env.GITWHY_HOOK_DEBUG) process.stderr.write(`gitwhy hook: no answer after ${Math.round(performance.now())} ms (started at ${Math.round(started)} ms, deadline ${Math.round(deadline)} ms)\n`)
  return quit()
}

/**
 * The event on stdin. process.stdin, not a read of fd 0 on libuv's thread pool: a read blocked
 * there (a writer that never closes the pipe) keeps process.exit() from ending the process.
 */
function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    process.stdin
      .on('data', (d: Buffer) => {
        size += d.length
        if (size > MAX_EVENT_BYTES) resolve('')
        else chunks.push(d)
      })
      .on('end', () => resolve(size > MAX_EVENT_BYTES ? '' : Buffer.concat(chunks).toString('utf8')))
      .on('error', () => resolve(''))
  })
}
