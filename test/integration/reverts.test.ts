/**
 * A commit is a revert only when its diff undoes the commit its message names (issue 9 item 4):
 * a true `git revert`, a partial revert (some hunks restored by hand, the message kept) and a
 * `Revert "subject"` without a SHA are reverts, each with a REVERTS edge to what it undoes; a
 * squash merge whose body quotes a branch commit's "This reverts commit …" line is not, whether
 * the named commit is in the history (then its diff is checked) or not (a squashed branch's is not).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { cypher } from '../../src/services/cypher.js'
import { evidence } from '../../src/services/evidence.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `export const ${tag}${i} = ${i}`).join('\n') + '\n'

describe('reverts are verified against the diff', () => {
  let repo: TestRepo
  const sha: Record<string, string> = {}
  beforeAll(async () => {
    repo = createRepo()
    repo.write('a.ts', lines(20, 'a')).write('b.ts', lines(20, 'b'))
    sha.initial = repo.commit('initial')
    repo.write('a.ts', lines(20, 'a') + lines(5, 'feature'))
    sha.feature = repo.commit('feat: add the feature')
    sha.revert = repo.revert(sha.feature)
    // a squash whose body quotes a sub-commit's revert line; it names `feature` but adds other code
    repo.write('a.ts', lines(20, 'a') + lines(6, 'squashed'))
    sha.squash = repo.commit(`feat: the squashed branch (#12)\n\n* try it\n\n* Revert "try it"\n\nThis reverts commit ${sha.feature}.\n\n* Revert "nothing"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.`)
    repo.write('b.ts', lines(20, 'b') + lines(4, 'two') + lines(4, 'three'))
    sha.two = repo.commit('feat: two parts')
    repo.write('b.ts', lines(20, 'b') + lines(4, 'three'))
    sha.partial = repo.commit(`Revert the first part of "feat: two parts"\n\nThis reverts commit ${sha.two.slice(0, 10)} in part: the second part stays.`)
    repo.write('b.ts', lines(20, 'b') + lines(4, 'three') + lines(2, 'last'))
    sha.last = repo.commit('feat: last')
    repo.write('b.ts', lines(20, 'b') + lines(4, 'three'))
    sha.bySubject = repo.commit('Revert "feat: last"')
    await analyze({ repo: repo.dir })
  })
  afterAll(() => repo?.cleanup())

  test('category revert and a REVERTS edge exactly where the diff undoes the named commit', async () => {
    const { rows } = await cypher({ repo: repo.dir, statement: "MATCH (c:Commit) WHERE c.category = 'revert' RETURN c.sha AS sha ORDER BY sha" })
    expect(rows.map((r) => r.sha)).toEqual([sha.revert, sha.partial, sha.bySubject].sort())
    const { rows: edges } = await cypher({ repo: repo.dir, statement: 'MATCH (c:Commit)-[r:REVERTS]->(t:Commit) RETURN c.sha AS sha, t.sha AS target, r.share AS share ORDER BY sha' })
    const bySha = Object.fromEntries(edges.map((e) => [e.sha, e.target]))
    expect(bySha).toEqual({ [sha.revert]: sha.feature, [sha.partial]: sha.two, [sha.bySubject]: sha.last })
    expect(edges.every((e) => Number(e.share) >= 0.8)).toBe(true)
    const { rows: squash } = await cypher({ repo: repo.dir, statement: 'MATCH (c:Commit {sha: $sha}) RETURN c.category AS category', params: { sha: sha.squash } })
    expect(squash[0].category).toBe('normal')
  })

  test('the JSON of a revert names what it reverts; other commits carry no reverts field', async () => {
    const ev = await evidence({ repo: repo.dir, path: 'b.ts', limit: 0 })
    const partial = ev.evidence.find((e) => e.commit.sha === sha.partial)
    expect(partial?.commit.reverts).toBe(sha.two)
    const two = ev.evidence.find((e) => e.commit.sha === sha.two)
    expect(two?.commit).not.toHaveProperty('reverts')
  })

  test('an update verifies a new revert against a commit of the stored history', async () => {
    sha.late = repo.revert(sha.squash)
    const r = (await analyze({ repo: repo.dir })) as { mode: string }
    expect(r.mode).toBe('incremental')
    const { rows } = await cypher({ repo: repo.dir, statement: 'MATCH (c:Commit {sha: $sha})-[:REVERTS]->(t:Commit) RETURN t.sha AS target, c.category AS category', params: { sha: sha.late } })
    expect(rows).toEqual([{ target: sha.squash, category: 'revert' }])
  })
})
