/**
 * The edit trajectory with real file-system events in throwaway repositories: the recorder
 * (in this process) watching, debouncing, ignoring, stamping intents, linking reverts; the user's
 * .git byte-identical afterwards; checkpoints and prune keeping what they promise.
 */
import { createHash } from 'node:crypto'
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { consolidate, prune, sessionSummary, timeline } from '../../src/services/trajectory.js'
import { readJournal, writeIntent, type SnapshotRecord } from '../../src/trajectory/journal.js'
import { Recorder } from '../../src/trajectory/recorder.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { waitFor } from '../helpers/wait.js'

const SOURCE = ['export function login(user: string): number {', '  return 1', '}', '', 'export function logout(): void {', '  console.log("bye")', '}', ''].join('\n')

let repos: TestRepo[] = []
let recorders: Recorder[] = []

afterEach(async () => {
  for (const r of recorders) await r.stop()
  for (const r of repos) r.cleanup()
  repos = []
  recorders = []
})

function repoWithSource(): TestRepo {
  const repo = createRepo()
  repo.write('src/auth.ts', SOURCE).write('.gitignore', '*.log\nbuild/\n')
  repo.commit('Add auth')
  repos.push(repo)
  return repo
}

async function record(repo: TestRepo, debounceMs = 150): Promise<Recorder> {
  const recorder = new Recorder(repo.dir, { debounceMs })
  recorders.push(recorder)
  await recorder.start()
  return recorder
}

const autos = (repo: TestRepo): SnapshotRecord[] => readJournal(repo.dir).filter((r) => r.kind === 'auto')

/** Wait for the n-th auto snapshot, then a while longer to see that no other one comes. */
async function nthSnapshot(repo: TestRepo, n: number, settleMs = 0): Promise<SnapshotRecord> {
  const r = await waitFor(`snapshot ${n}`, () => autos(repo)[n - 1])
  if (settleMs > 0) await new Promise((res) => setTimeout(res, settleMs))
  return r
}

/** Write a file the way an editor does (repo.write would also stage it in the user's index). */
function put(repo: TestRepo, rel: string, content: string | Buffer): void {
  mkdirSync(dirname(repo.path(rel)), { recursive: true })
  writeFileSync(repo.path(rel), content)
}

function edit(repo: TestRepo, rel: string, from: string, to: string): void {
  const file = repo.path(rel)
  const text = readFileSync(file, 'utf8')
  expect(text).toContain(from)
  writeFileSync(file, text.replace(from, to))
}

/** Every file under .git with its content hash (what "never written" is checked against). */
function gitDirState(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name)
      if (e.isDirectory()) walk(full)
      else out[full.slice(dir.length)] = `${statSync(full).mtimeMs} ${createHash('sha1').update(readFileSync(full)).digest('hex')}`
    }
  }
  walk(join(dir, '.git'))
  return out
}

