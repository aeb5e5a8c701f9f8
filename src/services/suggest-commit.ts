/**
 * `suggest-commit` (issue 15): a conventional-commit message for the staged change (or every
 * uncommitted one), from two kinds of evidence, and saying which decided:
 *
 * - the change itself: which kinds of files it touches (only tests, only docs, only CI, only
 *   dependency manifests and lockfiles), the symbols it adds, changes and removes — mapped the way
 *   `detect-changes` maps them (contextForPr: the indexed symbols a hunk overlaps), completed by a
 *   parse of both sides for what the index cannot know (new symbols, new files, and files the index
 *   is behind on) — and whether a new symbol is exported;
 * - the history of those files and symbols: how their earlier commits were labelled (conventional
 *   prefixes of their subjects; the index's categories for the unprefixed: formatting, bots,
 *   fixes by their words).
 *
 * The scope comes from the community of the changed symbols, else from the folder. The subject
 * names the changed symbols (imperative, at most 72 characters); the body lists them per file. An
 * LLM writes the words when one is configured (src/llm); when it declines, the extractive message
 * stands.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { git, gitBuffer } from '../git/run.js'
import { readBlobs } from '../git/tree.js'
import { FIX_SUBJECT } from '../analytics/risk.js'
import { isManifestPath, manifestDependencies } from '../knowledge/manifests.js'
import { loadSynthesizer, type EvidenceBlock, type SynthesisRequest, type Synthesizer } from '../llm/index.js'
import { installedLanguageRegistry, isTestPath, type ExtractedSymbol } from '../parse/index.js'
import { scrubSecrets } from '../text/scrub.js'
import { extractorFor } from '../trajectory/snapshot.js'
import { contextForPr, uncommittedFiles, type ChangedFile, type ContextForPrResult } from './context-for-pr.js'
import { evidence } from './evidence.js'
import { history } from './history.js'
import { symbolIds } from './index-layout.js'
import { IndexReader, withReader } from './index-reader.js'
import type { CommitRef, IndexInfo } from './types.js'
import { gitwhyDir } from './workspace.js'

export type FileKind = 'code' | 'test' | 'docs' | 'ci' | 'deps' | 'build' | 'other'

export interface CommitFile {
  path: string
  status: 'A' | 'M' | 'D' | 'R'
  old_path: string | null
  kind: FileKind
  /** In the index at its HEAD and unchanged since: its changed symbols are detect-changes' mapping. */
  mapped: boolean
  /** Symbols (qualified names; the outermost of nested ones) the change adds, changes, removes. */
  added: string[]
  changed: string[]
  removed: string[]
  /** Added symbols that are exported (new API). */
  exported: string[]
  /** A manifest's dependencies whose declaration the change adds, removes or changes. */
  dependencies: Array<{ name: string; from: string | null; to: string | null }>
}

export type CommitType = 'feat' | 'fix' | 'refactor' | 'perf' | 'style' | 'test' | 'docs' | 'ci' | 'build' | 'chore'

export interface HistoryLabels {
  /** Earlier commits of the changed files and symbols that were read. */
  commits: number
  /** Those whose label is known (a conventional prefix, or a category or words that say it). */
  labelled: number
  types: Record<string, number>
  /** The type most of the labelled ones have (at least 2 and half of them), or null. */
  majority: string | null
  /** Up to 3 commits of the majority type. */
  examples: Array<{ short: string; subject: string }>
}

export interface SuggestCommitResult {
  mode: 'staged' | 'worktree'
  /** The whole message: subject, a blank line, body. */
  message: string
  subject: string
  body: string
  type: CommitType
  scope: string | null
  /** Which evidence decided the type: the change, the history of the changed code, or both (they agree). */
  decided_by: 'change' | 'history' | 'change+history'
  /** Why, in words. */
  reasons: string[]
  /** What the change alone says. */
  change: { type: CommitType; reason: string }
  /** What the history of the changed files and symbols says. */
  history: HistoryLabels
  scope_from: 'community' | 'folder' | 'file' | 'deps' | null
  files: CommitFile[]
  /** `extractive`, or the synthesizer that wrote the message. */
  writer: string
  /** The LLM's part: what it was, or why it declined (null: none configured). */
  llm: { provider: string; model: string; cached: boolean } | { declined: string } | null
  index: IndexInfo
}

export interface SuggestCommitOptions {
  repo?: string
  reader?: IndexReader
  /** The staging area (the default). */
  staged?: boolean
  /** Every uncommitted change instead, untracked files too. */
  worktree?: boolean
  /** The LLM writer: undefined the configured one (`loadSynthesizer`), null none. */
  synthesizer?: Synthesizer | null
}

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'
const SUBJECT_MAX = 72
/** Files whose both sides are parsed (a bigger change lists the rest by path only). */
const PARSED_FILES = 200
const PARSE_MAX_BYTES = 1_000_000
/** Files and symbols whose history is read for their labels. */
const HISTORY_FILES = 10
const HISTORY_SYMBOLS = 5
const HISTORY_PER_TARGET = 40
const LIST_MAX = 8
const BODY_FILES = 30

// ---------------------------------------------------------------- kinds of files

