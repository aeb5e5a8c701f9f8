/**
 * The MCP server end to end: the built CLI's `gitwhy mcp` driven by the SDK's real Client over
 * stdio (and Streamable HTTP in http.test.ts). Answers are compared with the CLI's --json answers
 * (the same services, which the oracle suites compare with git) and with facts built into the
 * repository: its PRs, issues, bots, formatting sweeps and dates.
 */
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BUNDLED_MODEL_ID } from '../../src/embed/model.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { runCli, runJson, type CliOptions } from '../cli/cli.js'
import { asAgentSees, connectStdio, structured, text } from './client.js'

const HOUR = 3600
const T0 = 1_735_689_600 // 2025-01-01T00:00:00Z

const RETRY_V1 = `export function retry(fn: () => void): void {
  for (let i = 0; i < 3; i++) {
    sleep(100)
    fn()
  }
}

export class Client {
  get(url: string): string {
    return url
  }
}
`
const RETRY_V2 = RETRY_V1.replace('sleep(100)', 'sleep(250)')
const RETRY_V3 = RETRY_V2.replace('    return url\n', '    if (!url) throw new Error("empty url")\n    return url\n')
const RETRY_FORMATTED = RETRY_V3.replace('export class Client {', 'export class Client  {')

/** The edit trajectory's tools: the reads, and the ones that record (the intent, a checkpoint, the recorder itself). */
const TRAJECTORY_READS = ['trajectory', 'global_trajectory', 'snapshot', 'session_summary']
const TRAJECTORY_WRITES = ['set_intent', 'consolidate', 'trajectory_recorder']
/** Tools that write (user state outside the index): the trajectory's recorders, and a vote on an answer. */
const WRITES = [...TRAJECTORY_WRITES, 'feedback']
const TOOLS = ['evidence_for', 'area_history', 'catchup', 'cypher', 'list_repos', 'ping', 'risk', 'related', 'hotspots', 'ownership', 'pickaxe', 'context', 'impact', 'detect_changes', 'rename', 'query', 'search', 'why', 'decisions_for', 'suggest_commit_message', 'rationale_brief', ...TRAJECTORY_READS, ...WRITES]

