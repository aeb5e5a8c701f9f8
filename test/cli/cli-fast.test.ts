/**
 * The read commands of src/fast/cli.ts (evidence, history, status, risk, augment, why, --version) are
 * answered before oclif loads. They must print exactly what the oclif commands print — stdout,
 * stderr and exit code, answers and errors alike — and hand to oclif every argv whose reading is
 * oclif's own (--help, unknown or repeated flags, a missing argument, a bad integer).
 * GITWHY_FAST_CLI=0 makes bin/run.js go straight to oclif: the reference.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { runCli, type CliResult } from './cli.js'

const PROBE = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'oclif-probe.mjs')

describe('read commands without oclif', () => {
  let repo: TestRepo
  let bare: TestRepo
  let probeDir: string

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/math.ts', 'export function add(a: number, b: number): number {\n  return a + b\n}\n').write('README.md', '# demo\n')
    repo.commit('Add the math module\n\nAddition comes first because the parser needs it.')
    repo.write('src/math.ts', 'export function add(a: number, b: number): number {\n  // integers only\n  return a + b\n}\n\nexport function mul(a: number, b: number): number {\n  return a * b\n}\n')
    repo.commit('Add mul (#12)', { author: { name: 'Bo Other', email: 'bo@example.test' } })
    repo.move('src/math.ts', 'src/arith.ts')
    repo.commit('Rename math to arith')
    repo.write('src/arith.ts', 'export function add(a: number, b: number): number {\n  // integers only\n  return a + b\n}\n\nexport function mul(a: number, b: number): number {\n  return a * b * 1\n}\n')
    repo.commit('fix: keep mul exact (#13)')
    bare = createRepo()
    bare.write('a.txt', 'a\n').commit('only commit')
    probeDir = mkdtempSync(path.join(tmpdir(), 'gitwhy-probe-'))
    expect((await runCli(['analyze', '--json'], { cwd: repo.dir, env: repo.env() })).code).toBe(0)
  })
  afterAll(() => {
    repo?.cleanup()
    bare?.cleanup()
    rmSync(probeDir, { recursive: true, force: true })
  })

  let runs = 0
  /** Run the CLI and tell which path answered it. */
  async function run(args: string[], { cwd = repo.dir, oclif = false } = {}): Promise<CliResult & { path: string }> {
    const probe = path.join(probeDir, `${++runs}`)
    const env = { ...repo.env(), NODE_OPTIONS: `--import ${PROBE}`, GITWHY_TEST_PROBE: probe, ...(oclif ? { GITWHY_FAST_CLI: '0' } : {}) }
    const result = await runCli(args, { cwd, env })
    return { ...result, path: readFileSync(probe, 'utf8') }
  }

  async function expectSame(args: string[], cwd = repo.dir): Promise<CliResult> {
    const fast = await run(args, { cwd })
    const oclif = await run(args, { cwd, oclif: true })
    expect([fast.path, oclif.path], args.join(' ')).toEqual(['fast', 'oclif'])
    expect({ code: fast.code, stdout: fast.stdout, stderr: fast.stderr }, args.join(' ')).toEqual({ code: oclif.code, stdout: oclif.stdout, stderr: oclif.stderr })
    return fast
  }

  test('answers: text and --json, every flag of each command, the same bytes as oclif', async () => {
    const answers: string[][] = [
      ['evidence', 'src/arith.ts:1-4'],
      ['evidence', 'src/arith.ts:6-8', '--json'],
      ['evidence', '--symbol', 'mul', '--limit', '1'],
      ['evidence', '-s', 'add', '-p', '--json'],
      ['evidence', 'src/arith.ts', '--limit=0', '--patch'],
      ['history', 'src/arith.ts'],
      ['history', 'src/arith.ts', '--no-renames', '--json'],
      ['history', 'src', '--limit', '0', '--json'],
      ['history', 'src/arith.ts', '--renames', '--limit', '1'],
      ['status'],
      ['status', '--json'],
      ['risk', 'src/arith.ts'],
      ['risk', 'mul', '--json'],
      ['risk', '--backtest', '--months', '1', '--json'],
      ['augment', 'mul'],
      ['augment', 'src/*.ts', '--json', '--limit', '1'],
      ['augment', 'arith', '--glob', '--json'],
      ['evidence', 'src/arith.ts:1-2', '--repo', repo.dir, '--json'],
      ['why', 'mul'],
      ['why', 'src/arith.ts:1-4', '--json', '--limit', '2'],
      ['why', 'why is addition first', '--mode', 'bm25'],
    ]
    for (const args of answers) expect((await expectSame(args)).code, args.join(' ')).toBe(0)
    const json = JSON.parse((await run(['evidence', 'src/arith.ts:6-8', '--json'])).stdout)
    expect(json.evidence.map((e: { commit: { subject: string } }) => e.commit.subject)).toContain('fix: keep mul exact (#13)')
  })

  test('user errors: the same message, remedy, JSON error document and exit 1', async () => {
    const errors: Array<[string[], string?]> = [
      [['evidence']],
      [['evidence', '--json']],
      [['evidence', 'src/arith.ts', '--symbol', 'add', '--json']],
      [['evidence', 'src/nope.ts:1-2']],
      [['evidence', 'src/nope.ts:1-2', '--json']],
      [['history', 'nope/']],
      [['risk']],
      [['risk', 'src/arith.ts', '--months', '3', '--json']],
      [['risk', 'src/arith.ts', '--backtest']],
      [['augment', 'mul', '--limit=-2', '--json']],
      [['why', 'src/nope.ts', '--json']],
      [['evidence', 'src/arith.ts:1-2'], bare.dir],
      [['status', '--json'], bare.dir],
      [['status'], tmpdir()],
      [['history', 'a.txt', '--json'], tmpdir()],
    ]
    for (const [args, cwd] of errors) {
      const r = await expectSame(args, cwd)
      if (!(args[0] === 'status' && cwd === bare.dir)) expect(r.code, args.join(' ')).toBe(1)
    }
  })

  test('--version prints what oclif prints', async () => {
    expect((await expectSame(['--version'])).stdout).toMatch(/^gitwhy\/\d+\.\d+\.\d+ \S+-\S+ node-v\d+/)
  })

  test('argv whose reading is oclif\'s own goes to oclif', async () => {
    const handed: string[][] = [
      ['evidence', '--help'],
      ['history', 'src/arith.ts', '-h'],
      ['history'],
      ['history', 'src/arith.ts', 'extra'],
      ['evidence', 'src/arith.ts', '--limit', 'x'],
      ['evidence', 'src/arith.ts', '--limit', '-1'],
      ['evidence', 'src/arith.ts', '--bogus'],
      ['history', 'src/arith.ts', '--limit', '1', '--limit', '2'],
      ['history', 'src/arith.ts', '--renames', '--no-renames'],
      ['evidence', '--', 'src/arith.ts'],
      ['history', ''],
      ['status', '--json=true'],
      ['why', 'mul', '--mode', 'sideways'],
    ]
    for (const args of handed) {
      const fast = await run(args)
      const oclif = await run(args, { oclif: true })
      expect(fast.path, args.join(' ')).toBe('oclif')
      expect({ code: fast.code, stdout: fast.stdout, stderr: fast.stderr }, args.join(' ')).toEqual({ code: oclif.code, stdout: oclif.stdout, stderr: oclif.stderr })
    }
    // a command with no view is oclif's
    expect((await run(['hotspots', '--json'])).path).toBe('oclif')
  })
})
