/**
 * Which commits a PR brought in (PART_OF), against git: for a PR merge M, the commits of
 * `git rev-list M^1..M^2`, oldest merge first, less those an older PR already has, those naming a
 * PR of their own, and those on HEAD's first-parent line or brought to it by an older merge. The
 * history is git-flow's, as psf/requests' early years: PRs merged into `develop`, `develop`
 * merged into `main` (by a plain merge and by a release PR), back-merges of `main` into
 * `develop`, and PRs straight into `main`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { cypher } from '../../src/services/cypher.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

/** The git-flow history. */
function gitFlow(repo: TestRepo, sha: Record<string, string>): void {
    let n = 0
    const work = (name: string) => {
      repo.write(`src/${name}.ts`, `export function ${name.replace(/\W/g, '_')}() { return ${++n} }\n`)
      sha[name] = repo.commit(`work on ${name}`)
    }
    const pr = (number: number, branch: string, into: string, commits: string[]) => {
      repo.checkout(into).branch(branch).checkout(branch)
      for (const c of commits) work(c)
      repo.checkout(into)
      sha[`#${number}`] = repo.merge(branch, { message: `Merge pull request #${number} from someone/${branch}\n\n${branch} it is` })
    }
    work('init')
    repo.branch('develop').checkout('develop')
    work('d0')
    pr(1, 'feature-a', 'develop', ['a1', 'a2'])
    work('d1') // straight onto develop: no PR's
    pr(2, 'feature-b', 'develop', ['b1'])
    repo.checkout('main')
    work('m1')
    sha.release1 = repo.merge('develop') // a plain merge brings develop in: d0, d1 are nobody's
    pr(3, 'feature-c', 'main', ['c1', 'c2'])
    work('m2')
    // a PR into develop based on main: m2 is main's own, not the PR's
    repo.checkout('main').branch('feature-f').checkout('feature-f')
    work('f1')
    repo.checkout('develop')
    sha['#6'] = repo.merge('feature-f', { message: 'Merge pull request #6 from someone/feature-f' })
    repo.checkout('main')
    work('m3')
    repo.checkout('develop')
    sha.back = repo.merge('main', { message: "Merge branch 'main' into develop" })
    pr(4, 'feature-e', 'develop', ['e1'])
    work('d2')
    repo.checkout('main')
    sha['#5'] = repo.merge('develop', { message: 'Merge pull request #5 from someone/develop\n\nRelease' })
}

const PART_OF = 'MATCH (c:Commit)-[:PART_OF]->(p:PullRequest) RETURN c.sha AS sha, p.number AS n'

async function partOfIn(dir: string): Promise<Map<number, Set<string>>> {
  const by = new Map<number, Set<string>>()
  for (const r of (await cypher({ repo: dir, statement: PART_OF })).rows) by.set(Number(r.n), (by.get(Number(r.n)) ?? new Set()).add(String(r.sha)))
  return by
}

describe('PART_OF against git rev-list M^1..M^2', () => {
  let repo: TestRepo
  const sha: Record<string, string> = {}
  beforeAll(async () => {
    repo = createRepo()
    gitFlow(repo, sha)
    await analyze({ repo: repo.dir })
  }, 60_000)
  afterAll(() => repo?.cleanup())

  const partOf = () => partOfIn(repo.dir)

  test('each PR has the commits git says it brought in', async () => {
    const git = (...args: string[]) => repo.git(...args).trim().split('\n').filter(Boolean)
    const order = git('rev-list', '--topo-order', 'HEAD').reverse() // oldest first, as analyze walks
    const mainline = new Set(git('rev-list', '--first-parent', 'HEAD'))
    const own = new Map<string, number>()
    for (const line of git('log', '--format=%H %s', 'HEAD')) {
      const m = /^(\S+) Merge pull request #(\d+)/.exec(line)
      if (m) own.set(m[1], Number(m[2]))
    }
    const expected = new Map<number, Set<string>>()
    const taken = new Set<string>([...own.keys()])
    const brought = new Set<string>()
    for (const m of order) {
      const parents = git('rev-list', '--parents', '-n', '1', m)[0].split(' ').slice(1)
      if (parents.length < 2) continue
      const range = git('rev-list', `${m}^1..${m}^2`)
      if (mainline.has(m)) for (const c of range) if (!mainline.has(c)) brought.add(c)
      const number = own.get(m)
      if (number === undefined) continue
      const mine = range.filter((c) => !taken.has(c) && !mainline.has(c) && (mainline.has(m) || !brought.has(c)))
      for (const c of mine) taken.add(c)
      expected.set(number, new Set([m, ...mine]))
    }
    expect(await partOf()).toEqual(expected)
  })

  test('by name: the PRs into develop have their own commits only', async () => {
    const got = await partOf()
    const names = (n: number) => new Set([...(got.get(n) ?? [])].map((s) => Object.keys(sha).find((k) => sha[k] === s) ?? s.slice(0, 7)))
    expect(names(1)).toEqual(new Set(['#1', 'a1', 'a2']))
    // not d1 (develop's own) nor #1's merge: an older PR's
    expect(names(2)).toEqual(new Set(['#2', 'b1']))
    expect(names(3)).toEqual(new Set(['#3', 'c1', 'c2']))
    expect(names(4)).toEqual(new Set(['#4', 'e1']))
    // not m2, the main-line commit feature-f was based on
    expect(names(6)).toEqual(new Set(['#6', 'f1']))
    // the release brings the back-merge and d2; d0 and d1 came with the plain merge
    expect(names(5)).toEqual(new Set(['#5', 'back', 'd2']))
  })
})

test('an update has the PRs a full build has', async () => {
  const repo = createRepo()
  try {
    gitFlow(repo, {})
    await analyze({ repo: repo.dir })
    // an update takes new commits on the main line (anything else rebuilds): a PR and a commit
    repo.branch('feature-g').checkout('feature-g')
    repo.write('src/g.ts', 'export const g = 1\n').commit('g one')
    repo.write('src/g.ts', 'export const g = 2\n').commit('g two')
    repo.checkout('main').merge('feature-g', { message: 'Merge pull request #7 from someone/feature-g' })
    repo.write('src/h.ts', 'export const h = 1\n').commit('h')
    expect((await analyze({ repo: repo.dir })).mode).toBe('incremental')
    const updated = await partOfIn(repo.dir)
    expect(updated.get(7)?.size).toBe(3)
    expect((await analyze({ repo: repo.dir, force: true })).mode).toBe('full')
    expect(updated).toEqual(await partOfIn(repo.dir))
  } finally {
    repo.cleanup()
  }
}, 60_000)
