/**
 * The named read queries the services run against the graph. Values always go in as parameters;
 * nothing outside this file spells out Cypher for the service layer.
 */
export const QUERIES = {
  commitsByPrefix: `
    MATCH (c:Commit) WHERE c.sha STARTS WITH $prefix
    RETURN c.sha AS sha LIMIT 5`,
  commit: `
    MATCH (c:Commit {sha: $sha})
    RETURN c.sha AS sha, c.short AS short, c.author_name AS author, c.author_email AS email,
           c.author_date AS author_date, c.committer_date AS committer_date, c.subject AS subject,
           c.body AS body, c.parent_count AS parent_count, c.category AS category,
           c.additions AS additions, c.deletions AS deletions`,
  commitParents: `
    MATCH (c:Commit {sha: $sha})-[p:PARENT]->(parent:Commit)
    RETURN parent.sha AS sha, parent.subject AS subject ORDER BY p.idx`,
  commitFiles: `
    MATCH (c:Commit {sha: $sha})-[t:TOUCHED]->(f:File)
    RETURN f.path AS path, t.change AS change, t.old_path AS old_path, t.additions AS additions, t.deletions AS deletions
    ORDER BY path`,
  commitSymbols: `
    MATCH (c:Commit {sha: $sha})-[ch:CHANGED]->(s:Symbol)
    RETURN s.path AS path, s.qualified_name AS qualified_name, s.kind AS kind, s.start_line AS start_line,
           s.end_line AS end_line, ch.added AS added, ch.removed AS removed
    ORDER BY path, start_line`,
  commitOwnedLines: `
    MATCH (s:Symbol)-[b:BLAMED_ON]->(c:Commit {sha: $sha})
    RETURN count(s) AS symbols, sum(b.lines) AS lines`,
  pullRequest: `
    MATCH (p:PullRequest {number: $number})
    RETURN p.number AS number, p.title AS title, p.url AS url, p.source AS source`,
  pullRequestCommits: `
    MATCH (c:Commit)-[:PART_OF]->(:PullRequest {number: $number})
    RETURN c.sha AS sha ORDER BY c.committer_date DESC, c.sha`,
  pullRequestFiles: `
    MATCH (c:Commit)-[:PART_OF]->(:PullRequest {number: $number})
    MATCH (c)-[t:TOUCHED]->(f:File)
    WHERE c.parent_count < 2
    RETURN f.path AS path, count(c) AS commits, sum(t.additions) AS additions, sum(t.deletions) AS deletions
    ORDER BY commits DESC, path LIMIT $limit`,
  pullRequestIssues: `
    MATCH (:PullRequest {number: $number})-[:CLOSES]->(i:Issue)
    RETURN i.number AS number, i.title AS title, i.url AS url ORDER BY number`,
  issue: `
    MATCH (i:Issue {number: $number})
    RETURN i.number AS number, i.title AS title, i.url AS url, i.source AS source`,
  issueCommits: `
    MATCH (c:Commit)-[r:REFERENCES]->(:Issue {number: $number})
    RETURN c.sha AS sha, r.closes AS closes ORDER BY c.committer_date DESC, c.sha`,
  issueClosedBy: `
    MATCH (p:PullRequest)-[:CLOSES]->(:Issue {number: $number})
    RETURN p.number AS number, p.title AS title, p.url AS url ORDER BY number`,
  dateRange: `
    MATCH (c:Commit)
    RETURN min(c.committer_date) AS first, max(c.committer_date) AS last`,
  topContributors: `
    MATCH (c:Commit)-[:AUTHORED_BY]->(a:Author)
    WHERE c.category <> 'merge' AND c.category <> 'bot'
    RETURN a.name AS name, a.email AS email, count(c) AS commits, max(c.author_date) AS last_commit
    ORDER BY commits DESC, email LIMIT $limit`,
  languages: `
    MATCH (f:File) WHERE f.present AND f.language IS NOT NULL
    RETURN f.language AS language, count(f) AS files ORDER BY files DESC, language`,
} as const

export type QueryName = keyof typeof QUERIES
