/**
 * The graph schema as data: one list of tables drives the DDL, the bulk loader (which row array
 * and which row fields fill each table) and `gitwhy schema`. Change the schema here and bump
 * SCHEMA_VERSION; nothing else spells out table or column names for the loader.
 */
import type { GraphData } from './types.js'

/**
 * Bump whenever a table, column or type changes, or the layout of the files beside the graph: an
 * index with another version must be rebuilt.
 */
// 14: rows with no words hold NO_WORDS (`<module>` symbols and wordless commits held ''); analytics.json as columns;
// CO_CHANGED without support (it changed on every pair with each commit: cochange.json has its denominator)
// 15: Commit.topo (0 = newest: every update shifted every commit's) is Commit.age (0 = oldest: unchanged by updates)
// 16: the sharded stores (commits/, files/, diffs-index/, patches-index/) have 64 shards, not 256
export const SCHEMA_VERSION = 16

/** `FLOAT[]`: a fixed-size float array as wide as the embedding model's vectors (FLOAT[512] for the bundled one). */
export type ColumnType = 'STRING' | 'INT64' | 'BOOLEAN' | 'TIMESTAMP' | 'DOUBLE' | 'FLOAT[]'

export interface ColumnDef {
  name: string
  type: ColumnType
  description: string
  /** The row property holding the value, when it is not named like the column. */
  field?: string
  /** Only where the row contract allows null; every other column always has a value. */
  nullable?: boolean
}

export interface NodeTableDef {
  kind: 'node'
  name: string
  description: string
  /** GraphData array the rows come from. */
  rows: keyof GraphData
  /** The first column is the primary key. */
  columns: ColumnDef[]
}

export interface RelEndpoint {
  table: string
  /** Row property holding the endpoint's primary key. */
  field: string
}

export interface RelTableDef {
  kind: 'rel'
  name: string
  description: string
  rows: keyof GraphData
  from: RelEndpoint
  to: RelEndpoint
  columns: ColumnDef[]
}

export type TableDef = NodeTableDef | RelTableDef

const text = (name: string, description: string, extra: Partial<ColumnDef> = {}): ColumnDef => ({ name, type: 'STRING', description, ...extra })
const int = (name: string, description: string, extra: Partial<ColumnDef> = {}): ColumnDef => ({ name, type: 'INT64', description, ...extra })
const bool = (name: string, description: string, extra: Partial<ColumnDef> = {}): ColumnDef => ({ name, type: 'BOOLEAN', description, ...extra })
const time = (name: string, description: string, extra: Partial<ColumnDef> = {}): ColumnDef => ({ name, type: 'TIMESTAMP', description, ...extra })
const real = (name: string, description: string): ColumnDef => ({ name, type: 'DOUBLE', description })

/** History activity of a file or symbol (analytics; merges, bots and formatting-only commits not counted). */
export const ACTIVITY_COLUMNS: ColumnDef[] = [
  int('revisions', 'Commits that changed it (merges, bot and formatting-only commits not counted).'),
  int('recent_revisions', 'Of those, commits in the recent window (default 90 days) before the indexed HEAD.'),
  int('churn', 'Lines added plus deleted by those commits.'),
  int('authors', 'Distinct authors of those commits.'),
  time('first_change', 'Oldest of those commits (null: none).', { nullable: true }),
  time('last_change', 'Newest of those commits (null: none).', { nullable: true }),
  real('hotspot', 'Hotspot score: recent_revisions × ln(1 + revisions).'),
  real('hotspot_percentile', 'Share of files (or symbols) with a lower hotspot score (0..1).'),
  int('cochange_partners', 'Files (or symbols) it co-changes with (CO_CHANGED edges).'),
]

const coChangeColumns = (what: string): ColumnDef[] => [
  int('shared', `Revisions that changed both ${what}.`),
  real('degree', 'code-maat coupling degree: 100 × shared / average(revisions of each).'),
  real('confidence', 'shared / revisions of the source (how often a change to it came with the target).'),
  real('reverse_confidence', 'shared / revisions of the target.'),
]

