/**
 * The trajectory in the graph: Snapshot nodes, SNAPSHOT_TOUCHED to files and symbols,
 * SNAPSHOT_REVERTS, and LANDED_IN to the commit the edit reached — after a plain commit and after
 * a squash — loaded by a full build and by an incremental update alike (the update's tables equal
 * a forced rebuild's).
 */
import { writeFileSync } from 'node:fs'
import { afterEach, describe, expect, test } from 'vitest'
import { readJournal, writeIntent, type SnapshotRecord } from '../../src/trajectory/journal.js'
import { ShadowRepo } from '../../src/trajectory/shadow.js'
import { takeSnapshot } from '../../src/trajectory/snapshot.js'
import { runCli, runJson } from '../cli/cli.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

let repos: TestRepo[] = []
afterEach(() => {
  for (const r of repos) r.cleanup()
  repos = []
})

const fn = (name: string, body: string) => `export function ${name}(): number {\n  ${body}\n}\n`

function setup(): TestRepo {
  const repo = createRepo()
  repo.write('src/a.ts', fn('alpha', 'return 1') + '\n' + fn('beta', 'return 2'))
  repo.commit('Add a', { date: now() - 3600 })
  repos.push(repo)
  return repo
}

const now = () => Math.floor(Date.now() / 1000)

/** Edit a file the way an editor does and snapshot it (what the recorder does after a quiet period). */
async function snap(repo: TestRepo, rel: string, content: string): Promise<SnapshotRecord> {
  const shadow = new ShadowRepo(repo.dir)
  if ((await shadow.head()) === null) await takeSnapshot(shadow, [])
  writeFileSync(repo.path(rel), content)
  return (await takeSnapshot(shadow, [rel]))!
}

async function cypher(repo: TestRepo, query: string): Promise<Array<Record<string, unknown>>> {
  return (await runJson(['cypher', query, '--repo', repo.dir], { cwd: repo.dir, env: repo.env() })).json.rows
}

const analyze = (repo: TestRepo, ...flags: string[]) => runJson(['analyze', '--repo', repo.dir, '--quiet', ...flags], { cwd: repo.dir, env: repo.env() })