const CI_PATH = /^(\.github\/(workflows|actions)\/|\.circleci\/|\.buildkite\/|\.gitlab\/ci\/)|(^|\/)(\.gitlab-ci\.ya?ml|\.travis\.ya?ml|azure-pipelines\.ya?ml|bitbucket-pipelines\.ya?ml|Jenkinsfile|appveyor\.ya?ml|\.drone\.ya?ml)$/
const LOCKFILES = new Set(['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lockb', 'Cargo.lock', 'go.sum', 'poetry.lock', 'Pipfile.lock', 'uv.lock', 'composer.lock', 'Gemfile.lock', 'mix.lock', 'pubspec.lock', 'Package.resolved', 'flake.lock'])
const DEPENDENCY_FILES = new Set(['Gemfile', 'Pipfile', 'composer.json', 'pubspec.yaml', 'mix.exs', '.github/dependabot.yml', 'renovate.json'])
const BUILD_FILES = /(^|\/)(Makefile|GNUmakefile|CMakeLists\.txt|Dockerfile|docker-compose\.ya?ml|compose\.ya?ml|build\.gradle(\.kts)?|settings\.gradle(\.kts)?|pom\.xml|meson\.build|BUILD(\.bazel)?|WORKSPACE|setup\.py|setup\.cfg|tsconfig[\w.-]*\.json|(webpack|rollup|vite|esbuild|babel|jest|vitest|tsup|turbo)\.config\.[cm]?[jt]s|\.npmrc|\.nvmrc|Cargo\.toml|go\.mod|pyproject\.toml|package\.json)$/
const DOC_EXT = /\.(md|mdx|markdown|rst|adoc|asciidoc|txt|org)$/i
const DOC_NAMES = /^(README|CHANGELOG|CHANGES|HISTORY|CONTRIBUTING|AUTHORS|LICEN[CS]E|NOTICE|COPYING|CODE_OF_CONDUCT|SECURITY)(\.\w+)?$/i

/** What a path is, before its content is read (a manifest may still turn out a dependency bump). */
function kindOf(p: string): FileKind {
  const base = path.posix.basename(p)
  if (CI_PATH.test(p)) return 'ci'
  if (LOCKFILES.has(base) || DEPENDENCY_FILES.has(base) || DEPENDENCY_FILES.has(p)) return 'deps'
  if (isManifestPath(p)) return 'build'
  if (isTestPath(p)) return 'test'
  if (DOC_EXT.test(p) || DOC_NAMES.test(base) || /(^|\/)docs?\/[^/]+\.(png|svg|jpe?g|gif)$/i.test(p)) return 'docs'
  if (BUILD_FILES.test(p)) return 'build'
  return installedLanguageRegistry().languageOf(p) ? 'code' : 'other'
}

// ---------------------------------------------------------------- the change, file by file

interface Side {
  text: string | null
  symbols: ExtractedSymbol[]
  keys: string[]
}

const NUL = 0

/** Both sides of every changed file, as text (null: absent, binary or too large). */
async function readSides(repo: string, mode: 'staged' | 'worktree', head: string | null, files: ChangedFile[]): Promise<Map<string, { old: string | null; new: string | null }>> {
  const out = new Map<string, { old: string | null; new: string | null }>()
  const names: string[] = []
  const want = (f: ChangedFile) => !/[\n\r]/.test(f.path) && !/[\n\r]/.test(f.old_path ?? '')
  const parsed = files.slice(0, PARSED_FILES).filter(want)
  for (const f of parsed) {
    out.set(f.path, { old: null, new: null })
    if (head && f.status !== 'A') names.push(`${head}:${f.old_path ?? f.path}`)
    if (mode === 'staged' && f.status !== 'D') names.push(`:${f.path}`)
  }
  const text = (b: Buffer) => (b.length > PARSE_MAX_BYTES || b.subarray(0, 8000).includes(NUL) ? null : b.toString('utf8'))
  const blobs = new Map<string, string | null>()
  await readBlobs(repo, names, (name, content) => blobs.set(name, text(content)))
  for (const f of parsed) {
    const sides = out.get(f.path)!
    if (head && f.status !== 'A') sides.old = blobs.get(`${head}:${f.old_path ?? f.path}`) ?? null
    if (f.status === 'D') continue
    if (mode === 'staged') sides.new = blobs.get(`:${f.path}`) ?? null
    else {
      try {
        sides.new = text(readFileSync(path.join(repo, f.path)))
      } catch {
        sides.new = null
      }
    }
  }
  return out
}

/** Keys that pair a symbol across both sides: its qualified name (with ~2 for a second of the same name). */
function side(p: string, text: string | null, extract: (p: string, t: string) => ExtractedSymbol[]): Side {
  if (text === null) return { text, symbols: [], keys: [] }
  const symbols = extract(p, text).filter((s) => s.kind !== 'module')
  return { text, symbols, keys: symbolIds({ path: '', symbols }).map((id) => id.slice(1)) }
}

const symbolText = (s: Side, i: number) => (s.text ?? '').split('\n').slice(s.symbols[i].startLine - 1, s.symbols[i].endLine).map((l) => l.trimEnd()).join('\n')

