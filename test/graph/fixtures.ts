import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import kuzu from 'kuzu'
import { NO_FORGE_ISSUE, NO_FORGE_PR, type GraphData } from '../../src/graph/types.js'

export const TRICKY_STRINGS = [
  'plain',
  'comma, inside',
  'he said "hi" and ""twice""',
  'line1\nline2\r\nline3\rline4',
  'trailing newline\n',
  'back\\slash \\" \\\\ \\n end\\',
  "single 'quotes'",
  '😀 ünïcødé 漢字 \u200b zero-width',
  'tab\there',
  '',
  '   ',
  'NULL',
  '\\N',
  '"',
  ',',
  'ctrl \u0001\u001f',
]

export function emptyGraph(): GraphData {
  return {
    files: [], symbols: [], commits: [], authors: [], pullRequests: [], issues: [],
    defines: [], contains: [], touched: [], changed: [], blamedOn: [], authoredBy: [], parents: [],
    partOf: [], references: [], closes: [], renamedFrom: [], reverts: [],
    fileCoChanged: [], symbolCoChanged: [], communities: [], memberOf: [], ownedBy: [],
    imports: [], calls: [], extends: [], implements: [], processes: [], stepIn: [], docs: [], docVectors: [],
    snapshots: [], snapshotFiles: [], snapshotSymbols: [], snapshotReverts: [], landedIn: [],
  }
}

/** Activity columns: one row with values, one with none (null timestamps). */
const ACTIVE = { revisions: 4, recent_revisions: 1, churn: 27, authors: 2, first_change: '2020-01-01T10:00:00.000Z', last_change: '2020-03-01T10:00:00.000Z', hotspot: 2.2, hotspot_percentile: 0.5, cochange_partners: 1 }
const IDLE = { revisions: 0, recent_revisions: 0, churn: 0, authors: 0, first_change: null, last_change: null, hotspot: 0, hotspot_percentile: 0, cochange_partners: 0 }

const sha = (i: number): string => i.toString(16).padStart(40, '0')

