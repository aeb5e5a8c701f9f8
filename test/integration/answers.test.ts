/**
 * The code graph's answers to a change (issue 11): `detect-changes`, `rename` and `query`, on a
 * TypeScript repository built so that each answer is known: addNumbers is called from mul (same
 * file), from total (app.ts, through an import) and from a test; config.ts always changed with
 * math.ts; a comment names addNumbers without calling it.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { ROOT, runCli, runJson, type CliOptions } from '../cli/cli.js'
import { asAgentSees, connectStdio, structured, text } from '../mcp/client.js'

export const MATH = [
  '/** The sum of a and b, carried exactly. */',
  'export function addNumbers(a: number, b: number): number {',
  '  return a + b',
  '}',
  '',
  'export function mul(a: number, b: number): number {',
  '  let r = 0',
  '  for (let i = 0; i < b; i++) r = addNumbers(r, a)',
  '  return r',
  '}',
  '',
].join('\n')
export const APP = [
  "import { addNumbers } from './math'",
  '',
  'export function total(xs: number[]): number {',
  '  // addNumbers folds the list',
  '  return xs.reduce((s, x) => addNumbers(s, x), 0)',
  '}',
  '',
].join('\n')
const REPORT = "import { total } from './app'\n\nexport function report(): string {\n  return `total ${total([1, 2])}`\n}\n"
// a multi-line import: the name sits above the line of its module
const TEST = "import {\n  addNumbers,\n} from '../src/math'\n\nexport function checkAdd(): boolean {\n  return addNumbers(1, 2) === 3\n}\n"
const TSCONFIG = '{ "compilerOptions": { "strict": true, "noEmit": true, "target": "es2020", "module": "commonjs" }, "include": ["src", "test"] }\n'

let repo: TestRepo
let opts: CliOptions
const cli = async (...args: string[]) => (await runJson([...args, '--repo', repo.dir, '--json'], opts)).json

export function buildAnswersRepo(r: TestRepo): void {
  r.write('tsconfig.json', TSCONFIG).write('src/math.ts', MATH).write('src/app.ts', APP).write('src/report.ts', REPORT).write('test/math.test.ts', TEST).write('src/config.ts', 'export const level = 0\n')
  r.commit('Initial commit')
  // config.ts changes whenever math.ts does
  for (let i = 1; i <= 4; i++) {
    r.write('src/math.ts', MATH.replace('carried exactly', `carried exactly (${i})`)).write('src/config.ts', `export const level = ${i}\n`)
    r.commit(`Tune math ${i}`)
  }
}

beforeAll(async () => {
  repo = createRepo()
  buildAnswersRepo(repo)
  opts = { cwd: repo.dir, env: repo.env() }
  await runJson(['analyze', '--repo', repo.dir], opts)
})
afterAll(() => repo?.cleanup())

const names = (r: any) => r.files.flatMap((f: any) => f.symbols.map((s: any) => `${f.path}:${s.qualified_name}`))

