/**
 * Bad input, end to end: every user-fixable problem exits 1, says what happened and how to fix it
 * on stderr ("fix:"), and with --json prints `{"error": {"code", "message", "remedy"}}` on stdout.
 * Also: the index survives a killed analyze, the writer lock, schema upgrades, and values starting
 * with "-" never reach git as options.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, isolatedGitEnv, type TestRepo } from '../helpers/repo.js'
import { ANALYZE_FULL, EVIDENCE_DOC, STATUS_UNINDEXED, expectShape, expectUserError, runCli, runJson, sleep, startCli, type CliOptions } from './cli.js'

const TWO_CLASSES = `export class Alpha {
  run(): number {
    return 1
  }
}

export class Beta {
  run(): number {
    return 2
  }
}

export function standalone(): string {
  return 'x'
}
`

const PY = `def parse_input(text):
    return text.split()
`

function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

/** A small committed repository (not analyzed). */
function smallRepo(): TestRepo {
  const repo = createRepo()
  repo.write('src/shapes.ts', TWO_CLASSES).write('lib/tool.py', PY)
  repo.commit('Add shapes and tool')
  repo.write('lib/tool.py', PY + '\n\ndef other():\n    return 2\n')
  repo.commit('Add other (#4)')
  return repo
}

const cliOpts = (repo: TestRepo): CliOptions => ({ cwd: repo.dir, env: repo.env() })

function indexDirs(repo: TestRepo): string[] {
  return readdirSync(join(repo.dir, '.gitwhy')).filter((n) => n.startsWith('index-')).sort()
}

/**
 * After a successful analyze, `.gitwhy/` holds the active index and at most the one it replaced
 * (kept until the next swap for readers that read the old meta.json a moment ago); nothing else.
 */
function expectIndexDirsAfterSwap(repo: TestRepo, replaced: string): void {
  const active = readMeta(repo).indexDir
  expect(active).not.toBe(replaced)
  expect(indexDirs(repo)).toEqual([active, replaced].sort())
}

function readMeta(repo: TestRepo): { schemaVersion: number; indexDir: string; head: string } {
  return JSON.parse(readFileSync(join(repo.dir, '.gitwhy', 'meta.json'), 'utf8'))
}

describe('not a git repository, empty repository, no index', () => {
  let plain: string
  let home: string
  let empty: TestRepo
  let unindexed: TestRepo

  beforeAll(() => {
    plain = tempDir('gitwhy-plain-')
    home = tempDir('gitwhy-home-')
    empty = createRepo()
    unindexed = smallRepo()
  })
  afterAll(() => {
    rmSync(plain, { recursive: true, force: true })
    rmSync(home, { recursive: true, force: true })
    empty?.cleanup()
    unindexed?.cleanup()
  })

  test('--repo a directory without git → not_a_repo', async () => {
    // the ceiling keeps git from finding a repository above the temp directory
    const opts = { cwd: plain, env: isolatedGitEnv(home, { GIT_CEILING_DIRECTORIES: dirname(plain) }) }
    const err = await expectUserError(['status', '--repo', plain], 'not_a_repo', opts, { plain: true })
    expect(err.message).toContain(plain)
    expect(err.remedy).toMatch(/--repo/)
    await expectUserError(['evidence', 'a.ts:1-2', '--repo', plain], 'not_a_repo', opts)
    await expectUserError(['analyze', '--repo', plain], 'not_a_repo', opts)
  })

  test('--repo a directory that does not exist → not_found', async () => {
    const missing = join(plain, 'nope')
    await expectUserError(['status', '--repo', missing], 'not_found', { cwd: plain, env: isolatedGitEnv(home) }, { plain: true })
  })

  test('an empty repository (no commits): analyze → empty_repo', async () => {
    const err = await expectUserError(['analyze', '--repo', empty.dir], 'empty_repo', cliOpts(empty), { plain: true })
    expect(err.message).toMatch(/no commits/)
    expect(err.remedy).toMatch(/commit/)
    expect(existsSync(join(empty.dir, '.gitwhy', 'meta.json'))).toBe(false)
  })

  test('before the first analyze: evidence / history / cypher → no_index; status says not indexed', async () => {
    const opts = cliOpts(unindexed)
    const err = await expectUserError(['evidence', 'src/shapes.ts:1-2', '--repo', unindexed.dir], 'no_index', opts, { plain: true })
    expect(err.remedy).toMatch(/gitwhy analyze/)
    await expectUserError(['evidence', '--symbol', 'Alpha.run', '--repo', unindexed.dir], 'no_index', opts)
    await expectUserError(['history', 'src/shapes.ts', '--repo', unindexed.dir], 'no_index', opts)
    await expectUserError(['cypher', 'MATCH (c:Commit) RETURN count(*) AS n', '--repo', unindexed.dir], 'no_index', opts)
    const { json } = await runJson(['status', '--repo', unindexed.dir], opts)
    expectShape(json, STATUS_UNINDEXED, 'status --json before analyze')
    expect(json.head).toBe(unindexed.head())
  })
})

