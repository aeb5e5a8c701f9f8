/**
 * The CLI contract, end to end: the built CLI is spawned on a small repository and every command's
 * exit code, stdout (exactly one JSON document with --json, nothing else) and documented JSON shape
 * (exact key sets) are pinned, together with the PR / issue linking from commit messages.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import {
  ANALYZE_FULL,
  ANALYZE_NOOP,
  COUNT_KEYS,
  EVIDENCE_DOC,
  HISTORY_DOC,
  SCHEMA_DOC,
  WHY_DOC,
  STATUS_INDEXED,
  expectShape,
  runCli,
  runJson,
  type CliOptions,
} from './cli.js'

const SERVER_V1 = `export class Server {
  start(): string {
    return 'listening'
  }
}

export function helper(x: number): number {
  return x + 1
}
`

/** "Fix thing (#12)": lines 2-3 change. */
const SERVER_V2 = SERVER_V1.replace("  start(): string {\n    return 'listening'", "  start(port: number): string {\n    return 'listening on ' + port")

/** "Fixes #3": line 3 changes again. */
const SERVER_V3 = SERVER_V2.replace("    return 'listening on ' + port", "    return 'listening on port ' + String(port)")

const PARSER_V1 = `def parse(text):
    return text.split()


class Parser:
    def run(self):
        return parse("a b")
`

const PARSER_V2 = PARSER_V1.replace('    return text.split()', '    return text.strip().split()')

