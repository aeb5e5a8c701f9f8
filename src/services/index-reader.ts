import { readFileSync } from 'node:fs'
import path from 'node:path'
import { UserError, nearest } from '../errors.js'
import { git } from '../git/run.js'
import { GraphStore } from '../graph/store.js'
import { PathIndex } from '../history/path-index.js'
import { FILES_JSON, GRAPH_DB, type IndexedFile } from './analyze.js'
import type { CommitRef, EvidenceItem, EvidenceSource, IndexInfo, IssueRef, PullRequestRef } from './types.js'
import { currentHead, isAncestor, requireIndex, resolveRepo, type IndexMeta } from './workspace.js'

/** Read access to one repository's active index; every part is loaded on first use. */
export class IndexReader {
  private store: GraphStore | null = null
  private fileMap: Map<string, IndexedFile> | null = null
  private paths: PathIndex | null = null

  private constructor(
    readonly repo: string,
    readonly meta: IndexMeta,
    readonly dir: string,
  ) {}

  static async open(repo?: string): Promise<IndexReader> {
    const root = await resolveRepo(repo)
    const { meta, dir } = requireIndex(root)
    return new IndexReader(root, meta, dir)
  }

  async graph(): Promise<GraphStore> {
    if (!this.store) this.store = await GraphStore.open(path.join(this.dir, GRAPH_DB), { readOnly: true })
    return this.store
  }

  files(): Map<string, IndexedFile> {
    if (!this.fileMap) {
      const list = JSON.parse(readFileSync(path.join(this.dir, FILES_JSON), 'utf8')) as IndexedFile[]
      this.fileMap = new Map(list.map((f) => [f.path, f]))
    }
    return this.fileMap
  }

  /** The per-path history index (DAG + diff sections), for single-path walks. */
  pathIndex(): PathIndex {
    if (!this.paths) this.paths = PathIndex.open(this.dir)
    return this.paths
  }

  async indexInfo(): Promise<IndexInfo> {
    const head = await currentHead(this.repo)
    if (head === this.meta.head) return { head: this.meta.head, stale: false, commits_behind: 0 }
    if (head && (await isAncestor(this.repo, this.meta.head, head))) {
      const n = Number((await git(this.repo, ['rev-list', '--count', `${this.meta.head}..${head}`])).trim())
      return { head: this.meta.head, stale: true, commits_behind: n }
    }
    return { head: this.meta.head, stale: true, commits_behind: null }
  }

