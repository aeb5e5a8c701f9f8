import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { ShardReader, updateShards, writeShards } from './shards.js'
import { readIndexJson } from '../services/index-integrity.js'
import type { GraphData, IssueRow, PullRequestRow } from '../graph/types.js'
import { descriptionReason } from '../forge/apply.js'
import { firstParagraph } from './message.js'
import { issueUrl, pullRequestUrl, type RemoteWeb } from './remote.js'
import type { CommitRef, IssueRef, PullRequestRef } from '../services/types.js'

/**
 * Commit details for evidence answers, written from the same rows that are loaded into the graph,
 * so a CLI call answers without opening the database. Keyed by SHA.
 */
export interface CatalogEntry {
  commit: CommitRef
  /** Committer date, epoch seconds: answers are ordered by it (newest first), as git log orders. */
  committed: number
  boundary: boolean
  pull_requests: PullRequestRef[]
  issues: IssueRef[]
}

// [sha, author, email, date, committed, subject, category, boundary, prs, issues, why ('' = none), reverts?]
/** The last element, the SHA a verified revert undoes, is present only on reverts. */
type Packed = [string, string, string, string, number, string, string, number, PrTuple[], IssueTuple[], string, string?]
/** [number, title, url, why?]: `why`, the reason its description gives, only once forge enrichment gave it one. */
type PrTuple = [number, string, string, string?]
/** [number, title, url, closes, why?]. */
type IssueTuple = [number, string, string, number, string?]

type CatalogData = Pick<GraphData, 'commits' | 'pullRequests' | 'issues' | 'partOf' | 'references'> & Partial<Pick<GraphData, 'reverts'>>

function prTuple(p: Pick<PullRequestRow, 'number' | 'title' | 'url' | 'body'>): PrTuple {
  const why = descriptionReason(p.body)
  return why ? [p.number, p.title, p.url, why] : [p.number, p.title, p.url]
}

function issueTuple(i: Pick<IssueRow, 'number' | 'title' | 'url' | 'body'>, closes: boolean): IssueTuple {
  const why = descriptionReason(i.body)
  return why ? [i.number, i.title, i.url, closes ? 1 : 0, why] : [i.number, i.title, i.url, closes ? 1 : 0]
}

const byFirst = (a: [number, ...unknown[]], b: [number, ...unknown[]]) => a[0] - b[0]

function pack(data: CatalogData): Packed[] {
  const prs = new Map<number, PrTuple>()
  for (const p of data.pullRequests) prs.set(p.number, prTuple(p))
  const issues = new Map(data.issues.map((i) => [i.number, i]))
  const prOf = new Map<string, PrTuple[]>()
  for (const r of data.partOf) {
    let list = prOf.get(r.sha)
    if (!list) prOf.set(r.sha, (list = []))
    list.push(prs.get(r.number) ?? [r.number, '', ''])
  }
  const refs = new Map<string, IssueTuple[]>()
  for (const r of data.references) {
    const i = issues.get(r.number)
    let list = refs.get(r.sha)
    if (!list) refs.set(r.sha, (list = []))
    list.push(issueTuple(i ?? { number: r.number, title: '', url: '', body: '' }, r.closes))
  }
  const reverts = new Map((data.reverts ?? []).map((r) => [r.sha, r.target]))
  return data.commits.map((c) => {
    const packed: Packed = [
      c.sha,
      c.author_name,
      c.author_email,
      new Date(c.author_date).toISOString(),
      Math.floor(Date.parse(c.committer_date) / 1000),
      c.subject,
      c.category,
      c.boundary ? 1 : 0,
      (prOf.get(c.sha) ?? []).sort(byFirst),
      (refs.get(c.sha) ?? []).sort(byFirst),
      firstParagraph(c.body) ?? '',
    ]
    const target = reverts.get(c.sha)
    if (target) packed.push(target)
    return packed
  })
}

const NAME = 'commits'
/**
 * Every PR number, issue number and author email the catalog mentions (CommitCatalog.known), kept
 * beside its shards: an update asks for them first thing, and reading every shard for them took
 * ~60–90 ms of prettier's.
 */
const KNOWN = 'commits-known.json'

interface KnownLists {
  pullRequests: number[]
  issues: number[]
  emails: string[]
}

type Known = { pullRequests: Set<number>; issues: Set<number>; emails: Set<string> }

function emptyKnown(): Known {
  return { pullRequests: new Set(), issues: new Set(), emails: new Set() }
}

function addKnown(known: Known, packed: Iterable<Packed>): Known {
  for (const p of packed) {
    known.emails.add(p[2])
    for (const pr of p[8]) known.pullRequests.add(pr[0])
    for (const i of p[9]) known.issues.add(i[0])
  }
  return known
}

