/**
 * Incremental analyze: after new commits (linear, a merge, a rename) the updated index must answer
 * exactly as a fresh `analyze({ force: true })` of a clone of the same repository, and as git.
 * After history is rewritten (amend, reset + new commits) the answers must again match git.
 *
 * The tests in this file run in order on one repository.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CODE_GRAPH_FILE } from '../../src/codegraph/cache.js'
import { knownLists, loadCommitCatalog } from '../../src/history/commit-catalog.js'
import { verifyAll } from '../../src/services/index-integrity.js'
import { assertNoMismatches, checkEverything, codeGraphEdges, collectAnswers, diffAnswers, gatherFacts, historyEdges } from '../helpers/compare.js'
import { mergesScenario, pyFunction, tsClass, type Scenario } from '../helpers/scenarios.js'
import { memoServices, sharedServices, type SharedServices } from '../helpers/services.js'

describe('incremental analyze', () => {
  let scenario: Scenario
  let svc: SharedServices

  beforeAll(async () => {
    // every update appends a segment to the diff and patch stores (src/history/segments.ts): the
    // answers below then read sections across several of them
    process.env.GITWHY_SEGMENT_BYTES = '1'
    // every update counts its analytics again from the previous pass's state, however small the
    // fixture (src/analytics/column-update.ts), and says so in the repository's trace
    process.env.GITWHY_RECOUNT_SHARE = '1'
    process.env.GITWHY_TRACE = '1'
    scenario = mergesScenario()
    svc = sharedServices()
    await svc.analyze({ repo: scenario.repo.dir })
  })
  afterAll(async () => {
    delete process.env.GITWHY_SEGMENT_BYTES
    delete process.env.GITWHY_RECOUNT_SHARE
    delete process.env.GITWHY_TRACE
    await svc?.close()
    scenario?.cleanup()
  })

  /** Answers of the incrementally updated index vs a forced full index of a fresh clone, and vs git. */
  async function expectSameAsFreshAndGit(label: string): Promise<Record<string, string[]>> {
    const repo = scenario.repo
    const clone = repo.clone()
    await svc.analyze({ repo: clone.dir, force: true })
    const facts = gatherFacts(repo)
    // The git comparison reuses the answers collected for the first comparison.
    const memo = memoServices(svc)
    const incremental = await collectAnswers(memo, facts, repo.dir)
    const fresh = await collectAnswers(svc, facts, clone.dir)
    assertNoMismatches(`${label}: incremental index vs fresh full index of a clone`, diffAnswers(incremental, fresh, 'incremental', 'fresh'), 10)
    assertNoMismatches(`${label}: incremental index vs git`, await checkEverything(memo, facts))
    // the code graph too: every edge of the updated index equals the fresh build's
    const edges = await codeGraphEdges(repo.dir)
    expect(edges, `${label}: code graph`).toEqual(await codeGraphEdges(clone.dir))
    expect(await historyEdges(repo.dir), `${label}: history and analytics edges`).toEqual(await historyEdges(clone.dir))
    // what an update takes the catalog to mention (commits-known.json) is what its shards mention, and a build's
    const known = (dir: string, scan: boolean) => {
      return knownLists(loadCommitCatalog(join(dir, '.gitwhy', (JSON.parse(readFileSync(join(dir, '.gitwhy', 'meta.json'), 'utf8')) as { indexDir: string }).indexDir)).known({ scan }))
    }
    expect(known(repo.dir, false), `${label}: commits-known.json`).toEqual(known(repo.dir, true))
    expect(known(repo.dir, false), `${label}: commits-known.json vs a build's`).toEqual(known(clone.dir, false))
    // every file of the updated index matches its manifest (the graph's checksum is taken in two halves, on two threads)
    const meta = JSON.parse(readFileSync(join(repo.dir, '.gitwhy', 'meta.json'), 'utf8')) as { indexDir: string; manifest?: string }
    expect(verifyAll(join(repo.dir, '.gitwhy', meta.indexDir), meta.manifest), `${label}: the manifest`).toEqual([])
    return edges
  }

  test('re-analyze with no new commits is a no-op', async () => {
    const summary = (await svc.analyze({ repo: scenario.repo.dir })) as { mode?: string }
    if (summary.mode !== undefined) expect(summary.mode).toBe('noop')
  })

  test('linear commits, a merge and a rename: incremental equals fresh', async () => {
    const repo = scenario.repo
    repo.write('src/service.ts', tsClass('Service', {
      start: ['const started = input + 12', 'return started'],
      restart: ['const again = input + 101', 'return again'],
      stop: ['const stopped = input - 12', 'return stopped'],
      status: ['const code = input % 8', 'audit(code)', 'return code'],
    }))
    // a definition for the audit() calls: the code graph gains edges from files this commit does not touch
    repo.write('src/audit.ts', 'export function audit(code: number): number {\n  return code\n}\n')
    repo.commit('inc: start +12')
    repo.write('src/extra.py', pyFunction('extra_fn', ['doubled = value * 2', 'return doubled']))
    repo.commit('inc: add extra.py')

    repo.branch('inc-topic').checkout('inc-topic')
    repo.write('src/extra.py', pyFunction('extra_fn', ['tripled = value * 3', 'return tripled']))
    repo.commit('inc-topic: triple')
    repo.checkout('main')
    repo.write('src/service.ts', tsClass('Service', {
      start: ['const started = input + 12', 'return started'],
      restart: ['const again = input + 101', 'return again'],
      stop: ['const stopped = input - 13', 'return stopped'],
      status: ['const code = input % 8', 'audit(code)', 'return code'],
    }))
    repo.commit('inc: stop -13')
    repo.merge('inc-topic', { message: 'Merge inc-topic' })

    repo.move('docs/guide.md', 'docs/manual/guide.md')
    repo.commit('inc: move the guide')

    const summary = (await svc.analyze({ repo: repo.dir })) as { mode?: string; new_commits?: number }
    if (summary.mode !== undefined) expect(summary.mode).toBe('incremental')
    if (summary.new_commits !== undefined) expect(summary.new_commits).toBe(6)
    const { indexDir } = JSON.parse(readFileSync(join(repo.dir, '.gitwhy', 'meta.json'), 'utf8')) as { indexDir: string }
    for (const segment of ['diffs.1.bin', 'patches.1.bin']) expect(existsSync(join(repo.dir, '.gitwhy', indexDir, segment)), `the update appended ${segment}`).toBe(true)
    const edges = await expectSameAsFreshAndGit('after 6 new commits')
    expect(edges.calls.some((c) => c.includes('src/audit.ts#audit')), 'the audit() calls resolve').toBe(true)
  })

  test('amended HEAD: answers match git', async () => {
    const repo = scenario.repo
    repo.write('docs/manual/guide.md', '# Guide (amended)\nStep one.\nStep two (feature).\nStep three.\nStep four (evil branch).\nStep five (main).\n')
    repo.amend('inc: move the guide and retitle it')
    await svc.analyze({ repo: repo.dir })
    await expectSameAsFreshAndGit('after --amend')
  })

  test('reset --hard HEAD~2 and new commits: answers match git', async () => {
    const repo = scenario.repo
    const dropped = repo.head()
    repo.git('reset', '-q', '--hard', 'HEAD~2')
    repo.write('src/config.py', pyFunction('load_config', ['path = value', 'data = read_any(path)', 'validate(data)', 'return data']) +
      pyFunction('save_config', ['target = value', 'write_atomic(target)', 'flush()', 'return True']))
    repo.commit('rewrite: validate config')
    repo.write('src/service.ts', tsClass('Service', {
      start: ['const started = input + 12', 'return started'],
      restart: ['const again = input + 102', 'return again'],
      stop: ['const stopped = input - 12', 'return stopped'],
      status: ['const code = input % 8', 'audit(code)', 'return code'],
    }))
    repo.commit('rewrite: restart 102')
    expect(repo.gitMay([0, 1], 'merge-base', '--is-ancestor', dropped, 'HEAD').status).toBe(1)
    await svc.analyze({ repo: repo.dir })
    await expectSameAsFreshAndGit('after reset --hard HEAD~2 + 2 commits')
    const facts = gatherFacts(repo)
    const history = await svc.history({ repo: repo.dir, path: 'src', limit: 0 })
    const shas = new Set(history.evidence.map((i) => i.commit.sha))
    expect(shas.has(dropped), 'a commit dropped by reset is still in the index').toBe(false)
    expect(facts.files).toContain('docs/guide.md')
  })

  test('an edit inside a file: the symbols below it move, one is renamed, one gains history', async () => {
    const repo = scenario.repo
    // start grows by two lines (restart, stop and status move down, their rows set in place),
    // restart becomes reboot (one symbol goes, one comes), stop's body changes (new history rows)
    repo.write('src/service.ts', tsClass('Service', {
      start: ['const started = input + 12', 'const twice = started * 2', 'log(twice)', 'return started'],
      reboot: ['const again = input + 101', 'return again'],
      stop: ['const stopped = input - 14', 'return stopped'],
      status: ['const code = input % 8', 'audit(code)', 'return code'],
    }))
    // audit.ts gains code at its top level that makes calls (a `<module>` symbol comes)
    repo.write('src/audit.ts', 'export function audit(code: number): number {\n  return code\n}\naudit(1)\n')
    repo.commit('inc: start logs twice, restart is reboot, stop -14, audit at load')
    let summary = (await svc.analyze({ repo: repo.dir })) as { mode?: string }
    if (summary.mode !== undefined) expect(summary.mode).toBe('incremental')
    await expectSameAsFreshAndGit('after an edit inside service.ts')
    // the module grows (its symbol stays, its lines change), then loses its calls (it goes); the
    // line it grows by is another author's: the file's owners' shares move (their rows are set)
    repo.write('src/audit.ts', 'export function audit(code: number): number {\n  return code\n}\naudit(1)\naudit(2)\n')
    repo.commit('inc: audit twice at load', { author: { name: 'Bob Builder', email: 'bob@example.test' } })
    summary = (await svc.analyze({ repo: repo.dir })) as { mode?: string }
    if (summary.mode !== undefined) expect(summary.mode).toBe('incremental')
    await expectSameAsFreshAndGit('after audit.ts grew')
    repo.write('src/audit.ts', 'export function audit(code: number): number {\n  return code\n}\n')
    repo.commit('inc: no audit at load')
    summary = (await svc.analyze({ repo: repo.dir })) as { mode?: string }
    if (summary.mode !== undefined) expect(summary.mode).toBe('incremental')
    await expectSameAsFreshAndGit('after audit.ts lost its calls')
  })

  test('a commit of text files only keeps the stored code graph as it is, and equals fresh', async () => {
    const repo = scenario.repo
    const indexDir = () => join(repo.dir, '.gitwhy', (JSON.parse(readFileSync(join(repo.dir, '.gitwhy', 'meta.json'), 'utf8')) as { indexDir: string }).indexDir)
    const before = indexDir()
    // no grammar parses the file and no file comes or goes: nothing any resolution reads changed
    repo.write('docs/guide.md', `${readFileSync(join(repo.dir, 'docs/guide.md'), 'utf8')}Step six (text only).\n`)
    repo.commit('docs: step six')
    const summary = (await svc.analyze({ repo: repo.dir })) as { mode?: string }
    if (summary.mode !== undefined) expect(summary.mode).toBe('incremental')
    const after = indexDir()
    expect(after).not.toBe(before)
    // the previous index's code graph file, linked (not built, diffed and written again)
    expect(statSync(join(after, CODE_GRAPH_FILE)).ino, 'codegraph.bin is the previous index’s').toBe(statSync(join(before, CODE_GRAPH_FILE)).ino)
    await expectSameAsFreshAndGit('after a commit of text files')
    // a parsed file's edit writes a code graph of its own again
    repo.write('src/audit.ts', 'export function audit(code: number): number {\n  return code + 0\n}\n')
    repo.commit('inc: audit adds nothing')
    await svc.analyze({ repo: repo.dir })
    expect(statSync(join(indexDir(), CODE_GRAPH_FILE)).ino).not.toBe(statSync(join(after, CODE_GRAPH_FILE)).ino)
    await expectSameAsFreshAndGit('after a parsed file changed again')
  })

  test("every update's analytics were counted from the previous pass's state, not in a full pass", () => {
    const spans = readFileSync(join(scenario.repo.dir, '.gitwhy', 'trace.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; cache_hit?: boolean })
      .filter((s) => s.name === 'analyze.update_analytics')
    expect(spans.length).toBeGreaterThanOrEqual(4)
    expect(spans.map((s) => s.cache_hit)).toEqual(spans.map(() => true))
  })
})