/** Names without those nested in another of the same list or of `outer` (a class's methods under the class). */
function outermost(names: string[], outer: Iterable<string> = []): string[] {
  const all = [...names, ...outer]
  return names.filter((n) => !all.some((o) => o !== n && n.startsWith(`${o.replace(/~\d+$/, '')}.`)))
}

/** Lines of a side a flat hunk list touches: [work side start, end, base side start, end, ...] 0-based half-open. */
function touchedLines(hunks: number[] | null, which: 'new' | 'old'): number[] {
  if (!hunks) return []
  const out: number[] = []
  const at = which === 'new' ? 0 : 2
  for (let i = 0; i < hunks.length; i += 4) for (let l = hunks[i + at]; l < hunks[i + at + 1]; l++) out.push(l + 1)
  return out
}

/** A manifest whose every changed line declares a dependency (blank lines and brackets aside): a dependency bump. */
function dependencyChange(p: string, oldText: string | null, newText: string | null, hunks: number[] | null): CommitFile['dependencies'] | null {
  if (!isManifestPath(p) || oldText === null || newText === null) return null
  const before = manifestDependencies(p, oldText)
  const after = manifestDependencies(p, newText)
  const trivial = (text: string, line: number) => /^[\s{}[\](),]*$/.test(text.split('\n')[line - 1] ?? '')
  const declares = (deps: typeof before, text: string, lines: number[]) => lines.every((l) => deps.some((d) => d.line === l) || trivial(text, l))
  const added = touchedLines(hunks, 'new')
  const removed = touchedLines(hunks, 'old')
  if (added.length + removed.length === 0 || !declares(after, newText, added) || !declares(before, oldText, removed)) return null
  const was = new Map(before.map((d) => [d.name, d.version]))
  const now = new Map(after.map((d) => [d.name, d.version]))
  const out: CommitFile['dependencies'] = []
  for (const name of [...new Set([...was.keys(), ...now.keys()])].sort()) {
    const from = was.get(name) ?? null
    const to = now.get(name) ?? null
    if (from !== to) out.push({ name, from, to })
  }
  return out.length > 0 ? out : null
}

interface FileFacts {
  file: CommitFile
  /** Changed symbols whose declaration line (signature) differs: a refactor's sign. */
  signatures: number
}

async function describeFiles(reader: IndexReader, mode: 'staged' | 'worktree', head: string | null, changed: ChangedFile[], mapping: Pick<ContextForPrResult, 'files'>, behind: Set<string> | null): Promise<FileFacts[]> {
  const sides = await readSides(reader.repo, mode, head, changed)
  const ex = await extractorFor([...sides.keys()])
  const extract = (p: string, t: string) => ex.extract(p, t)
  const mapped = new Map(mapping.files.map((f) => [f.path, f]))
  return changed.map((c): FileFacts => {
    const status = (c.status === 'A' || c.status === 'D' || c.status === 'R' ? c.status : 'M') as CommitFile['status']
    let kind = kindOf(c.path)
    const file: CommitFile = { path: c.path, status, old_path: c.old_path, kind, mapped: false, added: [], changed: [], removed: [], exported: [], dependencies: [] }
    const texts = sides.get(c.path)
    if (!texts) return { file, signatures: 0 }
    const deps = dependencyChange(c.path, texts.old, texts.new, c.hunks)
    if (deps) {
      file.kind = kind = 'deps'
      file.dependencies = deps
      return { file, signatures: 0 }
    }
    if (kind !== 'code' && kind !== 'test') return { file, signatures: 0 }
    const before = side(c.path, texts.old, extract)
    const after = side(c.path, texts.new, extract)
    const oldKeys = new Set(before.keys)
    const newKeys = new Set(after.keys)
    const added = after.keys.filter((k) => !oldKeys.has(k))
    const removed = before.keys.filter((k) => !newKeys.has(k))
    // detect-changes' mapping where the index holds this file as HEAD has it; else both sides compared
    const indexedPath = reader.file(c.path) ? c.path : c.old_path && reader.file(c.old_path) ? c.old_path : null
    const map = mapped.get(c.path)
    let changedKeys: string[]
    if (map && indexedPath && behind !== null && !behind.has(indexedPath)) {
      file.mapped = true
      const names = new Set(map.symbols.map((s) => s.qualified_name))
      changedKeys = after.keys.filter((k) => oldKeys.has(k) && names.has(k.replace(/~\d+$/, '')))
    } else {
      const oldAt = new Map(before.keys.map((k, i) => [k, i]))
      changedKeys = after.keys.filter((k, i) => oldAt.has(k) && symbolText(after, i) !== symbolText(before, oldAt.get(k)!))
    }
    file.added = outermost(added)
    file.removed = outermost(removed)
    file.changed = outermost(changedKeys, [...added, ...removed])
    const addedSet = new Set(file.added)
    file.exported = after.keys.filter((k, i) => addedSet.has(k) && after.symbols[i].exported)
    const signatureOf = (s: Side, k: string) => s.symbols[s.keys.indexOf(k)]?.signature ?? ''
    const signatures = changedKeys.filter((k) => signatureOf(before, k) !== signatureOf(after, k)).length
    const clean = (names: string[]) => names.map((n) => n.replace(/~\d+$/, ''))
    file.added = clean(file.added)
    file.removed = clean(file.removed)
    file.changed = clean(file.changed)
    file.exported = clean(file.exported)
    return { file, signatures }
  })
}