describe('CLI contract (--json documents and human output)', () => {
  let repo: TestRepo
  let opts: CliOptions
  const sha: Record<string, string> = {}
  let firstAnalyze: any

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/server.ts', SERVER_V1).write('src/parser.py', PARSER_V1).write('README.md', '# demo\n')
    sha.initial = repo.commit('Initial commit')
    repo.write('src/server.ts', SERVER_V2)
    sha.squash = repo.commit('Fix thing (#12)')
    repo.branch('feature').checkout('feature')
    repo.write('src/parser.py', PARSER_V2)
    sha.feature = repo.commit('Strip whitespace before splitting')
    repo.checkout('main')
    sha.merge = repo.merge('feature', { message: 'Merge pull request #7 from x/y\n\nStrip parser input' })
    repo.write('src/server.ts', SERVER_V3)
    sha.fixes = repo.commit('Print the port\n\nFixes #3\nSee also #5')
    opts = { cwd: repo.dir, env: repo.env() }
    firstAnalyze = (await runJson(['analyze', '--repo', repo.dir], opts)).json
  })
  afterAll(() => repo?.cleanup())

  const cli = (...args: string[]) => runJson([...args, '--repo', repo.dir], opts)

  test('analyze --json: a full build, one JSON document with repo, head, mode, counts, skipped, timings', () => {
    expectShape(firstAnalyze, ANALYZE_FULL, 'analyze --json')
    expect(firstAnalyze.repo).toBe(repo.dir)
    expect(firstAnalyze.head).toBe(sha.fixes)
    expect(firstAnalyze.new_commits).toBe(5)
    expect(Object.keys(firstAnalyze.counts)).toEqual([...COUNT_KEYS])
    expect(firstAnalyze.counts).toMatchObject({ commits: 5, files: 3, authors: 1, pull_requests: 2, issues: 2 })
    // Server, Server.start, helper, parse, Parser, Parser.run
    expect(firstAnalyze.counts.symbols).toBe(6)
    expect(firstAnalyze.timings.total_ms).toBeGreaterThanOrEqual(0)
  })

  test('a second analyze --json is a no-op with the same counts', async () => {
    const { json, result } = await cli('analyze')
    expectShape(json, ANALYZE_NOOP, 'noop analyze --json')
    expect(json.head).toBe(sha.fixes)
    expect(json.counts).toEqual(firstAnalyze.counts)
    expect(json.skipped).toEqual(firstAnalyze.skipped)
    // --json turns progress off; nothing but the document on stdout
    expect(result.stdout.trimStart().startsWith('{')).toBe(true)
  })

  test('status --json', async () => {
    const { json } = await cli('status')
    expectShape(json, STATUS_INDEXED, 'status --json')
    expect(json).toMatchObject({ repo: repo.dir, indexed: true, head: sha.fixes })
    expect(json.index).toMatchObject({ head: sha.fixes, stale: false, commits_behind: 0, shallow: false, max_commits: null })
    expect(json.index.size_bytes).toBeGreaterThan(0)
    expect(json.counts).toEqual(firstAnalyze.counts)
    expect(json.timings).toEqual(firstAnalyze.timings)
    const schema = (await cli('schema')).json
    expect(json.index.schema_version).toBe(schema.version)
  })

  test('evidence PATH:1-3 --json: blame items with PR #12 (squash) and issue #3 (closes) / #5 (reference)', async () => {
    const { json } = await cli('evidence', 'src/server.ts:1-3')
    expectShape(json, EVIDENCE_DOC, 'evidence --json')
    expect(json.target).toEqual({ path: 'src/server.ts', line_start: 1, line_end: 3, symbol: null })
    expect(json.index).toEqual({ head: sha.fixes, stale: false, commits_behind: 0 })
    expect(json.undecided).toBeNull()
    expect(json.total).toBe(json.evidence.length)
    // newest first; each line has one owner
    expect(json.evidence.map((e: any) => [e.commit.sha, e.source, e.lines])).toEqual([
      [sha.fixes, 'blame', 1],
      [sha.squash, 'blame', 1],
      [sha.initial, 'blame', 1],
    ])
    const [fixes, squash, initial] = json.evidence
    expect(squash.commit.subject).toBe('Fix thing (#12)')
    expect(squash.pull_requests).toEqual([{ number: 12, title: 'Fix thing', url: null }])
    expect(squash.issues).toEqual([])
    expect(fixes.pull_requests).toEqual([])
    expect(fixes.issues.find((i: any) => i.number === 3)).toMatchObject({ number: 3, closes: true })
    expect(fixes.issues.find((i: any) => i.number === 5)).toMatchObject({ number: 5, closes: false })
    expect(initial.commit).toMatchObject({ category: 'initial', author: 'Ada Tester', email: 'ada@example.test', date: '2024-01-01T01:00:00.000Z' })
  })

  test('evidence --symbol NAME --json: the symbol target and PR #7 through the merge (title: merge body line)', async () => {
    const { json } = await cli('evidence', '--symbol', 'parse')
    expectShape(json, EVIDENCE_DOC, 'evidence --symbol --json')
    expect(json.target).toEqual({ path: 'src/parser.py', line_start: 1, line_end: 2, symbol: { qualified_name: 'parse', kind: 'function' } })
    const bySha = new Map(json.evidence.map((e: any) => [e.commit.sha, e]))
    const feature: any = bySha.get(sha.feature)
    expect(feature, JSON.stringify(json.evidence, null, 2)).toBeDefined()
    expect(feature.source).toBe('blame')
    expect(feature.pull_requests).toEqual([{ number: 7, title: 'Strip parser input', url: null }])
    expect(bySha.get(sha.initial)).toMatchObject({ source: 'blame', lines: 1 })

    // a qualified name resolves too
    const method = (await cli('evidence', '--symbol', 'Server.start')).json
    expectShape(method, EVIDENCE_DOC, 'evidence --symbol Server.start --json')
    expect(method.target).toEqual({ path: 'src/server.ts', line_start: 2, line_end: 4, symbol: { qualified_name: 'Server.start', kind: 'method' } })
  })

  test('why TARGET --json and why QUESTION --json: the documented shape; citations best first, PR #12 right after its commit', async () => {
    const { json } = await cli('why', 'src/server.ts:1-3')
    expectShape(json, WHY_DOC, 'why --json')
    expect(json).toMatchObject({ question: null, search: null, located: [], target: { path: 'src/server.ts', line_start: 1, line_end: 3, symbol: null } })
    const refs = json.citations.map((c: any) => c.ref)
    expect(refs.indexOf('PR #12')).toBe(refs.indexOf(sha.squash.slice(0, 7)) + 1)
    expect(json.citations.filter((c: any) => c.kind === 'commit').map((c: any) => c.sha).sort()).toEqual([sha.initial, sha.squash, sha.fixes].sort())
    expect(json.total).toBe(3)
    const question = (await cli('why', 'strip whitespace from parser input', '--limit', '1')).json
    expectShape(question, WHY_DOC, 'why QUESTION --json')
    expect(question).toMatchObject({ question: 'strip whitespace from parser input', search: { mode: 'hybrid', answered: 'bm25' } })
    expect(question.evidence).toHaveLength(1)
    expect(question.citations[0]).toMatchObject({ kind: 'commit', sha: sha.feature })
  })

  test('history FILE --json: area items with path_at_commit, PR #7 on the commit that arrived through the merge', async () => {
    const { json } = await cli('history', 'src/parser.py')
    expectShape(json, HISTORY_DOC, 'history FILE --json')
    expect(json.target).toEqual({ path: 'src/parser.py', kind: 'file', follow_renames: true })
    expect(json.truncated).toBe(false)
    // git log --follow never lists merges
    expect(json.evidence.map((e: any) => e.commit.sha)).toEqual([sha.feature, sha.initial])
    expect(json.evidence.every((e: any) => e.path_at_commit === 'src/parser.py')).toBe(true)
    expect(json.evidence[0].pull_requests).toEqual([{ number: 7, title: 'Strip parser input', url: null }])

    const noRenames = (await cli('history', 'src/parser.py', '--no-renames')).json
    expectShape(noRenames, HISTORY_DOC, 'history --no-renames --json')
    expect(noRenames.target.follow_renames).toBe(false)
  })

  test('history DIR --json: every commit under the directory', async () => {
    const { json } = await cli('history', 'src')
    expectShape(json, HISTORY_DOC, 'history DIR --json')
    expect(json.target).toMatchObject({ path: 'src', kind: 'directory' })
    // the set `git log -- src` gives (the merge is TREESAME to its second parent there: simplified away)
    const gitShas = repo.git('log', '--format=%H', '--', 'src').trim().split('\n')
    expect(gitShas).toEqual([sha.fixes, sha.feature, sha.squash, sha.initial])
    expect(json.evidence.map((e: any) => e.commit.sha)).toEqual(gitShas)
    expect(json.total).toBe(4)
    const feature = json.evidence.find((e: any) => e.commit.sha === sha.feature)
    expect(feature.pull_requests).toEqual([{ number: 7, title: 'Strip parser input', url: null }])
    const fixes = json.evidence.find((e: any) => e.commit.sha === sha.fixes)
    expect(fixes.issues.map((i: any) => [i.number, i.closes]).sort()).toEqual([[3, true], [5, false]])

    const limited = (await cli('history', 'src', '--limit', '2')).json
    expect(limited.evidence).toHaveLength(2)
    expect(limited.total).toBe(4)
  })

  test('schema --json', async () => {
    const { json } = await cli('schema')
    expectShape(json, SCHEMA_DOC, 'schema --json')
    expect(json.nodes.map((n: any) => n.name)).toEqual(['File', 'Symbol', 'Commit', 'Author', 'PullRequest', 'Issue', 'Community', 'Process', 'Snapshot', 'Doc', 'DocVector', 'Decision'])
    expect(json.relationships.map((r: any) => `${r.from}-${r.name}->${r.to}`)).toEqual([
      'File-DEFINES->Symbol',
      'Symbol-CONTAINS->Symbol',
      'Commit-TOUCHED->File',
      'Commit-CHANGED->Symbol',
      'Symbol-BLAMED_ON->Commit',
      'Commit-AUTHORED_BY->Author',
      'Commit-PARENT->Commit',
      'Commit-REVERTS->Commit',
      'Commit-PART_OF->PullRequest',
      'Commit-REFERENCES->Issue',
      'PullRequest-CLOSES->Issue',
      'File-RENAMED_FROM->File',
      'File-CO_CHANGED->File',
      'Symbol-CO_CHANGED->Symbol',
      'Symbol-MEMBER_OF->Community',
      'File-OWNED_BY->Author',
      'File-IMPORTS->File',
      'Symbol-CALLS->Symbol',
      'Symbol-EXTENDS->Symbol',
      'Symbol-IMPLEMENTS->Symbol',
      'Symbol-STEP_IN->Process',
      'Decision-GOVERNS->Symbol',
      'Decision-GOVERNS->File',
      'Decision-GOVERNS->Community',
      'Decision-RELATES_TO->Decision',
      'Decision-DEPENDS_ON->Decision',
      'Decision-SIMILAR_TO->Decision',
      'Decision-EVIDENCED_BY->Commit',
      'Decision-EVIDENCED_BY->PullRequest',
      'Decision-EVIDENCED_BY->Issue',
      'Decision-EVIDENCED_BY->File',
      'Snapshot-SNAPSHOT_TOUCHED->File',
      'Snapshot-SNAPSHOT_TOUCHED->Symbol',
      'Snapshot-SNAPSHOT_REVERTS->Snapshot',
      'Snapshot-LANDED_IN->Commit',
    ])
  })

  test('cypher --json: rows, count(*) is a JSON number', async () => {
    const { json } = await cli('cypher', 'MATCH (c:Commit) RETURN count(*) AS n')
    expect(json).toEqual({ rows: [{ n: 5 }], truncated: false, max_rows: 1000 })
    expect(typeof json.rows[0].n).toBe('number')

    const dates = (await cli('cypher', 'MATCH (c:Commit) WHERE c.sha = $sha RETURN c.author_date AS d, c.parent_count AS p', '--param', `sha=${sha.merge}`)).json
    expect(dates).toEqual({ rows: [{ d: '2024-01-01T04:00:00.000Z', p: 2 }], truncated: false, max_rows: 1000 })
  })

  test('cypher --param: text and JSON values are bound as parameters', async () => {
    const [text, num, two, quoted] = (
      await Promise.all([
        cli('cypher', 'MATCH (c:Commit) WHERE c.subject = $s RETURN c.sha AS sha', '--param', 's=Fix thing (#12)'),
        cli('cypher', 'MATCH (c:Commit) WHERE c.parent_count = $n RETURN c.sha AS sha', '--param', 'n=2'),
        cli(
          'cypher',
          'MATCH (c:Commit)-[:PART_OF]->(p:PullRequest) WHERE p.number = $pr AND c.subject STARTS WITH $prefix RETURN c.sha AS sha',
          '--param',
          'pr=7',
          '-p',
          'prefix=Strip',
        ),
        // a quote in a value is data, never query text
        cli('cypher', 'MATCH (c:Commit) WHERE c.subject = $s RETURN count(*) AS n', '--param', `s=x' OR 1=1 //`),
      ])
    ).map((r) => r.json)
    expect(text).toEqual({ rows: [{ sha: sha.squash }], truncated: false, max_rows: 1000 })
    // a JSON value is bound with its JSON type
    expect(num).toEqual({ rows: [{ sha: sha.merge }], truncated: false, max_rows: 1000 })
    expect(two).toEqual({ rows: [{ sha: sha.feature }], truncated: false, max_rows: 1000 })
    expect(quoted).toEqual({ rows: [{ n: 0 }], truncated: false, max_rows: 1000 })
  })

  test('human output: non-empty stdout, progress on stderr only, no JSON documents', async () => {
    const run = (...args: string[]) => runCli([...args, '--repo', repo.dir], opts)
    const [status, evidence, history, schema, cypher, why] = await Promise.all([
      run('status'),
      run('evidence', 'src/server.ts:1-3'),
      run('history', 'src/parser.py'),
      run('schema'),
      run('cypher', 'MATCH (c:Commit) RETURN c.short AS s ORDER BY c.age DESC'),
      run('why', 'src/server.ts:1-3'),
    ])
    for (const r of [status, evidence, history, schema, cypher, why]) {
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout.trim().length).toBeGreaterThan(0)
    }
    expect(status.stdout).toContain(sha.fixes.slice(0, 7))
    expect(status.stdout).toMatch(/fresh/)
    expect(evidence.stdout).toMatch(/^src\/server\.ts:1-3/)
    expect(evidence.stdout).toContain('PR #12')
    expect(history.stdout).toMatch(/^src\/parser\.py \(file/)
    expect(schema.stdout).toContain('BLAMED_ON')
    expect(why.stdout).toMatch(/^src\/server\.ts:1-3 .* \[[0-9a-f]{7}\]\./)
    expect(why.stdout).toMatch(/\nconfidence 0\.\d\d/)
    expect(why.stdout).toMatch(/\nevidence:\n {2}[0-9a-f]{7} /)
    // cypher without --json: one JSON object per line
    const lines = cypher.stdout.trim().split('\n')
    expect(lines.map((l) => JSON.parse(l))).toEqual([sha.fixes, sha.merge, sha.feature, sha.squash, sha.initial].map((s) => ({ s: s.slice(0, 7) })))
    for (const r of [status, evidence, history, schema, why]) expect(() => JSON.parse(r.stdout)).toThrow()

    // a real build (forced): the summary on stdout, progress lines on stderr only
    const analyze = await run('analyze', '--force')
    expect(analyze.code, analyze.stderr).toBe(0)
    expect(analyze.stdout).toMatch(new RegExp(`^indexed ${repo.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at ${sha.fixes.slice(0, 7)} \\(full\\)\\n`))
    expect(analyze.stdout).toMatch(/5 commits · 3 files · 6 symbols/)
    expect(analyze.stdout).toMatch(/time: .*total \d+ ms/)
    expect(analyze.stderr).toMatch(/gitwhy: history/)
    expect(analyze.stdout).not.toMatch(/gitwhy: |\r|\[#+-*\]/)

    // --quiet: no progress
    const quiet = await run('analyze', '--force', '--quiet')
    expect(quiet.code, quiet.stderr).toBe(0)
    expect(quiet.stderr).toBe('')
    expect(quiet.stdout).toMatch(/^indexed /)
  })
})
