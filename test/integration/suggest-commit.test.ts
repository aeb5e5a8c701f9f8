/**
 * `suggest-commit` (issue 15) on staged changes in a fixture repository: the type from the change
 * (a test-only, a docs-only change, a dependency bump, a new exported function) and from the
 * history of the changed code (a fix in a file whose commits are mostly `fix:`, a body change in a
 * file whose commits are all `refactor:`), said in `decided_by`; the scope from the community or
 * the folder; a subject naming the changed symbols within 72 characters; a stale index with a
 * staged new file; nothing staged; the LLM path through a tiny in-test synthesizer (no network);
 * and the CLI's --json and the MCP tool over a real stdio client.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import type { SynthesisRequest, Synthesizer } from '../../src/llm/types.js'
import { analyze } from '../../src/services/analyze.js'
import { acceptSynthesized, commitLabel, decideScope, suggestCommit, type SuggestCommitResult } from '../../src/services/suggest-commit.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { tsFunction } from '../helpers/scenarios.js'
import { expectShape, expectUserError, runCli, runJson, t, type CliOptions } from '../cli/cli.js'
import { connectStdio, structured, text } from '../mcp/client.js'

const CALC_V1 = tsFunction('total', ['const sum = value + 1', 'return sum'])
const CALC_V2 = tsFunction('total', ['const sum = value + 2', 'return sum'])
const CALC_V3 = tsFunction('total', ['const sum = (value + 2) | 0', 'return sum'])
const CALC_V4 = tsFunction('total', ['const sum = (value + 2) | 0 // truncated', 'return sum'])
const FORMAT_V1 = tsFunction('pad', ['const width = value * 2', 'return width'])
const PACKAGE = (lodash: string) => `{\n  "name": "demo",\n  "version": "1.0.0",\n  "dependencies": {\n    "lodash": "${lodash}",\n    "react": "^18.2.0"\n  }\n}\n`

const SUGGESTION = t.obj({
  mode: t.lit('staged', 'worktree'),
  message: t.str(),
  subject: t.str(/^[a-z]+(\([^)]+\))?: .{1,}$/),
  body: t.str(),
  type: t.lit('feat', 'fix', 'refactor', 'perf', 'style', 'test', 'docs', 'ci', 'build', 'chore'),
  scope: t.or(t.str(), t.nul()),
  decided_by: t.lit('change', 'history', 'change+history'),
  reasons: t.arr(t.str()),
  change: t.obj({ type: t.str(), reason: t.str() }),
  history: t.obj({ commits: t.int(), labelled: t.int(), types: t.rec(t.int()), majority: t.or(t.str(), t.nul()), examples: t.arr(t.obj({ short: t.str(), subject: t.str() })) }),
  scope_from: t.or(t.lit('community', 'folder', 'file', 'deps'), t.nul()),
  files: t.arr(
    t.obj({
      path: t.str(),
      status: t.lit('A', 'M', 'D', 'R'),
      old_path: t.or(t.str(), t.nul()),
      kind: t.lit('code', 'test', 'docs', 'ci', 'deps', 'build', 'other'),
      mapped: t.bool(),
      added: t.arr(t.str()),
      changed: t.arr(t.str()),
      removed: t.arr(t.str()),
      exported: t.arr(t.str()),
      dependencies: t.arr(t.obj({ name: t.str(), from: t.or(t.str(), t.nul()), to: t.or(t.str(), t.nul()) })),
    }),
  ),
  writer: t.str(),
  llm: t.or(t.nul(), t.obj({ provider: t.str(), model: t.str(), cached: t.bool() }), t.obj({ declined: t.str() })),
  index: t.obj({ head: t.str(), stale: t.bool(), commits_behind: t.or(t.int(), t.nul()) }),
})

/** A synthesizer that answers with `text` (or declines), recording what it was asked. */
function tinySynthesizer(answer: { text: string } | { declined: string }): Synthesizer & { asked: SynthesisRequest[] } {
  const asked: SynthesisRequest[] = []
  return {
    name: 'test:tiny',
    asked,
    async synthesize(request) {
      asked.push(request)
      if ('declined' in answer) return { ok: false, reason: answer.declined }
      return { ok: true, text: answer.text, sentences: [{ text: answer.text, citations: [] }], dropped_citations: 0, provider: 'test', model: 'tiny', cached: false, tokens: { input: 1, output: 1 }, ms: 1 }
    },
  }
}