/** A small history where every string column carries awkward text. */
export function trickyGraph(): GraphData {
  const g = emptyGraph()
  TRICKY_STRINGS.forEach((text, i) => {
    g.commits.push({
      sha: sha(i + 1), short: sha(i + 1).slice(-7), author_name: text, author_email: `a${i}@example.com`,
      author_date: '2020-01-01T12:00:00+02:00', committer_date: '2020-01-02T00:30:00-05:30',
      subject: text, body: `${text}\n\nbody of ${i}, "quoted"\n`, parent_count: i === 0 ? 0 : 1,
      category: 'fix', additions: i * 10, deletions: i, age: i, boundary: i === 0,
    })
    g.authors.push({ email: `a${i}@example.com`, name: text, emails: `a${i}@example.com` })
    g.authoredBy.push({ sha: sha(i + 1), email: `a${i}@example.com` })
    if (i > 0) g.parents.push({ sha: sha(i + 1), parent: sha(i), idx: 0 })
  })
  g.files.push(
    { path: 'src/a,b "c".ts', language: 'typescript', lines: 10, is_test: false, present: true, ...ACTIVE },
    { path: 'src/new\nline.py', language: null, lines: 0, is_test: true, present: false, ...IDLE },
    { path: 'docs/😀.md', language: null, lines: 3, is_test: false, present: true, ...ACTIVE },
  )
  g.symbols.push(
    { id: 'src/a,b "c".ts#Foo', name: 'Foo', qualified_name: 'Foo', kind: 'class', path: 'src/a,b "c".ts', start_line: 1, end_line: 9, signature: 'class Foo<T extends "a" | \'b\'> {', exported: true, search: 'foo foo class foo t "a", \\b', ...ACTIVE },
    { id: 'src/a,b "c".ts#Foo.bar', name: 'bar', qualified_name: 'Foo.bar', kind: 'method', path: 'src/a,b "c".ts', start_line: 2, end_line: 4, signature: 'bar(x = "\\n",\n    y = 1)', exported: false, search: 'bar\n"baz"', ...IDLE },
  )
  g.defines.push({ path: 'src/a,b "c".ts', symbol: 'src/a,b "c".ts#Foo' }, { path: 'src/a,b "c".ts', symbol: 'src/a,b "c".ts#Foo.bar' })
  g.contains.push({ parent: 'src/a,b "c".ts#Foo', child: 'src/a,b "c".ts#Foo.bar' })
  g.touched.push(
    { sha: sha(1), path: 'src/a,b "c".ts', additions: 10, deletions: 0, change: 'A', old_path: '' },
    { sha: sha(2), path: 'docs/😀.md', additions: 3, deletions: 1, change: 'R', old_path: 'src/new\nline.py' },
  )
  g.changed.push({ sha: sha(1), symbol: 'src/a,b "c".ts#Foo', added: 9, removed: 0 }, { sha: sha(2), symbol: 'src/a,b "c".ts#Foo.bar', added: 1, removed: 2 })
  g.blamedOn.push({ symbol: 'src/a,b "c".ts#Foo', sha: sha(1), lines: 7 }, { symbol: 'src/a,b "c".ts#Foo', sha: sha(2), lines: 2 })
  g.pullRequests.push({ number: 42, title: 'Fix "it", again\nreally', url: 'https://example.com/pr/42', source: 'api', body: 'Why:\n"quoted", commas, and a\nnewline', labels: 'bug, ünïcødé', state: 'merged', author: 'octo-cat', merged_at: '2020-01-02T03:04:05.000Z', reviews: 'src/a.ts:3 eve: why?' })
  g.issues.push({ number: 7, title: '', url: '', source: 'message', ...NO_FORGE_ISSUE }, { number: 8, title: 'crash, on ünïcødé', url: 'u', source: 'api', ...NO_FORGE_ISSUE, body: 'steps', state: 'closed' })
  void NO_FORGE_PR
  g.partOf.push({ sha: sha(2), number: 42 })
  g.references.push({ sha: sha(2), number: 7, closes: true }, { sha: sha(3), number: 8, closes: false })
  g.closes.push({ pr: 42, issue: 7 })
  g.renamedFrom.push({ path: 'docs/😀.md', from: 'src/new\nline.py', sha: sha(2) })
  g.reverts.push({ sha: sha(3), target: sha(1), share: 0.875 })
  g.fileCoChanged.push({ a: 'docs/😀.md', b: 'src/a,b "c".ts', shared: 5, degree: 71.4, confidence: 0.625, reverse_confidence: 5 / 6 })
  g.symbolCoChanged.push({ a: 'src/a,b "c".ts#Foo', b: 'src/a,b "c".ts#Foo.bar', shared: 7, degree: 100, confidence: 1, reverse_confidence: 1 })
  g.communities.push({ id: 'c1', label: 'src "a,b"', size: 2, cohesion: 0.75 })
  g.memberOf.push({ symbol: 'src/a,b "c".ts#Foo', community: 'c1' }, { symbol: 'src/a,b "c".ts#Foo.bar', community: 'c1' })
  g.ownedBy.push({ path: 'src/a,b "c".ts', email: 'a1@example.com', lines: 7, share: 0.7 }, { path: 'src/a,b "c".ts', email: 'a2@example.com', lines: 3, share: 0.3 })
  g.imports.push({ from: 'src/a,b "c".ts', to: 'docs/😀.md' })
  g.calls.push({ from: 'src/a,b "c".ts#Foo.bar', to: 'src/a,b "c".ts#Foo', confidence: 0.95, reason: 'same-scope', line: 3 }, { from: 'src/a,b "c".ts#Foo', to: 'src/a,b "c".ts#Foo.bar', confidence: 0.13, reason: 'ambiguous', line: 5 })
  g.extends.push({ from: 'src/a,b "c".ts#Foo.bar', to: 'src/a,b "c".ts#Foo' })
  g.implements.push({ from: 'src/a,b "c".ts#Foo', to: 'src/a,b "c".ts#Foo.bar' })
  g.processes.push({ id: 'flow:src/a,b "c".ts#Foo', label: 'GET /a,"b" → Foo', kind: 'route', entry: 'src/a,b "c".ts#Foo', steps: 2, depth: 2 })
  g.stepIn.push({ symbol: 'src/a,b "c".ts#Foo', process: 'flow:src/a,b "c".ts#Foo', step: 1 }, { symbol: 'src/a,b "c".ts#Foo.bar', process: 'flow:src/a,b "c".ts#Foo', step: 2 })
  g.docs.push({ row: 0, id: 'symbol:src/a,b "c".ts#Foo', kind: 'symbol', ref: 'src/a,b "c".ts#Foo', path: 'src/a,b "c".ts', line: 1, title: 'Foo', text: 'foo (class)\nsays "hi", \\n\r\nend', search: 'foo class says hi n end', hash: '0123456789abcdef0123456789abcdef' })
  // loaded from a vectors file by writeGraph, not from these rows (the schema test reads their fields)
  g.docVectors.push({ row: 0, embedding: [0.6, 0.8] })
  g.decisions = [{
    id: 'd-0a1b2c3d', kind: 'constraint', title: 'No "eval", ever', statement: 'line1\nline2, "quoted"', rationale: '', confidence: 0.85, status: 'active',
    created: '2020-04-01T00:00:00.000Z', decided_at: '2020-03-01T10:00:00+02:00', source: 'manual', applies_to: 'src/a,b "c".ts:Foo docs/', check: '{"kind":"regex","pattern":"\\\\beval\\\\(","mode":"forbid"}', superseded_by: '',
  }]
  g.decisions.push({ ...g.decisions[0], id: 'p-0123456789', kind: 'decision', title: 'uses kuzu', statement: 'The project depends on kuzu.', check: '' })
  g.relatesTo = [{ from: 'd-0a1b2c3d', to: 'p-0123456789', reason: 'both govern src/a,b "c".ts' }]
  g.dependsOn = [{ from: 'd-0a1b2c3d', to: 'p-0123456789', reason: 'names kuzu' }]
  g.similarTo = [{ from: 'd-0a1b2c3d', to: 'p-0123456789', score: 0.8731 }]
  g.governsSymbol = [{ decision: 'd-0a1b2c3d', target: 'src/a,b "c".ts#Foo', applies_to: 'src/a,b "c".ts:Foo' }]
  g.governsFile = [{ decision: 'd-0a1b2c3d', target: 'docs/😀.md', applies_to: 'docs/' }]
  g.governsCommunity = [{ decision: 'd-0a1b2c3d', target: 'c1', applies_to: 'community:c1' }]
  g.evidencedByCommit = [{ decision: 'd-0a1b2c3d', target: sha(2), start_line: 0, end_line: 0 }]
  g.evidencedByPullRequest = [{ decision: 'd-0a1b2c3d', target: 42, start_line: 0, end_line: 0 }]
  g.evidencedByIssue = [{ decision: 'd-0a1b2c3d', target: 7, start_line: 0, end_line: 0 }]
  g.evidencedByDocument = [{ decision: 'd-0a1b2c3d', target: 'docs/😀.md', start_line: 1, end_line: 2 }]
  g.snapshots!.push({ id: sha(900), time: '2020-03-02T10:00:00.000Z', session: 's-20200302-100000', intent: 'fix "a,b"\nthen c', summary: 'src/a,b "c".ts (+1 -1): Foo', kind: 'auto' }, { id: sha(901), time: '2020-03-02T10:05:00.000Z', session: 's-20200302-100000', intent: null, summary: 'src/a,b "c".ts (+1 -1): Foo', kind: 'auto' })
  g.snapshotFiles!.push({ snapshot: sha(900), path: 'src/a,b "c".ts', added: 1, removed: 1 })
  g.snapshotSymbols!.push({ snapshot: sha(901), symbol: 'src/a,b "c".ts#Foo', added: 1, removed: 1 })
  g.snapshotReverts!.push({ snapshot: sha(901), target: sha(900) })
  g.landedIn!.push({ snapshot: sha(900), sha: g.commits[0].sha })
  return g
}

export function tempDir(prefix = 'gitwhy-graph-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix))
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) }
}

/** The rows of one statement over a graph on disk, opened read-only and closed again. */
export async function readRows(db: string, statement: string): Promise<Array<Record<string, unknown>>> {
  const d = new kuzu.Database(db, 64 * 1024 * 1024, true, true)
  const conn = new kuzu.Connection(d)
  try {
    const result = await conn.query(statement)
    return (Array.isArray(result) ? result[0] : result).getAllSync()
  } finally {
    await conn.close()
    await d.close()
  }
}