/** Node tables come first: relationship tables reference them, in DDL and in load order. */
export const TABLES: readonly TableDef[] = [
  {
    kind: 'node',
    name: 'File',
    description: 'A file path seen at the indexed HEAD or anywhere in the indexed history.',
    rows: 'files',
    columns: [
      text('path', 'Repository-relative path with forward slashes (primary key).'),
      text('language', 'Language id from the grammar registry; null when no grammar handles the file.', { nullable: true }),
      int('lines', 'Line count at the indexed HEAD (0 when the file is not present).'),
      bool('is_test', 'True when the path looks like a test file.'),
      bool('present', 'True when the file exists at the indexed HEAD (false: deleted or renamed away).'),
      ...ACTIVITY_COLUMNS,
    ],
  },
  {
    kind: 'node',
    name: 'Symbol',
    description: 'A definition (function, class, method, ...) found by tree-sitter at the indexed HEAD.',
    rows: 'symbols',
    columns: [
      text('id', 'Stable symbol id: path#qualified_name (primary key); path#<module> for the code at the top level of a file that makes calls (kind module, name <module>).'),
      text('name', 'Bare name as written in the source.'),
      text('qualified_name', 'Name qualified by its enclosing definitions, e.g. Class.method.'),
      text('kind', 'Definition kind: function, class, method, interface, module, ...'),
      text('path', 'Path of the defining file.'),
      int('start_line', 'First line of the definition (1-based, inclusive).'),
      int('end_line', 'Last line of the definition (1-based, inclusive).'),
      text('signature', 'The first line(s) of the definition, trimmed.'),
      bool('exported', 'True when the symbol is visible outside its file.'),
      text('search', 'What `gitwhy query` searches (full-text index symbol_search): the names split into words (camelCase, snake_case) and whole, the signature, the doc comment and the path, as the terms the index keeps (no digits, punctuation or English stop words).'),
      ...ACTIVITY_COLUMNS,
    ],
  },
  {
    kind: 'node',
    name: 'Commit',
    description: 'A commit of the indexed history.',
    rows: 'commits',
    columns: [
      text('sha', 'Full 40-hex commit id (primary key).'),
      text('short', 'Abbreviated commit id.'),
      text('author_name', 'Author name: the canonical name of the author identity (after .mailmap and identity grouping).'),
      text('author_email', 'Author email: the canonical email of the author identity (see Author.emails for all).'),
      time('author_date', 'Author date, stored in UTC.'),
      time('committer_date', 'Committer date, stored in UTC.'),
      text('subject', 'First line of the message.'),
      text('body', 'Rest of the message after the subject (may be empty).'),
      int('parent_count', 'Number of parents (2 or more: a merge).'),
      text('category', 'Change category: merge, initial, bot, revert (verified: see REVERTS), formatting, micro, mega or normal.'),
      int('additions', 'Lines added over all files.'),
      int('deletions', 'Lines deleted over all files.'),
      int('age', 'Position in the stored history counted from its oldest commit (0); a commit is above its parents, and later commits never change it (newest first: ORDER BY c.age DESC).'),
      bool('boundary', 'True at the edge of the indexed history (shallow clone or commit limit): parents are missing.'),
    ],
  },
  {
    kind: 'node',
    name: 'Author',
    description: 'A person who authored commits: one identity per person (after .mailmap, emails grouped by name, GitHub login and .gitwhy/config.json identities), keyed by its canonical email.',
    rows: 'authors',
    columns: [
      text('email', 'Canonical email of the identity (primary key): its most recently used non-noreply email.'),
      text('name', 'Most recent name used with the canonical email.'),
      text('emails', 'Every email of the identity, space-separated.'),
    ],
  },
  {
    kind: 'node',
    name: 'PullRequest',
    description: 'A pull (merge) request a commit belongs to.',
    rows: 'pullRequests',
    columns: [
      int('number', 'Pull request number (primary key).'),
      text('title', 'Title: from the merge message or squash subject, or from the forge API once `gitwhy enrich` fetched it (scrubbed of secrets).'),
      text('url', 'Empty: answers build the web URL from the origin remote analyze recorded in meta.json.'),
      text('source', 'Where it came from: github or gitlab (parsed from a commit message), api (`gitwhy enrich`: the forge\'s own record).'),
      text('body', 'The description (`gitwhy enrich`; scrubbed of secrets, HTML comments dropped, at most 8,000 characters); empty otherwise.'),
      text('labels', 'Label names, comma-separated (`gitwhy enrich`).'),
      text('state', 'open, closed or merged (`gitwhy enrich`); empty otherwise.'),
      text('author', "The author's forge login (`gitwhy enrich`)."),
      time('merged_at', 'When it was merged, UTC (`gitwhy enrich`; null: not merged, or not enriched).', { nullable: true }),
      text('reviews', 'Review comments on indexed files (`gitwhy enrich`), one per line: `path:line login: text`, scrubbed, at most 20 and 4,000 characters.'),
    ],
  },
  {
    kind: 'node',
    name: 'Issue',
    description: 'An issue referenced from a commit message or a pull request.',
    rows: 'issues',
    columns: [
      int('number', 'Issue number (primary key).'),
      text('title', 'Title when known (`gitwhy enrich`: the forge API; scrubbed of secrets), else empty.'),
      text('url', 'Empty: answers build the web URL from the origin remote analyze recorded in meta.json.'),
      text('source', 'Where it came from: message (a #N in a commit message), pr-body (a closing keyword in an enriched PR\'s description), api (`gitwhy enrich`: the forge\'s own record).'),
      text('body', 'The description (`gitwhy enrich`; scrubbed, HTML comments dropped, at most 8,000 characters); empty otherwise.'),
      text('labels', 'Label names, comma-separated (`gitwhy enrich`).'),
      text('state', 'open or closed (`gitwhy enrich`); empty otherwise.'),
      text('author', "The author's forge login (`gitwhy enrich`)."),
    ],
  },
  {
    kind: 'node',
    name: 'Community',
    description: 'An area of the codebase: symbols that change together and belong together (Louvain over co-change and structure).',
    rows: 'communities',
    columns: [
      text('id', 'Community id, c1 = the largest (primary key; stable within one index).'),
      text('label', 'Readable label: the dominant file or folder and the name words most members share, e.g. "src/router.ts: Route, match".'),
      int('size', 'Member symbols.'),
      real('cohesion', 'Share of the members\' co-change weight that stays inside the community (0..1; 0: no co-change).'),
    ],
  },
  {
    kind: 'node',
    name: 'Process',
    description: 'An execution flow: the symbols an entry point (a route, a CLI command, a main, an exported function nothing calls) reaches along CALLS (see "Execution flows" in the README).',
    rows: 'processes',
    columns: [
      text('id', 'flow:<entry symbol id> (primary key).'),
      text('label', 'What registers it and its entry, e.g. "GET /users → listUsers", "command serve → runServe", "createApp".'),
      text('kind', 'How the entry was found: route, command, main or exported.'),
      text('entry', 'Id of the entry symbol (the flow\'s step 1).'),
      int('steps', 'Symbols in the flow, the entry included.'),
      int('depth', 'Highest step: the longest call chain from the entry, counted in symbols.'),
    ],
  },
  {
    kind: 'node',
    name: 'Snapshot',
    description: 'An uncommitted state of the work tree recorded by the trajectory recorder (`gitwhy watch` / `trajectory start`): a commit of the shadow repository under .gitwhy/trajectory/, loaded at analyze from the user state beside the index.',
    rows: 'snapshots',
    columns: [
      text('id', "The shadow repository's commit SHA (primary key)."),
      time('time', 'When the snapshot was taken (end of the quiet period), UTC.'),
      text('session', 'Session id (s-YYYYMMDD-HHMMSS of its first snapshot): activity separated by the idle gap.'),
      text('intent', 'The intent set when it was taken (`gitwhy intent`), null when none.', { nullable: true }),
      text('summary', 'What changed, e.g. "src/auth.ts (+3 -1): login"; for a checkpoint, its summary.'),
      text('kind', 'baseline (the first state recorded), auto (a quiet period ended) or consolidate (a [CONSOLIDATE] checkpoint).'),
    ],
  },
  {
    kind: 'node',
    name: 'Doc',
    description: 'What `gitwhy search` finds: one summary text per symbol, commit, pull request and titled issue, scrubbed of secrets (full-text index doc_search over search; its vector is the DocVector with the same row).',
    rows: 'docs',
    columns: [
      int('row', 'Row number, shared with its DocVector (primary key).'),
      text('id', 'symbol:<symbol id>, commit:<sha>, pr:<number> or issue:<number>.'),
      text('kind', 'symbol, commit, pr or issue.'),
      text('ref', 'The Symbol id, Commit sha, or PullRequest / Issue number it summarises.'),
      text('path', "The symbol's file ('' for the other kinds)."),
      int('line', "The symbol's first line (0 for the other kinds)."),
      text('title', 'One line to show: qualified name, commit subject or title.'),
      text('text', 'The summary: a symbol\'s name split into words, kind, signature, doc comment, path and the subjects of the commits owning most of its lines; a commit\'s subject and body; a PR\'s or issue\'s title (with `gitwhy enrich`: and its description and labels, and a PR\'s review comments on indexed files). Secrets replaced by [redacted].'),
      text('search', 'What the full-text index doc_search holds: the text\'s identifiers split into words (camelCase, snake_case), lower-cased, as the terms the index keeps (no digits, punctuation or English stop words).'),
      text('hash', 'Content hash of the text the model embedded (the vector cache\'s key); empty in an index built without embeddings.'),
    ],
  },
  {
    kind: 'node',
    name: 'DocVector',
    description: 'The embedding of the Doc with the same row (vector index doc_vector, cosine). Empty unless analyze ran with --embeddings (opt-in).',
    rows: 'docVectors',
    columns: [
      int('row', 'Row number of its Doc (primary key).'),
      { name: 'embedding', type: 'FLOAT[]', description: "Unit-length sentence embedding of the Doc's text by the model meta.json names (FLOAT[512] for the bundled USE-lite)." },
    ],
  },
  {
    kind: 'node',
    name: 'Decision',
    description: 'A decision, constraint, convention, pattern or feature recorded in .gitwhy-decisions.jsonl (manual or accepted) or waiting in .gitwhy/decisions-proposed.jsonl (mined, proposed): loaded by analyze from those files, which stay the source of truth (see "Decisions" in the README).',
    rows: 'decisions',
    columns: [
      text('id', 'Decision id, e.g. d-1a2b3c4d (manual) or m-… (mined) (primary key).'),
      text('kind', 'feature, decision, constraint, pattern or convention.'),
      text('title', 'One line.'),
      text('statement', 'What was decided.'),
      text('rationale', 'Why (may be empty).'),
      real('confidence', 'How sure the source is that this is a real decision (0..1).'),
      text('status', 'As recorded: proposed, active, superseded or rejected (stale is derived by `gitwhy decisions verify`).'),
      time('created', 'When it was recorded.'),
      time('decided_at', 'When it was decided (a mined one: its evidence commit\'s date); commits after it that rewrite the governed code make it stale.'),
      text('source', 'manual, mined or adr.'),
      text('applies_to', 'The governed targets as written, space-separated (path, dir/, path:Symbol, community:ID).'),
      text('check', 'The mechanically checkable rule as JSON ({kind: regex, pattern, mode: forbid|require} or {kind: query, query}), empty when none.'),
      text('superseded_by', 'Id of the decision that replaced it, empty when none.'),
    ],
  },
  {
    kind: 'rel',
    name: 'DEFINES',
    description: 'The file defines the symbol.',
    rows: 'defines',
    from: { table: 'File', field: 'path' },
    to: { table: 'Symbol', field: 'symbol' },
    columns: [],
  },
  {
    kind: 'rel',
    name: 'CONTAINS',
    description: 'The symbol encloses the other (class contains method).',
    rows: 'contains',
    from: { table: 'Symbol', field: 'parent' },
    to: { table: 'Symbol', field: 'child' },
    columns: [],
  },
  {
    kind: 'rel',
    name: 'TOUCHED',
    description: 'The commit changed the file (path as of that commit).',
    rows: 'touched',
    from: { table: 'Commit', field: 'sha' },
    to: { table: 'File', field: 'path' },
    columns: [
      int('additions', 'Lines added in this file (0 for binary files).'),
      int('deletions', 'Lines deleted in this file (0 for binary files).'),
      text('change', 'Change type letter from git: A, M, D, R, C, T.'),
      text('old_path', 'Previous path for a rename or copy, else empty.'),
    ],
  },
  {
    kind: 'rel',
    name: 'CHANGED',
    description: "The commit changed lines of the symbol's range (line history, like git log -L).",
    rows: 'changed',
    from: { table: 'Commit', field: 'sha' },
    to: { table: 'Symbol', field: 'symbol' },
    columns: [
      int('added', 'Lines added inside the range.'),
      int('removed', 'Lines removed inside the range.'),
    ],
  },
  {
    kind: 'rel',
    name: 'BLAMED_ON',
    description: 'The commit wrote lines of the symbol as they are at the indexed HEAD (like git blame).',
    rows: 'blamedOn',
    from: { table: 'Symbol', field: 'symbol' },
    to: { table: 'Commit', field: 'sha' },
    columns: [int('lines', 'Number of current lines of the symbol owned by the commit.')],
  },
  {
    kind: 'rel',
    name: 'AUTHORED_BY',
    description: 'The commit was written by the author.',
    rows: 'authoredBy',
    from: { table: 'Commit', field: 'sha' },
    to: { table: 'Author', field: 'email' },
    columns: [],
  },
  {
    kind: 'rel',
    name: 'PARENT',
    description: 'The commit has the other commit as a parent.',
    rows: 'parents',
    from: { table: 'Commit', field: 'sha' },
    to: { table: 'Commit', field: 'parent' },
    columns: [int('idx', 'Parent position (0 = first parent).')],
  },
  {
    kind: 'rel',
    name: 'REVERTS',
    description: 'The commit reverts the other: its message names it and its diff undoes it on the files both change (a message alone is not enough).',
    rows: 'reverts',
    from: { table: 'Commit', field: 'sha' },
    to: { table: 'Commit', field: 'target' },
    columns: [real('share', 'Share of the smaller side (the reverted commit\'s or the revert\'s changed lines on the files both change) that the revert undoes (0.8..1).')],
  },
  {
    kind: 'rel',
    name: 'PART_OF',
    description: 'The commit belongs to the pull request.',
    rows: 'partOf',
    from: { table: 'Commit', field: 'sha' },
    to: { table: 'PullRequest', field: 'number' },
    columns: [],
  },
  {
    kind: 'rel',
    name: 'REFERENCES',
    description: 'The commit message mentions the issue.',
    rows: 'references',
    from: { table: 'Commit', field: 'sha' },
    to: { table: 'Issue', field: 'number' },
    columns: [bool('closes', 'True when the mention closes the issue (fixes #12, closes #12).')],
  },
  {
    kind: 'rel',
    name: 'CLOSES',
    description: 'The pull request closes the issue: a commit of it says so (fixes #12), or its description does (`gitwhy enrich`).',
    rows: 'closes',
    from: { table: 'PullRequest', field: 'pr' },
    to: { table: 'Issue', field: 'issue' },
    columns: [],
  },
  {
    kind: 'rel',
    name: 'RENAMED_FROM',
    description: 'The file was renamed from the other path.',
    rows: 'renamedFrom',
    from: { table: 'File', field: 'path' },
    to: { table: 'File', field: 'from' },
    columns: [text('sha', 'The commit that did the rename.')],
  },
  {
    kind: 'rel',
    name: 'CO_CHANGED',
    description: 'The files usually change in the same commits (one edge per pair, source < target).',
    rows: 'fileCoChanged',
    from: { table: 'File', field: 'a' },
    to: { table: 'File', field: 'b' },
    columns: coChangeColumns('files'),
  },
  {
    kind: 'rel',
    name: 'CO_CHANGED',
    description: 'The symbols usually change in the same commits (one edge per pair, source < target).',
    rows: 'symbolCoChanged',
    from: { table: 'Symbol', field: 'a' },
    to: { table: 'Symbol', field: 'b' },
    columns: coChangeColumns('symbols'),
  },
  {
    kind: 'rel',
    name: 'MEMBER_OF',
    description: 'The symbol belongs to the community.',
    rows: 'memberOf',
    from: { table: 'Symbol', field: 'symbol' },
    to: { table: 'Community', field: 'community' },
    columns: [],
  },
  {
    kind: 'rel',
    name: 'OWNED_BY',
    description: 'The author wrote lines of the file as they are at the indexed HEAD (blame, after .mailmap).',
    rows: 'ownedBy',
    from: { table: 'File', field: 'path' },
    to: { table: 'Author', field: 'email' },
    columns: [int('lines', 'Lines of the file owned by the author.'), real('share', 'lines / all lines of the file (0..1).')],
  },
  {
    kind: 'rel',
    name: 'IMPORTS',
    description: 'The file imports the other (resolved through relative paths, index files, tsconfig paths, workspace packages, Python packages, go.mod, Java packages).',
    rows: 'imports',
    from: { table: 'File', field: 'from' },
    to: { table: 'File', field: 'to' },
    columns: [],
  },
  {
    kind: 'rel',
    name: 'CALLS',
    description: 'The symbol calls (or instantiates) the other at a line; module-level calls come from the file\'s <module> symbol.',
    rows: 'calls',
    from: { table: 'Symbol', field: 'from' },
    to: { table: 'Symbol', field: 'to' },
    columns: [
      real('confidence', 'How sure the resolution is (0..1): same-scope 0.95 (0.9 same package), import-resolved 0.9, receiver-type 0.85, unique-name 0.6 (0.5 for a method), ambiguous 0.25 shared among the candidates.'),
      text('reason', 'How the callee was found: same-scope, import-resolved, receiver-type, unique-name or ambiguous.'),
      int('line', 'Line of the call site in the caller\'s file.'),
    ],
  },
  {
    kind: 'rel',
    name: 'EXTENDS',
    description: 'The class (or interface) extends the other.',
    rows: 'extends',
    from: { table: 'Symbol', field: 'from' },
    to: { table: 'Symbol', field: 'to' },
    columns: [],
  },
  {
    kind: 'rel',
    name: 'IMPLEMENTS',
    description: 'The class implements the interface (Rust: the type implements the trait).',
    rows: 'implements',
    from: { table: 'Symbol', field: 'from' },
    to: { table: 'Symbol', field: 'to' },
    columns: [],
  },
  {
    kind: 'rel',
    name: 'STEP_IN',
    description: 'The symbol is a step of the execution flow.',
    rows: 'stepIn',
    from: { table: 'Symbol', field: 'symbol' },
    to: { table: 'Process', field: 'process' },
    columns: [int('step', 'Call distance from the entry plus one: 1 = the entry, 2 = what it calls, ...')],
  },
  ...(['Symbol', 'File', 'Community'] as const).map((table): RelTableDef => ({
    kind: 'rel',
    name: 'GOVERNS',
    description: `The decision governs the ${table === 'Symbol' ? 'symbol' : table === 'File' ? 'file (a directory target: every file under it)' : 'community'}.`,
    rows: table === 'Symbol' ? 'governsSymbol' : table === 'File' ? 'governsFile' : 'governsCommunity',
    from: { table: 'Decision', field: 'decision' },
    to: { table, field: 'target' },
    columns: [text('applies_to', 'The target as the decision names it (path, dir/, path:Symbol, community:ID).')],
  })),
  // links between findings (decision-rows.ts)
  ...([
    ['RELATES_TO', 'relatesTo', 'The decisions govern the same code (one edge per pair, source id < target id).', 'What they share, e.g. "both govern src/db.ts".'],
    ['DEPENDS_ON', 'dependsOn', 'The decision names what a dependency finding ("uses X") records: it depends on that choice.', 'What it names, e.g. "names kuzu".'],
  ] as const).map(([name, rows, description, reason]): RelTableDef => ({
    kind: 'rel',
    name,
    description,
    rows,
    from: { table: 'Decision', field: 'from' },
    to: { table: 'Decision', field: 'to' },
    columns: [text('reason', reason)],
  })),
  {
    kind: 'rel',
    name: 'SIMILAR_TO',
    description: "The decisions say much the same: the cosine of their embeddings (title and statement, the index's embedding model) is at least 0.8 (one edge per pair, source id < target id; only in an index built with --embeddings).",
    rows: 'similarTo',
    from: { table: 'Decision', field: 'from' },
    to: { table: 'Decision', field: 'to' },
    columns: [real('score', 'The cosine similarity of the two embeddings.')],
  },
  ...(['Commit', 'PullRequest', 'Issue', 'File'] as const).map((table): RelTableDef => ({
    kind: 'rel',
    name: 'EVIDENCED_BY',
    description: table === 'File' ? "The decision's evidence is a range of lines of the document (an ADR, a manifest)." : `The decision's evidence is the ${table === 'Commit' ? 'commit' : table === 'PullRequest' ? 'pull request' : 'issue'}.`,
    rows: table === 'Commit' ? 'evidencedByCommit' : table === 'PullRequest' ? 'evidencedByPullRequest' : table === 'Issue' ? 'evidencedByIssue' : 'evidencedByDocument',
    from: { table: 'Decision', field: 'decision' },
    to: { table, field: 'target' },
    columns: [int('start_line', "First line of the document's range (0 for history evidence)."), int('end_line', "Last line of the document's range (0 for history evidence).")],
  })),
  {
    kind: 'rel',
    name: 'SNAPSHOT_TOUCHED',
    description: 'The snapshot changed the file (a File of the index; new, uncommitted files have no node).',
    rows: 'snapshotFiles',
    from: { table: 'Snapshot', field: 'snapshot' },
    to: { table: 'File', field: 'path' },
    columns: [int('added', 'Lines added.'), int('removed', 'Lines removed.')],
  },
  {
    kind: 'rel',
    name: 'SNAPSHOT_TOUCHED',
    description: "The snapshot changed the symbol (its hunks through the commits' range algebra; a Symbol of the indexed HEAD).",
    rows: 'snapshotSymbols',
    from: { table: 'Snapshot', field: 'snapshot' },
    to: { table: 'Symbol', field: 'symbol' },
    columns: [int('added', "Lines added inside the symbol."), int('removed', "Lines removed inside the symbol.")],
  },
  {
    kind: 'rel',
    name: 'SNAPSHOT_REVERTS',
    description: 'The snapshot undid the earlier one: a symbol (or file) it changed is back to its content before that one ("tried, then undone").',
    rows: 'snapshotReverts',
    from: { table: 'Snapshot', field: 'snapshot' },
    to: { table: 'Snapshot', field: 'target' },
    columns: [],
  },
  {
    kind: 'rel',
    name: 'LANDED_IN',
    description: "The snapshot's edit reached the history in the commit: the oldest commit since it whose diff adds every line it added, same files (matched by content: squashes and amends count).",
    rows: 'landedIn',
    from: { table: 'Snapshot', field: 'snapshot' },
    to: { table: 'Commit', field: 'sha' },
    columns: [],
  },
]