// ---------------------------------------------------------------- the history's labels

const KNOWN_TYPES = new Set(['feat', 'fix', 'refactor', 'perf', 'style', 'test', 'docs', 'ci', 'build', 'chore', 'revert'])
const TYPE_ALIASES: Record<string, string> = { feature: 'feat', features: 'feat', bugfix: 'fix', hotfix: 'fix', fixes: 'fix', tests: 'test', doc: 'docs', refactoring: 'refactor', performance: 'perf', deps: 'chore' }
const CONVENTIONAL = /^\s*([A-Za-z]+)(?:\(([^)]*)\))?!?:\s/

/** A commit's label: its conventional prefix, else what its category or words say (formatting, a bot, a fix), else null. */
export function commitLabel(c: Pick<CommitRef, 'subject' | 'category'>): { type: string; scope: string | null } | null {
  if (c.category === 'merge') return null
  const m = CONVENTIONAL.exec(c.subject)
  if (m) {
    const t = m[1].toLowerCase()
    const type = TYPE_ALIASES[t] ?? t
    if (KNOWN_TYPES.has(type)) return { type, scope: m[2]?.trim().toLowerCase() || null }
  }
  if (c.category === 'formatting') return { type: 'style', scope: null }
  if (c.category === 'bot') return { type: 'chore', scope: null }
  if (c.category === 'revert' || c.category === 'initial') return null
  if (FIX_SUBJECT.test(c.subject)) return { type: 'fix', scope: null }
  return null
}

/** The earlier commits of the changed files (and of the changed symbols' lines), labelled. */
async function historyLabels(reader: IndexReader, files: CommitFile[]): Promise<{ labels: HistoryLabels; depsTypes: Record<string, number> }> {
  const commits = new Map<string, CommitRef>()
  const take = (list: Array<{ commit: CommitRef }>) => {
    for (const e of list.slice(0, HISTORY_PER_TARGET)) commits.set(e.commit.sha, e.commit)
  }
  const indexed = files.map((f) => (reader.file(f.path) ? f.path : f.old_path && reader.file(f.old_path) ? f.old_path : null)).filter((p): p is string => p !== null)
  for (const p of indexed.slice(0, HISTORY_FILES)) {
    try {
      take((await history({ reader, path: p, limit: 0 })).evidence)
    } catch {
      // not in the indexed history after all
    }
  }
  const symbols = files.filter((f) => f.mapped).flatMap((f) => f.changed.map((name) => `${f.path}:${name}`))
  for (const s of symbols.slice(0, HISTORY_SYMBOLS)) {
    try {
      take((await evidence({ reader, symbol: s, limit: 0 })).evidence)
    } catch {
      // a name the resolver finds ambiguous: the file's history already counts
    }
  }
  const types: Record<string, number> = {}
  const depsTypes: Record<string, number> = {}
  const byType = new Map<string, CommitRef[]>()
  let labelled = 0
  const newestFirst = [...commits.values()].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0))
  for (const c of newestFirst) {
    const label = commitLabel(c)
    if (!label) continue
    labelled++
    types[label.type] = (types[label.type] ?? 0) + 1
    if (label.scope === 'deps' || label.scope === 'deps-dev') depsTypes[label.type] = (depsTypes[label.type] ?? 0) + 1
    byType.set(label.type, [...(byType.get(label.type) ?? []), c])
  }
  const top = Object.entries(types).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]
  const majority = top && top[1] >= 2 && top[1] * 2 >= labelled && !(Object.values(types).filter((n) => n === top[1]).length > 1) ? top[0] : null
  const examples = majority ? (byType.get(majority) ?? []).slice(0, 3).map((c) => ({ short: c.sha.slice(0, 7), subject: scrubSecrets(c.subject) })) : []
  return { labels: { commits: commits.size, labelled, types, majority, examples }, depsTypes }
}

// ---------------------------------------------------------------- type and scope

