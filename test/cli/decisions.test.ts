/**
 * The decision commands through the built CLI (issue 16): concurrent `decision add` from several
 * processes loses nothing; bad input is one clear error, exit 1, nothing written; a damaged line
 * in the decision file is reported, never silently dropped by a writer; the --json documents.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { expectShape, expectUserError, GOVERNING_DECISION, INDEX_INFO, runCli, runJson, t, WHY_DOC, type CliOptions } from './cli.js'

const FILE = '.gitwhy-decisions.jsonl'
const DECISION = t.obj({
  id: t.str(/^[a-z]{1,3}-[0-9a-f]{6,16}$/),
  kind: t.lit('feature', 'decision', 'constraint', 'pattern', 'convention'),
  title: t.str(),
  statement: t.str(),
  rationale: t.str(),
  confidence: t.num(),
  status: t.lit('proposed', 'active', 'superseded', 'rejected'),
  created: t.str(),
  decided_at: t.str(),
  source: t.lit('manual', 'mined', 'adr'),
  applies_to: t.arr(t.obj({ kind: t.str(), path: t.str(), symbol: t.str(), id: t.str() }, ['path', 'symbol', 'id'])),
  evidence: t.arr(t.obj({ kind: t.str(), sha: t.str(), number: t.int(), path: t.str(), start_line: t.int(), end_line: t.int(), snippet: t.str() }, ['sha', 'number', 'path', 'start_line', 'end_line', 'snippet'])),
  check: t.or(t.nul(), t.obj({ kind: t.str(), pattern: t.str(), mode: t.str(), query: t.str(), paths: t.arr(t.str()) }, ['pattern', 'mode', 'query', 'paths'])),
  superseded_by: t.or(t.nul(), t.str()),
})

describe('decision commands', () => {
  let repo: TestRepo
  let opts: CliOptions

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/api.ts', 'export function call(url: string): string {\n  return url\n}\n')
    repo.write('src/ui.ts', 'export function show(): string {\n  return "x"\n}\n')
    repo.commit('Add the api and the ui\n\nWe decided to keep every network call in src/api.ts because retries and auth live there.')
    opts = { cwd: repo.dir, env: repo.env() }
    await runJson(['analyze', '--repo', repo.dir], opts)
  })
  afterAll(() => repo?.cleanup())

  test('eight concurrent `decision add` processes: every decision is in the file, each line whole', async () => {
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) => runJson(['decision', 'add', `rule number ${i}`, '--applies-to', 'src/api.ts:call', '--kind', 'convention', '--repo', repo.dir], opts)),
    )
    const ids = runs.map((r) => r.json.decision.id as string)
    expect(new Set(ids).size).toBe(8)
    const lines = readFileSync(join(repo.dir, FILE), 'utf8').trim().split('\n')
    expect(lines.length).toBe(8)
    expect(lines.map((l) => JSON.parse(l).id).sort()).toEqual([...ids].sort())
    for (const r of runs) expectShape(r.json, t.obj({ decision: DECISION, file: t.lit(FILE) }), 'decision add --json')
  })

  test('bad input: one error, exit 1, the file unchanged', async () => {
    const before = readFileSync(join(repo.dir, FILE), 'utf8')
    await expectUserError(['decision', 'add', 'x', '--evidence', 'not-a-ref', '--repo', repo.dir], 'bad_evidence', opts, { plain: true })
    await expectUserError(['decision', 'add', 'x', '--evidence', 'abcdef12', '--repo', repo.dir], 'unknown_commit', opts)
    await expectUserError(['decision', 'add', 'x', '--applies-to', 'src/nope.ts', '--repo', repo.dir], 'unknown_path', opts)
    await expectUserError(['decision', 'add', '   ', '--repo', repo.dir], 'bad_option', opts)
    await expectUserError(['decision', 'add', 'x', '--forbid', '(', '--repo', repo.dir], 'bad_option', opts)
    await expectUserError(['decision', 'add', 'x', '--forbid', 'a', '--require', 'b', '--repo', repo.dir], 'bad_option', opts)
    await expectUserError(['decision', 'show', 'nonsense', '--repo', repo.dir], 'bad_option', opts)
    await expectUserError(['decision', 'show', 'd-00000000', '--repo', repo.dir], 'unknown_decision', opts)
    await expectUserError(['decision', 'reject', 'd-00000000', '--repo', repo.dir], 'unknown_decision', opts)
    await expectUserError(['decisions', 'accept', '--repo', repo.dir], 'bad_option', opts)
    await expectUserError(['decisions', 'accept', '--auto', '7', '--repo', repo.dir], 'bad_option', opts)
    await expectUserError(['decisions', 'mine', '--min-confidence', 'lots', '--repo', repo.dir], 'bad_option', opts)
    await expectUserError(['decisions', 'verify', 'd-00000000', '--repo', repo.dir], 'unknown_decision', opts)
    const first = JSON.parse(before.split('\n')[0]).id
    await expectUserError(['decision', 'supersede', first, '--by', first, '--repo', repo.dir], 'bad_option', opts)
    expect(readFileSync(join(repo.dir, FILE), 'utf8')).toBe(before)
  })

  test('a damaged line: list reports it, a writer refuses (exit 1) and keeps the line', async () => {
    const before = readFileSync(join(repo.dir, FILE), 'utf8')
    writeFileSync(join(repo.dir, FILE), before + '{"id": "broken"\n')
    const list = await runCli(['decisions', 'list', '--repo', repo.dir], opts)
    expect(list.code).toBe(0)
    expect(list.stderr).toMatch(/skipped line 9 of \.gitwhy-decisions\.jsonl/)
    await expectUserError(['decision', 'add', 'y', '--repo', repo.dir], 'bad_decision_file', opts)
    expect(readFileSync(join(repo.dir, FILE), 'utf8')).toBe(before + '{"id": "broken"\n')
    writeFileSync(join(repo.dir, FILE), before)
  })

  test('--json documents: list, mine, accept, show, verify, for, why', async () => {
    const mined = await runJson(['decisions', 'mine', '--repo', repo.dir], opts)
    expect(mined.json.found.commits).toBe(1)
    expectShape(mined.json, t.obj({
      candidates: t.arr(DECISION), found: t.obj({ adr: t.int(), commits: t.int(), manifests: t.int(), readme: t.int() }), proposed: t.int(), accepted: t.int(),
      adr: t.obj({ files: t.int(), records: t.int() }), commits_scanned: t.int(), dry_run: t.bool(), total: t.int(), index: INDEX_INFO,
    }), 'decisions mine --json')
    const accepted = await runJson(['decisions', 'accept', mined.json.candidates[0].id, '--repo', repo.dir], opts)
    expectShape(accepted.json, t.obj({ accepted: t.arr(DECISION), remaining: t.int(), file: t.lit(FILE) }), 'decisions accept --json')
    const list = await runJson(['decisions', 'list', '--repo', repo.dir], opts)
    expect(list.json.total).toBe(9)
    expectShape(list.json, t.obj({ decisions: t.arr(DECISION), total: t.int(), proposed: t.int(), problems: t.arr(t.obj({ file: t.str(), line: t.int(), message: t.str() })) }), 'decisions list --json')
    const show = await runJson(['decision', 'show', mined.json.candidates[0].id, '--repo', repo.dir], opts)
    expect(show.json.verification.evidence.map((e: { verdict: string }) => e.verdict)).toEqual(['VERIFIED'])
    const verify = await runJson(['decisions', 'verify', '--repo', repo.dir], opts)
    expect(verify.json.summary).toMatchObject({ total: 9, stale: 0, violations: 0 })
    const forApi = await runJson(['decisions', 'for', 'src/api.ts:call', '--repo', repo.dir], opts)
    expect(forApi.json.total).toBe(9)
    expectShape(forApi.json, t.obj({ target: t.obj({ path: t.str(), kind: t.str(), qualified_name: t.or(t.nul(), t.str()) }), decisions: t.arr(GOVERNING_DECISION), total: t.int(), index: INDEX_INFO }), 'decisions for --json')
    const why = await runJson(['why', 'src/api.ts:call', '--repo', repo.dir], opts)
    expectShape(why.json, WHY_DOC, 'why --json')
    expect(why.json.decisions.length).toBe(9)
  })

  test('decisions verify --fail: exit 1 with the report when a constraint is violated', async () => {
    await runJson(['decision', 'add', 'No URL is returned as is', '--kind', 'constraint', '--applies-to', 'src/api.ts', '--forbid', 'return url', '--repo', repo.dir], opts)
    const ok = await runCli(['decisions', 'verify', '--repo', repo.dir], opts)
    expect(ok.code).toBe(0)
    expect(ok.stdout).toMatch(/src\/api\.ts:2 {2}return url/)
    const failed = await runCli(['decisions', 'verify', '--fail', '--json', '--repo', repo.dir], opts)
    expect(failed.code, failed.stderr).toBe(1)
    expect(JSON.parse(failed.stdout).summary).toMatchObject({ violations: 1 })
  })
})