/** A table definition's name, with its endpoints when several definitions share the name (CO_CHANGED). */
export function tableLabel(def: TableDef): string {
  return def.kind === 'rel' && tableDefs(def.name).length > 1 ? `${def.name}(${def.from.table}→${def.to.table})` : def.name
}

export function tableDefs(name: string): TableDef[] {
  return TABLES.filter((t) => t.name === name)
}

export function tableDef(name: string): TableDef {
  const def = TABLES.find((t) => t.name === name)
  if (def === undefined) throw new Error(`unknown graph table ${name}`)
  return def
}

function primaryKey(def: NodeTableDef): ColumnDef {
  return def.columns[0]
}

/** Full-text (BM25) indexes built after the bulk load; Kuzu keeps them current on later inserts and deletes. */
export const FTS_INDEXES = [
  { table: 'Symbol', name: 'symbol_search', columns: ['search'] },
  { table: 'Doc', name: 'doc_search', columns: ['search'] },
] as const

/**
 * What a full-text indexed row with no words holds instead of '' (a `<module>` symbol, a commit
 * whose message is "."): Kuzu 0.11.3's index leaves an empty row out when it is built but counts
 * one inserted later, and uncounts one deleted, so an updated index's BM25 scores drifted from a
 * rebuilt one's. A word no question asks.
 */