describe('bad arguments on an indexed repository', () => {
  let repo: TestRepo
  let opts: CliOptions
  let scratch: string
  const args = (cmd: string, ...rest: string[]) => [cmd, '--repo', repo.dir, ...rest]

  beforeAll(async () => {
    repo = smallRepo()
    opts = cliOpts(repo)
    scratch = tempDir('gitwhy-scratch-')
    writeFileSync(join(scratch, 'elsewhere.ts'), 'export const x = 1\n')
    await runJson(args('analyze'), opts)
  })
  afterAll(() => {
    repo?.cleanup()
    rmSync(scratch, { recursive: true, force: true })
  })

  test('a path outside the repository → outside_repo (relative ../ and absolute)', async () => {
    const e1 = await expectUserError(args('evidence', '../x:1-2'), 'outside_repo', opts, { plain: true })
    expect(e1.message).toContain('../x')
    await expectUserError(args('evidence', join(scratch, 'elsewhere.ts') + ':1-1'), 'outside_repo', opts)
    await expectUserError(args('history', '../x'), 'outside_repo', opts)
    await expectUserError(args('evidence', '--symbol', `${join(scratch, 'elsewhere.ts')}:x`), 'outside_repo', opts)
  })

  test('an unknown path → unknown_path with "did you mean"', async () => {
    const e = await expectUserError(args('evidence', 'src/shape.ts:1-2'), 'unknown_path', opts, { plain: true })
    expect(e.message).toContain('src/shape.ts')
    expect(e.remedy).toMatch(/did you mean: src\/shapes\.ts/)
    const h = await expectUserError(args('history', 'lib/tools.py'), 'unknown_path', opts)
    expect(h.remedy).toMatch(/did you mean: .*lib\/tool\.py/)
  })

  test('an unknown symbol → unknown_symbol with suggestions', async () => {
    const e = await expectUserError(args('evidence', '--symbol', 'standalon'), 'unknown_symbol', opts, { plain: true })
    expect(e.message).toContain('standalon')
    expect(e.remedy).toMatch(/did you mean: .*standalone/)
    const m = await expectUserError(args('evidence', '--symbol', 'Alpha.runn'), 'unknown_symbol', opts)
    expect(m.remedy).toMatch(/Alpha\.run/)
  })

  test('an ambiguous symbol → ambiguous_symbol listing both; PATH:NAME then works', async () => {
    const e = await expectUserError(args('evidence', '--symbol', 'run'), 'ambiguous_symbol', opts, { plain: true })
    expect(e.message).toContain('src/shapes.ts:Alpha.run')
    expect(e.message).toContain('src/shapes.ts:Beta.run')
    expect(e.remedy).toMatch(/--symbol src\/shapes\.ts:/)

    const beta = (await runJson(args('evidence', '--symbol', 'src/shapes.ts:Beta.run'), opts)).json
    expectShape(beta, EVIDENCE_DOC)
    expect(beta.target).toEqual({ path: 'src/shapes.ts', line_start: 8, line_end: 10, symbol: { qualified_name: 'Beta.run', kind: 'method' } })
    const alpha = (await runJson(args('evidence', '--symbol', 'Alpha.run'), opts)).json
    expect(alpha.target.symbol).toEqual({ qualified_name: 'Alpha.run', kind: 'method' })
  })

  test('a line range starting past the end of the file (or reversed) → bad_range (an end past it is cut, as git blame -L does)', async () => {
    const e = await expectUserError(args('evidence', 'src/shapes.ts:20-99'), 'bad_range', opts, { plain: true })
    expect(e.message).toMatch(/15 lines/)
    expect(e.remedy).toMatch(/1-15/)
    await expectUserError(args('evidence', 'src/shapes.ts:5-2'), 'bad_range', opts)
  })

  test('cypher writes are refused; CREATE inside a string literal is fine', async () => {
    for (const q of [
      "CREATE (f:File {path: 'x', language: 'ts', lines: 1, is_test: false, present: true})",
      'MATCH (c:Commit) DETACH DELETE c',
      "COPY Commit FROM '/tmp/commits.csv'",
      'MATCH (c:Commit) RETURN c.sha; MATCH (c:Commit) DELETE c',
      "match (c:Commit) set c.subject = 'x'",
    ]) {
      const err = await expectUserError(args('cypher', q), 'write_refused', opts)
      expect(err.message).toMatch(/read-only/)
    }
    const { json } = await runJson(args('cypher', "MATCH (c:Commit) WHERE c.subject <> 'CREATE (x); DETACH DELETE' RETURN count(*) AS n"), opts)
    expect(json).toEqual({ rows: [{ n: 2 }], truncated: false, max_rows: 1000 })
    // the index is untouched
    expect((await runJson(args('cypher', 'MATCH (c:Commit) RETURN count(*) AS n'), opts)).json).toEqual({ rows: [{ n: 2 }], truncated: false, max_rows: 1000 })
  })

  test('a bad query or --param → exit 1 with a remedy, not a bug', async () => {
    await expectUserError(args('cypher', 'MATCH (c:Nope) RETURN c'), 'cypher_error', opts, { plain: true })
    await expectUserError(args('cypher', 'MATCH (c:Commit) RETURN c.sha', '--param', 'novalue'), 'bad_param', opts)
  })

  test('values starting with "-" never reach git as options', async () => {
    const out = join(scratch, 'x')
    const h = await expectUserError(args('history', '--', `--output=${out}`), 'unknown_path', opts, { plain: true })
    expect(h.message).toContain(`--output=${out}`)
    await expectUserError(args('history', '--', '--foo'), 'unknown_path', opts)
    await expectUserError(args('evidence', '--', `--output=${out}:1-2`), 'unknown_path', opts)
    await expectUserError(args('evidence', '--symbol', `--output=${out}`), 'unknown_symbol', opts)
    // a "-" value bound as a Cypher parameter is data
    const { json } = await runJson(args('cypher', 'MATCH (c:Commit) WHERE c.sha = $s RETURN c.sha AS sha', '--param', `s=--output=${out}`), opts)
    expect(json).toEqual({ rows: [], truncated: false, max_rows: 1000 })
    // analyze with a "-" path: a path that does not exist, not a git option
    const a = await runCli(['analyze', '--json', '--', `--output=${out}`], opts)
    expect(a.code, a.stderr).toBe(1)
    expect(JSON.parse(a.stdout).error.code).toMatch(/^(not_found|not_a_repo)$/)
    expect(existsSync(out), `${out} was created: a "-" value reached git as an option`).toBe(false)
    expect(existsSync(join(repo.dir, `--output=${out}`))).toBe(false)
  })

  test('an unknown flag or a missing argument → exit 1 (not 2), with a usage error', async () => {
    const e = await expectUserError(args('evidence', 'src/shapes.ts:1-2', '--bogus'), 'usage', opts, { plain: true })
    expect(e.message).toMatch(/--bogus/)
    await expectUserError(args('analyze', '--nope'), 'usage', opts)
    await expectUserError(args('history'), 'usage', opts)
    await expectUserError(args('evidence'), 'usage', opts)
    await expectUserError(args('evidence', '--limit', '-1', 'src/shapes.ts:1-2'), 'bad_option', opts)
    // oclif's message keeps its lines (it showed a literal \n between them)
    const missing = await runCli(args('history'), opts)
    expect(missing.stderr).not.toContain('\\n')
    expect(missing.stderr).toMatch(/^error: Missing 1 required arg:\n {2}\S/)
  })
})