describe('gitwhy mcp over stdio', () => {
  let repo: TestRepo
  let home: string
  let opts: CliOptions
  let client: Client
  const sha: Record<string, string> = {}

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'gitwhy-mcp-home-'))
    repo = createRepo()
    repo.write('src/retry.ts', RETRY_V1).write('README.md', '# demo\n')
    sha.initial = repo.commit('Initial commit', { date: T0 })
    repo.branch('backoff').checkout('backoff')
    repo.write('src/retry.ts', RETRY_V2)
    sha.backoff = repo.commit('Use a 250 ms backoff\n\nThe API rate-limits bursts.', { date: T0 + 10 * 24 * HOUR })
    repo.checkout('main')
    sha.merge = repo.merge('backoff', { message: 'Merge pull request #12 from ada/backoff\n\nBackoff for the flaky API', date: T0 + 11 * 24 * HOUR })
    repo.write('package.json', '{"name":"demo","version":"1.0.1"}\n')
    sha.bot = repo.commit('chore(deps): bump left-pad from 1.0.0 to 1.0.1', { date: T0 + 12 * 24 * HOUR, author: { name: 'dependabot[bot]', email: '49699333+dependabot[bot]@users.noreply.github.com' } })
    repo.write('src/retry.ts', RETRY_V3)
    sha.fix = repo.commit('Reject empty URLs (#15)\n\nFixes #7', { date: T0 + 13 * 24 * HOUR, author: { name: 'Grace Hopper', email: 'grace@example.test' } })
    repo.write('src/retry.ts', RETRY_FORMATTED)
    sha.format = repo.commit('style: run the formatter', { date: T0 + 14 * 24 * HOUR })
    opts = { cwd: repo.dir, env: { ...repo.env(), GITWHY_HOME: home } }
    // vectors are opt-in: the search test below asks for the hybrid answer
    await runJson(['analyze', '--repo', repo.dir, '--embeddings'], opts)
    ;({ client } = await connectStdio({ cwd: repo.dir, env: opts.env }))
  })
  afterAll(async () => {
    await client?.close()
    repo?.cleanup()
  })

  test('tools/list with --tools all: every tool, snake_case, described, read-only (but those that record the trajectory, and feedback), with output schemas', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort())
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-z][a-z_]*$/)
      expect(tool.description!.length, tool.name).toBeGreaterThan(80)
      expect(tool.description!.length, tool.name).toBeLessThan(400)
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(!WRITES.includes(tool.name))
      expect(tool.outputSchema, tool.name).toBeDefined()
      for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${tool.name}.${field}`).toBeTruthy()
      }
    }
  })

  test('the default tool set (history, graph; ping and list_repos always) stays under 20,000 characters; cypher and pickaxe are in explore; an unknown group is refused', async () => {
    const { client: plain } = await connectStdio({ cwd: repo.dir, env: opts.env, tools: null })
    try {
      const { tools } = await plain.listTools()
      expect(tools.map((t) => t.name).sort()).toEqual(['area_history', 'catchup', 'context', 'detect_changes', 'evidence_for', 'impact', 'list_repos', 'ping', 'why'])
      expect(JSON.stringify({ tools }).length).toBeLessThan(20_000)
    } finally {
      await plain.close()
    }
    const { client: explore } = await connectStdio({ cwd: repo.dir, env: opts.env, tools: 'explore' })
    try {
      expect((await explore.listTools()).tools.map((t) => t.name).sort()).toEqual(['cypher', 'list_repos', 'pickaxe', 'ping'])
    } finally {
      await explore.close()
    }
    const { client: analytics } = await connectStdio({ cwd: repo.dir, env: opts.env, tools: 'analytics' })
    try {
      expect((await analytics.listTools()).tools.map((t) => t.name).sort()).toEqual(['hotspots', 'list_repos', 'ownership', 'ping', 'related', 'risk'])
    } finally {
      await analytics.close()
    }
    const bad = await runCli(['mcp', '--tools', 'history,nope'], opts)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/unknown tool group nope[\s\S]*history, graph, code, explore, analytics, decisions, trajectory, commit, feedback, brief/)
    const { client: trajectory } = await connectStdio({ cwd: repo.dir, env: opts.env, tools: 'trajectory' })
    try {
      expect((await trajectory.listTools()).tools.map((t) => t.name).sort()).toEqual(['list_repos', 'ping', ...TRAJECTORY_READS, ...TRAJECTORY_WRITES].sort())
    } finally {
      await trajectory.close()
    }
  })

  test('evidence_for a line range equals `gitwhy evidence --json`, with readable text citing the PR', async () => {
    const result = await client.callTool({ name: 'evidence_for', arguments: { path: 'src/retry.ts', line_start: 3, line_end: 3 } })
    expect(result.isError).toBeFalsy()
    const cli = (await runJson(['evidence', 'src/retry.ts:3', '--repo', repo.dir, '--limit', '20'], opts)).json
    expect(structured(result)).toEqual(await asAgentSees(client, 'evidence_for', { repo: repo.dir, ...cli }))
    const data = structured(result)
    // git blame says the backoff commit owns line 3; the initial commit wrote it first
    expect(data.evidence.map((e: any) => [e.commit.sha, e.source])).toEqual([
      [sha.backoff, 'blame'],
      [sha.initial, 'history'],
    ])
    expect(data.evidence[0].pull_requests.map((p: any) => p.number)).toEqual([12])
    expect(data.index).toEqual({ head: sha.format, stale: false, commits_behind: 0 })
    expect(text(result)).toContain(sha.backoff.slice(0, 7))
    expect(text(result)).toContain('PR #12')
    expect(text(result)).toContain('(fresh)')
  })

  test('structured content is compact: no derivable or empty fields, within the listed schema; resources are compact JSON', async () => {
    const result = await client.callTool({ name: 'evidence_for', arguments: { path: 'src/retry.ts' } })
    const cli = (await runJson(['evidence', 'src/retry.ts', '--repo', repo.dir, '--limit', '20'], opts)).json
    const data = structured(result)
    // the CLI spells out short, category "normal", empty PR and issue lists, null urls, .000 milliseconds
    expect(cli.evidence.some((e: any) => e.issues.length === 0)).toBe(true)
    cli.evidence.forEach((e: any, i: number) => {
      const item = data.evidence[i]
      expect(item.commit.sha).toBe(e.commit.sha)
      expect(item.commit).not.toHaveProperty('short')
      expect(item.commit.category).toBe(e.commit.category === 'normal' ? undefined : e.commit.category)
      expect(item.pull_requests).toEqual(e.pull_requests.length ? e.pull_requests.map((p: any) => (p.url === null ? { number: p.number, title: p.title } : p)) : undefined)
      expect(item.issues).toEqual(e.issues.length ? expect.any(Array) : undefined)
      expect(item.commit.date).toMatch(/T\d\d:\d\d:\d\dZ$/)
    })
    const format = data.evidence.find((e: any) => e.commit.sha === sha.format)
    expect(format.commit.category).toBe('formatting')
    expect(JSON.stringify(data).length).toBeLessThan(0.9 * JSON.stringify({ repo: repo.dir, ...cli }).length)
    // the text is unchanged: it is the answer the model reads
    expect(text(result)).toContain(sha.initial.slice(0, 7))

    const raw = (await client.readResource({ uri: `gitwhy://commit/${sha.fix}` })).contents[0].text as string
    expect(raw).not.toContain('\n')
    expect(JSON.parse(raw).commit).not.toHaveProperty('short')
  })

  test('evidence_for a symbol: Client.get, with the issue its fix closes', async () => {
    const result = await client.callTool({ name: 'evidence_for', arguments: { qualified_name: 'Client.get' } })
    const data = structured(result)
    expect(data.target).toMatchObject({ path: 'src/retry.ts', symbol: { qualified_name: 'Client.get', kind: 'method' } })
    const fix = data.evidence.find((e: any) => e.commit.sha === sha.fix)
    expect(fix.source).toBe('blame')
    expect(fix.pull_requests.map((p: any) => p.number)).toEqual([15])
    expect(fix.issues).toEqual([{ number: 7, closes: true }])
    const cli = (await runJson(['evidence', '--symbol', 'Client.get', '--repo', repo.dir, '--limit', '20'], opts)).json
    expect(data).toEqual(await asAgentSees(client, 'evidence_for', { repo: repo.dir, ...cli }))
  })

  test('area_history equals `gitwhy history --json` and follows the limit', async () => {
    const result = await client.callTool({ name: 'area_history', arguments: { path: 'src/retry.ts', limit: 2 } })
    const cli = (await runJson(['history', 'src/retry.ts', '--repo', repo.dir, '--limit', '2'], opts)).json
    expect(structured(result)).toEqual(await asAgentSees(client, 'area_history', { repo: repo.dir, ...cli }))
    expect(structured(result).total).toBe(4)
    expect(structured(result).evidence.map((e: any) => e.commit.sha)).toEqual([sha.format, sha.fix])
    const dir = structured(await client.callTool({ name: 'area_history', arguments: { path: 'src' } }))
    expect(dir.target).toEqual({ path: 'src', kind: 'directory', follow_renames: false })
  })

  test('catchup groups by PR and reduces merges, bots and formatting to counts', async () => {
    const result = await client.callTool({ name: 'catchup', arguments: { since: '2025-01-05' } })
    expect(result.isError).toBeFalsy()
    const data = structured(result)
    // since Jan 5: the merge (Jan 12), its PR's commit (Jan 11), the bot, the fix, the formatting
    expect(data.total).toBe(5)
    expect(data.reduced).toEqual({ merge: 1, bot: 1, formatting: 1 })
    expect(data.pull_requests.map((p: any) => [p.number, p.commits.map((c: any) => c.sha), p.other_commits])).toEqual([
      [15, [sha.fix], 0],
      [12, [sha.backoff], 1],
    ])
    expect(data.commits).toEqual([])
    expect(data.by_category).toMatchObject({ merge: 1, bot: 1, formatting: 1 })
    expect(text(result)).toContain('PR #12')
    expect(text(result)).toContain('counted only: 1 merge, 1 bot, 1 formatting')

    const later = structured(await client.callTool({ name: 'catchup', arguments: { since: '2025-01-13T12:00:00Z' } }))
    expect(later.total).toBe(2)
    expect(later.pull_requests.map((p: any) => p.number)).toEqual([15])

    const relative = structured(await client.callTool({ name: 'catchup', arguments: { since: '3 days ago' } }))
    expect(relative.total).toBe(0)
    const bad = await client.callTool({ name: 'catchup', arguments: { since: 'last blue moon' } })
    expect(bad.isError).toBe(true)
    expect(text(bad)).toMatch(/7 days ago/)
  })

  test('cypher reads with parameters and refuses writes', async () => {
    const result = await client.callTool({ name: 'cypher', arguments: { statement: 'MATCH (c:Commit)-[:PART_OF]->(p:PullRequest {number: $n}) RETURN c.sha AS sha ORDER BY sha', params: { n: 12 } } })
    expect(structured(result).rows.map((r: any) => r.sha).sort()).toEqual([sha.backoff, sha.merge].sort())
    const write = await client.callTool({ name: 'cypher', arguments: { statement: "CREATE (:Author {email: 'x', name: 'y'})" } })
    expect(write.isError).toBe(true)
    expect(text(write)).toMatch(/read-only/i)
  })

  test('search: hybrid over the real client, each hit says why it matched', async () => {
    const result = await client.callTool({ name: 'search', arguments: { text: 'the API rate-limits bursts', kind: 'commit', limit: 3 } })
    const data = structured(result) as { answered: string; model: string; hits: Array<{ ref: string; why: { vector_rank: number | null; cosine: number | null; bm25_rank: number | null; words: string[] } }> }
    expect(data).toMatchObject({ answered: 'hybrid', model: BUNDLED_MODEL_ID })
    expect(data.hits[0].ref).toBe(sha.backoff)
    expect(data.hits[0].why).toMatchObject({ bm25_rank: 1, words: ['api', 'rate', 'limits', 'bursts'] })
    expect(data.hits[0].why.vector_rank).not.toBeNull()
    expect(data.hits[0].why.cosine).toBeGreaterThan(0)
    const text = (result.content as Array<{ text: string }>)[0].text
    expect(text).toContain(`commit ${sha.backoff.slice(0, 7)}`)
    expect(text).toMatch(/bm25 #1; vector #\d+ cos 0\.\d\d; words: api, rate, limits, bursts/)
  })

  test("why over the real client equals `gitwhy why --json`: the merged PR's commit and its body, cited, confident", async () => {
    const result = await client.callTool({ name: 'why', arguments: { target: 'src/retry.ts:3' } })
    expect(result.isError).toBeFalsy()
    const cli = (await runJson(['why', 'src/retry.ts:3', '--repo', repo.dir], opts)).json
    expect(structured(result)).toEqual(await asAgentSees(client, 'why', { repo: repo.dir, ...cli }))
    const data = structured(result)
    expect(data.citations.slice(0, 2)).toMatchObject([{ kind: 'commit', sha: sha.backoff }, { kind: 'pr', ref: 'PR #12' }])
    expect(data.enough_evidence).toBe(true)
    expect(text(result)).toContain(`"Use a 250 ms backoff" [${sha.backoff.slice(0, 7)}]`)
    expect(text(result)).toContain(`The API rate-limits bursts. [${sha.backoff.slice(0, 7)}]`)
    expect(text(result)).toMatch(/confidence 0\.\d\d/)
    // a question in words, located by hybrid search
    const q = structured(await client.callTool({ name: 'why', arguments: { target: 'why do we wait between attempts when the API limits bursts?' } }))
    expect(q.search).toMatchObject({ answered: 'hybrid' })
    expect(q.citations[0]).toMatchObject({ sha: sha.backoff })
  })

  test('ping and list_repos: the index HEAD, freshness, counts, the registered repository', async () => {
    const ping = structured(await client.callTool({ name: 'ping', arguments: {} }))
    expect(ping).toMatchObject({ repo: repo.dir, index: { head: sha.format, stale: false, commits_behind: 0 }, counts: { commits: 6, pull_requests: 2, issues: 1 } })
    const list = structured(await client.callTool({ name: 'list_repos', arguments: {} }))
    expect(list.default_repo).toBe(repo.dir)
    expect(list.repos).toEqual([{ name: 'repo', path: repo.dir, default: true, index: { head: sha.format, stale: false, commits_behind: 0 }, problem: null }])
  })

  test('bad arguments are tool errors that say how to recover', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['evidence_for', {}, /path .*qualified_name/],
      ['evidence_for', { path: 'src/retry.ts', line_start: 50, line_end: 99 }, /1-1[0-9]/],
      ['evidence_for', { path: 'src/retyr.ts' }, /did you mean: src\/retry\.ts/],
      ['evidence_for', { qualified_name: 'Clinet.get' }, /did you mean: .*Client\.get/],
      ['evidence_for', { path: 'src/retry.ts', line_start: 'three' }, /line_start/],
      ['area_history', { path: 'nowhere/at/all' }, /never existed/],
      ['ping', { repo: 'no-such-repo' }, /no indexed repository named no-such-repo[\s\S]*list_repos|use one of/],
    ]
    for (const [name, args, message] of cases) {
      const result = await client.callTool({ name, arguments: args })
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
      expect(text(result), `${name} ${JSON.stringify(args)}`).toMatch(message)
    }
  })

  test('paths outside the repository are refused: ../, absolute paths elsewhere, a symlink out', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'gitwhy-outside-'))
    writeFileSync(join(outside, 'secret.ts'), 'export const secret = 1\n')
    mkdirSync(repo.path('links'), { recursive: true })
    symlinkSync(outside, repo.path('links/out'))
    for (const path of ['../secret.ts', '../../etc/passwd', join(outside, 'secret.ts'), '/etc/passwd', 'links/out/secret.ts']) {
      for (const name of ['evidence_for', 'area_history']) {
        const result = await client.callTool({ name, arguments: { path } })
        expect(result.isError, `${name} ${path}`).toBe(true)
        expect(text(result), `${name} ${path}`).toMatch(/outside the repository/)
      }
    }
  })

  test('resources: commit, PR, issue, overview, schema', async () => {
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(['gitwhy://commit/{sha}', 'gitwhy://community/{name}', 'gitwhy://issue/{number}', 'gitwhy://pr/{number}'])
    const { resources } = await client.listResources()
    expect(resources.map((r) => r.uri).sort()).toEqual(['gitwhy://communities', 'gitwhy://repo/overview', 'gitwhy://schema'])

    const read = async (uri: string) => JSON.parse((await client.readResource({ uri })).contents[0].text as string)
    const commit = await read(`gitwhy://commit/${sha.fix.slice(0, 8)}`)
    expect(commit.commit).toMatchObject({ sha: sha.fix, subject: 'Reject empty URLs (#15)', body: 'Fixes #7', author: 'Grace Hopper' })
    expect(commit.files).toEqual([{ path: 'src/retry.ts', change: 'M', old_path: null, additions: 1, deletions: 0 }])
    expect(commit.symbols.map((s: any) => s.qualified_name)).toEqual(['Client', 'Client.get'])
    expect(commit.pull_requests.map((p: any) => p.number)).toEqual([15])
    expect(commit.issues.map((i: any) => i.number)).toEqual([7])

    const pr = await read('gitwhy://pr/12')
    expect(pr.pull_request).toMatchObject({ number: 12, title: 'Backoff for the flaky API' })
    expect(pr.commits.map((c: any) => c.sha).sort()).toEqual([sha.backoff, sha.merge].sort())
    expect(pr.files).toEqual([{ path: 'src/retry.ts', commits: 1, additions: 1, deletions: 1 }])

    const issue = await read('gitwhy://issue/7')
    expect(issue.commits).toEqual([expect.objectContaining({ sha: sha.fix, closes: true })])

    const overview = await read('gitwhy://repo/overview')
    expect(overview).toMatchObject({ repo: repo.dir, counts: { commits: 6 }, index: { head: sha.format, stale: false } })
    expect(overview.top_contributors[0]).toMatchObject({ email: 'ada@example.test', commits: 3 })
    expect(overview.top_contributors.map((c: any) => c.email)).not.toContain('49699333+dependabot[bot]@users.noreply.github.com')

    const schema = (await client.readResource({ uri: 'gitwhy://schema' })).contents[0].text as string
    expect(schema).toContain('BLAMED_ON')
    await expect(client.readResource({ uri: 'gitwhy://commit/deadbeef' })).rejects.toThrow(/no indexed commit deadbeef/)
    await expect(client.readResource({ uri: 'gitwhy://pr/999' })).rejects.toThrow(/PR #999/)
  })

  test('prompts: the three recipes name the tools they use', async () => {
    const { prompts } = await client.listPrompts()
    expect(prompts.map((p) => p.name).sort()).toEqual(['pre_edit_brief', 'triage_commit', 'why_was_this_written'])
    const brief = await client.getPrompt({ name: 'pre_edit_brief', arguments: { path: 'src/retry.ts', symbol: 'retry' } })
    const body = (brief.messages[0].content as { text: string }).text
    // the rationale card itself, fenced as data
    expect(body).toMatch(/<<<brief\nfunction retry — src\/retry\.ts:1-6[\s\S]*\nbrief>>>/)
    expect(body).toContain('evidence_for')
    expect(body).toContain('area_history')
    expect(body).toContain('src/retry.ts')
    const triage = await client.getPrompt({ name: 'triage_commit', arguments: { sha: sha.fix.slice(0, 7) } })
    expect((triage.messages[0].content as { text: string }).text).toContain(`gitwhy://commit/${sha.fix.slice(0, 7)}`)
    // why_was_this_written carries the why answer itself, fenced as data
    const whyPrompt = ((await client.getPrompt({ name: 'why_was_this_written', arguments: { path: 'src/retry.ts', line_start: '3' } })).messages[0].content as { text: string }).text
    expect(whyPrompt).toContain(`<<<why\n`)
    expect(whyPrompt).toContain(`"Use a 250 ms backoff" [${sha.backoff.slice(0, 7)}]`)
    expect(whyPrompt).toMatch(/confidence 0\.\d\d/)
    const missing = ((await client.getPrompt({ name: 'why_was_this_written', arguments: { path: 'src/nope.ts' } })).messages[0].content as { text: string }).text
    expect(missing).toMatch(/no answer: src\/nope.ts is not an indexed file/)
  })

  test('every answer says when the index is stale; the next analyze is picked up without a restart', async () => {
    repo.write('README.md', '# demo\n\nMore.\n')
    const newer = repo.commit('Document more', { date: T0 + 20 * 24 * HOUR })
    const stale = structured(await client.callTool({ name: 'evidence_for', arguments: { path: 'src/retry.ts', line_start: 3 } }))
    expect(stale.index).toEqual({ head: sha.format, stale: true, commits_behind: 1 })
    const staleText = text(await client.callTool({ name: 'ping', arguments: {} }))
    expect(staleText).toMatch(/STALE, 1 commit behind/)
    await runJson(['analyze', '--repo', repo.dir], opts)
    const fresh = structured(await client.callTool({ name: 'ping', arguments: {} }))
    expect(fresh.index).toEqual({ head: newer, stale: false, commits_behind: 0 })
    expect(fresh.counts.commits).toBe(7)
  })
})

