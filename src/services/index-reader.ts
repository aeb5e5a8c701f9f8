import { existsSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { UserError, nearest } from '../errors.js'
import { git } from '../git/run.js'
import type { CodeGraphIndex } from '../codegraph/adjacency.js'
import type { GraphStore } from '../graph/store.js'
import { CODE_QUERIES } from '../graph/queries.js'
import { HAS_VECTOR_INDEX } from '../graph/schema.js'
import { loadCommitCatalog, type CommitCatalog } from '../history/commit-catalog.js'
import { PathIndex } from '../history/path-index.js'
import { GRAPH_DB, IGNORED_REVS_FILE, indexedFiles, type IndexedFile } from './index-layout.js'
import type { IgnoredRevs } from '../history/hunk-mapper.js'
import { ignoredRevsFor, type IgnoreGuesses } from '../history/ignore-revs.js'
import { readIndexJson } from './index-integrity.js'
import type { ShardReader } from '../history/shards.js'
import type { EvidenceItem, EvidenceSource, IndexInfo } from './types.js'
import { HeadReader } from '../git/head.js'
import { noteCache } from '../trace.js'
import { explainSkip, readSkippedFiles, type SkippedReason } from './skipped-files.js'
import { isAncestor, requireIndex, resolveRepo, type IndexMeta } from './workspace.js'

const MEMO_SIZE = 256
/** Nearest documents a vector's answer keeps (why.ts reads that many for a question's cosines), and the answers kept. */
export const NEAREST_KEPT = 500
const ANSWERS_KEPT = 16

/** Read access to one repository's active index; every part is loaded on first use. */
export class IndexReader {
  private store: Promise<GraphStore> | null = null
  private fileStore: ShardReader<IndexedFile> | null = null
  private paths: PathIndex | null = null
  private catalog: CommitCatalog | null = null
  private heads: HeadReader | null = null
  private skipped: Map<string, SkippedReason> | null = null
  /** Freshness by working HEAD: a long-lived reader asks git only when HEAD moves. */
  private readonly infoByHead = new Map<string | null, IndexInfo>()

  private constructor(
    readonly repo: string,
    readonly meta: IndexMeta,
    readonly dir: string,
  ) {}

  static async open(repo?: string): Promise<IndexReader> {
    return IndexReader.openRoot(await resolveRepo(repo))
  }

  /** Open the active index of a work tree root that is already resolved. */
  static openRoot(root: string): IndexReader {
    const { meta, dir } = requireIndex(root)
    return new IndexReader(root, meta, dir)
  }

  /**
   * The index's database, opened on first use (answering evidence and history needs none) and
   * once: concurrent first callers share the same opening, and a failed open is retried by the
   * next caller.
   */
  graph(): Promise<GraphStore> {
    if (!this.store) this.store = this.once(() => import('../graph/store.js').then(({ GraphStore }) => GraphStore.open(path.join(this.dir, GRAPH_DB), { readOnly: true })), (p) => this.store === p && (this.store = null))
    return this.store
  }

  private vectorIndexed: Promise<boolean> | null = null
  /** The last answers by vector (a `why` locates through search, then reads the same question's nearest again). */
  private readonly nearest = new Map<string, Promise<Array<{ row: number; distance: number }>>>()

  /**
   * The `top` documents nearest to a vector (cosine distance, nearest first): through the vector
   * index where the index has one, else read from every vector (schema.ts VECTOR_INDEX_ROWS).
   * Either costs about the same for any `top` up to NEAREST_KEPT (the index searches efs 500
   * candidates anyway), so it keeps at least that many and answers a later call for the same
   * vector from them.
   */
  async nearestDocs(v: Float32Array, top: number): Promise<Array<{ row: number; distance: number }>> {
    const g = await this.graph()
    this.vectorIndexed ??= this.once(async () => Number((await g.query<{ n: number }>(HAS_VECTOR_INDEX))[0]?.n ?? 0) > 0, (p) => this.vectorIndexed === p && (this.vectorIndexed = null))
    const query = (await this.vectorIndexed) ? CODE_QUERIES.docNearest : CODE_QUERIES.docNearestScan
    const kept = Math.max(top, NEAREST_KEPT)
    const key = `${kept} ${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')}`
    let found = this.nearest.get(key)
    if (!found) {
      found = g.query<{ row: number; distance: number }>(query, { v: Array.from(v), top: kept })
      this.nearest.set(key, found)
      found.catch(() => this.nearest.get(key) === found && this.nearest.delete(key))
      if (this.nearest.size > ANSWERS_KEPT) this.nearest.delete(this.nearest.keys().next().value!)
    }
    return (await found).slice(0, top)
  }

  private adjacency: Promise<CodeGraphIndex> | null = null

  /**
   * The index's code graph in memory (src/codegraph/adjacency.ts), read on first use and kept
   * with this reader: a new analyze gets a new reader, and with it a new graph.
   */
  codeGraph(): Promise<CodeGraphIndex> {
    if (!this.adjacency) this.adjacency = this.once(async () => (await import('../codegraph/adjacency.js')).CodeGraphIndex.load(await this.graph()), (p) => this.adjacency === p && (this.adjacency = null))
    return this.adjacency
  }

  /** A loading shared by concurrent first callers; a failed one is forgotten (`forget`), so the next caller retries. */
  private once<T>(load: () => Promise<T>, forget: (p: Promise<T>) => unknown): Promise<T> {
    const loading = load()
    loading.catch(() => forget(loading))
    return loading
  }

  /** One indexed file at HEAD (reads one shard of the per-file cache). */
  file(rel: string): IndexedFile | undefined {
    this.fileStore ??= indexedFiles(this.dir)
    return this.fileStore.get(rel)
  }

  /** Every indexed file at HEAD (reads the whole per-file cache). */
  files(): IndexedFile[] {
    this.fileStore ??= indexedFiles(this.dir)
    return Object.values(this.fileStore.entries())
  }

  private ignored: Set<string> | null = null
  private guesses: IgnoreGuesses | null = null

  /** The commits blame looks through (blame.ignoreRevsFile / .git-blame-ignore-revs at analyze time). */
  ignoredShas(): ReadonlySet<string> {
    this.ignored ??= new Set(this.meta.options.ignoreRevs ?? [])
    return this.ignored
  }

  private readonly ignoredBy = new WeakMap<readonly string[], IgnoredRevs | undefined>()

  /**
   * The stored ignore passes, for a walk over a graph whose commits are `shas` (kept by the array:
   * the path index's walks share one, and finding the ignored commits in it reads every SHA).
   */
  ignoredRevs(shas: readonly string[]): IgnoredRevs | undefined {
    if (this.ignoredShas().size === 0) return undefined
    if (this.ignoredBy.has(shas)) return this.ignoredBy.get(shas)
    this.guesses ??= readIndexJson<IgnoreGuesses>(this.dir, IGNORED_REVS_FILE) ?? {}
    const revs = ignoredRevsFor(shas, this.guesses)
    this.ignoredBy.set(shas, revs)
    return revs
  }

  /** The per-path history index (DAG + diff sections), for single-path walks. */
  pathIndex(): PathIndex {
    if (!this.paths) this.paths = PathIndex.open(this.dir)
    return this.paths
  }

  private readonly memos = new Map<string, unknown>()

  /**
   * An index never changes once built, so a long-lived reader (the MCP server) can keep answers:
   * the last MEMO_SIZE results by key, oldest dropped first.
   */
  memo<T>(key: string, compute: () => T): T {
    const known = this.memos.has(key)
    noteCache(known)
    if (known) {
      const hit = this.memos.get(key) as T
      this.memos.delete(key)
      this.memos.set(key, hit)
      return hit
    }
    const value = compute()
    this.memos.set(key, value)
    if (this.memos.size > MEMO_SIZE) this.memos.delete(this.memos.keys().next().value!)
    return value
  }

  /** The index against the working HEAD (pass it when the caller has already read it). */
  async indexInfo(workingHead?: string | null): Promise<IndexInfo> {
    const head = workingHead !== undefined ? workingHead : await (this.heads ??= await HeadReader.open(this.repo)).read()
    const known = this.infoByHead.get(head)
    if (known) return { ...known }
    const info = await this.computeIndexInfo(head)
    if (this.infoByHead.size > 64) this.infoByHead.clear()
    this.infoByHead.set(head, info)
    return { ...info }
  }

  private async computeIndexInfo(head: string | null): Promise<IndexInfo> {
    if (head === this.meta.head) return { head: this.meta.head, stale: false, commits_behind: 0 }
    if (head && (await isAncestor(this.repo, this.meta.head, head))) {
      const n = Number((await git(this.repo, ['rev-list', '--count', `${this.meta.head}..${head}`])).trim())
      return { head: this.meta.head, stale: true, commits_behind: n }
    }
    return { head: this.meta.head, stale: true, commits_behind: null }
  }

  /**
   * Whether relative paths are taken from the working directory (the CLI, when run inside the
   * repository) or always from the repository root (the MCP server, whose working directory
   * means nothing to the agent).
   */
  pathsFromRoot = false

  /**
   * A user-given path as a repository-relative path with forward slashes. Absolute paths must
   * lie inside the repository; `..` may not climb out of it, nor may a symlink on disk.
   */
  relativePath(input: string): string {
    const cwd = process.cwd()
    const base = !this.pathsFromRoot && (cwd === this.repo || cwd.startsWith(this.repo + path.sep)) ? cwd : this.repo
    const abs = path.isAbsolute(input) ? input : path.resolve(base, input)
    const rel = path.relative(this.repo, abs)
    const outside = (r: string) => r === '..' || r.startsWith(`..${path.sep}`) || path.isAbsolute(r)
    if (outside(rel) || (existsSync(abs) && outside(path.relative(realpathSync(this.repo), realpathSync(abs))))) {
      throw new UserError(`${input} is outside the repository ${this.repo}`, 'pass a path inside the repository (relative to its root)', 'outside_repo')
    }
    return rel.split(path.sep).join('/')
  }

  /**
   * An indexed file at HEAD, or a UserError: why a file analyze skipped is not indexed, or else
   * the nearest indexed paths.
   */
  requireFile(rel: string): IndexedFile {
    const f = this.file(rel)
    if (f) return f
    const skipped = (this.skipped ??= readSkippedFiles(this.dir)).get(rel)
    if (skipped) {
      throw new UserError(
        `${rel} is not indexed: analyze skipped it at ${this.meta.head.slice(0, 7)} because ${explainSkip(skipped)}`,
        `its commits are still there: \`gitwhy history ${rel}\` (MCP: area_history)${skipped === 'too_large' ? '; or index it with `gitwhy analyze --max-file-bytes N`' : ''}`,
        'skipped_file',
      )
    }
    const paths = this.files().map((x) => x.path)
    // a file that moved keeps its name: same-named files first, then the closest spellings
    const base = path.posix.basename(rel)
    const sameName = paths.filter((p) => path.posix.basename(p) === base)
    const suggestions = [...nearest(rel, sameName, 3), ...nearest(rel, paths)].filter((p, i, all) => all.indexOf(p) === i).slice(0, 5)
    const past = this.pathIndex().has(rel) ? ' (it existed earlier in the history: it was deleted or renamed; `history`/area_history still show its commits)' : ''
    throw new UserError(
      `${rel} is not an indexed file at ${this.meta.head.slice(0, 7)}${past}`,
      suggestions.length ? `did you mean: ${suggestions.join(', ')}? (binary, generated, vendored and oversized files are not indexed)` : 'check the path; `gitwhy status` shows what is indexed',
      'unknown_path',
    )
  }

  /** Commit details with PRs and issues, keyed by SHA (written at analyze time from the graph's rows). */
  commits(): CommitCatalog {
    if (!this.catalog) this.catalog = loadCommitCatalog(this.dir, this.meta.remote)
    return this.catalog
  }

  /** Turn (sha, source, extra) tuples into evidence items, newest first (committer date, then SHA). */
  evidenceItems(entries: Array<{ sha: string; source: EvidenceSource; lines?: number; path_at_commit?: string }>): EvidenceItem[] {
    const details = this.commits()
    const items: Array<EvidenceItem & { committed: number }> = []
    for (const e of entries) {
      const d = details.get(e.sha)
      if (!d) continue
      const item: EvidenceItem & { committed: number } = { commit: d.commit, source: e.source, pull_requests: d.pull_requests, issues: d.issues, committed: d.committed }
      if (e.lines !== undefined) item.lines = e.lines
      if (e.path_at_commit !== undefined) item.path_at_commit = e.path_at_commit
      if (this.ignoredShas().has(e.sha)) item.ignored = true
      items.push(item)
    }
    items.sort((a, b) => b.committed - a.committed || (a.commit.sha < b.commit.sha ? -1 : a.commit.sha > b.commit.sha ? 1 : 0))
    return items.map(({ committed, ...item }) => item)
  }

  async close(): Promise<void> {
    const opening = this.store
    this.store = null
    this.adjacency = null
    const store = await opening?.catch(() => null)
    await store?.close()
  }
}


/** Run `fn` with the caller's reader (the MCP server's), or with one opened and closed for this call (the CLI). */
export async function withReader<T>(options: { repo?: string; reader?: IndexReader }, fn: (reader: IndexReader) => Promise<T>): Promise<T> {
  if (options.reader) return fn(options.reader)
  const reader = await IndexReader.open(options.repo)
  try {
    return await fn(reader)
  } finally {
    await reader.close()
  }
}