describe('a name a file defines twice', () => {
  test('ambiguous_symbol lists the ids (PATH:NAME cannot tell them apart) and an id picks one', async () => {
    const repo = createRepo()
    try {
      repo.write('lib/twice.py', 'def helper():\n    return 1\n\n\ndef helper():\n    return 2\n')
      repo.commit('Define helper twice')
      const o = cliOpts(repo)
      await runJson(['analyze', '--repo', repo.dir], o)
      const e = await expectUserError(['evidence', '--repo', repo.dir, '--symbol', 'lib/twice.py:helper'], 'ambiguous_symbol', o, { plain: true })
      expect(e.message).toContain('lib/twice.py#helper (function, lines 1-2)')
      expect(e.message).toContain('lib/twice.py#helper~2 (function, lines 5-6)')
      expect(e.remedy).toContain('--symbol lib/twice.py#helper~2')
      const second = (await runJson(['evidence', '--repo', repo.dir, '--symbol', 'lib/twice.py#helper~2'], o)).json
      expect(second.target).toMatchObject({ path: 'lib/twice.py', line_start: 5, line_end: 6 })
    } finally {
      repo.cleanup()
    }
  }, 120_000)
})

describe('an index older than the schema', () => {
  let repo: TestRepo
  afterAll(() => repo?.cleanup())

  test('schemaVersion 0 → schema_mismatch; analyze (not forced) rebuilds', async () => {
    repo = smallRepo()
    const opts = cliOpts(repo)
    const args = (cmd: string, ...rest: string[]) => [cmd, '--repo', repo.dir, ...rest]
    await runJson(args('analyze'), opts)
    const oldIndexDir = readMeta(repo).indexDir
    const before = (await runJson(args('evidence', 'lib/tool.py:1-2'), opts)).json

    const metaFile = join(repo.dir, '.gitwhy', 'meta.json')
    const meta = JSON.parse(readFileSync(metaFile, 'utf8'))
    const current = meta.schemaVersion
    meta.schemaVersion = 0
    writeFileSync(metaFile, JSON.stringify(meta, null, 2))

    const e = await expectUserError(args('evidence', 'lib/tool.py:1-2'), 'schema_mismatch', opts, { plain: true })
    expect(e.message).toMatch(/schema version 0/)
    expect(e.remedy).toMatch(/gitwhy analyze/)
    await expectUserError(args('cypher', 'MATCH (c:Commit) RETURN count(*) AS n'), 'schema_mismatch', opts)

    const rebuilt = (await runJson(args('analyze'), opts)).json
    expectShape(rebuilt, ANALYZE_FULL, 'analyze after a schema change')
    expect(readMeta(repo).schemaVersion).toBe(current)
    expectIndexDirsAfterSwap(repo, oldIndexDir)
    expect((await runJson(args('evidence', 'lib/tool.py:1-2'), opts)).json).toEqual(before)
  })
})