function decideType(facts: FileFacts[], whitespaceOnly: boolean): { type: CommitType; reason: string } {
  const files = facts.map((f) => f.file)
  const named = (fs: CommitFile[]) => `${fs.slice(0, 3).map((f) => f.path).join(', ')}${fs.length > 3 ? `, +${fs.length - 3} more` : ''}`
  const every = (k: FileKind) => files.every((f) => f.kind === k)
  if (every('test')) return { type: 'test', reason: `every changed file is a test (${named(files)})` }
  if (every('docs')) return { type: 'docs', reason: `every changed file is documentation (${named(files)})` }
  if (every('ci')) return { type: 'ci', reason: `every changed file is CI configuration (${named(files)})` }
  if (every('deps')) return { type: 'chore', reason: `only dependency manifests and lockfiles changed, their dependency declarations only (${named(files)})` }
  if (files.every((f) => f.kind === 'deps' || f.kind === 'build')) return { type: 'build', reason: `only build files and manifests changed (${named(files)})` }
  if (whitespaceOnly && files.every((f) => f.status === 'M')) return { type: 'style', reason: 'only whitespace changed' }
  const code = facts.filter((f) => f.file.kind === 'code')
  if (code.length === 0) {
    if (files.every((f) => f.kind === 'test' || f.kind === 'docs')) return { type: 'test', reason: `tests with their documentation, no source file (${named(files)})` }
    return { type: 'chore', reason: `no source file changed (${named(files)})` }
  }
  const api = code.filter((f) => f.file.exported.length > 0)
  if (api.length > 0) return { type: 'feat', reason: `new exported ${api.flatMap((f) => f.file.exported.map((s) => `${s} in ${f.file.path}`)).slice(0, 3).join(', ')}` }
  const fresh = code.filter((f) => f.file.status === 'A')
  if (fresh.length > 0) return { type: 'feat', reason: `new source file${fresh.length > 1 ? 's' : ''} ${named(fresh.map((f) => f.file))}` }
  const renamed = code.filter((f) => f.file.status === 'R')
  const removed = code.flatMap((f) => f.file.removed)
  const signatures = code.reduce((n, f) => n + f.signatures, 0)
  if (renamed.length > 0 || removed.length > 0 || signatures > 0) {
    const signs = [renamed.length ? `${renamed.length} file${renamed.length > 1 ? 's' : ''} renamed` : '', removed.length ? `${removed.slice(0, 3).join(', ')} removed` : '', signatures ? `${signatures} signature${signatures > 1 ? 's' : ''} changed` : ''].filter(Boolean)
    return { type: 'refactor', reason: `no new API, and the code's shape changed: ${signs.join('; ')}` }
  }
  const changed = code.flatMap((f) => f.file.changed)
  return { type: 'fix', reason: changed.length ? `only the bodies of existing code changed (${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ', …' : ''}), no new API` : 'existing code changed, no new API' }
}

/** Folder names that say nothing as a scope. */
const GENERIC = new Set(['src', 'lib', 'libs', 'app', 'apps', 'pkg', 'packages', 'internal', 'cmd', 'source', 'sources', 'main', 'java', 'kotlin', 'python', 'js', 'ts', 'test', 'tests', 'spec', 'specs', '__tests__', 'index', 'mod', 'core', 'docs', 'doc', '.github', 'workflows'])

const scopeWord = (s: string) => s.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 24)

/** The most specific telling name on a path: a folder (or a file's stem, test and spec suffixes off) that is not `src`, `lib`, … */
function scopeOfPath(p: string, file: boolean): string | null {
  const parts = p.split('/').filter(Boolean)
  if (file && parts.length > 0) parts[parts.length - 1] = parts[parts.length - 1].replace(/\.[^.]+$/, '').replace(/([._-](test|spec)s?|^test_)$/i, '').replace(/^test_/, '')
  for (let i = parts.length - 1; i >= 0; i--) {
    const w = scopeWord(parts[i])
    if (w && !GENERIC.has(w)) return w
  }
  return null
}

/** The scope: `deps` for a bump, else the changed symbols' community (most of them in one), else the folder, else the file. */
export function decideScope(type: CommitType, files: CommitFile[], mapping: Pick<ContextForPrResult, 'communities'>): { scope: string | null; from: SuggestCommitResult['scope_from'] } {
  if (files.every((f) => f.kind === 'deps')) return { scope: 'deps', from: 'deps' }
  // the changed symbols' community, when most of them are in one
  const total = mapping.communities.reduce((n, c) => n + c.symbols, 0)
  const top = [...mapping.communities].sort((a, b) => b.symbols - a.symbols)[0]
  if (top && total > 0 && top.symbols * 5 >= total * 3 && type !== 'ci' && type !== 'docs') {
    // a label is `file-or-folder: name words`, or either alone (communities.ts), ` (2)` for a second of the same
    const label = top.label.replace(/\s\(\d+\)$/, '')
    const colon = label.indexOf(': ')
    const where = colon >= 0 ? label.slice(0, colon) : label.includes('/') || /\.\w+$/.test(label) ? label : null
    const words = colon >= 0 ? label.slice(colon + 2) : where === null ? label : ''
    const word = (where !== null ? scopeOfPath(where, /\.\w+$/.test(where)) : null) ?? (words ? scopeWord(words.split(/[,\s]+/)[0] ?? '') : null)
    if (word) return { scope: word, from: 'community' }
  }
  const main = files.filter((f) => f.kind === 'code').length > 0 ? files.filter((f) => f.kind === 'code') : files
  const dirs = main.map((f) => f.path.split('/').slice(0, -1))
  const common: string[] = []
  for (let i = 0; dirs.every((d) => i < d.length && d[i] === dirs[0][i]); i++) common.push(dirs[0][i])
  const folder = common.length ? scopeOfPath(common.join('/'), false) : null
  if (folder) return { scope: folder, from: 'folder' }
  const stems = [...new Set(main.map((f) => scopeOfPath(f.path, true)))]
  if (stems.length === 1 && stems[0]) return { scope: stems[0], from: 'file' }
  return { scope: null, from: null }
}

// ---------------------------------------------------------------- the words

