import { UserError } from '../errors.js'
import { DiffStreamParser, type FileDiff } from '../git/diff-parser.js'
import { assertSafeRef, git, gitBuffer } from '../git/run.js'
import type { RiskLevel } from '../analytics/risk.js'
import { ANALYTICS_QUERIES as Q } from '../graph/queries.js'
import { history } from './history.js'
import { IndexReader, withReader } from './index-reader.js'
import { symbolIds } from './index-layout.js'
import { resolvePath } from './resolve.js'
import { risksOfFiles } from './risk.js'
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
  /** Indexed symbols whose lines the change touches (all of the file's with --files). */
  symbols: Array<{ qualified_name: string; kind: string; start_line: number; end_line: number; level: RiskLevel }>
  /** The PRs that last touched this file, newest first. */
  last_prs: Array<PullRequestRef & { sha: string; date: string }>
}

export interface ContextForPrResult {
  base: string | null
  head: string | null
  merge_base: string | null
  index: IndexInfo
  files: PrFile[]
  /** Files that usually change with a changed file but are not in the change. */
  missing_co_changes: Array<{ path: string; usually_with: string; degree: number; shared: number; confidence: number }>
  /** People who own the most lines of the changed files at the indexed HEAD. */
  owners_to_ask: Array<{ name: string; email: string; lines: number; files: number }>
  summary: { files: number; high: number; medium: number; low: number; new_files: number }
}

interface ChangedFile {
  path: string
  status: string | null
  old_path: string | null
  /** 0-based half-open ranges on the base side ([start, end)); null: the whole file. */
  ranges: Array<[number, number]> | null
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
  const { stdout } = await gitBuffer(repo, ['-c', 'core.quotePath=true', 'diff', '-U0', '--no-color', '--no-ext-diff', '-M', `${base}...${head}`])
  const diffs: FileDiff[] = []
  const parser = new DiffStreamParser((record) => diffs.push(...record.files))
  parser.push(Buffer.from('\x01change\x02\n'))
  parser.push(stdout)
  parser.end()
  const files = diffs.map((d): ChangedFile => {
    const ranges: Array<[number, number]> = []
    for (let i = 0; i < d.hunks.length; i += 4) ranges.push([d.hunks[i], d.hunks[i + 1]])
    return { path: d.path, status: d.status, old_path: d.oldPath !== d.path ? d.oldPath : null, ranges }
  })
  return { mergeBase, files }
}

/**
 * What a reviewer (or the agent writing the change) should know about a branch: per changed file
 * its risk, owners, the symbols touched and the PRs that last touched it; the files that usually
 * change with these but are missing; the people to ask. The changed files come from
 * `git diff base...head` (the one git call: a branch is not in the index); everything else from
 * the index. Symbols are matched on the base side of the diff against the indexed HEAD.
 */
export async function contextForPr(options: { repo?: string; reader?: IndexReader; base?: string; head?: string; files?: string[]; limit?: number }): Promise<ContextForPrResult> {
  return withReader(options, async (reader) => {
    let base: string | null = null
    let head: string | null = null
    let mergeBase: string | null = null
    let changed: ChangedFile[]
    if (options.files && options.files.length > 0) {
      if (options.base || options.head) throw new UserError('pass either --files or --base/--head, not both', 'drop one of them', 'usage')
      // a directory stands for every indexed file under it
      const paths = options.files.flatMap((f) => {
        const t = resolvePath(reader, f)
        return t?.kind === 'directory' ? reader.files().filter((x) => x.path.startsWith(t.path)).map((x) => x.path) : [reader.relativePath(f)]
      })
      changed = [...new Set(paths)].map((p) => ({ path: p, status: null, old_path: null, ranges: null }))
    } else {
      base = options.base ?? (await defaultBase(reader.repo))
      head = options.head ?? 'HEAD'
      const diff = await changedFiles(reader.repo, base, head)
      mergeBase = diff.mergeBase
      changed = diff.files
    }
    const limit = options.limit ?? 10
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
    for (const c of changed) {
      const indexedPath = indexedPathOf(c)
      const entry: PrFile = { path: c.path, status: c.status, old_path: c.old_path, indexed: indexedPath !== null, risk: null, owners: [], symbols: [], last_prs: [] }
      files.push(entry)
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
      for (const [i, s] of file.symbols.entries()) {
        const touched = c.ranges === null || c.ranges.some(([a, b]) => (a === b ? s.startLine <= a + 1 && a < s.endLine : a < s.endLine && s.startLine - 1 < b))
        if (touched) entry.symbols.push({ qualified_name: s.qualifiedName, kind: s.kind, start_line: s.startLine, end_line: s.endLine, level: risks.symbols.get(ids[i])?.level ?? 'LOW' })
      }
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
    const levels = files.map((f) => f.risk?.level)
    return {
      base,
      head,
      merge_base: mergeBase,
      index: await reader.indexInfo(),
      files,
      missing_co_changes: [...missing.values()].sort((a, b) => b.degree - a.degree || b.shared - a.shared || (a.path < b.path ? -1 : 1)).slice(0, limit || undefined),
      owners_to_ask: [...owners.values()].sort((a, b) => b.lines - a.lines || (a.email < b.email ? -1 : 1)).slice(0, 5),
      summary: { files: files.length, high: levels.filter((l) => l === 'HIGH').length, medium: levels.filter((l) => l === 'MEDIUM').length, low: levels.filter((l) => l === 'LOW').length, new_files: files.filter((f) => !f.indexed).length },
    }
  })
}