  /**
   * A user-given path as a repository-relative path with forward slashes. Absolute paths must
   * lie inside the repository; `..` may not climb out of it.
   */
  relativePath(input: string): string {
    const cwd = process.cwd()
    const abs = path.isAbsolute(input) ? input : path.resolve(cwd.startsWith(this.repo) ? cwd : this.repo, input)
    const rel = path.relative(this.repo, abs)
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new UserError(`${input} is outside the repository ${this.repo}`, 'pass a path inside the repository (relative to its root or to the current directory)', 'outside_repo')
    }
    return rel.split(path.sep).join('/')
  }

  /** An indexed file at HEAD, or a UserError naming the nearest indexed paths. */
  requireFile(rel: string): IndexedFile {
    const f = this.files().get(rel)
    if (f) return f
    const suggestions = nearest(rel, this.files().keys())
    throw new UserError(
      `${rel} is not an indexed file at ${this.meta.head.slice(0, 7)}`,
      suggestions.length ? `did you mean: ${suggestions.join(', ')}? (binary, generated, vendored and oversized files are not indexed)` : 'check the path; `gitwhy status` shows what is indexed',
      'unknown_path',
    )
  }

  /** Commit details with PRs and issues for a set of SHAs, from the graph. */
  async commitDetails(shas: string[]): Promise<Map<string, { commit: CommitRef; topo: number; boundary: boolean; pull_requests: PullRequestRef[]; issues: IssueRef[] }>> {
    const out = new Map<string, { commit: CommitRef; topo: number; boundary: boolean; pull_requests: PullRequestRef[]; issues: IssueRef[] }>()
    if (shas.length === 0) return out
    const g = await this.graph()
    const rows = await g.query<{ sha: string; short: string; author: string; email: string; date: string; subject: string; category: CommitRef['category']; topo: number; boundary: boolean }>(
      QUERIES.commits,
      { shas },
    )
    for (const r of rows) {
      out.set(r.sha, {
        commit: { sha: r.sha, short: r.short, author: r.author, email: r.email, date: r.date, subject: r.subject, category: r.category },
        topo: r.topo,
        boundary: r.boundary,
        pull_requests: [],
        issues: [],
      })
    }
    for (const r of await g.query<{ sha: string; number: number; title: string; url: string }>(QUERIES.pullRequests, { shas })) {
      out.get(r.sha)?.pull_requests.push({ number: r.number, title: r.title, url: r.url || null })
    }
    for (const r of await g.query<{ sha: string; number: number; title: string; url: string; closes: boolean }>(QUERIES.issues, { shas })) {
      out.get(r.sha)?.issues.push({ number: r.number, title: r.title, url: r.url || null, closes: r.closes })
    }
    return out
  }

  /** Turn (sha, source, extra) tuples into evidence items, newest first (topological order). */
  async evidenceItems(entries: Array<{ sha: string; source: EvidenceSource; lines?: number; path_at_commit?: string }>): Promise<EvidenceItem[]> {
    const details = await this.commitDetails([...new Set(entries.map((e) => e.sha))])
    const items: Array<EvidenceItem & { topo: number }> = []
    for (const e of entries) {
      const d = details.get(e.sha)
      if (!d) continue
      const item: EvidenceItem & { topo: number } = { commit: d.commit, source: e.source, pull_requests: d.pull_requests, issues: d.issues, topo: d.topo }
      if (e.lines !== undefined) item.lines = e.lines
      if (e.path_at_commit !== undefined) item.path_at_commit = e.path_at_commit
      items.push(item)
    }
    items.sort((a, b) => a.topo - b.topo)
    return items.map(({ topo, ...item }) => item)
  }

  async close(): Promise<void> {
    await this.store?.close()
    this.store = null
  }
}

/** Named read queries; values always go in as parameters. */
export const QUERIES = {
  commits: `MATCH (c:Commit) WHERE c.sha IN $shas
    RETURN c.sha AS sha, c.short AS short, c.author_name AS author, c.author_email AS email,
           c.author_date AS date, c.subject AS subject, c.category AS category, c.topo AS topo, c.boundary AS boundary`,
  pullRequests: `MATCH (c:Commit)-[:PART_OF]->(p:PullRequest) WHERE c.sha IN $shas
    RETURN c.sha AS sha, p.number AS number, p.title AS title, p.url AS url ORDER BY p.number`,
  issues: `MATCH (c:Commit)-[r:REFERENCES]->(i:Issue) WHERE c.sha IN $shas
    RETURN c.sha AS sha, i.number AS number, i.title AS title, i.url AS url, r.closes AS closes ORDER BY i.number`,
  symbolsByName: `MATCH (s:Symbol) WHERE s.qualified_name = $name OR s.id = $name
    RETURN s.id AS id, s.qualified_name AS qualified_name, s.kind AS kind, s.path AS path, s.start_line AS start_line, s.end_line AS end_line`,
  symbolsBySuffix: `MATCH (s:Symbol) WHERE s.name = $last AND (s.qualified_name = $name OR s.qualified_name ENDS WITH $suffix)
    RETURN s.id AS id, s.qualified_name AS qualified_name, s.kind AS kind, s.path AS path, s.start_line AS start_line, s.end_line AS end_line`,
  allSymbolNames: `MATCH (s:Symbol) RETURN s.qualified_name AS qualified_name, s.path AS path`,
  symbolBlame: `MATCH (s:Symbol)-[b:BLAMED_ON]->(c:Commit) WHERE s.id = $id RETURN c.sha AS sha, b.lines AS lines`,
  symbolChanges: `MATCH (c:Commit)-[:CHANGED]->(s:Symbol) WHERE s.id = $id RETURN c.sha AS sha`,
} as const
