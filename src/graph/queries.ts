/**
 * The named read queries the services run against the graph. Values always go in as parameters;
 * nothing outside this file spells out Cypher for the service layer.
 */
export const QUERIES = {
  /** Trajectory snapshots whose edit reached an indexed commit (LANDED_IN): no longer "uncommitted". */
  landedSnapshots: `
    MATCH (s:Snapshot)-[:LANDED_IN]->(c:Commit) WHERE s.id IN $ids
    RETURN s.id AS id, c.sha AS sha`,
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
    RETURN p.number AS number, p.title AS title, p.url AS url, p.source AS source, p.body AS body, p.labels AS labels,
           p.state AS state, p.author AS author, p.merged_at AS merged_at, p.reviews AS reviews`,
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
    RETURN i.number AS number, i.title AS title, i.url AS url, i.source AS source, i.body AS body, i.labels AS labels,
           i.state AS state, i.author AS author`,
  issueCommits: `
    MATCH (c:Commit)-[r:REFERENCES]->(:Issue {number: $number})
    RETURN c.sha AS sha, r.closes AS closes ORDER BY c.committer_date DESC, c.sha`,
  issueClosedBy: `
    MATCH (p:PullRequest)-[:CLOSES]->(:Issue {number: $number})
    RETURN p.number AS number, p.title AS title, p.url AS url ORDER BY number`,
  commitMessages: `
    MATCH (c:Commit)
    RETURN c.sha AS sha, c.subject AS subject, c.body AS body`,
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


/**
 * History analytics (issue 4): read from the activity columns and the analytics tables. Owners
 * are people: lines blamed on a bot commit (category bot) are nobody's (OWNED_BY leaves them out too).
 */
export const ANALYTICS_QUERIES = {
  fileActivity: `
    MATCH (f:File) WHERE f.present AND f.revisions > 0 AND (f.path = $path OR f.path STARTS WITH $prefix) AND ($allFiles OR f.language IS NOT NULL) AND ($includeTests OR NOT f.is_test)
    RETURN f.path AS key, f.path AS path, f.hotspot AS score, f.hotspot_percentile AS percentile, f.revisions AS revisions,
           f.recent_revisions AS recent_revisions, f.churn AS churn, f.authors AS authors, f.last_change AS last_change
    ORDER BY score DESC, revisions DESC, churn DESC, key LIMIT $limit`,
  symbolActivity: `
    MATCH (f:File)-[:DEFINES]->(s:Symbol) WHERE s.revisions > 0 AND (s.path = $path OR s.path STARTS WITH $prefix) AND ($includeTests OR NOT f.is_test)
    RETURN s.id AS key, s.path AS path, s.qualified_name AS qualified_name, s.kind AS kind, s.start_line AS start_line,
           s.hotspot AS score, s.hotspot_percentile AS percentile, s.revisions AS revisions, s.recent_revisions AS recent_revisions,
           s.churn AS churn, s.authors AS authors, s.last_change AS last_change
    ORDER BY score DESC, revisions DESC, churn DESC, key LIMIT $limit`,
  fileOwners: `
    MATCH (f:File)-[o:OWNED_BY]->(a:Author) WHERE f.path = $path OR f.path STARTS WITH $prefix
    RETURN a.email AS email, a.name AS name, a.emails AS emails, sum(o.lines) AS lines ORDER BY lines DESC, email`,
  symbolOwners: `
    MATCH (s:Symbol {id: $id})-[b:BLAMED_ON]->(c:Commit)-[:AUTHORED_BY]->(a:Author) WHERE c.category <> 'bot'
    RETURN a.email AS email, a.name AS name, a.emails AS emails, sum(b.lines) AS lines ORDER BY lines DESC, email`,
  dominantOwners: `
    MATCH (f:File)-[o:OWNED_BY]->(a:Author) WHERE f.present AND o.share >= $share
    RETURN f.path AS path, f.lines AS lines, a.email AS email, a.name AS name, o.share AS share`,
  fileCoChanged: `
    MATCH (f:File {path: $key})-[r:CO_CHANGED]-(g:File)
    RETURN g.path AS key, r.shared AS shared, r.degree AS degree,
           CASE WHEN f.path < g.path THEN r.confidence ELSE r.reverse_confidence END AS confidence,
           CASE WHEN f.path < g.path THEN r.reverse_confidence ELSE r.confidence END AS reverse_confidence
    ORDER BY shared DESC, reverse_confidence DESC, key LIMIT $limit`,
  symbolCoChanged: `
    MATCH (s:Symbol {id: $key})-[r:CO_CHANGED]-(t:Symbol)
    RETURN t.id AS key, t.qualified_name AS qualified_name, t.path AS path, r.shared AS shared, r.degree AS degree,
           CASE WHEN s.id < t.id THEN r.confidence ELSE r.reverse_confidence END AS confidence,
           CASE WHEN s.id < t.id THEN r.reverse_confidence ELSE r.confidence END AS reverse_confidence
    ORDER BY shared DESC, reverse_confidence DESC, key LIMIT $limit`,
  filePairCommits: `
    MATCH (c:Commit)-[:TOUCHED]->(:File {path: $a}), (c)-[:TOUCHED]->(g:File)
    WHERE g.path IN $bs AND c.category <> 'merge' AND c.category <> 'bot' AND c.category <> 'formatting'
    WITH DISTINCT c, g.path AS key
    MATCH (c)-[:TOUCHED]->(other:File)
    WITH c, key, count(other) AS files WHERE files <= $maxFiles
    RETURN key, c.sha AS sha ORDER BY c.committer_date DESC, sha`,
  symbolPairCommits: `
    MATCH (c:Commit)-[:CHANGED]->(:Symbol {id: $a}), (c)-[:CHANGED]->(t:Symbol)
    WHERE t.id IN $bs AND c.category <> 'merge' AND c.category <> 'bot' AND c.category <> 'formatting'
    WITH DISTINCT c, t.id AS key
    MATCH (c)-[:TOUCHED]->(other:File)
    WITH c, key, count(other) AS files WHERE files <= $maxFiles
    RETURN key, c.sha AS sha ORDER BY c.committer_date DESC, sha`,
  filesCoChanged: `
    MATCH (f:File)-[r:CO_CHANGED]-(g:File) WHERE f.path IN $paths
    RETURN f.path AS source, g.path AS key, r.shared AS shared, r.degree AS degree,
           CASE WHEN f.path < g.path THEN r.confidence ELSE r.reverse_confidence END AS confidence
    ORDER BY degree DESC, shared DESC, key`,
  communities: `
    MATCH (c:Community)
    RETURN c.id AS id, c.label AS label, c.size AS size, c.cohesion AS cohesion ORDER BY size DESC, id`,
  communityActivity: `
    MATCH (s:Symbol)-[:MEMBER_OF]->(c:Community)
    RETURN c.id AS id, sum(s.revisions) AS revisions, sum(s.recent_revisions) AS recent_revisions, max(s.last_change) AS last_change`,
  communityMembers: `
    MATCH (s:Symbol)-[:MEMBER_OF]->(:Community {id: $id})
    RETURN s.id AS id, s.qualified_name AS qualified_name, s.kind AS kind, s.path AS path, s.start_line AS start_line,
           s.revisions AS revisions, s.recent_revisions AS recent_revisions
    ORDER BY revisions DESC, id LIMIT $limit`,
  communityOwners: `
    MATCH (s:Symbol)-[:MEMBER_OF]->(:Community {id: $id})
    MATCH (s)-[b:BLAMED_ON]->(c:Commit)-[:AUTHORED_BY]->(a:Author) WHERE c.category <> 'bot'
    RETURN a.email AS email, a.name AS name, sum(b.lines) AS lines ORDER BY lines DESC, email`,
} as const

/**
 * The code graph (issue 11): callers, callees, imports, heritage. `$min` is the lowest CALLS
 * confidence kept; `$ids` a frontier of symbol ids.
 */
export const CODE_QUERIES = {
  file: `
    MATCH (f:File {path: $path})
    RETURN f.revisions AS revisions, f.last_change AS last_change`,
  fileSymbols: `
    MATCH (:File {path: $path})-[:DEFINES]->(s:Symbol)
    RETURN s.id AS id`,
  /** The whole code graph, one table a statement (src/codegraph/adjacency.ts keeps it in memory). */
  allSymbols: `
    MATCH (f:File)-[:DEFINES]->(s:Symbol)
    RETURN s.id AS id, s.qualified_name AS qualified_name, s.kind AS kind, s.path AS path, s.start_line AS start_line,
           s.end_line AS end_line, s.signature AS signature, s.exported AS exported, f.path AS file`,
  allCalls: `
    MATCH (a:Symbol)-[c:CALLS]->(b:Symbol)
    RETURN a.id AS from, b.id AS to, c.line AS line, c.confidence AS confidence, c.reason AS reason`,
  allHeritage: `
    MATCH (a:Symbol)-[r:EXTENDS|IMPLEMENTS]->(b:Symbol)
    RETURN a.id AS from, b.id AS to, label(r) AS relation`,
  allMembership: `
    MATCH (s:Symbol)-[:MEMBER_OF]->(c:Community)
    RETURN s.id AS symbol, c.id AS id, c.label AS label`,
  allSteps: `
    MATCH (s:Symbol)-[r:STEP_IN]->(p:Process)
    RETURN s.id AS symbol, p.id AS process, r.step AS step`,
  allProcesses: `
    MATCH (p:Process)
    RETURN p.id AS id, p.label AS label, p.kind AS kind, p.entry AS entry, p.steps AS steps`,
  allImports: `
    MATCH (f:File)-[:IMPORTS]->(g:File)
    RETURN f.path AS from, g.path AS to`,
  testPaths: `
    MATCH (f:File) WHERE f.is_test
    RETURN f.path AS path`,
  /** BM25 over Symbol.search (FTS_INDEXES); `$top` candidates, module symbols left out. */
  search: `
    CALL QUERY_FTS_INDEX('Symbol', 'symbol_search', $q, conjunctive := false, top := $top)
    WITH node AS s, score WHERE s.kind <> 'module'
    OPTIONAL MATCH (s)-[:MEMBER_OF]->(c:Community)
    RETURN s.id AS id, s.qualified_name AS qualified_name, s.kind AS kind, s.path AS path, s.start_line AS start_line,
           s.signature AS signature, s.exported AS exported, score, c.id AS community, c.label AS community_label
    ORDER BY score DESC, id`,
  /** BM25 over Doc.search (`search`): `$top` candidates, then the kind filter ('' = every kind). */
  docSearch: `
    CALL QUERY_FTS_INDEX('Doc', 'doc_search', $q, conjunctive := false, top := $top)
    WITH node AS d, score WHERE $kind = '' OR d.kind = $kind
    RETURN d.row AS row, d.kind AS kind, d.ref AS ref, d.title AS title, d.path AS path, d.line AS line, d.text AS text, score`,
  /**
   * The `$top` nearest document vectors to $v (cosine distance = 1 - cosine). efs 500 (Kuzu's
   * default 200): the index is built light (schema.ts), and the wider search at query time gives
   * back its recall (vuejs/core: recall@10 0.94 → 0.98) for ~2 ms (top 50: p50 9.5 → 11.6 ms).
   */
  docNearest: `
    CALL QUERY_VECTOR_INDEX('DocVector', 'doc_vector', $v, $top, efs := 500)
    RETURN node.row AS row, distance`,
  /** docNearest where there is no vector index (schema.ts VECTOR_INDEX_ROWS): every vector read, the nearest exactly. */
  docNearestScan: `
    MATCH (v:DocVector)
    RETURN v.row AS row, 1 - array_cosine_similarity(v.embedding, $v) AS distance
    ORDER BY distance, row LIMIT $top`,
  /** The rows of some documents of one kind, by what they summarise (why ranks commits by their closeness to a question). */
  docRowsOf: `
    MATCH (d:Doc) WHERE d.kind = $kind AND d.ref IN $refs
    RETURN d.ref AS ref, d.row AS row`,
  /** What a search answer shows of the nearest documents the full-text list did not bring. */
  docsByRow: `
    UNWIND $rows AS r MATCH (d:Doc {row: r})
    RETURN d.row AS row, d.kind AS kind, d.ref AS ref, d.title AS title, d.path AS path, d.line AS line`,
  /**
   * One document's text (what the question's matched words are read from): by its key, so Kuzu
   * reads one row. docsByRow cannot return the texts: Kuzu joins the rows by hashing the whole
   * Doc table, texts and all, and on git/git (97,000 documents) that fills a reader's buffer pool.
   */
  docText: `
    MATCH (d:Doc {row: $row})
    RETURN d.text AS text`,
  /** Many documents' texts at once: a scan of every text, for more rows than docText should be asked for one by one. */
  docTexts: `
    MATCH (d:Doc) WHERE d.row IN $rows
    RETURN d.row AS row, d.text AS text`,
  flows: `
    MATCH (p:Process) WHERE $kind = '' OR p.kind = $kind
    RETURN p.id AS id, p.label AS label, p.kind AS kind, p.entry AS entry, p.steps AS steps, p.depth AS depth
    ORDER BY steps DESC, id`,
  flowsFrom: `
    MATCH (p:Process) WHERE p.entry IN $ids
    RETURN p.id AS id, p.label AS label, p.kind AS kind, p.entry AS entry, p.steps AS steps, p.depth AS depth
    ORDER BY steps DESC, id`,
  flowMembers: `
    MATCH (s:Symbol)-[r:STEP_IN]->(p:Process) WHERE p.id IN $ids
    RETURN p.id AS process, s.id AS id, s.qualified_name AS qualified_name, s.kind AS kind, s.path AS path, s.start_line AS start_line, r.step AS step
    ORDER BY step, id`,
} as const

/** What decisions cite and govern, and what their miner reads (src/services/decisions.ts, decision-verify.ts). */
export const DECISION_QUERIES = {
  pullRequestExists: `
    MATCH (p:PullRequest {number: $number}) RETURN p.number AS number`,
  issueExists: `
    MATCH (i:Issue {number: $number}) RETURN i.number AS number`,
  communityExists: `
    MATCH (c:Community {id: $id}) RETURN c.id AS id, c.label AS label`,
  communitiesOf: `
    MATCH (s:Symbol)-[:MEMBER_OF]->(c:Community) WHERE s.id IN $ids
    RETURN DISTINCT c.id AS id, c.label AS label`,
  communityMembers: `
    MATCH (s:Symbol)-[:MEMBER_OF]->(c:Community) WHERE c.id IN $ids
    RETURN s.id AS id, c.id AS community`,
  renamedTo: `
    MATCH (f:File)-[r:RENAMED_FROM]->(:File {path: $path})
    RETURN f.path AS path, f.present AS present, r.sha AS sha`,
  commitMessages: `
    MATCH (c:Commit) WHERE NOT c.category IN ['bot', 'revert']
    RETURN c.sha AS sha, c.subject AS subject, c.body AS body
    ORDER BY c.age DESC`,
  commitOwnedSymbols: `
    MATCH (s:Symbol)-[b:BLAMED_ON]->(c:Commit {sha: $sha}) WHERE s.name <> '<module>'
    RETURN s.path AS path, s.qualified_name AS qualified_name, b.lines AS lines
    ORDER BY lines DESC, path LIMIT $limit`,
  commitPresentFiles: `
    MATCH (c:Commit {sha: $sha})-[:TOUCHED]->(f:File) WHERE f.present
    RETURN f.path AS path ORDER BY path LIMIT $limit`,
  decisionsLoaded: `
    MATCH (d:Decision) RETURN d.id AS id, d.status AS status ORDER BY id`,
} as const