describe('the writer lock', () => {
  let repo: TestRepo
  let sleeper: ReturnType<typeof spawn> | undefined
  afterAll(() => {
    if (sleeper?.exitCode === null) sleeper.kill('SIGKILL')
    repo?.cleanup()
  })

  test('held by a live process → locked; a stale lock (dead pid) is taken over', async () => {
    repo = smallRepo()
    const opts = cliOpts(repo)
    const args = (cmd: string, ...rest: string[]) => [cmd, '--repo', repo.dir, ...rest]
    await runJson(args('analyze'), opts)
    const oldIndexDir = readMeta(repo).indexDir
    // HEAD moves, so analyze has work to do (a no-op never takes the lock)
    repo.write('lib/tool.py', PY + '\n\ndef third():\n    return 3\n')
    const newHead = repo.commit('Add third')
    const lockFile = join(repo.dir, '.gitwhy', 'analyze.lock')

    sleeper = spawn('sleep', ['30'], { stdio: 'ignore' })
    await new Promise((r) => sleeper!.once('spawn', r))
    writeFileSync(lockFile, String(sleeper.pid))
    const e = await expectUserError(args('analyze'), 'locked', opts, { plain: true })
    expect(e.message).toContain(String(sleeper.pid))
    expect(e.remedy).toMatch(/wait/)
    // the lock is left alone, the index still answers (stale: one commit behind)
    expect(readFileSync(lockFile, 'utf8')).toBe(String(sleeper.pid))
    const st = (await runJson(args('status'), opts)).json
    expect(st.index).toMatchObject({ stale: true, commits_behind: 1 })
    sleeper.kill('SIGKILL')
    await new Promise((r) => (sleeper!.exitCode !== null || sleeper!.signalCode !== null ? r(null) : sleeper!.once('exit', r)))

    // a dead process's pid
    const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
    const deadPid = dead.pid!
    await new Promise((r) => dead.once('exit', r))
    writeFileSync(lockFile, String(deadPid))
    const { json } = await runJson(args('analyze'), opts)
    expect(json.head).toBe(newHead)
    expect(json.mode).not.toBe('noop')
    expect(existsSync(lockFile)).toBe(false)
    expectIndexDirsAfterSwap(repo, oldIndexDir)
  })
})