describe('gitwhy mcp: which repository', () => {
  test('started outside any repository: the client\'s roots decide, `repo` picks another indexed one by name', async () => {
    const home = mkdtempSync(join(tmpdir(), 'gitwhy-mcp-home-'))
    const a = createRepo()
    const b = createRepo()
    try {
      a.write('a.ts', 'export const a = 1\n').commit('A one')
      b.write('b.ts', 'export const b = 1\n').commit('B one')
      b.write('b.ts', 'export const b = 2\n').commit('B two')
      const env = { ...a.env(), GITWHY_HOME: home }
      await runJson(['analyze', '--repo', a.dir], { cwd: a.dir, env })
      await runJson(['analyze', '--repo', b.dir], { cwd: b.dir, env })
      const nowhere = mkdtempSync(join(tmpdir(), 'gitwhy-nowhere-'))

      const { client } = await connectStdio({ cwd: nowhere, env, roots: [b.dir] })
      try {
        expect(structured(await client.callTool({ name: 'ping', arguments: {} })).repo).toBe(b.dir)
        const list = structured(await client.callTool({ name: 'list_repos', arguments: {} }))
        expect(list.repos.map((r: any) => [r.path, r.default])).toEqual(expect.arrayContaining([[a.dir, false], [b.dir, true]]))
        const nameOfA = list.repos.find((r: any) => r.path === a.dir).name
        const other = structured(await client.callTool({ name: 'area_history', arguments: { path: 'a.ts', repo: nameOfA } }))
        expect(other.repo).toBe(a.dir)
        expect(other.total).toBe(1)
        const byPath = structured(await client.callTool({ name: 'area_history', arguments: { path: 'b.ts', repo: b.dir } }))
        expect(byPath.total).toBe(2)
      } finally {
        await client.close()
      }

      // no roots, two registered repositories: a call without `repo` says which ones exist
      const { client: bare } = await connectStdio({ cwd: nowhere, env })
      try {
        const result = await bare.callTool({ name: 'ping', arguments: {} })
        expect(result.isError).toBe(true)
        expect(text(result)).toMatch(/no default repository[\s\S]*pass repo with one of/)
      } finally {
        await bare.close()
      }
    } finally {
      a.cleanup()
      b.cleanup()
    }
  })
})
