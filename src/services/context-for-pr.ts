import { readFileSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { DiffStreamParser, type FileDiff } from '../git/diff-parser.js'
import { assertSafeRef, git, gitBuffer } from '../git/run.js'
import type { RiskLevel } from '../analytics/risk.js'
import { CALL_EDGES } from '../codegraph/adjacency.js'
import { ANALYTICS_QUERIES as Q } from '../graph/queries.js'
import { filterTouched } from '../history/hunk-mapper.js'
import { checkLimit } from '../errors.js'
import { changeDecisionLines, changeDecisions, hasCheckableDecisions, type ChangeDecisions, type ChangedCode } from './decisions.js'
import { history } from './history.js'
import { IndexReader, withReader } from './index-reader.js'
import { symbolIds } from './index-layout.js'
import { resolvePath } from './resolve.js'
import { risksOfFiles } from './risk.js'
import { askOrder, asOf, lastActive } from './analytics.js'
import { DEFAULT_MIN_CONFIDENCE } from './codegraph.js'
import type { IndexInfo, PullRequestRef } from './types.js'

export interface PrFile {
  path: string
  /** A added, D deleted, M modified, R renamed (from old_path); null when given with --files. */
  status: string | null
  old_path: string | null
  /** In the index at its HEAD (new files are not). */
  indexed: boolean
  risk: { level: RiskLevel; score: number; reasons: string[] } | null
  owners: Array<{ name: string; email: string; share: number }>
  /** Indexed symbols whose lines the change touches (all of the file's with --files): the riskiest `symbol_limit`. */
  symbols: Array<{ qualified_name: string; kind: string; start_line: number; end_line: number; level: RiskLevel }>
  /** Touched symbols beyond `symbols`. */
  more_symbols: number
  /** The PRs that last touched this file, newest first. */
  last_prs: Array<PullRequestRef & { sha: string; date: string }>
}

/** A caller (outside the change) of a changed symbol: what may break. */
export interface ChangeCaller {
  id: string
  qualified_name: string
  kind: string
  path: string
  start_line: number
  /** The changed symbols it calls (qualified names). */
  calls: string[]
  /** Call-site lines in its file. */
  lines: number[]
  confidence: number
}

export type ChangeMode = 'range' | 'staged' | 'worktree' | 'files'

export interface ContextForPrResult {
  /** range: `git diff base...head`; staged / worktree: the index / work tree against the indexed HEAD; files: given files. */
  mode: ChangeMode
  base: string | null
  head: string | null
  merge_base: string | null
  index: IndexInfo
  files: PrFile[]
  /** Files that usually change with a changed file but are not in the change. */
  missing_co_changes: Array<{ path: string; usually_with: string; degree: number; shared: number; confidence: number }>
  /**
   * People who own lines of the changed files at the indexed HEAD, the most first once each one's
   * lines are halved for every year since their last commit (askOrder in analytics.ts): someone who left
   * long ago is no one to ask. `last_active`: their newest commit.
   */
  owners_to_ask: Array<{ name: string; email: string; lines: number; files: number; last_active: string | null }>
  /** Callers (call graph, confidence ≥ 0.5) of the changed symbols that are not changed themselves: highest confidence first, at most `limit`. */
  callers: ChangeCaller[]
  /** Test files among those callers' files. */
  tests: string[]
  /** Communities the changed symbols belong to. */
  communities: Array<{ id: string; label: string; symbols: number }>
  summary: { files: number; high: number; medium: number; low: number; new_files: number; symbols: number; callers: number }
  /** Recorded decisions governing the changed code, and the constraints the added lines break. */
  decisions: ChangeDecisions
}

export interface ChangedFile {
  path: string
  status: string | null
  old_path: string | null
  /** Hunks flat, the base side second: [newStart, newEnd, oldStart, oldEnd, ...] 0-based half-open; null: the whole file. */
  hunks: number[] | null
  /** The hunks with the side the indexed symbols' lines are in second, when it is the new side (a branch indexed at its tip). */
  target?: number[]
}

/** Hunks with their new side second, where the range algebra reads its target side. */
function newSide(hunks: number[]): number[] {
  const out: number[] = []
  for (let i = 0; i < hunks.length; i += 4) out.push(hunks[i + 2], hunks[i + 3], hunks[i], hunks[i + 1])
  return out
}

/** The default base: the remote's default branch, else main, else master. */
async function defaultBase(repo: string): Promise<string> {
  for (const ref of ['origin/HEAD', 'main', 'master']) {
    const { code } = await gitBuffer(repo, ['rev-parse', '--verify', '-q', `${ref}^{commit}`], { okCodes: [1, 128] })
    if (code === 0) return ref
  }
  throw new UserError('no base branch found (tried origin/HEAD, main, master)', 'pass --base REF (the branch the change will be merged into)', 'no_base')
}

async function changedFiles(repo: string, base: string, head: string): Promise<{ mergeBase: string; files: ChangedFile[] }> {
  for (const ref of [base, head]) {
    assertSafeRef(ref)
    const { code } = await gitBuffer(repo, ['rev-parse', '--verify', '-q', `${ref}^{commit}`], { okCodes: [1, 128] })
    if (code !== 0) throw new UserError(`${ref} is not a commit in ${repo}`, 'pass --base/--head as a branch, tag or SHA that exists (git fetch first for a remote branch)', 'bad_ref')
  }
  const mergeBase = (await git(repo, ['merge-base', base, head], { okCodes: [1] })).trim()
  if (!mergeBase) throw new UserError(`${base} and ${head} have no common ancestor`, 'pass a --base the change branched from', 'bad_ref')
  return { mergeBase, files: await diffFiles(repo, [`${base}...${head}`]) }
}

/** `git diff -U0` with the given revision arguments, as changed files with their base-side hunks. */
async function diffFiles(repo: string, revs: string[]): Promise<ChangedFile[]> {
  const { stdout } = await gitBuffer(repo, ['-c', 'core.quotePath=true', 'diff', '-U0', '--no-color', '--no-ext-diff', '-M', ...revs, '--'])
  const diffs: FileDiff[] = []
  const parser = new DiffStreamParser((record) => diffs.push(...record.files))
  parser.push(Buffer.from('\x01change\x02\n'))
  parser.push(stdout)
  parser.end()
  return diffs.map((d): ChangedFile => {
    // the base side as the range algebra's target side: [newStart, newEnd, oldStart, oldEnd]
    const hunks: number[] = []
    for (let i = 0; i < d.hunks.length; i += 4) hunks.push(d.hunks[i + 2], d.hunks[i + 3], d.hunks[i], d.hunks[i + 1])
    return { path: d.path, status: d.status, old_path: d.oldPath !== d.path ? d.oldPath : null, hunks }
  })
}

/**
 * Uncommitted changes against the indexed HEAD (so that lines match the indexed symbols): staged
 * ones (`git diff --cached`), or everything in the work tree, untracked files included. (Against
 * another commit, e.g. HEAD: what `git commit` would record; suggest-commit asks that.)
 */
export async function uncommittedFiles(repo: string, indexedHead: string, staged: boolean): Promise<ChangedFile[]> {
  const files = await diffFiles(repo, staged ? ['--cached', indexedHead] : [indexedHead])
  if (staged) return files
  const untracked = (await git(repo, ['-c', 'core.quotePath=false', 'ls-files', '--others', '--exclude-standard', '-z'])).split('\0').filter(Boolean)
  return [...files, ...untracked.map((p): ChangedFile => ({ path: p, status: 'A', old_path: null, hunks: null }))]
}

export interface ChangeOptions {
  repo?: string
  reader?: IndexReader
  /** A branch range `base...head` (the default mode; base defaults to origin/HEAD, main or master). */
  base?: string
  head?: string
  /** Staged changes against the indexed HEAD. */
  staged?: boolean
  /** Every uncommitted change (staged or not, untracked files too) against the indexed HEAD. */
  worktree?: boolean
  /** Given files instead of a diff (all their symbols count as touched). */
  files?: string[]
  /** Maximum missing co-changed files and callers (0 = no cap). */
  limit?: number
  /** Maximum symbols listed per file (0 = no cap). */
  symbolLimit?: number
}

const LEVEL_RANK: Record<RiskLevel, number> = { HIGH: 0, MEDIUM: 1, LOW: 2 }

/**
 * What a reviewer (or the agent writing the change) should know about a change: per changed file
 * its risk, owners, the symbols touched and the PRs that last touched it; the callers of those
 * symbols outside the change (what may break), their tests and communities; the files that
 * usually change with these but are missing; the people to ask. `context-for-pr` and
 * `detect-changes` are two views of this one answer. The changed files come from git (a branch,
 * the staging area or the work tree are not in the index); everything else from the index.
 * Symbols are matched against the indexed HEAD on the side of the diff it is: the base side for
 * uncommitted changes (and for a branch range when the index is at its merge base), the new side
 * for a branch range indexed at its tip (the usual case), with the range
 * algebra `git log -L` uses (a hunk touches a symbol when it overlaps its lines; a pure insertion
 * only strictly inside them).
 */
export async function contextForPr(options: ChangeOptions): Promise<ContextForPrResult> {
  return withReader(options, async (reader) => {
    let base: string | null = null
    let head: string | null = null
    let mergeBase: string | null = null
    let changed: ChangedFile[]
    let mode: ChangeMode
    const given = [options.files?.length ? '--files' : null, options.staged ? '--staged' : null, options.worktree ? '--worktree' : null, options.base || options.head ? '--base/--head' : null].filter(Boolean)
    if (given.length > 1) throw new UserError(`pass one of ${given.join(', ')}, not several`, 'drop all but one of them', 'usage')
    if (options.files && options.files.length > 0) {
      mode = 'files'
      // a directory stands for every indexed file under it
      const paths = options.files.flatMap((f) => {
        const t = resolvePath(reader, f)
        return t?.kind === 'directory' ? reader.files().filter((x) => x.path.startsWith(t.path)).map((x) => x.path) : [reader.relativePath(f)]
      })
      changed = [...new Set(paths)].map((p) => ({ path: p, status: null, old_path: null, hunks: null }))
    } else if (options.staged || options.worktree) {
      mode = options.staged ? 'staged' : 'worktree'
      head = (await reader.indexInfo()).head
      changed = await uncommittedFiles(reader.repo, head, mode === 'staged')
    } else {
      mode = 'range'
      base = options.base ?? (await defaultBase(reader.repo))
      head = options.head ?? 'HEAD'
      const diff = await changedFiles(reader.repo, base, head)
      mergeBase = diff.mergeBase
      changed = diff.files
      // the index is at the branch's tip (the usual case: HEAD): its symbols are in the lines of the
      // diff's new side, not the merge base's
      if ((await reader.indexInfo()).head !== mergeBase) changed = changed.map((c) => (c.hunks === null ? c : { ...c, target: newSide(c.hunks) }))
    }
    const symbolLimit = options.symbolLimit ?? 10
    checkLimit(symbolLimit)
    const limit = options.limit ?? 10
    checkLimit(limit)
    const g = await reader.graph()
    const inChange = new Set(changed.flatMap((c) => [c.path, ...(c.old_path ? [c.old_path] : [])]))
    // a renamed or deleted file is known to the index by its base-side path
    const indexedPathOf = (c: ChangedFile) => (reader.file(c.path) ? c.path : c.old_path && reader.file(c.old_path) ? c.old_path : null)
    const indexed = changed.map(indexedPathOf).filter((p): p is string => p !== null)
    const risks = await risksOfFiles(reader, indexed)
    const partners = indexed.length ? await g.query<{ source: string; key: string; shared: number; degree: number; confidence: number }>(Q.filesCoChanged, { paths: indexed }) : []
    const files: PrFile[] = []
    const missing = new Map<string, ContextForPrResult['missing_co_changes'][number]>()
    const owners = new Map<string, { name: string; email: string; lines: number; files: number }>()
    /** Changed symbol id → qualified name. */
    const changedIds = new Map<string, string>()
    const changedCode: ChangedCode[] = []
    for (const c of changed) {
      const indexedPath = indexedPathOf(c)
      const entry: PrFile = { path: c.path, status: c.status, old_path: c.old_path, indexed: indexedPath !== null, risk: null, owners: [], symbols: [], more_symbols: 0, last_prs: [] }
      files.push(entry)
      const code: ChangedCode = { path: c.path, symbols: null, content: null, added: null }
      if (c.status !== 'D') changedCode.push(code)
      if (!indexedPath) continue
      const r = risks.files.get(indexedPath)
      if (r) {
        entry.risk = { level: r.level, score: r.score, reasons: r.reasons }
        entry.owners = r.contributors.map(({ name, email, share }) => ({ name, email, share }))
      }
      for (const o of risks.owners.get(indexedPath) ?? []) {
        const x = owners.get(o.email) ?? { name: o.name, email: o.email, lines: 0, files: 0 }
        x.lines += o.lines
        x.files++
        owners.set(o.email, x)
      }
      const file = reader.file(indexedPath)!
      const ids = symbolIds(file)
      const touched: PrFile['symbols'] = []
      for (const [i, s] of file.symbols.entries()) {
        if (c.hunks !== null && filterTouched(c.target ?? c.hunks, [s.startLine - 1, s.endLine]).length === 0) continue
        touched.push({ qualified_name: s.qualifiedName, kind: s.kind, start_line: s.startLine, end_line: s.endLine, level: risks.symbols.get(ids[i])?.level ?? 'LOW' })
        changedIds.set(ids[i], s.qualifiedName)
      }
      if (c.hunks !== null && indexedPath === c.path) code.symbols = touched.map((t) => ({ qualified_name: t.qualified_name, start: t.start_line, end: t.end_line }))
      touched.sort((a, b) => LEVEL_RANK[a.level] - LEVEL_RANK[b.level] || a.start_line - b.start_line)
      entry.symbols = symbolLimit === 0 ? touched : touched.slice(0, symbolLimit)
      entry.more_symbols = touched.length - entry.symbols.length
      const past = await history({ reader, path: indexedPath, limit: 0 })
      const seen = new Set<number>()
      for (const e of past.evidence) {
        // a formatting sweep on the blame ignore list is not a PR to read
        if (e.ignored) continue
        for (const pr of e.pull_requests) {
          if (seen.has(pr.number) || entry.last_prs.length >= 3) continue
          seen.add(pr.number)
          entry.last_prs.push({ ...pr, sha: e.commit.sha, date: e.commit.date })
        }
        if (entry.last_prs.length >= 3) break
      }
      for (const p of partners) {
        if (p.source !== indexedPath || inChange.has(p.key) || !reader.file(p.key)) continue
        const known = missing.get(p.key)
        if (!known || p.degree > known.degree) missing.set(p.key, { path: p.key, usually_with: c.path, degree: p.degree, shared: p.shared, confidence: p.confidence })
      }
    }
    // the new content is read only when a recorded constraint can be checked against it (a git call a file)
    if (mode !== 'files' && hasCheckableDecisions(reader.repo)) await readChangedContent(reader.repo, mode, head, changed, changedCode)
    const levels = files.map((f) => f.risk?.level)
    const { callers, total: callerTotal, tests, communities } = await callersOfChange(reader, changedIds, limit)
    return {
      mode,
      base,
      head,
      merge_base: mergeBase,
      index: await reader.indexInfo(),
      files,
      missing_co_changes: [...missing.values()].sort((a, b) => b.degree - a.degree || b.shared - a.shared || (a.path < b.path ? -1 : 1)).slice(0, limit || undefined),
      owners_to_ask: await toAsk(reader, [...owners.values()]),
      callers,
      tests,
      communities,
      summary: {
        files: files.length,
        high: levels.filter((l) => l === 'HIGH').length,
        medium: levels.filter((l) => l === 'MEDIUM').length,
        low: levels.filter((l) => l === 'LOW').length,
        new_files: files.filter((f) => !f.indexed).length,
        symbols: changedIds.size,
        callers: callerTotal,
      },
      decisions: await changeDecisions(reader, changedCode),
    }
  })
}

/** The changed files' new content and added lines (checked against the decisions' constraints). */
async function readChangedContent(repo: string, mode: ChangeMode, head: string | null, changed: ChangedFile[], code: ChangedCode[]): Promise<void> {
  const byPath = new Map(changed.map((c) => [c.path, c]))
  for (const c of code) {
    const hunks = byPath.get(c.path)?.hunks ?? null
    try {
      c.content = mode === 'worktree' ? readFileSync(path.join(repo, c.path), 'utf8') : await git(repo, ['show', `${mode === 'staged' ? '' : assertSafeRef(head ?? 'HEAD')}:${c.path}`])
    } catch {
      continue
    }
    if (hunks === null) continue
    const added: number[] = []
    for (let i = 0; i < hunks.length; i += 4) for (let line = hunks[i]; line < hunks[i + 1]; line++) added.push(line + 1)
    c.added = added
  }
}

/** The call graph around the changed symbols: their callers outside the change, those callers' test files, and the changed symbols' communities. */
async function callersOfChange(reader: IndexReader, changed: Map<string, string>, limit: number): Promise<{ callers: ChangeCaller[]; total: number; tests: string[]; communities: ContextForPrResult['communities'] }> {
  if (changed.size === 0) return { callers: [], total: 0, tests: [], communities: [] }
  const code = await reader.codeGraph()
  const ids = [...changed.keys()]
  const rows = code.linked(ids, 'up', DEFAULT_MIN_CONFIDENCE, CALL_EDGES)
  const byCaller = new Map<string, ChangeCaller>()
  for (const r of rows) {
    if (changed.has(r.id)) continue
    const c = byCaller.get(r.id) ?? { id: r.id, qualified_name: r.qualified_name, kind: r.kind, path: r.path, start_line: Number(r.start_line), calls: [], lines: [], confidence: Number(r.confidence) }
    byCaller.set(r.id, c)
    const callee = changed.get(r.via)!
    if (!c.calls.includes(callee)) c.calls.push(callee)
    if (!c.lines.includes(Number(r.line))) c.lines.push(Number(r.line))
    c.confidence = Math.max(c.confidence, Number(r.confidence))
  }
  const all = [...byCaller.values()].sort((a, b) => b.confidence - a.confidence || b.calls.length - a.calls.length || (a.id < b.id ? -1 : 1))
  for (const c of all) c.lines.sort((a, b) => a - b)
  const paths = [...new Set(all.map((c) => c.path))]
  const tests = paths.filter((p) => code.tests.has(p)).sort()
  return { callers: limit === 0 ? all : all.slice(0, limit), total: all.length, tests, communities: code.communitiesOf(ids) }
}

const ASKED = 5

/** The owners to ask, by their lines weighted by how recently they committed (askOrder, as of the indexed HEAD). */
async function toAsk(reader: IndexReader, owners: Array<{ name: string; email: string; lines: number; files: number }>): Promise<ContextForPrResult['owners_to_ask']> {
  const active = await lastActive(reader, owners.map((o) => o.email))
  return askOrder(owners, active, (await asOf(reader)) * 1000).slice(0, ASKED)
}

/** `ask: Ann <ann@x> (last commit 2026-05-01), …`: the owners to ask, for both views' text. */
export function askLine(r: Pick<ContextForPrResult, 'owners_to_ask'>): string {
  return `ask: ${r.owners_to_ask.map((o) => `${o.name} <${o.email}>${o.last_active ? ` (last commit ${o.last_active.slice(0, 10)})` : ''}`).join(', ')}`
}

/** The text answer of `detect-changes` (the code-graph view of the change), for the terminal and the MCP tool alike. */
export function detectChangesLines(r: ContextForPrResult): string[] {
  const s = r.summary
  const what = r.mode === 'range' ? `${r.base}...${r.head}` : r.mode === 'files' ? 'given files' : `${r.mode} changes against the indexed HEAD ${r.head?.slice(0, 12)}`
  const out = [`${what}: ${s.files} file${s.files === 1 ? '' : 's'} (${s.high} HIGH, ${s.medium} MEDIUM, ${s.low} LOW, ${s.new_files} new), ${s.symbols} symbol${s.symbols === 1 ? '' : 's'} changed, ${s.callers} caller${s.callers === 1 ? '' : 's'} outside the change`]
  for (const f of r.files) {
    const symbols = f.symbols.map((x) => `${x.qualified_name}${x.level === 'LOW' ? '' : ` [${x.level}]`}`).join(', ')
    out.push(`  ${f.status ?? '·'} ${f.path}${f.old_path ? ` (from ${f.old_path})` : ''}${f.indexed ? ` · risk ${f.risk?.level ?? 'LOW'}` : ' · new'}${symbols ? `: ${symbols}` : ''}${f.more_symbols ? ` (+${f.more_symbols} more)` : ''}`)
  }
  if (r.callers.length) {
    out.push('callers outside the change (may break):')
    for (const c of r.callers) out.push(`  ${c.qualified_name} (${c.path}:${c.start_line}) → ${c.calls.join(', ')} · line${c.lines.length > 1 ? 's' : ''} ${c.lines.slice(0, 8).join(', ')} · ${c.confidence}`)
    if (s.callers > r.callers.length) out.push(`  … ${s.callers - r.callers.length} more`)
  }
  if (r.tests.length) out.push(`tests among the callers: ${r.tests.join(', ')}`)
  if (r.communities.length) out.push(`communities touched: ${r.communities.map((c) => `${c.id} ${c.label} (${c.symbols})`).join('; ')}`)
  if (r.missing_co_changes.length) {
    out.push('usually change with these but missing from the change:')
    for (const m of r.missing_co_changes) out.push(`  ${m.path} (with ${m.usually_with}: ${m.shared} shared commits, ${Math.round(m.confidence * 100)} % of its changes)`)
  }
  if (r.owners_to_ask.length) out.push(askLine(r))
  out.push(...changeDecisionLines(r.decisions))
  return out
}