/** "a", "a and b", "a, b and c", "a, b and 3 more": as many names as fit in `room` characters. */
function fitNames(names: string[], room: number): string {
  const list = (xs: string[], more: number) => {
    const all = more > 0 ? [...xs, `${more} more`] : xs
    return all.length === 1 ? all[0] : `${all.slice(0, -1).join(', ')} and ${all[all.length - 1]}`
  }
  for (let k = names.length; k >= 1; k--) {
    const text = list(names.slice(0, k), names.length - k)
    if (text.length <= room) return text
  }
  const one = list(names.slice(0, 1), names.length - 1)
  return one.length <= room ? one : `${one.slice(0, Math.max(1, room - 1))}…`
}

const stem = (p: string) => path.posix.basename(p).replace(/\.(md|mdx|markdown|rst|adoc|txt)$/i, '')
const testStem = (p: string) => scopeOfPath(p, true) ?? path.posix.basename(p)
const uniq = (xs: string[]) => [...new Set(xs)]

function subjectOf(type: CommitType, scope: string | null, facts: FileFacts[]): string {
  const prefix = `${type}${scope ? `(${scope})` : ''}: `
  const files = facts.map((f) => f.file)
  const code = files.filter((f) => f.kind === 'code')
  const say = (verb: string, names: string[], suffix = '') => {
    const room = SUBJECT_MAX - prefix.length - verb.length - 1 - suffix.length
    return `${prefix}${verb} ${fitNames(names.length ? names : ['changes'], room)}${suffix}`
  }
  const basenames = (fs: CommitFile[]) => uniq(fs.map((f) => path.posix.basename(f.path)))
  switch (type) {
    case 'feat': {
      const api = code.flatMap((f) => f.exported)
      const fresh = code.filter((f) => f.status === 'A' && f.exported.length === 0).map((f) => stem(f.path))
      return say('add', uniq([...api, ...fresh]).length ? uniq([...api, ...fresh]) : uniq(code.flatMap((f) => f.added)))
    }
    case 'fix':
    case 'perf': {
      const names = uniq(code.flatMap((f) => [...f.changed, ...f.added]))
      return say(type === 'fix' ? 'fix' : 'speed up', names.length ? names : basenames(code))
    }
    case 'refactor': {
      const changed = uniq(code.flatMap((f) => [...f.changed, ...f.added]))
      const removed = uniq(code.flatMap((f) => f.removed))
      const renamed = code.filter((f) => f.status === 'R')
      if (changed.length === 0 && removed.length > 0) return say('remove', removed)
      if (changed.length === 0 && removed.length === 0 && renamed.length === 1) return say('rename', [`${path.posix.basename(renamed[0].old_path ?? '')} to ${path.posix.basename(renamed[0].path)}`])
      if (changed.length === 0 && removed.length === 0 && renamed.length > 1) return say('move', basenames(renamed))
      return say('refactor', uniq([...changed, ...removed]))
    }
    case 'style':
      return say('format', uniq(files.flatMap((f) => f.changed)).length ? uniq(files.flatMap((f) => f.changed)) : basenames(files))
    case 'test': {
      const tests = files.filter((f) => f.kind === 'test')
      return say(tests.every((f) => f.status === 'A') ? 'add tests for' : 'update tests for', uniq(tests.map((f) => testStem(f.path))))
    }
    case 'docs':
      return say(files.every((f) => f.status === 'A') ? 'add' : 'update', uniq(files.map((f) => stem(f.path))))
    case 'ci':
      return say('update', uniq(files.map((f) => stem(f.path).replace(/\.ya?ml$/, ''))), ' workflow')
    case 'chore':
    case 'build': {
      const deps = files.flatMap((f) => f.dependencies)
      if (deps.length === 1) {
        const d = deps[0]
        if (d.from !== null && d.to !== null) return say('bump', [`${d.name} from ${d.from} to ${d.to}`])
        if (d.to !== null) return say('add', [`${d.name} ${d.to}`])
        return say('remove', [d.name])
      }
      if (deps.length > 1) return say('bump', uniq(deps.map((d) => d.name)))
      if (files.every((f) => LOCKFILES.has(path.posix.basename(f.path)))) return say('refresh', basenames(files))
      return say('update', basenames(files))
    }
  }
}

function bodyOf(files: CommitFile[]): string {
  const names = (xs: string[]) => (xs.length > LIST_MAX ? `${xs.slice(0, LIST_MAX).join(', ')} and ${xs.length - LIST_MAX} more` : xs.join(', '))
  const lines = files.slice(0, BODY_FILES).map((f) => {
    const note = f.status === 'A' ? ' (new file)' : f.status === 'D' ? ' (deleted)' : f.status === 'R' ? ` (renamed from ${f.old_path})` : ''
    const parts = [
      f.added.length ? `added ${names(f.added)}` : '',
      f.changed.length ? `changed ${names(f.changed)}` : '',
      f.removed.length ? `removed ${names(f.removed)}` : '',
      ...f.dependencies.slice(0, LIST_MAX).map((d) => (d.from !== null && d.to !== null ? `${d.name} ${d.from} → ${d.to}` : d.to !== null ? `added ${d.name} ${d.to}` : `removed ${d.name}`)),
      f.dependencies.length > LIST_MAX ? `${f.dependencies.length - LIST_MAX} more dependencies` : '',
    ].filter(Boolean)
    return `- ${f.path}${note}${parts.length ? `: ${parts.join('; ')}` : ''}`
  })
  if (files.length > BODY_FILES) lines.push(`- … and ${files.length - BODY_FILES} more files`)
  return lines.join('\n')
}