export const NO_WORDS = 'gitwhynowords'

/**
 * The vector index over DocVector.embedding, built once there are VECTOR_INDEX_ROWS vectors (by the
 * load, or by the update that brings them); Kuzu keeps it current on inserts and deletes.
 */
export const VECTOR_INDEX = { table: 'DocVector', name: 'doc_vector', column: 'embedding' } as const

/**
 * Below this many document vectors there is no vector index: search reads every vector (the scan
 * query), which is exact, where the index's answers are approximate, and costs less than building
 * the index does. On vuejs/core's 15,197 512-wide vectors, read through a reader's 64 MB pool: the
 * scan 8–10 ms warm, the index's query 5 ms, and building the index 1.6 s of a 19 s analyze. The
 * scan grows with the vectors (~0.6 µs each), so past this the index pays for itself.
 */
export const VECTOR_INDEX_ROWS = 20_000

export const VECTOR_INDEX_ROWS_ENV = 'GITWHY_VECTOR_INDEX_ROWS'

/** VECTOR_INDEX_ROWS, or GITWHY_VECTOR_INDEX_ROWS (0: always an index; tests set it to have one on a few vectors). */
export function vectorIndexRows(): number {
  const set = process.env[VECTOR_INDEX_ROWS_ENV]?.trim()
  return set && Number.isSafeInteger(Number(set)) && Number(set) >= 0 ? Number(set) : VECTOR_INDEX_ROWS
}