describe('detect-changes', () => {
  test('an uncommitted edit of addNumbers: its callers outside the change, their test, and config.ts missing', async () => {
    const math = repo.git('show', 'HEAD:src/math.ts')
    try {
      writeFileSync(repo.path('src/math.ts'), math.replace('return a + b', 'return b + a'))
      const r = await cli('detect-changes')
      expect(r.mode).toBe('worktree')
      expect(names(r)).toEqual(['src/math.ts:addNumbers'])
      expect(r.callers.map((c: any) => [c.qualified_name, c.path, c.calls, c.lines])).toEqual(
        expect.arrayContaining([
          ['mul', 'src/math.ts', ['addNumbers'], [8]],
          ['total', 'src/app.ts', ['addNumbers'], [5]],
          ['checkAdd', 'test/math.test.ts', ['addNumbers'], [6]],
        ]),
      )
      expect(r.callers).toHaveLength(3)
      expect(r.summary).toMatchObject({ files: 1, symbols: 1, callers: 3 })
      expect(r.tests).toEqual(['test/math.test.ts'])
      expect(r.missing_co_changes.map((m: any) => m.path)).toEqual(['src/config.ts'])
      // the same service as context-for-pr: the same files, symbols and missing partners
      const pr = await cli('context-for-pr', '--files', 'src/math.ts')
      expect(pr.missing_co_changes).toEqual(r.missing_co_changes)
    } finally {
      writeFileSync(repo.path('src/math.ts'), math)
    }
  })

  test('line ranges go through the range algebra: a line inserted just before mul does not change mul, one inside it does', async () => {
    const math = repo.git('show', 'HEAD:src/math.ts').split('\n')
    try {
      // line 6 is `export function mul(`: insert above it (after the blank line 5)
      writeFileSync(repo.path('src/math.ts'), [...math.slice(0, 5), 'export const before = 1', ...math.slice(5)].join('\n'))
      expect(names(await cli('detect-changes'))).toEqual([])
      writeFileSync(repo.path('src/math.ts'), [...math.slice(0, 7), '  r = 0', ...math.slice(7)].join('\n'))
      const inside = await cli('detect-changes')
      expect(names(inside)).toEqual(['src/math.ts:mul'])
      // mul's callers: none outside the change
      expect(inside.callers).toEqual([])
    } finally {
      writeFileSync(repo.path('src/math.ts'), math.join('\n'))
    }
  })

  test('--staged sees only the staging area; --base sees the commits since the branch point; untracked files are new', async () => {
    const app = repo.git('show', 'HEAD:src/app.ts')
    const math = repo.git('show', 'HEAD:src/math.ts')
    try {
      repo.write('src/app.ts', app.replace('x), 0)', 'x), 1)'))
      writeFileSync(repo.path('src/math.ts'), math.replace('return a + b', 'return b + a'))
      writeFileSync(repo.path('src/extra.ts'), 'export const extra = 1\n')
      const staged = await cli('detect-changes', '--staged')
      expect(staged.mode).toBe('staged')
      expect(names(staged)).toEqual(['src/app.ts:total'])
      expect(staged.callers.map((c: any) => c.qualified_name)).toEqual(['report'])
      const all = await cli('detect-changes')
      expect(names(all).sort()).toEqual(['src/app.ts:total', 'src/math.ts:addNumbers'])
      expect(all.files.find((f: any) => f.path === 'src/extra.ts')).toMatchObject({ status: 'A', indexed: false })
      // total is changed itself: it is not listed as addNumbers' caller
      expect(all.callers.map((c: any) => c.qualified_name).sort()).toEqual(['checkAdd', 'mul', 'report'])
    } finally {
      repo.git('checkout', 'HEAD', '--', 'src/app.ts', 'src/math.ts')
      repo.git('clean', '-fq', '--', 'src/extra.ts')
    }
    const first = repo.git('rev-list', '--max-parents=0', 'HEAD').trim()
    const since = await cli('detect-changes', '--base', first)
    expect(since.mode).toBe('range')
    // those commits changed math.ts's doc comment (above addNumbers' lines) and config.ts
    expect(since.files.map((f: any) => f.path)).toEqual(['src/config.ts', 'src/math.ts'])
    expect(names(since)).toEqual([])
    const both = await runCli(['detect-changes', '--staged', '--base', first, '--repo', repo.dir], opts)
    expect(both.code).toBe(1)
  })

  test('--base with the index at the branch tip: the symbols are those of the diff’s new side', async () => {
    const other = createRepo()
    try {
      const v1 = 'export function alpha(): number {\n  return 1\n}\n\nexport function beta(): number {\n  return 2\n}\n'
      other.write('src/ab.ts', v1)
      const base = other.commit('Add alpha and beta')
      // gamma goes on top (alpha and beta move down 4 lines) and beta's body changes: its old line 6 is alpha's now
      other.write('src/ab.ts', 'export function gamma(): number {\n  return 0\n}\n\n' + v1.replace('return 2', 'return 3'))
      other.commit('Add gamma, beta returns 3')
      const o = { cwd: other.dir, env: other.env() }
      await runJson(['analyze', '--repo', other.dir], o)
      const r = (await runJson(['detect-changes', '--base', base, '--repo', other.dir, '--json'], o)).json
      expect(names(r).sort()).toEqual(['src/ab.ts:beta', 'src/ab.ts:gamma'])
      const pr = (await runJson(['context-for-pr', '--base', base, '--repo', other.dir, '--json'], o)).json
      expect(names(pr).sort()).toEqual(['src/ab.ts:beta', 'src/ab.ts:gamma'])
    } finally {
      other.cleanup()
    }
  }, 120_000)

  test('the owners to ask: lines weigh half as much per year since their owner’s last commit', async () => {
    const other = createRepo()
    try {
      const day = 86_400
      const t0 = 1_500_000_000 // 2017-07
      const old = { name: 'Old Timer', email: 'old@example.test' }
      const now = { name: 'New Comer', email: 'new@example.test' }
      const body = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `export const ${tag}${i} = ${i}`).join('\n') + '\n'
      other.write('src/a.ts', body(12, 'a'))
      other.commit('Old lines', { author: old, date: t0 })
      other.write('src/a.ts', body(12, 'a') + body(4, 'b'))
      other.commit('New lines', { author: now, date: t0 + 8 * 365 * day })
      const o = { cwd: other.dir, env: other.env() }
      await runJson(['analyze', '--repo', other.dir], o)
      const r = (await runJson(['context-for-pr', '--files', 'src/a.ts', '--repo', other.dir, '--json'], o)).json
      // 12 lines from 8 years ago weigh 12 / 256; 4 lines from now weigh 4
      expect(r.owners_to_ask.map((x: any) => [x.email, x.lines])).toEqual([['new@example.test', 4], ['old@example.test', 12]])
      expect(r.owners_to_ask[1].last_active.slice(0, 4)).toBe('2017')
      const text = await runCli(['context-for-pr', '--files', 'src/a.ts', '--repo', other.dir], o)
      expect(text.stdout).toContain('ask: New Comer <new@example.test> (last commit 2025-')
    } finally {
      other.cleanup()
    }
  }, 120_000)

  test('the MCP tool answers what the CLI answers; a file with many symbols lists the riskiest 10 and counts the rest', async () => {
    const math = repo.git('show', 'HEAD:src/math.ts')
    const { client } = await connectStdio({ cwd: repo.dir, env: opts.env })
    try {
      writeFileSync(repo.path('src/math.ts'), math.replace('return a + b', 'return b + a'))
      const result = await client.callTool({ name: 'detect_changes', arguments: {} })
      expect(result.isError, text(result)).toBeFalsy()
      expect(structured(result)).toEqual(await asAgentSees(client, 'detect_changes', { repo: repo.dir, ...(await cli('detect-changes')) }))
      expect(text(result)).toMatch(/total \(src\/app\.ts:3\) → addNumbers · line 5/)
      writeFileSync(repo.path('src/many.ts'), Array.from({ length: 14 }, (_, i) => `export function f${i}(): number { return ${i} }`).join('\n') + '\n')
      repo.git('add', 'src/many.ts')
      repo.commit('Fourteen functions')
      await runJson(['analyze', '--repo', repo.dir], opts)
      const pr = await cli('context-for-pr', '--files', 'src/many.ts')
      expect(pr.files[0].symbols).toHaveLength(10)
      expect(pr.files[0].more_symbols).toBe(4)
      const all = await cli('context-for-pr', '--files', 'src/many.ts', '--symbol-limit', '0')
      expect(all.files[0].symbols).toHaveLength(14)
    } finally {
      await client.close()
      writeFileSync(repo.path('src/math.ts'), math)
    }
  })
})

