/** .mailmap, --max-commits and the .gitwhy/ exclusion, end to end through the services. */
import { afterEach, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { evidence } from '../../src/services/evidence.js'
import { history } from '../../src/services/history.js'
import { cypher } from '../../src/services/cypher.js'
import { blameSet, lineLogSet } from '../helpers/oracle.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

let repo: TestRepo | null = null
afterEach(() => {
  repo?.cleanup()
  repo = null
})

describe('analyze options', () => {
  test('.mailmap merges identities: one Author, evidence shows the canonical name and email', async () => {
    repo = createRepo()
    repo.write('a.txt', 'one\n').commit('first', { author: { name: 'ada', email: 'ada@old.example' } })
    repo.write('a.txt', 'one\ntwo\n').commit('second', { author: { name: 'Ada Lovelace', email: 'ada@new.example' } })
    repo.write('.mailmap', 'Ada Lovelace <ada@new.example> ada <ada@old.example>\n').commit('mailmap', { author: { name: 'Ada Lovelace', email: 'ada@new.example' } })
    await analyze({ repo: repo.dir })
    const { rows } = await cypher({ repo: repo.dir, statement: 'MATCH (a:Author) RETURN a.email AS email, a.name AS name' })
    expect(rows).toEqual([{ email: 'ada@new.example', name: 'Ada Lovelace' }])
    const ev = await evidence({ repo: repo.dir, path: 'a.txt', lineStart: 1, lineEnd: 2 })
    expect(new Set(ev.evidence.map((e) => `${e.commit.author} <${e.commit.email}>`))).toEqual(new Set(['Ada Lovelace <ada@new.example>']))
  })

  test('--max-commits: lines older than the cut are undecided, newer ones equal git blame', async () => {
    repo = createRepo()
    const lines = ['l1', 'l2', 'l3', 'l4', 'l5', 'l6']
    for (let i = 1; i <= lines.length; i++) repo.write('f.txt', lines.slice(0, i).join('\n') + '\n').commit(`add line ${i}`)
    await analyze({ repo: repo.dir, maxCommits: 3 })
    // lines 4-6 were written by the three indexed commits: exact
    const recent = await evidence({ repo: repo.dir, path: 'f.txt', lineStart: 4, lineEnd: 6, limit: 0 })
    expect(Object.fromEntries(recent.evidence.filter((e) => e.source === 'blame').map((e) => [e.commit.sha, e.lines]))).toEqual(Object.fromEntries(blameSet(repo, 'f.txt', 4, 6)))
    expect(recent.undecided).toBeNull()

    // lines 1-3 come from before the cut: reported as undecided, attributed to the boundary commit
    const old = await evidence({ repo: repo.dir, path: 'f.txt', lineStart: 1, lineEnd: 3, limit: 0 })
    expect(old.undecided).toEqual({ lines: 3, reason: 'history cut by --max-commits' })
    const h = await history({ repo: repo.dir, path: 'f.txt', limit: 0 })
    expect(h.truncated).toBe(true)
    expect(h.total).toBe(3)
    // a full index afterwards decides everything and equals git
    await analyze({ repo: repo.dir })
    const full = await evidence({ repo: repo.dir, path: 'f.txt', lineStart: 1, lineEnd: 3, limit: 0 })
    expect(full.undecided).toBeNull()
    expect(new Set(full.evidence.map((e) => e.commit.sha))).toEqual(lineLogSet(repo, 'f.txt', 1, 3))
  })

  test('--max-commits: a line rewritten by the boundary commit is decided, but its older history is reported as cut', async () => {
    repo = createRepo()
    repo.write('g.txt', 'a\nb\n').commit('two lines')
    repo.write('g.txt', 'a\nb\nc\n').commit('third line')
    repo.write('g.txt', 'A\nb\nc\n').commit('rewrite the first line')
    repo.write('g.txt', 'A\nb\nc\nd\n').commit('fourth line')
    await analyze({ repo: repo.dir, maxCommits: 2 })
    const first = await evidence({ repo: repo.dir, path: 'g.txt', lineStart: 1, lineEnd: 1, limit: 0 })
    expect(first.evidence.map((e) => [e.commit.subject, e.source, e.lines])).toEqual([['rewrite the first line', 'blame', 1]])
    expect(first.undecided).toEqual({ lines: 0, reason: 'history cut by --max-commits: every line is decided, but older changes to the range are not in the index' })
    // the line added inside the indexed window has its whole history there
    const last = await evidence({ repo: repo.dir, path: 'g.txt', lineStart: 4, lineEnd: 4, limit: 0 })
    expect(last.undecided).toBeNull()
  })

  test('the index never shows up in git status and is excluded through .git/info/exclude only', async () => {
    repo = createRepo()
    repo.write('a.ts', 'export const a = 1\n').commit('a')
    await analyze({ repo: repo.dir })
    expect(repo.git('status', '--porcelain', '--ignored=no')).toBe('')
    expect(repo.git('check-ignore', '-v', '.gitwhy/meta.json')).toContain('info/exclude')
    await analyze({ repo: repo.dir, force: true })
    const exclude = repo.git('rev-parse', '--git-path', 'info/exclude').trim()
    const text = (await import('node:fs')).readFileSync(`${repo.dir}/${exclude}`, 'utf8')
    expect(text.split('\n').filter((l) => l === '/.gitwhy/')).toHaveLength(1)
  })
})

describe('update or rebuild', () => {
  test('an old HEAD that became a second parent is rebuilt (mode full) and answers as git', async () => {
    repo = createRepo()
    repo.write('a.ts', 'export function one() {\n  return 1\n}\n').commit('one')
    repo.branch('topic').checkout('topic')
    repo.write('a.ts', 'export function one() {\n  return 11\n}\n').commit('topic change')
    await analyze({ repo: repo.dir })
    repo.checkout('main')
    repo.write('b.ts', 'export const b = 2\n').commit('main change')
    repo.merge('topic', { message: 'Merge topic into main', noFF: true })
    repo.git('checkout', '-q', '-B', 'topic', 'main')
    const summary = await analyze({ repo: repo.dir })
    expect(summary.mode).toBe('full')
    const ev = await evidence({ repo: repo.dir, path: 'a.ts', lineStart: 1, lineEnd: 3, limit: 0 })
    expect(Object.fromEntries(ev.evidence.filter((e) => e.source === 'blame').map((e) => [e.commit.sha, e.lines]))).toEqual(Object.fromEntries(blameSet(repo, 'a.ts', 1, 3)))
  })

  test('a new commit on the first-parent line is applied as an update (mode incremental)', async () => {
    repo = createRepo()
    repo.write('a.ts', 'export function one() {\n  return 1\n}\n').commit('one')
    await analyze({ repo: repo.dir })
    repo.write('a.ts', 'export function one() {\n  return 2\n}\n').commit('two (#4)')
    const summary = await analyze({ repo: repo.dir })
    expect(summary).toMatchObject({ mode: 'incremental', new_commits: 1, counts: { commits: 2, symbols: 1, pull_requests: 1 } })
    const ev = await evidence({ repo: repo.dir, symbol: 'one', limit: 0 })
    expect(ev.evidence.map((e) => [e.commit.subject, e.source, e.pull_requests.map((p) => p.number)])).toEqual([
      ['two (#4)', 'blame', [4]],
      ['one', 'blame', []],
    ])
    const { rows } = await cypher({ repo: repo.dir, statement: 'MATCH (s:Symbol)-[b:BLAMED_ON]->(c:Commit) RETURN c.subject AS subject, b.lines AS lines, c.age AS age ORDER BY age DESC' })
    expect(rows).toEqual([{ subject: 'two (#4)', lines: 1, age: 1 }, { subject: 'one', lines: 2, age: 0 }])
  })
})