/** The sets as sorted lists (commits-known.json's form; two equal sets give equal lists). */
export function knownLists(known: Known): KnownLists {
  return { pullRequests: [...known.pullRequests].sort((a, b) => a - b), issues: [...known.issues].sort((a, b) => a - b), emails: [...known.emails].sort() }
}

function saveKnown(dir: string, known: Known): void {
  writeFileSync(path.join(dir, KNOWN), JSON.stringify(knownLists(known)))
}

export function saveCommitCatalog(dir: string, data: GraphData): void {
  const packed = pack(data)
  writeShards(dir, NAME, packed.map((p) => [p[0], p] as [string, Packed]))
  saveKnown(dir, addKnown(emptyKnown(), packed))
}

/** The catalog of `previousDir` plus the commits of `data` (an update's new commits). */
export function appendCommitCatalog(previousDir: string, dir: string, data: CatalogData): void {
  const packed = pack(data)
  updateShards(previousDir, dir, NAME, packed.map((p) => [p[0], p] as [string, Packed]))
  saveKnown(dir, addKnown(loadCommitCatalog(previousDir).known(), packed))
}

/** What forge enrichment changes in a catalog: rows of PRs and issues, and commits newly in a PR. */
export interface CatalogForgeChange {
  prs: ReadonlyMap<number, PullRequestRow>
  issues: ReadonlyMap<number, IssueRow>
  /** New PART_OF edges: commit → PR. */
  partOf: ReadonlyArray<{ sha: string; number: number }>
  /** Every row the forge gives, changed or not: an update's new commits may name an older PR or issue. */
  rows: { prs: ReadonlyMap<number, PullRequestRow>; issues: ReadonlyMap<number, IssueRow> }
}

/**
 * The catalog of `previousDir` and an update's new commits (none for a refresh) read whole, as
 * the view a forge delta starts from; `write` saves it with the delta's changes applied to every
 * commit they touch (the others' shards are hard-linked from the previous index).
 */
export function catalogForForge(previousDir: string, fresh: CatalogData | null): { prsOf: Map<string, number[]>; issueRefs: Set<number>; write(dir: string, change: CatalogForgeChange): void } {
  const added = fresh ? pack(fresh) : []
  const all = [...Object.values(new ShardReader<Packed>(previousDir, NAME).entries()), ...added]
  const prsOf = new Map<string, number[]>()
  const issueRefs = new Set<number>()
  for (const p of all) {
    prsOf.set(p[0], p[8].map((t) => t[0]))
    for (const t of p[9]) issueRefs.add(t[0])
  }
  return {
    prsOf,
    issueRefs,
    write(dir, change) {
      const tupleOf = new Map<number, PrTuple>()
      for (const p of all) for (const t of p[8]) tupleOf.set(t[0], t)
      for (const [n, row] of change.prs) tupleOf.set(n, prTuple(row))
      const joined = new Map<string, number[]>()
      for (const r of change.partOf) joined.set(r.sha, [...(joined.get(r.sha) ?? []), r.number])
      const changed = new Map<string, Packed>(added.map((p) => [p[0], p]))
      const fresh = new Set(added.map((p) => p[0]))
      for (const p of all) {
        const numbers = [...new Set([...p[8].map((t) => t[0]), ...(joined.get(p[0]) ?? [])])]
        // an update's new commits were packed from the messages' rows: every forge row applies to them
        const isFresh = fresh.has(p[0])
        const prRow = (n: number) => change.prs.get(n) ?? (isFresh ? change.rows.prs.get(n) : undefined)
        const issueRow = (n: number) => change.issues.get(n) ?? (isFresh ? change.rows.issues.get(n) : undefined)
        const touched = isFresh || joined.has(p[0]) || numbers.some((n) => change.prs.has(n)) || p[9].some((t) => change.issues.has(t[0]))
        if (!touched) continue
        const own = new Map(p[8].map((t) => [t[0], t]))
        const prs = numbers
          .map((n) => {
            const row = prRow(n)
            return row ? prTuple(row) : (own.get(n) ?? tupleOf.get(n) ?? ([n, '', ''] as PrTuple))
          })
          .sort(byFirst)
        const issues = p[9].map((t) => {
          const row = issueRow(t[0])
          return row ? issueTuple(row, t[3] === 1) : t
        })
        const next = [...p] as Packed
        next[8] = prs
        next[9] = issues
        changed.set(p[0], next)
      }
      updateShards(previousDir, dir, NAME, [...changed].map(([sha, p]) => [sha, p] as [string, Packed]))
      saveKnown(dir, addKnown(emptyKnown(), all.map((p) => changed.get(p[0]) ?? p)))
    },
  }
}

/** The catalog as a lookup: a query reads the shards of the commits it names, and builds only those entries. */
export function loadCommitCatalog(dir: string, remote?: RemoteWeb | null): CommitCatalog {
  return new CommitCatalog(new ShardReader<Packed>(dir, NAME), remote ?? null, dir)
}

