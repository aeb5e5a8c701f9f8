import { createHash } from 'node:crypto'
import path from 'node:path'
import { readCommitHeaders } from '../git/history-reader.js'
import { listTree } from '../git/tree.js'
import { catalogEntries, knownLists, loadCommitCatalog } from '../history/commit-catalog.js'
import { commitTables } from '../history/commits.js'
import { resolveIdentities, summariseSignatures } from '../history/identity.js'
import { buildGraph } from '../history/graph.js'
import { PathIndex } from '../history/path-index.js'
import type { CommitCategory } from './types.js'
import { GRAPH_DB, indexedFiles } from './index-layout.js'
import { gitwhyDir, type IndexMeta } from './workspace.js'
import { forgeFingerprint, loadForgeItems, NO_FORGE } from '../forge/cache.js'
import { applyForge, forgeData } from '../forge/apply.js'

const CATEGORIES = new Set<CommitCategory>(['merge', 'initial', 'bot', 'revert', 'formatting', 'micro', 'normal', 'mega'])
const VERIFY_BUFFER_POOL_BYTES = 1024 * 1024 * 1024
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
/** Mismatches past this many are not listed (one is enough to rebuild). */
const MAX_PROBLEMS = 5

/**
 * Check an index that was not built here against the repository's own objects: every stored
 * commit (SHA, parents, author, dates, message, its pull request and issue links and titles, in
 * the commit catalog, the graph and the DAG) against one `git log` pass, and every stored file's
 * blob id against the indexed HEAD's tree. Returns what does not match (empty: the index tells
 * only what git confirms). Derived rows (symbols, line histories) are taken as the build made
 * them from those commits and blobs.
 */