describe('a killed analyze', () => {
  let repo: TestRepo
  afterAll(() => repo?.cleanup())

  test('SIGKILL mid-run leaves the previous index answering exactly as before; the next analyze succeeds and clears the leftovers', async () => {
    repo = smallRepo()
    const opts = cliOpts(repo)
    const args = (cmd: string, ...rest: string[]) => [cmd, '--repo', repo.dir, ...rest]
    const oldHead = repo.head()
    await runJson(args('analyze'), opts)
    const oldMeta = readMeta(repo)
    const oldDirs = indexDirs(repo)
    expect(oldDirs).toEqual([oldMeta.indexDir])

    // HEAD moves: analyze has real work to do
    repo.write('src/shapes.ts', TWO_CLASSES.replace('return 1', 'return 11'))
    repo.write('lib/more.py', 'def more():\n    return 1\n')
    const newHead = repo.commit('Change Alpha.run')
    const evidenceArgs = args('evidence', 'src/shapes.ts:1-5')
    const before = (await runJson(evidenceArgs, opts)).json
    expect(before.index).toEqual({ head: oldHead, stale: true, commits_behind: 1 })

    // kill as soon as the new index directory appears, then a little later each time
    const delays = [0, 60, 200]
    let midRun = 0
    for (const delay of delays) {
      // directories left by earlier killed runs do not count: wait for this run's own
      const baseline = indexDirs(repo)
      const run = startCli(args('analyze', '--json'), opts)
      let ended = false
      void run.done.then(() => (ended = true), () => (ended = true))
      const seenAt = Date.now()
      let appeared = false
      while (!ended && Date.now() - seenAt < 30_000) {
        if (indexDirs(repo).some((d) => !baseline.includes(d))) {
          appeared = true
          break
        }
        await sleep(2)
      }
      if (appeared && delay > 0) await sleep(delay)
      const killedBeforeEnd = !ended
      run.child.kill('SIGKILL')
      const r = await run.done
      if (!killedBeforeEnd || r.signal !== 'SIGKILL') {
        // it finished before the kill landed: the index is now up to date, stop here
        expect(r.code, r.stderr).toBe(0)
        break
      }
      // killed mid-run: it had taken the lock and started building, and the swap has not happened
      if (readMeta(repo).indexDir !== oldMeta.indexDir) break
      if (appeared) midRun++
      expect(readMeta(repo)).toEqual(oldMeta)
      const after = (await runJson(evidenceArgs, opts)).json
      expect(after, `evidence after a kill ${delay} ms in`).toEqual(before)
      const st = (await runJson(args('status'), opts)).json
      expect(st.head).toBe(newHead)
      expect(st.index).toMatchObject({ head: oldHead, stale: true, commits_behind: 1 })
    }
    expect(midRun, 'no SIGKILL landed while analyze was running').toBeGreaterThanOrEqual(1)

    const { json } = await runJson(args('analyze'), opts)
    expect(json.head).toBe(newHead)
    expect(json.mode).not.toBe('noop')
    // the killed runs' half-built directories are gone: only the active index and the one it replaced
    expectIndexDirsAfterSwap(repo, oldMeta.indexDir)
    expect(existsSync(join(repo.dir, '.gitwhy', 'analyze.lock'))).toBe(false)
    const now = (await runJson(evidenceArgs, opts)).json
    expect(now.index).toEqual({ head: newHead, stale: false, commits_behind: 0 })
    expect(now.evidence[0].commit.sha).toBe(newHead)
    const st = (await runJson(args('status'), opts)).json
    expect(st.index).toMatchObject({ head: newHead, stale: false, commits_behind: 0 })
  })
})