/** A catalog row as an entry; links come from the remote analyze recorded (stored URLs are empty). */
function unpack(packed: Packed, remote: RemoteWeb | null = null): CatalogEntry {
  const [sha, author, email, date, committed, subject, category, boundary, prs, issues, why, reverts] = packed
  const commit: CommitRef = { sha, short: sha.slice(0, 7), author, email, date, subject, category: category as CommitRef['category'] }
  if (why) commit.why = why
  if (reverts) commit.reverts = reverts
  return {
    commit,
    committed,
    boundary: boundary === 1,
    pull_requests: prs.map(([number, title, url, why]) => (why ? { number, title, url: url || pullRequestUrl(remote, number), why } : { number, title, url: url || pullRequestUrl(remote, number) })),
    issues: issues.map(([number, title, url, closes, why]) => (why ? { number, title, url: url || issueUrl(remote, number), closes: closes === 1, why } : { number, title, url: url || issueUrl(remote, number), closes: closes === 1 })),
  }
}

/** The entries a catalog written from `data` holds (what a stored catalog is checked against). */
export function catalogEntries(data: CatalogData): CatalogEntry[] {
  return pack(data).map((p) => unpack(p))
}

/**
 * "Now" for every recency question (the last 90 days, an inactive owner, a hotspot's recent
 * revisions): the indexed HEAD's committer date, so that an answer depends on the index only,
 * never on the day it is asked. The wall clock only when HEAD is not in the catalog.
 */
export function indexClock(index: { commits(): CommitCatalog; meta: { head: string } }): number {
  return index.commits().get(index.meta.head)?.committed ?? Math.floor(Date.now() / 1000)
}

/** One author as the catalog knows it (CommitCatalog.authors). */
export interface AuthorActivity {
  name: string
  /** Newest committer date of its commits, and of those that are not a bot's (null: none), epoch seconds. */
  last: number
  work: number | null
  /** Only for the empty email, whose commits keep their own names: every [sha, name]. */
  names?: Array<[string, string]>
}

export class CommitCatalog {
  private readonly built = new Map<string, CatalogEntry>()

  constructor(
    private readonly shards: ShardReader<Packed>,
    private readonly remote: RemoteWeb | null = null,
    /** The index directory, where commits-known.json is (none: every shard is read for known()). */
    private readonly dir: string | null = null,
  ) {}

  get(sha: string): CatalogEntry | undefined {
    const entry = this.built.get(sha)
    if (entry) return entry
    const packed = this.shards.get(sha)
    return packed === undefined ? undefined : this.build(packed)
  }

  /** Every commit committed at or after `since` (epoch seconds; reads every shard). */
  since(since: number): CatalogEntry[] {
    const out: CatalogEntry[] = []
    for (const p of Object.values(this.shards.entries())) if (p[4] >= since) out.push(this.built.get(p[0]) ?? this.build(p))
    return out
  }

  private build(packed: Packed): CatalogEntry {
    const entry = unpack(packed, this.remote)
    this.built.set(entry.commit.sha, entry)
    return entry
  }

  /** Every commit's SHA and subject, newest committed first (reads every shard, builds no entries). */
  subjects(): Array<{ sha: string; subject: string }> {
    return Object.values(this.shards.entries())
      .sort((a, b) => b[4] - a[4])
      .map((p) => ({ sha: p[0], subject: p[5] }))
  }

  private authorList: Map<string, AuthorActivity> | null = null

  /**
   * Every author (the Author rows' canonical emails) with the newest committer date of its
   * commits and of its commits that are not a bot's, epoch seconds (reads every shard once, then
   * kept), and the name its commits carry: one per identity (identity.ts). Commits without an
   * email keep their own names: `names` lists them with their SHAs.
   */
  authors(): Map<string, AuthorActivity> {
    if (this.authorList) return this.authorList
    const out = new Map<string, AuthorActivity>()
    for (const p of this.shards.scan(null)) {
      const [sha, name, email, , committed, , category] = p
      const human = category !== 'bot'
      const a = out.get(email)
      if (!a) out.set(email, { name, last: committed, work: human ? committed : null, ...(email === '' ? { names: [[sha, name]] } : {}) })
      else {
        if (committed > a.last) a.last = committed
        if (human && (a.work === null || committed > a.work)) a.work = committed
        a.names?.push([sha, name])
      }
    }
    return (this.authorList = out)
  }

  /**
   * Every PR number, issue number and author email the catalog mentions: from commits-known.json,
   * or from every shard for an index written before it (or with `scan`).
   */
  known(options: { scan?: boolean } = {}): Known {
    const lists = this.dir !== null && !options.scan ? readIndexJson<KnownLists>(this.dir, KNOWN) : null
    if (lists) return { pullRequests: new Set(lists.pullRequests), issues: new Set(lists.issues), emails: new Set(lists.emails) }
    return addKnown(emptyKnown(), Object.values(this.shards.entries()))
  }
}