/** One row, n: 1 when the vector index exists, else 0. */
export const HAS_VECTOR_INDEX = `CALL SHOW_INDEXES() WHERE index_name = '${VECTOR_INDEX.name}' RETURN count(*) AS n`

/**
 * HNSW build parameters: Kuzu's defaults (mu 30, ml 60, efc 200) took 2.3× as long to build on
 * random vectors as mu 15, ml 30, efc 100, and these take a third of that: on vuejs/core's 13,968
 * document vectors 3.2–3.7 CPU-s instead of 8.9. Recall@10 against exact search (queries between
 * two documents, `node bench/embed-speed.mjs REPO --index`): 0.97 before, 0.94 now at Kuzu's query
 * default efs 200, 0.98 at the efs 500 search asks with (queries.ts docNearest).
 */
export function createVectorIndexStatement(): string {
  return `CALL CREATE_VECTOR_INDEX('${VECTOR_INDEX.table}', '${VECTOR_INDEX.name}', '${VECTOR_INDEX.column}', metric := 'cosine', mu := 8, ml := 16, efc := 50)`
}

export function createFtsStatement(ix: (typeof FTS_INDEXES)[number]): string {
  return `CALL CREATE_FTS_INDEX('${ix.table}', '${ix.name}', [${ix.columns.map((c) => `'${c}'`).join(', ')}])`
}

