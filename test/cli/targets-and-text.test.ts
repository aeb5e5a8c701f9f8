/**
 * Untrusted text and awkward targets, end to end through the built CLI and a real MCP client:
 * - commit subjects, bodies, author names and paths holding escape sequences, BEL, CR, newlines
 *   and U+202E are shown escaped in every text output and exact in --json / structured content;
 * - ranges as `git blame -L` takes them (END past the end cut, START past the end refused) and bad
 *   ranges reported as such; directories with or without the trailing slash everywhere;
 * - files analyze skipped are answered with the reason; mistyped commands exit 1 with the nearest.
 */
import { mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { connectStdio, structured, text } from '../mcp/client.js'
import { EVIDENCE_DOC, expectShape, expectUserError, runCli, runJson, type CliOptions, type CliResult } from './cli.js'

const DAY = 86_400
const T0 = 1_704_067_200 // 2024-01-01

const EVIL_PATH = 'src/evil\nname\u202e.py'
const SUBJECT = 'Parse \x1b]0;pwned\x07 input \x1b[2J now\r \u202eevil (#4)'
const BODY = 'body \x1b[31m red\nsecond line'
const EVE = { name: 'Eve\r\x1b[31mMallory', email: 'eve@example.test' }
const ADA = { name: 'Ada Tester', email: 'ada@example.test' }

const M_V1 = 'def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n'
const M_V2 = M_V1.replace('return 1', 'return 11')

/** Raw control characters (a line break only as the line ending), DEL, C1, line separators, bidi overrides. */
const UNPRINTABLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

function expectPrintable(label: string, out: string): void {
  const bad = UNPRINTABLE.exec(out)
  expect(bad, `${label} printed a raw U+${bad?.[0].charCodeAt(0).toString(16).padStart(4, '0')}:\n${JSON.stringify(out)}`).toBeNull()
}

async function expectPrintableRun(args: string[], opts: CliOptions, code = 0): Promise<CliResult> {
  const r = await runCli(args, opts)
  expect(r.code, `gitwhy ${JSON.stringify(args)}\n${r.stdout}\n${r.stderr}`).toBe(code)
  expectPrintable(`gitwhy ${JSON.stringify(args)} stdout`, r.stdout)
  expectPrintable(`gitwhy ${JSON.stringify(args)} stderr`, r.stderr)
  return r
}

describe('hostile text, targets, ranges, skipped files', () => {
  let repo: TestRepo
  let opts: CliOptions
  let client: Client
  let evil: string

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/m.py', M_V1).write(EVIL_PATH, 'def evil():\n    return 0\n').write('doc/readme.md', '# doc\n')
    repo.write('src/blob.bin', Buffer.from([0, 1, 2, 3, 0, 255])).write('vendor/lib.js', 'module.exports = 1\n').write('lib/a:b', 'colon\nfile\n')
    symlinkSync('m.py', repo.path('src/link.py'))
    repo.git('add', '--', 'src/link.py')
    repo.git('update-index', '--add', '--cacheinfo', `160000,${'a'.repeat(40)},ext/sub`)
    repo.commit(`${SUBJECT}\n\n${BODY}`, { date: T0, author: EVE })
    repo.write('src/m.py', M_V2)
    evil = repo.commit('Tune alpha \x1b[2J', { date: T0 + DAY, author: EVE })
    // someone else much later: Eve's files are ghost code
    repo.write('NOTES.md', 'later\n')
    repo.commit('Add notes', { date: T0 + 400 * DAY, author: ADA })
    opts = { cwd: repo.dir, env: { ...repo.env(), GITWHY_HOME: mkdtempSync(join(tmpdir(), 'gitwhy-home-')) } }
    await runJson(['analyze'], opts)
    ;({ client } = await connectStdio({ cwd: repo.dir, env: opts.env }))
  }, 120_000)

  afterAll(async () => {
    await client?.close()
    repo?.cleanup()
  })

  describe('terminal injection', () => {
    test('every text output shows the subject, author and path escaped, never raw', async () => {
      const runs = [
        ['evidence', 'src/m.py'],
        ['evidence', '--symbol', 'alpha'],
        ['evidence', EVIL_PATH],
        ['history', '.'],
        ['history', EVIL_PATH],
        ['augment', 'evil'],
        ['risk', 'src/m.py'],
        ['ownership', 'src'],
        ['related', 'src/m.py'],
        ['hotspots', '--all-files'],
        ['ghosts'],
        ['context-for-pr', '--files', 'src/m.py', EVIL_PATH],
      ]
      const outs = await Promise.all(runs.map((args) => expectPrintableRun(args, opts)))
      const all = outs.map((r) => r.stdout).join('\n')
      // shown, escaped: the subject and the author in evidence, the path in history
      expect(outs[0].stdout).toContain('Parse \\x1b]0;pwned\\x07 input \\x1b[2J now\\r \\u202eevil')
      expect(outs[0].stdout).toContain('Eve\\r\\x1b[31mMa')
      expect(outs[4].stdout).toContain('src/evil\\nname\\u202e.py')
      expect(outs[10].stdout).toContain('Eve\\r\\x1b[31mMallory')
      expect(all).toContain('Tune alpha \\x1b[2J')
    })

    test('the Claude hook hands the agent escaped lines: a subject cannot forge a line of its context', async () => {
      const event = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Grep', tool_input: { pattern: 'alpha' }, cwd: repo.dir })
      const r = await runCli(['hook', 'claude'], { ...opts, env: { ...opts.env, GITWHY_HOOK_DEADLINE_MS: '20000' }, input: event })
      expect(r.code).toBe(0)
      const context = JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string
      expect(context).toContain('Tune alpha \\x1b[2J')
      for (const line of context.split('\n')) expectPrintable('hook line', line)
    })

    test('error messages and did-you-mean lists are escaped too', async () => {
      const near = await expectPrintableRun(['evidence', 'src/evilname.py'], opts, 1)
      expect(near.stderr).toContain('src/evil\\nname\\u202e.py')
      const typed = await expectPrintableRun(['evidence', 'src/no\x1b[2Jpe.py'], opts, 1)
      expect(typed.stderr).toContain('src/no\\x1b[2Jpe.py')
      await expectPrintableRun(['evidence', '--symbol', 'al\x07pha'], opts, 1)
    })

    test('--json carries the exact strings git has', async () => {
      const subject = repo.git('log', '-1', '--format=%s', `${evil}^`).replace(/\n$/, '')
      const author = repo.git('log', '-1', '--format=%an', evil).replace(/\n$/, '')
      expect(subject).toContain('\x1b]0;pwned\x07')
      expect(author).toBe(EVE.name)
      const { json } = await runJson(['evidence', 'src/m.py'], opts)
      expectShape(json, EVIDENCE_DOC, 'evidence --json')
      const first = json.evidence.find((e: any) => e.commit.sha === repo.git('rev-parse', `${evil}^`).trim())
      expect(first.commit.subject).toBe(subject)
      expect(first.commit.author).toBe(author)
      const history = (await runJson(['history', EVIL_PATH], opts)).json
      expect(history.evidence.map((e: any) => e.path_at_commit)).toEqual([EVIL_PATH])
      expect((await runJson(['evidence', EVIL_PATH], opts)).json.target.path).toBe(EVIL_PATH)
    })

    test('MCP tool text is escaped line by line; structured content is exact', async () => {
      const calls = [
        { name: 'evidence_for', arguments: { path: 'src/m.py' } },
        { name: 'area_history', arguments: { path: '.' } },
        { name: 'catchup', arguments: { since: '2023-12-01' } },
        { name: 'ownership', arguments: { target: 'src' } },
        { name: 'detect_changes', arguments: { files: [EVIL_PATH] } },
        { name: 'evidence_for', arguments: { path: 'src/evilname.py' } },
      ]
      const results = await Promise.all(calls.map((c) => client.callTool(c)))
      results.forEach((r, i) => expectPrintable(`${calls[i].name} text`, text(r)))
      const catchup = text(results[2])
      expect(catchup).toContain('Parse \\x1b]0;pwned\\x07 input \\x1b[2J now\\r \\u202eevil')
      // the subject's CR cannot start a line of the answer
      expect(catchup.split('\n').some((l) => l.startsWith(' \u202eevil') || l.startsWith(' \\u202eevil'))).toBe(false)
      expect(text(results[5])).toContain('src/evil\\nname\\u202e.py')
      const area = structured(results[1])
      expect(area.evidence.map((e: any) => e.commit.subject)).toContain(SUBJECT)
    })
  })

  describe('ranges (item 13): as git blame -L', () => {
    test('an END past the end is cut to the last line, as git does, and the answer says so', async () => {
      // git blame clamps the end itself: its owners of 2-99 are the oracle
      const porcelain = repo.git('blame', '--porcelain', '-L', '2,99', '--', 'src/m.py')
      const gitOwners = new Set([...porcelain.matchAll(/^([0-9a-f]{40}) \d+ \d+/gm)].map((m) => m[1]))
      const { json } = await runJson(['evidence', 'src/m.py:2-99'], opts)
      expectShape(json, EVIDENCE_DOC, 'clamped evidence')
      expect(json.target).toMatchObject({ line_start: 2, line_end: 6 })
      expect(json.clamped).toMatchObject({ requested_line_end: 99 })
      expect(gitOwners.size).toBe(2)
      expect(new Set(json.evidence.filter((e: any) => e.source === 'blame').map((e: any) => e.commit.sha))).toEqual(gitOwners)
      const plain = await runCli(['evidence', 'src/m.py:2-99'], opts)
      expect(plain.stdout).toMatch(/note: src\/m\.py has 6 lines: the range 2-99 was cut to 2-6/)
      expect((await runJson(['evidence', 'src/m.py:1-3'], opts)).json.clamped).toBeNull()
      const mcp = structured(await client.callTool({ name: 'evidence_for', arguments: { path: 'src/m.py:2-99' } }))
      expect(mcp.target).toMatchObject({ line_start: 2, line_end: 6 })
      expect(mcp.clamped).toMatchObject({ requested_line_end: 99 })
    })

    test('a START past the end is refused, as git refuses it', async () => {
      expect(repo.gitMay([128], 'blame', '-L', '50,60', '--', 'src/m.py').status).toBe(128)
      const e = await expectUserError(['evidence', 'src/m.py:50-60'], 'bad_range', opts)
      expect(e.message).toContain('has only 6 lines')
    })

    test('text after the last colon that is not a range is a bad range; a file named a:b still works', async () => {
      for (const bad of [':abc', ':5-', ':1.5-3', ':-5', ':0', ':3-1']) {
        const e = await expectUserError(['evidence', `src/m.py${bad}`], 'bad_range', opts)
        expect(e.remedy, bad).toContain('PATH:START-END')
      }
      const { json } = await runJson(['evidence', 'lib/a:b'], opts)
      expect(json.target).toMatchObject({ path: 'lib/a:b', line_start: 1, line_end: 2 })
      expect((await runJson(['evidence', 'lib/a:b:2'], opts)).json.target).toMatchObject({ path: 'lib/a:b', line_start: 2, line_end: 2 })
      const mcp = await client.callTool({ name: 'evidence_for', arguments: { path: 'src/m.py:abc' } })
      expect(mcp.isError).toBe(true)
      expect(text(mcp)).toContain('":abc" is no line range')
    })

    test('evidence takes a symbol as its argument, as why and related do; a name that is none keeps the path errors', async () => {
      const bySymbol = (await runJson(['evidence', '--symbol', 'src/m.py:beta'], opts)).json
      expect(bySymbol.target.symbol).toMatchObject({ qualified_name: 'beta' })
      for (const given of ['src/m.py:beta', 'beta']) {
        const { json } = await runJson(['evidence', given], opts)
        expect(json.target, given).toEqual(bySymbol.target)
        expect(json.evidence, given).toEqual(bySymbol.evidence)
      }
      const mcp = structured(await client.callTool({ name: 'evidence_for', arguments: { path: 'src/m.py:beta' } }))
      expect(mcp.target).toEqual(bySymbol.target)
      const gamma = await expectUserError(['evidence', 'src/m.py:gamma'], 'bad_range', opts)
      expect(gamma.message).toBe('src/m.py has no symbol gamma, and ":gamma" is no line range')
      expect(gamma.remedy).toContain('PATH:START-END (whole numbers, 1 ≤ START ≤ END), or PATH:NAME with a symbol of src/m.py')
      // (not expectUserError: the did-you-mean list may hold the control characters of EVIL_PATH, escaped on stderr)
      const missing = await runCli(['evidence', 'gamma', '--json'], opts)
      expect(missing.code).toBe(1)
      expect(JSON.parse(missing.stdout).error).toMatchObject({ code: 'unknown_path', message: expect.stringContaining('gamma is not an indexed file') })
    })

    test('a directory given to evidence points to history', async () => {
      for (const dir of ['.', 'src', 'src/']) {
        const e = await expectUserError(['evidence', dir], 'is_directory', opts)
        expect(e.remedy).toContain('gitwhy history DIR')
      }
    })
  })

  describe('directories without the trailing slash (item 14)', () => {
    test('ownership, hotspots --path, history and context-for-pr --files take src like src/', async () => {
      const [a, b] = await Promise.all([runJson(['ownership', 'src'], opts), runJson(['ownership', 'src/'], opts)])
      expect(a.json.target).toEqual({ kind: 'directory', path: 'src/' })
      expect(a.json.owners).toEqual(b.json.owners)
      expect((await runJson(['ownership', 'doc'], opts)).json.target).toEqual({ kind: 'directory', path: 'doc/' })
      const [h1, h2] = await Promise.all([runJson(['hotspots', '--path', 'src', '--all-files'], opts), runJson(['hotspots', '--path', 'src/', '--all-files'], opts)])
      expect(h1.json.files.length).toBeGreaterThan(0)
      expect(h1.json.files).toEqual(h2.json.files)
      expect((await runJson(['history', 'src'], opts)).json.target.kind).toBe('directory')
      const pr = (await runJson(['context-for-pr', '--files', 'src'], opts)).json
      expect(pr.files.map((f: any) => f.path).sort()).toEqual([EVIL_PATH, 'src/m.py'].sort())
      const mcp = structured(await client.callTool({ name: 'ownership', arguments: { target: 'doc' } }))
      expect(mcp.target).toEqual({ kind: 'directory', path: 'doc/' })
    })

    test('risk and related refuse a directory and name the commands that take one', async () => {
      for (const cmd of ['risk', 'related']) {
        const e = await expectUserError([cmd, 'doc'], 'is_directory', opts)
        expect(e.message).toBe(`doc is a directory; ${cmd} takes a file or a symbol`)
        expect(e.remedy).toContain('gitwhy ownership DIR')
      }
      const mcp = await client.callTool({ name: 'risk', arguments: { target: 'src' } })
      expect(mcp.isError).toBe(true)
      expect(text(mcp)).toContain('src is a directory')
    })
  })

  describe('skipped files (item 15)', () => {
    test('evidence, risk and ownership say which files analyze skipped and why', async () => {
      const cases: Array<[string, string]> = [
        ['src/blob.bin', 'binary'],
        ['vendor/lib.js', 'vendored'],
        ['src/link.py', 'symbolic link'],
        ['ext/sub', 'submodule'],
      ]
      for (const [file, why] of cases) {
        const e = await expectUserError(['evidence', file], 'skipped_file', opts)
        expect(e.message, file).toContain(why)
        expect(e.message).not.toContain('deleted or renamed')
      }
      expect((await expectUserError(['risk', 'src/blob.bin'], 'skipped_file', opts)).message).toContain('binary')
      expect((await expectUserError(['ownership', 'src/blob.bin'], 'skipped_file', opts)).message).toContain('binary')
      const mcp = await client.callTool({ name: 'evidence_for', arguments: { path: 'src/blob.bin' } })
      expect(mcp.isError).toBe(true)
      expect(text(mcp)).toContain('skipped it')
    })

    test('history still shows a skipped file\'s commits', async () => {
      const { json } = await runJson(['history', 'src/blob.bin'], opts)
      expect(json.target.kind).toBe('file')
      expect(json.total).toBe(1)
    })
  })
})

describe('unknown commands (item 17)', () => {
  test('exit 1 with the nearest command, spaced topics included; --json is one error document', async () => {
    const typo = await runCli(['evidnce', 'src/a.ts:3'])
    expect(typo.code).toBe(1)
    expect(typo.stderr).toContain('did you mean `gitwhy evidence`?')
    expect(typo.stdout).toBe('')
    const json = await runCli(['evidnce', 'x', '--json'])
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'unknown_command', message: 'evidnce is not a gitwhy command', remedy: expect.stringContaining('`gitwhy evidence`') } })
    const topic = await runCli(['hooks', 'instal'])
    expect(topic.code).toBe(1)
    expect(topic.stderr).toContain('did you mean `gitwhy hooks install`?')
    const none = await runCli(['zzzzzz'])
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('use one of: analyze, augment')
  })
})