// ---------------------------------------------------------------- the LLM's words

const MAX_DIFF_CHARS = 16_000

/** The model's message, checked: a conventional subject of at most 72 characters with our type and scope, or why not. */
export function acceptSynthesized(text: string, prefix: string, evidenceIds: string[]): { subject: string; body: string } | { declined: string } {
  let t = text.replace(/^```\w*\n?|\n?```\s*$/g, '').trim()
  for (const id of evidenceIds) t = t.split(`[${id}]`).join('')
  const lines = t.split('\n').map((l) => l.replace(/[ \t]+$/, ''))
  const first = lines.findIndex((l) => l.trim() !== '')
  if (first < 0) return { declined: 'the model wrote nothing' }
  let subject = lines[first].trim().replace(/\.$/, '')
  const m = /^[a-z]+(?:\([^)]*\))?!?:\s+(.+)$/.exec(subject)
  if (!m) return { declined: 'the model\'s first line is not a conventional commit subject' }
  // the type and scope are the evidence's: the model's words keep them
  subject = `${prefix}${m[1]}`
  if (subject.length > SUBJECT_MAX) return { declined: `the model's subject is longer than ${SUBJECT_MAX} characters` }
  const body = lines.slice(first + 1).join('\n').trim()
  return { subject, body }
}

