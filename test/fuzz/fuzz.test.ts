/**
 * Every CLI command and every MCP tool, resource and prompt, called with empty, missing, unknown,
 * huge and hostile arguments. What is asserted is what an agent depends on: no native crash (exit
 * 139/134 or a signal), no bug exit (2), `--json` always one JSON document, and over MCP no dropped
 * connection — every call answers, and the server still answers `ping` at the end.
 *
 * The commands and tools are read from the manifest and from tools/list, so a new one joins this
 * test without an edit here.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { ROOT, runCli } from '../cli/cli.js'
import { connectStdio } from '../mcp/client.js'

/** Values a careless or hostile caller sends where a path, a name or a pattern is expected. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '-',
  '--',
  '-x',
  '.',
  '..',
  '/',
  '../../../../etc/passwd',
  '/etc/passwd',
  'nope.ts',
  'src/a.ts:0',
  'src/a.ts:5-',
  'src/a.ts:3-1',
  'src/a.ts:1.5-3',
  'src/a.ts:999999999999',
  'src:',
  ':',
  'a'.repeat(20_000),
  '\u001b]0;pwned\u0007\u001b[2J',
  'a\nb\r\nc',
  '\u202eevil',
  '💥🧨',
  '%s%n%x',
  '$(id)`id`',
  "'; MATCH (n) DETACH DELETE n //",
  '(a+)+$',
  '[',
  '**/*',
  '{a,b}',
  'HEAD~999999',
  '@{-1}',
  'NaN',
  '-1',
  '0',
  '1e309',
]

const HOSTILE_NUMBERS = ['-1', '0', '1.5', 'abc', '99999999999999999999', '1e9', '', ' ']

function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

/** A small repository with a merge, a rename, a branch and an issue reference, analyzed. */
function fuzzRepo(): TestRepo {
  const repo = createRepo()
  repo.write('src/a.ts', 'export class Alpha {\n  run(): number {\n    return 1\n  }\n}\n').write('lib/tool.py', 'def parse(text):\n    return text\n')
  repo.commit('Add alpha and tool')
  repo.git('checkout', '-q', '-b', 'topic')
  repo.write('src/b.ts', 'export function beta() {\n  return 2\n}\n')
  repo.commit('Add beta (#7), fixes #3')
  repo.git('checkout', '-q', 'main')
  repo.write('src/a.ts', 'export class Alpha {\n  run(): number {\n    return 10\n  }\n}\n')
  repo.commit('Change alpha')
  repo.merge('topic', { message: 'Merge pull request #7 from x/topic', noFF: true })
  repo.git('mv', 'lib/tool.py', 'lib/tools.py')
  repo.commit('Rename tool')
  return repo
}

interface Manifest {
  commands: Record<string, { args: Record<string, unknown>; flags: Record<string, { type: 'boolean' | 'option'; options?: string[] }> }>
}

/** argv lists for every command but the server and the Claude hook (their own tests below). */
export function cliCases(repoDir: string): string[][] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest
  const cases: string[][] = [['nope'], ['evidnce', 'x'], ['--nope'], ['']]
  for (const [id, command] of Object.entries(manifest.commands)) {
    // a server, and the Claude hook (which ends its process by design): both fuzzed below
    if (id === 'mcp' || id === 'hook:claude') continue
    const words = id.split(':')
    const positional = Object.keys(command.args)
    const valid = positional.map((name) => (name === 'query' ? 'MATCH (c:Commit) RETURN count(*)' : name === 'pattern' ? 'Alpha' : name === 'name' ? 'src' : name === 'path' && id === 'analyze' ? repoDir : name === 'answer_id' ? 'w-0123456789ab' : name === 'vote' ? 'up' : 'src/a.ts'))
    // the foreground recorder runs until a signal: every case of it is bounded (a hostile --duration fails at once)
    const bounded = (argv: string[]) => (id === 'watch' && !argv.includes('--duration') ? [...argv, '--duration', '50'] : argv)
    const add = (...argv: string[]) => {
      cases.push(bounded([...words, ...argv]))
      if (command.flags.json) cases.push(bounded([...words, ...argv, '--json']))
    }
    add()
    add('--nope')
    add(...valid, 'extra', 'arguments')
    for (const [i] of positional.entries()) {
      for (const value of HOSTILE_STRINGS) add(...valid.map((v, j) => (j === i ? value : v)))
    }
    for (const [flag, spec] of Object.entries(command.flags)) {
      if (flag === 'json') continue
      if (spec.type === 'boolean') {
        add(...valid, `--${flag}`)
        continue
      }
      // analyze with a valid option rebuilds the index: a few values are enough
      const values = flag === 'repo' ? ['', '/nonexistent', '/', '..', 'a'.repeat(5000)] : id === 'analyze' ? ['-1', 'abc', ''] : [...HOSTILE_NUMBERS, ...HOSTILE_STRINGS.slice(0, 12), ...(spec.options ?? [])]
      for (const value of values) add(...valid, `--${flag}`, value)
      add(...valid, `--${flag}`)
    }
  }
  // brief's precompute: --community only counts with --all (and no target), which the loop above never pairs
  for (const value of HOSTILE_STRINGS.slice(0, 12)) cases.push(['brief', '--all', '--community', value], ['brief', '--all', '--community', value, '--json'])
  return cases
}