describe('suggest-commit', () => {
  let repo: TestRepo
  let opts: CliOptions

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/calc.ts', CALC_V1).write('src/format.ts', FORMAT_V1).write('README.md', '# Demo\n\nA calculator.\n')
    repo.write('test/calc.test.ts', "import { total } from '../src/calc'\n\nexport function checkTotal(): boolean {\n  return total(1) === 2\n}\n")
    repo.write('package.json', PACKAGE('^4.17.20')).write('package-lock.json', '{\n  "lockfileVersion": 3,\n  "lodash": "4.17.20"\n}\n')
    repo.commit('feat: add the calculator and the formatter')
    repo.write('src/calc.ts', CALC_V2)
    repo.commit('fix: count from two')
    repo.write('src/calc.ts', CALC_V3)
    repo.commit('fix(calc): keep totals whole numbers')
    repo.write('src/calc.ts', CALC_V4)
    repo.commit('fix: say why totals are truncated')
    repo.write('src/format.ts', tsFunction('pad', ['const width = value * 3', 'return width']))
    repo.commit('refactor(format): widen the padding')
    repo.write('src/format.ts', tsFunction('pad', ['const width = value * 3 // wide', 'return width']))
    repo.commit('refactor(format): name the width')
    opts = { cwd: repo.dir, env: { ...repo.env(), GITWHY_HOME: mkdtempSync(join(tmpdir(), 'gitwhy-suggest-home-')) } }
    await analyze({ repo: repo.dir })
  }, 120_000)

  afterAll(() => repo?.cleanup())

  // every test stages its own change on the committed tree
  afterEach(() => {
    repo.git('reset', '-q', '--hard')
    repo.git('clean', '-fdq')
  })

  const suggest = (o: Partial<Parameters<typeof suggestCommit>[0]> = {}) => suggestCommit({ repo: repo.dir, synthesizer: null, ...o })

  test('a test-only change: test, decided by the change', async () => {
    repo.write('test/calc.test.ts', "import { total } from '../src/calc'\n\nexport function checkTotal(): boolean {\n  return total(1) === 3\n}\n")
    const r = await suggest()
    expect(r.type).toBe('test')
    expect(r.decided_by).toBe('change')
    expect(r.change.reason).toMatch(/every changed file is a test/)
    expect(r.subject).toMatch(/^test(\([a-z]+\))?: update tests for calc$/)
    expect(r.files).toMatchObject([{ path: 'test/calc.test.ts', kind: 'test', status: 'M', changed: ['checkTotal'] }])
    expect(r.body).toBe('- test/calc.test.ts: changed checkTotal')
    expect(r.message).toBe(`${r.subject}\n\n${r.body}`)
  })

  test('a docs-only change: docs, naming the documents', async () => {
    repo.write('README.md', '# Demo\n\nA calculator that keeps totals whole.\n').write('docs/usage.md', '# Usage\n\nCall total.\n')
    const r = await suggest()
    expect(r.type).toBe('docs')
    expect(r.decided_by).toBe('change')
    expect(r.subject).toBe('docs: update README and usage')
    expect(r.body).toBe('- README.md\n- docs/usage.md (new file)')
  })

  test('a new exported function: feat, naming it, whatever the file\'s history says', async () => {
    repo.write('src/calc.ts', `${CALC_V4}\n${tsFunction('average', ['const half = value / 2', 'return half'])}`)
    const r = await suggest()
    expect(r.type).toBe('feat')
    expect(r.decided_by).toBe('change')
    expect(r.change.reason).toBe('new exported average in src/calc.ts')
    expect(r.subject).toBe('feat(calc): add average')
    expect(r.files[0]).toMatchObject({ path: 'src/calc.ts', added: ['average'], exported: ['average'], changed: [], mapped: true })
    // the history was read, and said otherwise: the change decides
    expect(r.history.majority).toBe('fix')
    expect(r.reasons.join('\n')).toMatch(/the change decides \(feat\)/)
  })

  test('a fix in a file whose history is mostly fix: commits: fix, the change and the history agree', async () => {
    repo.write('src/calc.ts', CALC_V4.replace('(value + 2) | 0', 'Math.trunc(value + 2)'))
    const r = await suggest()
    expect(r.type).toBe('fix')
    expect(r.decided_by).toBe('change+history')
    expect(r.history).toMatchObject({ majority: 'fix', types: { fix: 3, feat: 1 } })
    expect(r.history.examples.map((e) => e.subject)).toContain('fix(calc): keep totals whole numbers')
    expect(r.reasons[1]).toMatch(/^the history: 3 of the 4 labelled earlier commits of these files and symbols are fix/)
    expect(r.scope).toBe('calc')
    expect(r.subject).toBe('fix(calc): fix total')
    expect(r.files[0]).toMatchObject({ path: 'src/calc.ts', kind: 'code', mapped: true, changed: ['total'], added: [], removed: [] })
  })

  test('a body change in a file whose commits are all refactor: refactor, decided by the history', async () => {
    repo.write('src/format.ts', tsFunction('pad', ['const width = value * 4 // wide', 'return width']))
    const r = await suggest()
    expect(r.change.type).toBe('fix')
    expect(r.type).toBe('refactor')
    expect(r.decided_by).toBe('history')
    expect(r.reasons[1]).toMatch(/which outweighs the change's fix/)
    expect(r.subject).toBe('refactor(format): refactor pad')
  })

  test('a dependency bump: chore(deps), naming the dependency and its versions', async () => {
    repo.write('package.json', PACKAGE('^4.17.21')).write('package-lock.json', '{\n  "lockfileVersion": 3,\n  "lodash": "4.17.21"\n}\n')
    const r = await suggest()
    expect(r.type).toBe('chore')
    expect(r.scope).toBe('deps')
    expect(r.scope_from).toBe('deps')
    expect(r.decided_by).toBe('change')
    expect(r.subject).toBe('chore(deps): bump lodash from ^4.17.20 to ^4.17.21')
    expect(r.files.find((f) => f.path === 'package.json')).toMatchObject({ kind: 'deps', dependencies: [{ name: 'lodash', from: '^4.17.20', to: '^4.17.21' }] })
    expect(r.body).toContain('- package.json: lodash ^4.17.20 → ^4.17.21')
    // a manifest change that is not only dependencies is a build change
    repo.write('package.json', PACKAGE('^4.17.21').replace('"version": "1.0.0"', '"version": "1.1.0"'))
    expect((await suggest()).type).toBe('build')
  })

  test('long names: the subject stays within 72 characters and says how many more', async () => {
    const names = ['computeTheRunningTotalOfEverything', 'computeTheRunningAverageOfEverything', 'computeTheRunningMedianOfEverything']
    repo.write('src/calc.ts', `${CALC_V4}${names.map((n) => `\n${tsFunction(n, ['return value'])}`).join('')}`)
    const r = await suggest()
    expect(r.subject.length).toBeLessThanOrEqual(72)
    expect(r.subject).toMatch(/^feat\(calc\): add computeTheRunningTotalOfEverything and 2 more$/)
    expect(r.body).toContain(`added ${names.join(', ')}`)
  })

  test('nothing staged: a user error saying how to stage (exit 1 from the CLI)', async () => {
    await expect(suggest()).rejects.toMatchObject({ code: 'nothing_staged', remedy: expect.stringMatching(/git add/) })
    // an unstaged edit is still nothing staged, and --worktree describes it
    const { writeFileSync } = await import('node:fs')
    writeFileSync(repo.path('src/calc.ts'), CALC_V4.replace('// truncated', '// truncated toward zero'))
    await expect(suggest()).rejects.toMatchObject({ code: 'nothing_staged' })
    expect((await suggest({ worktree: true })).files.map((f) => f.path)).toEqual(['src/calc.ts'])
    repo.git('checkout', '--', 'src/calc.ts')
    const error = await expectUserError(['suggest-commit'], 'nothing_staged', opts, { plain: true })
    expect(error.remedy).toMatch(/git add/)
  })

  test('the LLM path: a configured synthesizer writes the words, under the evidence\'s type and scope', async () => {
    repo.write('src/calc.ts', CALC_V4.replace('(value + 2) | 0', 'Math.trunc(value + 2)'))
    const synth = tinySynthesizer({ text: '```\nrefactor(math): truncate totals with Math.trunc [diff]\n\n- src/calc.ts: total truncates toward zero [change]\n```' })
    const r = await suggest({ synthesizer: synth })
    expect(synth.asked).toHaveLength(1)
    expect(synth.asked[0].task).toBe('commit-message')
    expect(synth.asked[0].instructions).toContain('fix(calc): ')
    expect(synth.asked[0].evidence.map((e) => e.id)).toEqual(expect.arrayContaining(['change', 'diff']))
    expect(synth.asked[0].evidence.find((e) => e.id === 'diff')!.text).toContain('Math.trunc')
    // the type and scope stay the evidence's; the citations are dropped
    expect(r.subject).toBe('fix(calc): truncate totals with Math.trunc')
    expect(r.body).toBe('- src/calc.ts: total truncates toward zero')
    expect(r.writer).toBe('test:tiny')
    expect(r.llm).toEqual({ provider: 'test', model: 'tiny', cached: false })
    expect(r.type).toBe('fix')

    // declined: the extractive message stands, and says why
    const declined = await suggest({ synthesizer: tinySynthesizer({ declined: 'budget' }) })
    expect(declined.subject).toBe('fix(calc): fix total')
    expect(declined.writer).toBe('extractive')
    expect(declined.llm).toEqual({ declined: 'budget' })
    // a first line that is no conventional subject, or too long: declined here
    const odd = await suggest({ synthesizer: tinySynthesizer({ text: 'I changed the total function.' }) })
    expect(odd).toMatchObject({ writer: 'extractive', subject: 'fix(calc): fix total', llm: { declined: expect.stringMatching(/conventional/) } })
    const long = await suggest({ synthesizer: tinySynthesizer({ text: `fix: ${'very '.repeat(20)}long` }) })
    expect(long.llm).toEqual({ declined: 'the model\'s subject is longer than 72 characters' })
    // a synthesizer that throws declines too
    const broken: Synthesizer = { name: 'test:broken', synthesize: async () => Promise.reject(new Error('socket hang up')) }
    expect((await suggest({ synthesizer: broken })).llm).toEqual({ declined: 'error: socket hang up' })
  })

  test('a stale index and a staged new file: the new file\'s symbols by parsing, the changed file compared side by side', async () => {
    const clone = repo.clone()
    try {
      await analyze({ repo: clone.dir })
      // the index falls behind: calc.ts changes in a commit it has not seen
      clone.write('src/calc.ts', CALC_V4.replace('// truncated', '// truncated, see #4'))
      clone.commit('fix: point at the issue')
      clone.write('src/stats.ts', tsFunction('median', ['const mid = value / 2', 'return mid']))
      clone.write('src/calc.ts', CALC_V4.replace('// truncated', '// truncated, see #4').replace('value + 2', 'value + 3'))
      const r = await suggestCommit({ repo: clone.dir, synthesizer: null })
      expect(r.index.stale).toBe(true)
      expect(r.type).toBe('feat')
      const byPath = Object.fromEntries(r.files.map((f) => [f.path, f]))
      expect(byPath['src/stats.ts']).toMatchObject({ status: 'A', added: ['median'], exported: ['median'], mapped: false })
      expect(byPath['src/calc.ts']).toMatchObject({ status: 'M', changed: ['total'], mapped: false })
      expect(r.subject).toBe('feat: add median')
    } finally {
      clone.cleanup()
    }
  })

  test('pure parts: a subject\'s label, and a model\'s message checked', () => {
    expect(commitLabel({ subject: 'fix(parser): handle empty input', category: 'normal' })).toEqual({ type: 'fix', scope: 'parser' })
    expect(commitLabel({ subject: 'Feature: dark mode', category: 'normal' })).toEqual({ type: 'feat', scope: null })
    expect(commitLabel({ subject: 'Bump lodash from 4.17.20 to 4.17.21', category: 'bot' })).toEqual({ type: 'chore', scope: null })
    expect(commitLabel({ subject: 'Reformat everything', category: 'formatting' })).toEqual({ type: 'style', scope: null })
    expect(commitLabel({ subject: 'Fixes a crash on empty input', category: 'normal' })).toEqual({ type: 'fix', scope: null })
    expect(commitLabel({ subject: 'Merge pull request #3 from x/fix', category: 'merge' })).toBeNull()
    expect(commitLabel({ subject: 'Add the cache', category: 'normal' })).toBeNull()
    expect(acceptSynthesized('feat: add x\n\nbody', 'fix(a): ', [])).toEqual({ subject: 'fix(a): add x', body: 'body' })
    expect(acceptSynthesized('', 'fix: ', [])).toEqual({ declined: 'the model wrote nothing' })
  })

  test('the scope: the community most changed symbols are in (its file, folder or name word), else the folder, else the file', () => {
    const code = (p: string) => ({ path: p, status: 'M' as const, old_path: null, kind: 'code' as const, mapped: true, added: [], changed: [], removed: [], exported: [], dependencies: [] })
    const files = [code('src/router/match.ts'), code('src/router/compile.ts')]
    const community = (label: string, symbols = 3) => ({ communities: [{ id: 'c1', label, symbols }, { id: 'c2', label: 'src/other.ts', symbols: 1 }] })
    expect(decideScope('fix', files, community('src/router/match.ts: match'))).toEqual({ scope: 'match', from: 'community' })
    expect(decideScope('fix', files, community('packages/server/src: Router'))).toEqual({ scope: 'server', from: 'community' })
    expect(decideScope('fix', files, community('src: Router, route (2)'))).toEqual({ scope: 'router', from: 'community' })
    expect(decideScope('fix', files, community('Cache, entry'))).toEqual({ scope: 'cache', from: 'community' })
    // no community holds most of them: the folder
    expect(decideScope('fix', files, community('src/cache.ts', 1))).toEqual({ scope: 'router', from: 'folder' })
    expect(decideScope('fix', [code('src/calc.ts')], { communities: [] })).toEqual({ scope: 'calc', from: 'file' })
    expect(decideScope('fix', [code('src/a.ts'), code('lib/b.ts')], { communities: [] })).toEqual({ scope: null, from: null })
    expect(decideScope('chore', [{ ...code('package.json'), kind: 'deps' }], community('x'))).toEqual({ scope: 'deps', from: 'deps' })
  })

  test('CLI: the message on stdout (for git commit -F -), what decided it on stderr; --json is the documented document', async () => {
    repo.write('src/calc.ts', CALC_V4.replace('(value + 2) | 0', 'Math.trunc(value + 2)'))
    const plain = await runCli(['suggest-commit'], opts)
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).toBe('fix(calc): fix total\n\n- src/calc.ts: changed total\n')
    expect(plain.stderr).toMatch(/^type fix decided by change\+history:\n {2}the change: only the bodies of existing code changed \(total\), no new API\n {2}the history: 3 of the 4/)
    expect(plain.stderr).toMatch(/scope calc \(from [^)]+\) · written by extractive/)
    const { json } = await runJson<SuggestCommitResult>(['suggest-commit', '--staged'], opts)
    expectShape(json, SUGGESTION, 'suggest-commit --json')
    expect(json.message).toBe(plain.stdout.trimEnd())
    await expectUserError(['suggest-commit', '--staged', '--worktree'], 'usage', opts)
  })

  test('MCP: suggest_commit_message over a real stdio client answers what the CLI answers', async () => {
    repo.write('src/calc.ts', CALC_V4.replace('(value + 2) | 0', 'Math.trunc(value + 2)'))
    const { json } = await runJson<SuggestCommitResult>(['suggest-commit'], opts)
    const { client } = await connectStdio({ cwd: repo.dir, env: opts.env, tools: 'commit' })
    try {
      const r = await client.callTool({ name: 'suggest_commit_message', arguments: {} })
      expect(r.isError, text(r)).toBeFalsy()
      expect(text(r)).toMatch(/^fix\(calc\): fix total\n\n- src\/calc\.ts: changed total\n\ntype fix decided by change\+history:/)
      const data = structured(r)
      expect(data).toMatchObject({ repo: repo.dir, subject: json.subject, message: json.message, type: 'fix', decided_by: 'change+history' })
      repo.git('reset', '-q')
      const none = await client.callTool({ name: 'suggest_commit_message', arguments: { scope: 'staged' } })
      expect(none.isError).toBe(true)
      expect(text(none)).toMatch(/nothing is staged[\s\S]*To fix: stage what the commit should hold/)
      const worktree = await client.callTool({ name: 'suggest_commit_message', arguments: { scope: 'worktree' } })
      expect(structured(worktree)).toMatchObject({ mode: 'worktree', subject: 'fix(calc): fix total' })
    } finally {
      await client.close()
    }
  })
})