/** The CREATE statements, node tables first. Relationship tables sharing a name become one table with several FROM/TO pairs. */
export function renderDDL(tables: readonly TableDef[] = TABLES, dimensions = 1): string[] {
  const out: string[] = []
  const done = new Set<string>()
  for (const def of tables) {
    const cols = def.columns.map((c) => `${c.name} ${c.type === 'FLOAT[]' ? `FLOAT[${dimensions}]` : c.type}`)
    if (def.kind === 'node') {
      out.push(`CREATE NODE TABLE ${def.name}(${[...cols, `PRIMARY KEY (${primaryKey(def).name})`].join(', ')})`)
      continue
    }
    if (done.has(def.name)) continue
    done.add(def.name)
    const pairs = tables.filter((t): t is RelTableDef => t.kind === 'rel' && t.name === def.name).map((t) => `FROM ${t.from.table} TO ${t.to.table}`)
    out.push(`CREATE REL TABLE ${def.name}(${[...pairs, ...cols].join(', ')})`)
  }
  return out
}

export interface PropertyDescription {
  name: string
  type: ColumnType
  description: string
  nullable: boolean
}

export interface NodeTableDescription {
  name: string
  description: string
  primary_key: string
  properties: PropertyDescription[]
}

export interface RelTableDescription {
  name: string
  description: string
  from: string
  to: string
  properties: PropertyDescription[]
}