interface CaseResult {
  i: number
  code: number
  json_ok: boolean | null
}

/** Run the cases in one process; a crash is reported with the case that was running. */
async function runCases(cases: string[][], cwd: string, env: NodeJS.ProcessEnv): Promise<{ results: CaseResult[]; crash: string | null }> {
  const file = join(tempDir('gitwhy-fuzz-'), 'cases.json')
  writeFileSync(file, JSON.stringify(cases))
  const child = spawn(process.execPath, [join(ROOT, 'test', 'fuzz', 'cli-runner.mjs'), file], { cwd, env: { ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let lastStart = -1
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => {
    const m = /start (\d+)\n(?![\s\S]*start \d+\n)/.exec(d.toString())
    if (m) lastStart = Number(m[1])
  })
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (c, s) => resolve({ code: c, signal: s })))
  const results = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as CaseResult)
  const crash = code === 0 ? null : `the runner died (exit ${code}, signal ${signal}) during case ${lastStart}: gitwhy ${JSON.stringify(cases[lastStart])}`
  return { results, crash }
}

describe('fuzz: every command and tool with hostile arguments', () => {
  let repo: TestRepo
  let home: string

  beforeAll(async () => {
    repo = fuzzRepo()
    home = tempDir('gitwhy-fuzz-home-')
    const r = await runCli(['analyze', '--quiet'], { cwd: repo.dir, env: repo.env() })
    expect(r.code, r.stderr).toBe(0)
    // a staged change, for suggest-commit (and detect-changes --staged) to describe
    repo.write('src/c.ts', 'export function gamma() {\n  return 3\n}\n')
  })

  afterAll(async () => {
    // `trajectory start` with valid flags starts the background recorder: never leave it running
    if (repo) await runCli(['trajectory', 'stop', '--repo', repo.dir], { cwd: repo.dir, env: repo.env() })
    repo?.cleanup()
  })

  test('CLI: no native crash, no bug exit, --json is always one JSON document', async () => {
    const cases = cliCases(repo.dir)
    // setup and hooks write into HOME and the repository: a throwaway HOME keeps them in the sandbox
    const { results, crash } = await runCases(cases, repo.dir, repo.env({ HOME: home, XDG_CONFIG_HOME: join(home, '.config') }))
    expect(crash).toBeNull()
    expect(results).toHaveLength(cases.length)
    const bad = results.filter((r) => r.code !== 0 && r.code !== 1).map((r) => `exit ${r.code}: gitwhy ${JSON.stringify(cases[r.i]).slice(0, 200)}`)
    expect(bad).toEqual([])
    const notJson = results.filter((r) => r.json_ok === false).map((r) => `not one JSON document: gitwhy ${JSON.stringify(cases[r.i]).slice(0, 200)}`)
    expect(notJson).toEqual([])
    console.log(`CLI fuzz: ${cases.length} invocations, ${results.filter((r) => r.code === 1).length} refused with a fix, none crashed`)
  }, 900_000)

  test('mcp server flags: bad values exit 1 at once', async () => {
    for (const argv of [['--port', 'abc'], ['--port', '-1'], ['--port', '99999'], ['--http', '--host', '0.0.0.0'], ['--nope'], ['extra']]) {
      const r = await runCli(['mcp', ...argv], { cwd: repo.dir, env: repo.env(), timeoutMs: 20_000 })
      expect(r.code, `gitwhy mcp ${argv.join(' ')}: ${r.stderr}`).toBe(1)
      expect(r.stderr).toMatch(/fix:/)
    }
  })

  test('the Claude hook: any event on stdin, silent or one JSON answer, exit 0', async () => {
    const pattern = (p: unknown, tool = 'Grep') => JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: tool, tool_input: { pattern: p, path: '.' }, cwd: repo.dir })
    const events = [
      '',
      'not json',
      '{',
      '[]',
      'null',
      '{}',
      JSON.stringify({ tool_name: 'Grep' }),
      ...['Alpha', '(a+)+$', '[', '', 'a'.repeat(100_000), '\u001b[2J', '../../../etc/passwd'].map((p) => pattern(p)),
      pattern(42),
      pattern(null),
      pattern('**/*', 'Glob'),
      JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'rg -e "(a+)+$" --glob "**" .' }, cwd: repo.dir }),
      JSON.stringify({ tool_name: 'Grep', tool_input: { pattern: 'Alpha' }, cwd: '/nonexistent' }),
      'x'.repeat(2_000_000),
    ]
    for (const event of events) {
      const r = await runCli(['hook', 'claude'], { cwd: repo.dir, env: repo.env({ GITWHY_HOOK_DEADLINE_MS: '5000' }), input: event, timeoutMs: 20_000 })
      expect(r.code, `hook claude <<< ${event.slice(0, 100)}: ${r.stderr}`).toBe(0)
      if (r.stdout.trim() !== '') expect(() => JSON.parse(r.stdout)).not.toThrow()
    }
  })

  test('MCP: every tool, resource and prompt answers hostile arguments, and the connection survives', async () => {
    const { client, stderr } = await connectStdio({ cwd: repo.dir, env: repo.env() })
    try {
      const { tools } = await client.listTools()
      let calls = 0
      const call = async (name: string, args: Record<string, unknown>) => {
        calls++
        // a protocol error (invalid arguments) is a fine answer; a dropped connection is not
        const result = await client.callTool({ name, arguments: args }).catch((error: Error) => {
          if (/Not connected|Connection closed/i.test(error.message)) throw new Error(`${name} ${JSON.stringify(args).slice(0, 300)} dropped the connection: ${error.message}\n${stderr()}`)
          return null
        })
        if (result && result.isError) {
          const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('')
          expect(text, `${name} ${JSON.stringify(args).slice(0, 300)}`).not.toMatch(/internal error/)
        }
      }
      const values: unknown[] = [...HOSTILE_STRINGS, 'x'.repeat(1_000_000), -1, 0, 1.5, 1e308, -1e308, 2 ** 53 + 1, true, null, [], [''], ['nope.ts', '../x'], Array.from({ length: 5000 }, (_, i) => `f${i}.ts`), {}, { a: [] }]
      for (const tool of tools) {
        const props = Object.keys((tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {})
        await call(tool.name, {})
        await call(tool.name, { nope: 1 })
        for (const prop of props) for (const value of values) await call(tool.name, { [prop]: value })
        // the natural first argument valid, another one hostile
        if (props.length > 1) for (const prop of props.slice(1)) for (const value of HOSTILE_STRINGS) await call(tool.name, { [props[0]]: 'src/a.ts', [prop]: value })
      }
      const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate.replace(/\{[^}]*\}$/, ''))
      for (const prefix of templates) {
        for (const value of ['', '0', '-1', 'zz', '../../etc/passwd', '%00', '%E2%80%AE', 'a'.repeat(10_000), '99999999999999999999']) {
          calls++
          await client.readResource({ uri: `${prefix}${value}` }).catch((error: Error) => {
            if (/Not connected|Connection closed/i.test(error.message)) throw error
          })
        }
      }
      for (const prompt of (await client.listPrompts()).prompts) {
        for (const value of ['', '../x', 'a'.repeat(100_000), '\u001b[2J']) {
          calls++
          const args = Object.fromEntries((prompt.arguments ?? []).map((a) => [a.name, value]))
          await client.getPrompt({ name: prompt.name, arguments: args }).catch((error: Error) => {
            if (/Not connected|Connection closed/i.test(error.message)) throw error
          })
        }
      }
      expect(await client.ping()).toBeDefined()
      const alive = await client.callTool({ name: 'risk', arguments: { target: 'src/a.ts' } })
      expect(alive.isError).toBeFalsy()
      console.log(`MCP fuzz: ${calls} calls answered, connection alive`)
    } finally {
      await client.close()
    }
  }, 600_000)
})