describe('rename', () => {
  test('the plan: the definition, the calls and the imports from the graph; the comment to review', async () => {
    const r = await cli('rename', 'addNumbers', 'sumOf')
    expect(r.applied).toBe(false)
    expect(r.edits.map((e: any) => `${e.path}:${e.line}:${e.column} ${e.source}`)).toEqual([
      'src/app.ts:1:10 import',
      'src/app.ts:5:30 call',
      'src/math.ts:2:17 definition',
      'src/math.ts:8:35 call',
      'test/math.test.ts:2:3 import',
      'test/math.test.ts:6:10 call',
    ])
    // every edit points at the name in the committed file
    for (const e of r.edits) expect(repo.git('show', `HEAD:${e.path}`).split('\n')[e.line - 1].slice(e.column - 1, e.column - 1 + e.old.length)).toBe('addNumbers')
    expect(r.review.map((h: any) => `${h.path}:${h.line}:${h.column} ${h.why}`)).toEqual(['src/app.ts:4:6 text'])
    expect(r.summary).toEqual({ files: 3, edits: 6, review: 1 })
    const bad = await runCli(['rename', 'addNumbers', '2x', '--repo', repo.dir], opts)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/not an identifier/)
  })

  test('the MCP tool plans what the CLI plans and writes nothing', async () => {
    const { client } = await connectStdio({ cwd: repo.dir, env: opts.env })
    try {
      const result = await client.callTool({ name: 'rename', arguments: { target: 'addNumbers', new_name: 'sumOf' } })
      expect(result.isError, text(result)).toBeFalsy()
      expect(structured(result)).toEqual(await asAgentSees(client, 'rename', { repo: repo.dir, ...(await cli('rename', 'addNumbers', 'sumOf')) }))
      expect(repo.git('status', '--porcelain')).toBe('')
      const bad = await client.callTool({ name: 'rename', arguments: { target: 'src/app.ts', new_name: 'x' } })
      expect(bad.isError).toBe(true)
    } finally {
      await client.close()
    }
  })

  test('--apply: tsc accepts the result, and rejects the definition renamed alone; a stale file or a link out of the repository is refused', async () => {
    const tsc = () => spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', repo.dir], { encoding: 'utf8' })
    try {
      expect(tsc().status).toBe(0)
      // the definition alone: the importers no longer compile
      writeFileSync(repo.path('src/math.ts'), MATH.replace('function addNumbers', 'function sumOf'))
      expect(tsc().stdout).toMatch(/src\/app\.ts.*has no exported member 'addNumbers'/)
      repo.git('checkout', 'HEAD', '--', 'src/math.ts')
      // a file changed since analyze: refused, nothing written
      writeFileSync(repo.path('src/app.ts'), APP + '// touched\n')
      const stale = await runCli(['rename', 'addNumbers', 'sumOf', '--apply', '--repo', repo.dir, '--json'], opts)
      expect(stale.code).toBe(1)
      expect(JSON.parse(stale.stdout).error.code).toBe('stale_index')
      expect(repo.git('status', '--porcelain', '--', 'src/math.ts')).toBe('')
      // the same content through a link to a file outside the repository: refused
      const outside = join(mkdtempSync(join(tmpdir(), 'gitwhy-outside-')), 'app.ts')
      writeFileSync(outside, APP)
      rmSync(repo.path('src/app.ts'))
      symlinkSync(outside, repo.path('src/app.ts'))
      const out = await runCli(['rename', 'addNumbers', 'sumOf', '--apply', '--repo', repo.dir, '--json'], opts)
      expect(JSON.parse(out.stdout).error.code).toBe('outside_repo')
      expect(readFileSync(outside, 'utf8')).toBe(APP)
      rmSync(repo.path('src/app.ts'))
      repo.git('checkout', 'HEAD', '--', 'src/app.ts')
      const r = await cli('rename', 'addNumbers', 'sumOf', '--apply')
      expect(r.applied).toBe(true)
      expect(repo.git('diff', '--name-only').trim().split('\n')).toEqual(['src/app.ts', 'src/math.ts', 'test/math.test.ts'])
      const check = tsc()
      expect(check.stdout).toBe('')
      expect(check.status).toBe(0)
      // the comment was left for review
      expect(readFileSync(repo.path('src/app.ts'), 'utf8')).toMatch(/\/\/ addNumbers folds the list/)
    } finally {
      repo.git('checkout', 'HEAD', '--', '.')
    }
  })
})