export async function verifyAgainstGit(repo: string, dir: string, meta: IndexMeta, shallow: ReadonlySet<string>): Promise<string[]> {
  const problems: string[] = []
  const report = (what: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(what)
  }
  let headers: Awaited<ReturnType<typeof readCommitHeaders>>
  try {
    headers = await readCommitHeaders(repo, [meta.head], meta.options.maxCommits ?? undefined)
  } catch {
    return [`its HEAD ${meta.head} is not a commit of this repository`]
  }
  const raw = headers.map((h) => ({ ...h, diffs: [] }))
  const identities = resolveIdentities(summariseSignatures(raw), meta.options.identities, meta.options.identityMerge)
  const tables = commitTables(raw, buildGraph(raw, shallow), new Set(), { identities })
  // the PR and issue rows the forge cache beside it gives (`gitwhy enrich`): what a build here would hold
  const forge = loadForgeItems(gitwhyDir(repo))
  const forgePrint = forgeFingerprint(forge?.state ?? null)
  applyForge(tables, forge && forgePrint !== NO_FORGE ? forgeData(forgePrint, forge.items) : null)
  const expected = new Map(tables.commits.map((c) => [c.sha, c]))
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

  // the commit catalog (what evidence and history answers show)
  const stored = loadCommitCatalog(dir).since(-Infinity)
  if (stored.length !== expected.size) report(`the commit catalog holds ${stored.length} commits, git has ${expected.size}`)
  const want = new Map(catalogEntries(tables).map((e) => [e.commit.sha, e]))
  for (const e of stored) {
    const w = want.get(e.commit.sha)
    if (!w) report(`commit ${e.commit.sha.slice(0, 7)} is not in this repository's history`)
    else if (!CATEGORIES.has(e.commit.category) || !same({ ...e.commit, category: '', reverts: undefined }, { ...w.commit, category: '', reverts: undefined }) || e.committed !== w.committed || !same(e.pull_requests, w.pull_requests) || !same(e.issues, w.issues)) {
      report(`commit ${e.commit.sha.slice(0, 7)} differs from git's in the commit catalog`)
    }
  }
  // what an update takes the catalog to mention without reading it (commits-known.json)
  const catalog = loadCommitCatalog(dir)
  if (!same(knownLists(catalog.known()), knownLists(catalog.known({ scan: true })))) report('the commit catalog\'s list of pull requests, issues and authors is not what its commits mention')

  // the DAG of the per-path history
  const dag = PathIndex.open(dir).dag
  const ageOf = new Map(dag.shas.map((s, age) => [s, age]))
  if (dag.shas.length !== expected.size) report(`the history DAG holds ${dag.shas.length} commits, git has ${expected.size}`)
  dag.shas.forEach((sha, age) => {
    const h = expected.get(sha)
    const parents = dag.parents[age].map((p) => (p < 0 ? null : dag.shas[p]))
    const gitParents = h ? raw[raw.length - 1 - h.age].parents.map((p) => (ageOf.has(p) ? p : null)) : null
    if (!h || !same(parents, gitParents) || dag.dates[age] !== Math.floor(Date.parse(h.committer_date) / 1000)) report(`commit ${sha.slice(0, 7)} differs from git's in the history DAG`)
  })

  // the graph (what cypher and the MCP tools answer)
  const { GraphStore } = await import('../graph/store.js')
  // Every message is read once: a pool bigger than a reader's, and the bodies compared by their
  // hash, so that the answer stays small however long the messages are (a reader's 64 MB pool
  // cannot hold git/git's 82k commits with their bodies)
  const store = await GraphStore.open(path.join(dir, GRAPH_DB), { readOnly: true, bufferPoolBytes: VERIFY_BUFFER_POOL_BYTES })
  try {
    const commits = await store.query<Record<string, string | number>>(
      'MATCH (c:Commit) RETURN c.sha AS sha, c.author_name AS author_name, c.author_email AS author_email, c.author_date AS author_date, c.committer_date AS committer_date, c.subject AS subject, sha256(c.body) AS body, c.category AS category, c.parent_count AS parent_count',
    )
    if (commits.length !== expected.size) report(`the graph holds ${commits.length} commits, git has ${expected.size}`)
    const time = (v: unknown) => Date.parse(String(v))
    for (const c of commits) {
      const w = expected.get(String(c.sha))
      const ok =
        w &&
        c.author_name === w.author_name &&
        c.author_email === w.author_email &&
        time(c.author_date) === time(w.author_date) &&
        time(c.committer_date) === time(w.committer_date) &&
        c.subject === w.subject &&
        c.body === sha256(w.body) &&
        c.parent_count === w.parent_count &&
        CATEGORIES.has(c.category as CommitCategory)
      if (!ok) report(`commit ${String(c.sha).slice(0, 7)} differs from git's in the graph`)
    }
    const compare = async (label: string, statement: string, rows: Array<Record<string, unknown>>, key: string, fields: string[]) => {
      const got = await store.query<Record<string, unknown>>(statement)
      const byKey = new Map(rows.map((r) => [String(r[key]), r]))
      if (got.length !== rows.length) report(`the graph holds ${got.length} ${label}s, git's messages name ${rows.length}`)
      for (const g of got) {
        const w = byKey.get(String(g[key]))
        if (!w || fields.some((f) => g[f] !== w[f])) report(`${label} ${String(g[key])} differs from what git's messages say`)
      }
    }
    await compare('pull request', 'MATCH (p:PullRequest) RETURN p.number AS number, p.title AS title, p.url AS url', tables.pullRequests as unknown as Array<Record<string, unknown>>, 'number', ['title', 'url'])
    await compare('issue', 'MATCH (i:Issue) RETURN i.number AS number, i.title AS title, i.url AS url', tables.issues as unknown as Array<Record<string, unknown>>, 'number', ['title', 'url'])
    await compare('author', 'MATCH (a:Author) RETURN a.email AS email, a.name AS name, a.emails AS emails', tables.authors as unknown as Array<Record<string, unknown>>, 'email', ['name', 'emails'])
  } finally {
    await store.close()
  }

  // the files at HEAD: each stored blob must be the one git has at that path
  const tree = new Map((await listTree(repo, meta.head)).map((e) => [e.path, e.blob]))
  for (const f of Object.values(indexedFiles(dir).entries())) {
    if (tree.get(f.path) !== f.blob) report(`${f.path} is not blob ${f.blob.slice(0, 7)} at ${meta.head.slice(0, 7)}`)
  }
  return problems
}