describe('trajectory recorder', () => {
  test('a baseline, then one snapshot per quiet period; a burst of 1,000 files is one snapshot', async () => {
    const repo = repoWithSource()
    // a quiet period long enough that a loaded machine's event delivery for 1,000 new files has no gap that long
    await record(repo, 500)
    const journal = readJournal(repo.dir)
    expect(journal.map((r) => r.kind)).toEqual(['baseline'])
    expect(journal[0].tree_files).toBe(2)
    edit(repo, 'src/auth.ts', 'return 1', 'return 2')
    const first = await nthSnapshot(repo, 1)
    expect(first.files.map((f) => f.path)).toEqual(['src/auth.ts'])
    expect(first.symbols.map((s) => s.id)).toEqual(['src/auth.ts#login'])
    expect(first.symbols[0]).toMatchObject({ added: 1, removed: 1 })
    mkdirSync(repo.path('gen'))
    for (let i = 0; i < 1000; i++) writeFileSync(repo.path(`gen/f${i}.ts`), `export const v${i} = ${i}\n`)
    const burst = await waitFor('the burst snapshot', () => autos(repo).find((r) => r.files.length > 1 && r.files.length === 1000), 20_000)
    await new Promise((r) => setTimeout(r, 1000))
    expect(autos(repo)).toHaveLength(2)
    expect(burst.summary).toMatch(/^1000 files/)
  }, 60_000)

  test('ignore rules: .gitignore, info/exclude, node_modules, .gitwhy, binaries and files over 1 MB are not recorded', async () => {
    const repo = repoWithSource()
    appendFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'secret.txt\n')
    await record(repo)
    for (const rel of ['debug.log', 'build/out.js', 'secret.txt', 'node_modules/p/index.js', '.gitwhy/x.ts']) put(repo, rel, 'x\n')
    put(repo, 'image.bin', Buffer.from([1, 0, 2, 3]))
    put(repo, 'big.txt', 'a'.repeat(1_100_000))
    put(repo, 'src/ok.ts', 'export const ok = 1\n')
    const snap = await nthSnapshot(repo, 1, 400)
    expect(snap.files.map((f) => f.path)).toEqual(['src/ok.ts'])
    expect(autos(repo)).toHaveLength(1)
  })

  test('the intent stamps every following snapshot until cleared, and is in the commit trailers', async () => {
    const repo = repoWithSource()
    const recorder = await record(repo)
    writeIntent(repo.dir, 'fix the login timeout')
    edit(repo, 'src/auth.ts', 'return 1', 'return 30')
    const a = await nthSnapshot(repo, 1)
    writeIntent(repo.dir, null)
    edit(repo, 'src/auth.ts', 'bye', 'goodbye')
    const b = await nthSnapshot(repo, 2)
    expect([a.intent, b.intent]).toEqual(['fix the login timeout', null])
    expect(b.symbols.map((s) => s.id)).toEqual(['src/auth.ts#logout'])
    const message = await recorder.shadow.git(['log', '-1', '--format=%B', a.id])
    expect(message).toMatch(/^\[AUTO-TRJ\] src\/auth\.ts/)
    expect(message).toContain('Trajectory-Intent: fix the login timeout')
    expect(message).toContain('Trajectory-Symbols: src/auth.ts#login')
  })

  test('a snapshot that restores a symbol reverts the snapshots that changed it, and only those', async () => {
    const repo = repoWithSource()
    await record(repo)
    edit(repo, 'src/auth.ts', 'return 1', 'return retry(3)')
    const tried = await nthSnapshot(repo, 1)
    edit(repo, 'src/auth.ts', '"bye"', '"see you"')
    const other = await nthSnapshot(repo, 2)
    edit(repo, 'src/auth.ts', 'return retry(3)', 'return 1')
    const undo = await nthSnapshot(repo, 3)
    expect(undo.reverts).toEqual([tried.id])
    expect(other.reverts).toEqual([])
    const t = await timeline(repo.dir, { target: 'src/auth.ts:login' })
    expect(t.snapshots.map((s) => s.id)).toEqual([undo.id, tried.id])
    expect((await timeline(repo.dir, { target: 'login' })).snapshots.map((s) => s.id)).toEqual([undo.id, tried.id])
    expect((await timeline(repo.dir, { target: 'src/' })).total).toBe(3)
    expect(t.snapshots[1].reverted_by).toEqual([undo.id])
    const summary = await sessionSummary(repo.dir)
    expect(summary.reverts).toEqual([{ snapshot: undo.id, undid: [tried.id], summary: undo.summary }])
    // the session's net change is the logout edit alone
    expect(summary.net).toEqual({ files: 1, added: 1, removed: 1 })
  })

  test("the user's .git is byte-identical after a session of edits, a checkpoint and a prune", async () => {
    const repo = repoWithSource()
    repo.git('stash', 'list')
    const before = gitDirState(repo.dir)
    await record(repo)
    edit(repo, 'src/auth.ts', 'return 1', 'return 5')
    await nthSnapshot(repo, 1)
    put(repo, 'src/new.ts', 'export function n() {}\n')
    rmSync(repo.path('.gitignore'))
    await nthSnapshot(repo, 2)
    await consolidate(repo.dir, 'tried things')
    await prune(repo.dir, { maxAgeMs: 0 })
    await recorders.pop()!.stop()
    expect(gitDirState(repo.dir)).toEqual(before)
  })

  test('consolidate writes a checkpoint with what was pending; since_consolidate starts after it; prune keeps first, last, intent changes and checkpoints', async () => {
    const repo = repoWithSource()
    await record(repo)
    for (let i = 2; i <= 5; i++) {
      if (i === 4) writeIntent(repo.dir, 'second idea')
      edit(repo, 'src/auth.ts', `return ${i - 1}`, `return ${i}`)
      await nthSnapshot(repo, i - 1)
    }
    await recorders.pop()!.stop()
    put(repo, 'src/pending.ts', 'export const p = 1\n')
    const { checkpoint } = await consolidate(repo.dir, 'implemented the login feature')
    expect(checkpoint.kind).toBe('consolidate')
    expect(checkpoint.files.map((f) => f.path)).toEqual(['src/pending.ts'])
    expect((await timeline(repo.dir, { sinceConsolidate: true })).snapshots).toEqual([])
    const all = readJournal(repo.dir)
    expect(all.map((r) => r.kind)).toEqual(['baseline', 'auto', 'auto', 'auto', 'auto', 'consolidate'])
    const shadow = new Recorder(repo.dir).shadow
    const trees = await Promise.all(all.map((k) => shadow.treeOf(k.id)))
    const r = await prune(repo.dir, { maxAgeMs: 0 })
    const kept = readJournal(repo.dir)
    // kept: the baseline (the session's first state), the snapshot that changed the intent, the checkpoint (the last)
    expect(r).toMatchObject({ before: 6, after: 3, dropped: 3 })
    expect(kept.map((k) => k.summary.replace(/ \(\+\d+ squashed\)$/, ''))).toEqual([all[0], all[3], all[5]].map((k) => k.summary))
    expect(kept.map((k) => k.intent)).toEqual([null, 'second idea', 'second idea'])
    // the kept states are the same trees; what was dropped folded into the next kept one
    expect(await Promise.all(kept.map((k) => shadow.treeOf(k.id)))).toEqual([trees[0], trees[3], trees[5]])
    expect(kept[1].symbols.map((x) => x.id)).toEqual(['src/auth.ts#login'])
    expect((await timeline(repo.dir)).total).toBe(3)
  })

  test('prune --max-size: a shadow repository over the cap keeps only what is always kept, whatever its age', async () => {
    const repo = repoWithSource()
    const shadow = new Recorder(repo.dir).shadow
    const { takeSnapshot } = await import('../../src/trajectory/snapshot.js')
    await takeSnapshot(shadow, [])
    for (let i = 2; i <= 5; i++) {
      edit(repo, 'src/auth.ts', `return ${i - 1}`, `return ${i}`)
      await takeSnapshot(shadow, ['src/auth.ts'])
    }
    // young snapshots: the age rule keeps them all, the size cap does not
    expect(await prune(repo.dir)).toMatchObject({ dropped: 0 })
    const r = await prune(repo.dir, { maxBytes: 1 })
    expect(r).toMatchObject({ before: 5, after: 2, dropped: 3 })
    expect(readJournal(repo.dir).map((k) => k.kind)).toEqual(['baseline', 'auto'])
    expect(await shadow.git(['rev-list', '--count', 'refs/heads/trajectory'])).toBe('2\n')
  })

  test('sessions: a gap longer than the idle gap starts a new one; summary answers either, an unknown one is refused', async () => {
    const repo = repoWithSource()
    const shadow = new Recorder(repo.dir).shadow
    const { takeSnapshot } = await import('../../src/trajectory/snapshot.js')
    const t0 = Date.parse('2026-01-05T09:00:00Z')
    const at = (minutes: number) => ({ now: new Date(t0 + minutes * 60_000), idleGapMs: 30 * 60_000 })
    await takeSnapshot(shadow, [], at(0))
    edit(repo, 'src/auth.ts', 'return 1', 'return 2')
    await takeSnapshot(shadow, ['src/auth.ts'], at(10))
    edit(repo, 'src/auth.ts', 'return 2', 'return 3')
    await takeSnapshot(shadow, ['src/auth.ts'], at(39))
    edit(repo, 'src/auth.ts', '"bye"', '"later"')
    await takeSnapshot(shadow, ['src/auth.ts'], at(80))
    const sessions = readJournal(repo.dir).map((r) => r.session)
    expect(sessions).toEqual(['s-20260105-090000', 's-20260105-090000', 's-20260105-090000', 's-20260105-102000'])
    expect(await sessionSummary(repo.dir)).toMatchObject({ session: 's-20260105-102000', snapshots: 1, symbols: [{ id: 'src/auth.ts#logout' }] })
    expect(await sessionSummary(repo.dir, 's-20260105-090000')).toMatchObject({ snapshots: 3, net: { files: 1, added: 1, removed: 1 } })
    await expect(sessionSummary(repo.dir, 's-nope')).rejects.toThrow(/no trajectory session s-nope/)
  })

  test('a directory removed at once: every file the snapshot had under it is recorded as deleted', async () => {
    const repo = repoWithSource()
    put(repo, 'src/deep/x.ts', 'export const x = 1\n')
    await record(repo)
    rmSync(repo.path('src'), { recursive: true })
    const snap = await nthSnapshot(repo, 1, 300)
    expect(snap.files.map((f) => [f.path, f.status]).sort()).toEqual([['src/auth.ts', 'D'], ['src/deep/x.ts', 'D']])
    expect(snap.symbols.map((s) => [s.id, s.after])).toEqual([['src/auth.ts#login', null], ['src/auth.ts#logout', null]])
    expect(autos(repo)).toHaveLength(1)
  })
})