describe('query', () => {
  const ids = (r: any) => r.groups.flatMap((g: any) => g.hits.map((h: any) => h.id))

  test('words find names split at camelCase, doc comments and paths; an identifier asks the same as its words', async () => {
    const words = await cli('query', 'add numbers')
    expect(ids(words)[0]).toBe('src/math.ts#addNumbers')
    expect(ids(await cli('query', 'addNumbers'))[0]).toBe('src/math.ts#addNumbers')
    // only the doc comment says "carried"
    expect(ids(await cli('query', 'carried'))).toEqual(['src/math.ts#addNumbers'])
    // "report" is in report's name and path; "reports" stems to it
    expect(ids(await cli('query', 'reports'))[0]).toBe('src/report.ts#report')
    expect(ids(await cli('query', 'zebra'))).toEqual([])
    // every hit sits in a group; module symbols are not hits
    expect(words.groups.every((g: any) => g.kind === 'community' && g.hits.length > 0)).toBe(true)
    expect(ids(words).some((id: string) => id.endsWith('#<module>'))).toBe(false)
  })

  test('after an update the new and changed symbols are searchable, the deleted ones gone, as after a fresh build', async () => {
    const { client } = await connectStdio({ cwd: repo.dir, env: opts.env })
    try {
      repo.write('src/divide.ts', '/** Splits a total into equal shares. */\nexport function divideEvenly(total: number, n: number): number {\n  return total / n\n}\n')
      repo.write('src/math.ts', MATH.replace('export function mul(', '/** Repeated addition. */\nexport function multiplyBy(').replace('  return r\n', '  return r\n').replace('= addNumbers(r, a)', '= addNumbers(r, a)'))
      repo.commit('Divide, and mul is multiplyBy')
      const update = (await runJson(['analyze', '--repo', repo.dir, '--json'], opts)).json
      expect(update.mode).toBe('incremental')
      const asked = ['divide evenly', 'equal shares', 'multiply repeated', 'mul', 'add numbers']
      const incremental = await Promise.all(asked.map((q) => cli('query', q)))
      expect(ids(incremental[0])[0]).toBe('src/divide.ts#divideEvenly')
      expect(ids(incremental[1])[0]).toBe('src/divide.ts#divideEvenly')
      expect(ids(incremental[2])[0]).toBe('src/math.ts#multiplyBy')
      expect(ids(incremental[3])).not.toContain('src/math.ts#mul')
      const result = await client.callTool({ name: 'query', arguments: { text: 'divide evenly' } })
      expect(structured(result)).toEqual(await asAgentSees(client, 'query', { repo: repo.dir, ...incremental[0] }))
      await runJson(['analyze', '--force', '--repo', repo.dir, '--json'], opts)
      const fresh = await Promise.all(asked.map((q) => cli('query', q)))
      for (let i = 0; i < asked.length; i++) expect(incremental[i].groups.flatMap((g: any) => g.hits.map((h: any) => [h.id, h.score])), asked[i]).toEqual(fresh[i].groups.flatMap((g: any) => g.hits.map((h: any) => [h.id, h.score])))
    } finally {
      await client.close()
    }
  })
})