export interface SchemaDescription {
  version: number
  nodes: NodeTableDescription[]
  relationships: RelTableDescription[]
  notes: string[]
}

const describeColumns = (columns: ColumnDef[]): PropertyDescription[] =>
  columns.map((c) => ({ name: c.name, type: c.type, description: c.description, nullable: c.nullable === true }))

/** The schema for `gitwhy schema` (human and --json): tables, properties, types, meanings. */
export function describeSchema(): SchemaDescription {
  const nodes: NodeTableDescription[] = []
  const relationships: RelTableDescription[] = []
  for (const def of TABLES) {
    if (def.kind === 'node') {
      nodes.push({ name: def.name, description: def.description, primary_key: primaryKey(def).name, properties: describeColumns(def.columns) })
    } else {
      relationships.push({ name: def.name, description: def.description, from: def.from.table, to: def.to.table, properties: describeColumns(def.columns) })
    }
  }
  return {
    version: SCHEMA_VERSION,
    nodes,
    relationships,
    notes: [
      'TIMESTAMP values are stored in UTC and returned as ISO 8601 strings (e.g. 2020-01-01T10:00:00.000Z).',
      'Integers are returned as JSON numbers; values beyond 2^53 are returned as strings.',
      'Nodes and relationships returned whole are plain objects of their properties plus _label.',
    ],
  }
}

/** Plain-text rendering of describeSchema() for the terminal. */
export function formatSchema(schema: SchemaDescription = describeSchema()): string {
  const out: string[] = [`gitwhy graph schema v${schema.version}`, '', 'Nodes']
  const props = (properties: PropertyDescription[], pk?: string): void => {
    const width = Math.max(0, ...properties.map((p) => p.name.length + p.type.length + 1))
    for (const p of properties) {
      const head = `${p.name} ${p.type}`.padEnd(width)
      out.push(`    ${head}  ${p.description}${p.name === pk ? ' [key]' : ''}${p.nullable ? ' [nullable]' : ''}`)
    }
  }
  for (const n of schema.nodes) {
    out.push(`  (:${n.name})  ${n.description}`)
    props(n.properties, n.primary_key)
  }
  out.push('', 'Relationships')
  for (const r of schema.relationships) {
    out.push(`  (:${r.from})-[:${r.name}]->(:${r.to})  ${r.description}`)
    props(r.properties)
  }
  out.push('', ...schema.notes)
  return out.join('\n')
}
