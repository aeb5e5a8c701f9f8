import { readFileSync, writeFileSync } from 'node:fs'
import type { GraphData } from '../graph/types.js'
import type { CommitRef, IssueRef, PullRequestRef } from '../services/types.js'

/**
 * Commit details for evidence answers, written from the same rows that are loaded into the graph,
 * so a CLI call answers without opening the database. Keyed by SHA.
 */
export interface CatalogEntry {
  commit: CommitRef
  topo: number
  boundary: boolean
  pull_requests: PullRequestRef[]
  issues: IssueRef[]
}

type Packed = [string, string, string, string, string, string, number, number, Array<[number, string, string]>, Array<[number, string, string, number]>]

export function saveCommitCatalog(file: string, data: GraphData): void {
  const prs = new Map(data.pullRequests.map((p) => [p.number, p]))
  const issues = new Map(data.issues.map((i) => [i.number, i]))
  const prOf = new Map<string, Array<[number, string, string]>>()
  for (const r of data.partOf) {
    const p = prs.get(r.number)
    let list = prOf.get(r.sha)
    if (!list) prOf.set(r.sha, (list = []))
    list.push([r.number, p?.title ?? '', p?.url ?? ''])
  }
  const refs = new Map<string, Array<[number, string, string, number]>>()
  for (const r of data.references) {
    const i = issues.get(r.number)
    let list = refs.get(r.sha)
    if (!list) refs.set(r.sha, (list = []))
    list.push([r.number, i?.title ?? '', i?.url ?? '', r.closes ? 1 : 0])
  }
  const packed: Packed[] = data.commits.map((c) => [
    c.sha,
    c.author_name,
    c.author_email,
    new Date(c.author_date).toISOString(),
    c.subject,
    c.category,
    c.topo,
    c.boundary ? 1 : 0,
    (prOf.get(c.sha) ?? []).sort((a, b) => a[0] - b[0]),
    (refs.get(c.sha) ?? []).sort((a, b) => a[0] - b[0]),
  ])
  writeFileSync(file, JSON.stringify(packed))
}

export function loadCommitCatalog(file: string): Map<string, CatalogEntry> {
  const out = new Map<string, CatalogEntry>()
  for (const [sha, author, email, date, subject, category, topo, boundary, prs, issues] of JSON.parse(readFileSync(file, 'utf8')) as Packed[]) {
    out.set(sha, {
      commit: { sha, short: sha.slice(0, 7), author, email, date, subject, category: category as CommitRef['category'] },
      topo,
      boundary: boundary === 1,
      pull_requests: prs.map(([number, title, url]) => ({ number, title, url: url || null })),
      issues: issues.map(([number, title, url, closes]) => ({ number, title, url: url || null, closes: closes === 1 })),
    })
  }
  return out
}