describe('trajectory in the graph', () => {
  test('snapshots, the symbols they touched, a revert, and LANDED_IN after a commit and after an amend', async () => {
    const repo = setup()
    const tried = await snap(repo, 'src/a.ts', fn('alpha', 'return 10') + '\n' + fn('beta', 'return 2'))
    const undo = await snap(repo, 'src/a.ts', fn('alpha', 'return 1') + '\n' + fn('beta', 'return 2'))
    const kept = await snap(repo, 'src/a.ts', fn('alpha', 'return 1') + '\n' + fn('beta', 'return 20'))
    expect(undo.reverts).toEqual([tried.id])
    repo.git('add', '-A')
    const sha = repo.commit('beta returns 20', { date: now() + 60 })
    await analyze(repo)
    expect(await cypher(repo, 'MATCH (s:Snapshot) RETURN s.kind AS kind, s.summary AS summary ORDER BY s.time, s.kind')).toEqual([
      { kind: 'baseline', summary: 'baseline: 1 files' },
      { kind: 'auto', summary: 'src/a.ts (+1 -1): alpha' },
      { kind: 'auto', summary: 'src/a.ts (+1 -1): alpha' },
      { kind: 'auto', summary: 'src/a.ts (+1 -1): beta' },
    ])
    expect(await cypher(repo, 'MATCH (s:Snapshot)-[t:SNAPSHOT_TOUCHED]->(y:Symbol) RETURN s.id AS s, y.id AS symbol, t.added AS added ORDER BY s.time')).toEqual([
      { s: tried.id, symbol: 'src/a.ts#alpha', added: 1 },
      { s: undo.id, symbol: 'src/a.ts#alpha', added: 1 },
      { s: kept.id, symbol: 'src/a.ts#beta', added: 1 },
    ])
    expect(await cypher(repo, 'MATCH (s:Snapshot)-[:SNAPSHOT_TOUCHED]->(f:File) RETURN count(*) AS n')).toEqual([{ n: 3 }])
    expect(await cypher(repo, 'MATCH (a:Snapshot)-[:SNAPSHOT_REVERTS]->(b:Snapshot) RETURN a.id AS a, b.id AS b')).toEqual([{ a: undo.id, b: tried.id }])
    // only the edit that reached the commit landed: the tried-and-undone ones did not
    expect(await cypher(repo, 'MATCH (s:Snapshot)-[:LANDED_IN]->(c:Commit) RETURN s.id AS s, c.sha AS c')).toEqual([{ s: kept.id, c: sha }])
    // and the timeline says so, from the index
    const t = (await runJson(['trajectory', 'src/a.ts', '--repo', repo.dir], { cwd: repo.dir, env: repo.env() })).json
    expect(t.snapshots.map((x: any) => [x.id, x.landed_in])).toEqual([[kept.id, sha], [undo.id, null], [tried.id, null]])
    expect((await runCli(['trajectory', 'src/a.ts', '--repo', repo.dir], { cwd: repo.dir, env: repo.env() })).stdout).toContain(`landed in ${sha.slice(0, 7)}`)
    // an amend replaces the commit: both edits land in the amended one
    const more = await snap(repo, 'src/a.ts', fn('alpha', 'return 1') + '\n' + fn('beta', 'return 21'))
    repo.git('add', '-A')
    const amended = repo.amend('beta returns 21', { date: now() + 120 })
    await analyze(repo)
    expect(await cypher(repo, 'MATCH (n:Snapshot)-[:LANDED_IN]->(c:Commit) RETURN n.id AS s, c.sha AS c ORDER BY n.time')).toEqual([{ s: more.id, c: amended }])
  }, 60_000)

  test('LANDED_IN after a squash; an incremental update loads the same trajectory tables as a rebuild', async () => {
    const repo = setup()
    await analyze(repo)
    const one = await snap(repo, 'src/a.ts', fn('alpha', 'return 100') + '\n' + fn('beta', 'return 2'))
    repo.git('add', '-A')
    repo.commit('wip 1', { date: now() + 60 })
    const two = await snap(repo, 'src/a.ts', fn('alpha', 'return 100') + '\n' + fn('beta', 'return 200'))
    repo.write('src/b.ts', fn('gamma', 'return 3'))
    repo.git('add', '-A')
    repo.commit('wip 2', { date: now() + 120 })
    // squash the two commits into one
    repo.git('reset', '--soft', 'HEAD~2')
    const squash = repo.commit('alpha and beta return hundreds', { date: now() + 180 })
    const summary = (await analyze(repo)).json
    expect(summary.mode).toBe('incremental')
    const queries = [
      'MATCH (n:Snapshot)-[:LANDED_IN]->(c:Commit) RETURN n.id AS s, c.sha AS c ORDER BY s',
      'MATCH (s:Snapshot) RETURN s.id AS id, s.session AS session, s.intent AS intent, s.summary AS summary, s.kind AS kind ORDER BY id',
      'MATCH (n:Snapshot)-[t:SNAPSHOT_TOUCHED]->(x) RETURN n.id AS s, label(x) AS kind, t.added AS added, t.removed AS removed ORDER BY s, kind',
    ]
    const incremental = await Promise.all(queries.map((q) => cypher(repo, q)))
    expect(incremental[0]).toEqual([{ s: one.id, c: squash }, { s: two.id, c: squash }].sort((a, b) => a.s.localeCompare(b.s)))
    await analyze(repo, '--force')
    expect(await Promise.all(queries.map((q) => cypher(repo, q)))).toEqual(incremental)
    expect(readJournal(repo.dir)).toHaveLength(3)
  }, 60_000)

  test('an update searches only the new commits for the snapshots the index knew, and keeps where the landed ones landed', async () => {
    const repo = setup()
    const edit = await snap(repo, 'src/a.ts', fn('alpha', 'return 41') + '\n' + fn('beta', 'return 2'))
    await analyze(repo)
    const landed = 'MATCH (n:Snapshot)-[:LANDED_IN]->(c:Commit) RETURN n.id AS s, c.sha AS c'
    // known to the index, not landed yet
    expect(await cypher(repo, landed)).toEqual([])
    repo.git('add', '-A')
    const sha = repo.commit('alpha returns 41', { date: now() + 60 })
    expect((await analyze(repo)).json.mode).toBe('incremental')
    expect(await cypher(repo, landed)).toEqual([{ s: edit.id, c: sha }])
    // a later commit elsewhere: the snapshot stays where it landed
    repo.write('src/b.ts', fn('gamma', 'return 3'))
    repo.commit('Add b', { date: now() + 120 })
    expect((await analyze(repo)).json.mode).toBe('incremental')
    expect(await cypher(repo, landed)).toEqual([{ s: edit.id, c: sha }])
    await analyze(repo, '--force')
    expect(await cypher(repo, landed)).toEqual([{ s: edit.id, c: sha }])
  }, 60_000)

  test('evidence, why and history --trajectory append the uncommitted trajectory, marked, with the intent; what landed drops out', async () => {
    const repo = setup()
    await analyze(repo)
    const json = async (...argv: string[]) => (await runJson([...argv, '--repo', repo.dir], { cwd: repo.dir, env: repo.env() })).json
    expect(await json('evidence', 'src/a.ts:1-3')).not.toHaveProperty('trajectory')
    writeIntent(repo.dir, 'alpha returns more')
    const tried = await snap(repo, 'src/a.ts', fn('alpha', 'return 5') + '\n' + fn('beta', 'return 2'))
    const kept = await snap(repo, 'src/a.ts', fn('alpha', 'return 6') + '\n' + fn('beta', 'return 2'))
    const ev = await json('evidence', 'src/a.ts:1-3')
    expect(ev.evidence.length).toBeGreaterThan(0)
    expect(ev.trajectory.map((t: any) => [t.id, t.intent, t.uncommitted])).toEqual([[kept.id, 'alpha returns more', true], [tried.id, 'alpha returns more', true]])
    // beta's lines were not touched
    expect(await json('evidence', 'src/a.ts:5-7')).not.toHaveProperty('trajectory')
    expect((await json('why', 'src/a.ts:alpha')).trajectory.map((t: any) => t.id)).toEqual([kept.id, tried.id])
    expect(await json('history', 'src/a.ts')).not.toHaveProperty('trajectory')
    expect((await json('history', 'src/a.ts', '--trajectory')).trajectory).toHaveLength(2)
    const text = await runCli(['evidence', 'src/a.ts:1-3', '--repo', repo.dir], { cwd: repo.dir, env: repo.env() })
    expect(text.stdout).toMatch(/uncommitted trajectory[\s\S]*intent: "alpha returns more"/)
    repo.git('add', '-A')
    repo.commit('alpha returns 6', { date: now() + 60 })
    await analyze(repo)
    expect((await json('evidence', 'src/a.ts:1-3')).trajectory.map((t: any) => t.id)).toEqual([tried.id])
  }, 60_000)
})