async function synthesize(synth: Synthesizer, repo: string, mode: 'staged' | 'worktree', head: string | null, prefix: string, extractive: { subject: string; body: string }, history: HistoryLabels, reasons: string[]): Promise<{ subject: string; body: string; llm: NonNullable<SuggestCommitResult['llm']> }> {
  const diff = (await gitBuffer(repo, ['-c', 'core.quotePath=false', 'diff', ...(mode === 'staged' ? ['--cached'] : []), '--no-color', '--no-ext-diff', '-M', head ?? EMPTY_TREE, '--'])).stdout.toString('utf8')
  const evidence: EvidenceBlock[] = [
    { id: 'change', text: `${extractive.subject}\n\n${extractive.body}` },
    { id: 'diff', text: diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n… (diff cut)` : diff },
    ...history.examples.map((e) => ({ id: e.short, text: e.subject })),
  ]
  const request: SynthesisRequest = {
    task: 'commit-message',
    subject: `the ${mode} change: ${extractive.subject}`,
    instructions: [
      `Write the git commit message for this change. First line: "${prefix}" then an imperative summary that names the changed symbols, at most ${SUBJECT_MAX} characters in all, no final period.`,
      'Then a blank line and a short body: what changed, per file where it helps, as "- " lines; say why when the diff shows it. Nothing else: no citations, no code fences.',
      `The type and scope were decided from the change and from how earlier changes to this code were labelled: ${reasons.join('; ')}.`,
    ].join('\n'),
    evidence,
    maxOutputTokens: 400,
  }
  const r = await synth.synthesize(request).catch((error: unknown) => ({ ok: false as const, reason: `error: ${(error as Error)?.message ?? String(error)}` }))
  if (!r.ok) return { ...extractive, llm: { declined: r.reason } }
  const accepted = acceptSynthesized(r.text, prefix, evidence.map((e) => e.id))
  if ('declined' in accepted) return { ...extractive, llm: accepted }
  return { subject: accepted.subject, body: accepted.body || extractive.body, llm: { provider: r.provider, model: r.model, cached: r.cached } }
}

// ---------------------------------------------------------------- the answer

export async function suggestCommit(options: SuggestCommitOptions): Promise<SuggestCommitResult> {
  if (options.staged && options.worktree) throw new UserError('pass one of --staged, --worktree, not both', 'drop one of them (--staged is the default)', 'usage')
  const mode = options.worktree ? 'worktree' : 'staged'
  return withReader(options, async (reader) => {
    const repo = reader.repo
    const { stdout, code } = await gitBuffer(repo, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { okCodes: [1, 128] })
    const head = code === 0 ? stdout.toString('utf8').trim() : null
    // what `git commit` would record: against HEAD, not the indexed HEAD
    const changed = await uncommittedFiles(repo, head ?? EMPTY_TREE, mode === 'staged')
    if (changed.length === 0) {
      throw mode === 'staged'
        ? new UserError(`nothing is staged in ${repo}`, 'stage what the commit should hold (`git add PATH`, or `git add -p` for parts of files) and run suggest-commit again; --worktree suggests a message for the unstaged changes', 'nothing_staged')
        : new UserError(`no uncommitted changes in ${repo}`, 'edit some files first (suggest-commit describes uncommitted changes)', 'no_changes')
    }
    // detect-changes' mapping (against the indexed HEAD, where the index's symbols are); a file the index is behind on is compared side by side instead
    let mapping: Pick<ContextForPrResult, 'files' | 'communities'>
    let behind: Set<string> | null
    try {
      mapping = await contextForPr({ reader, staged: mode === 'staged', worktree: mode === 'worktree', symbolLimit: 0, limit: 1 })
      behind = await changedSinceIndex(repo, reader.meta.head, head)
    } catch {
      // the indexed HEAD is gone from the repository (history rewritten): every file side by side
      mapping = { files: [], communities: [] }
      behind = null
    }
    const facts = await describeFiles(reader, mode, head, changed, mapping, behind)
    const files = facts.map((f) => f.file)
    const whitespaceOnly = head !== null && (await gitBuffer(repo, ['diff', ...(mode === 'staged' ? ['--cached'] : []), '--no-ext-diff', '--no-textconv', '--quiet', '-w', '--ignore-blank-lines', head, '--'], { okCodes: [1] })).code === 0 && files.every((f) => f.status === 'M')
    const change = decideType(facts, whitespaceOnly)
    const { labels, depsTypes } = await historyLabels(reader, files)
    let type = change.type
    let decidedBy: SuggestCommitResult['decided_by'] = 'change'
    const reasons = [`the change: ${change.reason}`]
    const said = labels.majority ? `${labels.types[labels.majority]} of the ${labels.labelled} labelled earlier commits of these files and symbols are ${labels.majority}${labels.examples.length ? ` (e.g. ${labels.examples.map((e) => `${e.short} "${e.subject}"`).slice(0, 2).join(', ')})` : ''}` : null
    if ((change.type === 'fix' || change.type === 'refactor') && labels.majority && ['fix', 'refactor', 'perf'].includes(labels.majority)) {
      decidedBy = labels.majority === change.type ? 'change+history' : 'history'
      type = labels.majority as CommitType
      reasons.push(`the history: ${said}${decidedBy === 'history' ? `, which outweighs the change's ${change.type}` : ''}`)
    } else if (files.every((f) => f.kind === 'deps') && (depsTypes.build ?? 0) > (depsTypes.chore ?? 0)) {
      type = 'build'
      decidedBy = 'change+history'
      reasons.push(`the history: dependency bumps of these files were labelled build(deps) (${depsTypes.build} of ${(depsTypes.build ?? 0) + (depsTypes.chore ?? 0)})`)
    } else if (said) {
      if (labels.majority === change.type) decidedBy = 'change+history'
      reasons.push(`the history: ${said}${labels.majority === change.type ? '' : `; the change decides (${change.type})`}`)
    } else {
      reasons.push(`the history: ${labels.commits === 0 ? 'no earlier commits of these files in the index' : `no label most of the ${labels.labelled} labelled of ${labels.commits} earlier commits share`}`)
    }
    const { scope, from } = decideScope(type, files, mapping)
    const prefix = `${type}${scope ? `(${scope})` : ''}: `
    const extractive = { subject: subjectOf(type, scope, facts), body: bodyOf(files) }
    const synth = options.synthesizer !== undefined ? options.synthesizer : await loadSynthesizer(gitwhyDir(repo))
    const written = synth ? await synthesize(synth, repo, mode, head, prefix, extractive, labels, reasons) : { ...extractive, llm: null }
    const writer = synth && written.llm && !('declined' in written.llm) ? synth.name : 'extractive'
    return {
      mode,
      message: written.body ? `${written.subject}\n\n${written.body}` : written.subject,
      subject: written.subject,
      body: written.body,
      type,
      scope,
      decided_by: decidedBy,
      reasons,
      change,
      history: labels,
      scope_from: from,
      files,
      writer,
      llm: written.llm,
      index: await reader.indexInfo(head),
    }
  })
}

/** Paths changed between the indexed HEAD and HEAD (empty: the index is current); null when git cannot tell (all count as changed). */
async function changedSinceIndex(repo: string, indexed: string, head: string | null): Promise<Set<string> | null> {
  if (head === null || head === indexed) return new Set()
  try {
    return new Set((await git(repo, ['-c', 'core.quotePath=false', 'diff', '--name-only', '-z', '--no-renames', indexed, head, '--'])).split('\0').filter(Boolean))
  } catch {
    return null
  }
}

const SCOPE_FROM: Record<NonNullable<SuggestCommitResult['scope_from']>, string> = { community: "the changed symbols' community", folder: 'the folder', file: 'the file', deps: 'the dependency files' }

/** The message (stdout), then what decided it. */
export function suggestCommitLines(r: SuggestCommitResult): { message: string[]; notes: string[] } {
  const llm = r.llm === null ? '' : 'declined' in r.llm ? ` (the LLM declined: ${r.llm.declined})` : ` (${r.llm.provider}:${r.llm.model}${r.llm.cached ? ', cached' : ''})`
  return {
    message: r.message.split('\n'),
    notes: [`type ${r.type} decided by ${r.decided_by}:`, ...r.reasons.map((x) => `  ${x}`), `scope ${r.scope ?? '(none)'}${r.scope_from ? ` (from ${SCOPE_FROM[r.scope_from]})` : ''} · written by ${r.writer}${llm}`],
  }
}