/**
 * `gitwhy enrich` (it joins the CLI cases above from the manifest; the fuzz repository has no GitHub
 * origin, so those end at its notice): here a GitHub origin and a forge that answers garbage —
 * wrong types, no JSON, huge and escape-laden texts, objects for lists, a status no client expects.
 * Never a bug exit, always one JSON document, the index still answering.
 */
describe('fuzz: enrich against a hostile forge', () => {
  const huge = `\u001b]0;pwned\u0007${'x'.repeat(1_100_000)}\u202e`
  const answers: Array<{ status: number; body: string; headers?: Record<string, string> }> = [
    { status: 200, body: JSON.stringify([{ number: '7' }, { number: 1e30 }, null, 5, 'x', { number: 3, title: { a: 1 }, body: ['b'], labels: 'bug', user: 7, state: 9, merged_at: 'never', merge_commit_sha: 42, updated_at: {} }]) },
    { status: 200, body: 'not json at all', headers: { 'content-type': 'application/json; charset=utf-8' } },
    { status: 200, body: JSON.stringify({ message: 'an object where a list belongs' }), headers: { link: '<::>; rel="next", garbage, <http://x/?page=-1>; rel="last"' } },
    { status: 200, body: JSON.stringify([{ number: 7, title: huge, body: huge, labels: [{ name: huge }], user: { login: huge }, merged_at: '2024-01-01T00:00:00Z', merge_commit_sha: 'f'.repeat(40), updated_at: '2024-01-01T00:00:00Z' }]) },
    { status: 422, body: JSON.stringify({ message: 'Validation Failed', errors: [{ resource: 'Issue', code: 'invalid' }] }) },
    { status: 403, body: JSON.stringify({ message: 'Resource not accessible by integration' }) },
  ]
  let mode = 0
  let server: import('node:http').Server
  let url = ''
  let repo: TestRepo

  beforeAll(async () => {
    const { createServer } = await import('node:http')
    server = createServer((_req, res) => {
      const a = answers[mode]
      res.writeHead(a.status, { 'content-type': 'application/json', ...(a.headers ?? {}) })
      res.end(a.body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    repo = fuzzRepo()
    repo.git('remote', 'add', 'origin', 'https://github.com/fuzz/target.git')
    const r = await runCli(['analyze', '--quiet'], { cwd: repo.dir, env: repo.env() })
    expect(r.code, r.stderr).toBe(0)
  })

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve))
    repo?.cleanup()
  })

  test('every answer: exit 0 or 1, one JSON document, the index still answers', async () => {
    for (mode = 0; mode < answers.length; mode++) {
      const r = await runCli(['enrich', '--json'], { cwd: repo.dir, env: repo.env({ GITHUB_TOKEN: 'fuzz', GH_TOKEN: '', GITWHY_GITHUB_API_URL: url }), timeoutMs: 60_000 })
      expect([0, 1], `answer ${mode}: exit ${r.code}\n${r.stderr}`).toContain(r.code)
      expect(() => JSON.parse(r.stdout), `answer ${mode}: ${r.stdout.slice(0, 300)}`).not.toThrow()
    }
    const ev = await runCli(['evidence', 'src/b.ts', '--json'], { cwd: repo.dir, env: repo.env() })
    expect(ev.code, ev.stderr).toBe(0)
    // the huge title was cut when it was cached; text output escapes what it keeps
    const titles = JSON.parse(ev.stdout).evidence.flatMap((e: { pull_requests: Array<{ title: string }> }) => e.pull_requests.map((p) => p.title))
    expect(titles.some((t: string) => t.startsWith('\u001b]0;pwned')), 'the huge title reached the index').toBe(true)
    expect(Math.max(...titles.map((t: string) => t.length))).toBeLessThanOrEqual(1000)
    const text = await runCli(['evidence', 'src/b.ts'], { cwd: repo.dir, env: repo.env() })
    expect(text.stdout).not.toContain('\u001b')
  }, 300_000)
})
