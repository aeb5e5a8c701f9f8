/**
 * `related` for a hub file (issue 9 item 5): a file changed in most commits has a small degree
 * with every partner (its own revisions swamp the average), yet a partner that changes with it
 * most of the time is what a user asks for. And the example commits obey the same filters as the
 * counts: a sweep over more than maxChangesetSize files is neither counted nor shown.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { related } from '../../src/services/analytics.js'
import { historyEdges } from '../helpers/compare.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const fn = (name: string, body: string) => `export function ${name}(): number {\n  return ${body}\n}\n`

describe('related: a hub file', () => {
  let repo: TestRepo
  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/lone.ts', fn('lone', '0'))
    repo.commit('initial')
    let n = 0
    const hub = (): TestRepo => repo.write('src/hub.ts', fn('hub', String(++n)))
    // hub.ts alone 30 times; with partner.ts 6 times; partner.ts alone twice:
    // degree 100 · 6 / ((36 + 8) / 2) = 27.3 (under code-maat's 30), partner's confidence 6 / 8
    for (let i = 0; i < 30; i++) hub().commit(`hub alone ${i}`)
    for (let i = 0; i < 6; i++) {
      hub().write('src/partner.ts', fn('partner', String(100 + i)))
      repo.commit(`hub and partner ${i}`)
    }
    for (let i = 0; i < 2; i++) repo.write('src/partner.ts', fn('partner', String(200 + i))).commit(`partner alone ${i}`)
    // the newest commit touching both: a header sweep over 40 files (over the 30-file cap)
    hub().write('src/partner.ts', `// (c) sweep\n${fn('partner', '201')}`)
    for (let g = 0; g < 38; g++) repo.write(`gen/g${g}.ts`, `// (c) sweep\nexport const g${g} = 0\n`)
    repo.commit('chore: license headers everywhere')
    await analyze({ repo: repo.dir })
  })
  afterAll(() => repo?.cleanup())

  test('the partner is found though its degree is under 30, with its confidence both ways', async () => {
    const r = await related({ repo: repo.dir, target: 'src/hub.ts' })
    expect(r.related.map((x) => [x.path, x.shared])).toEqual([['src/partner.ts', 6]])
    const p = r.related[0]
    expect(p.degree).toBeLessThan(30)
    expect(p.reverse_confidence).toBeCloseTo(6 / 8)
    expect(p.confidence).toBeCloseTo(6 / 36)
    // support: shared / the 39 changesets counted (initial, 30 + 6 + 2; not the sweep)
    expect(p.support).toBeCloseTo(6 / 39, 10)
    const back = await related({ repo: repo.dir, target: 'src/partner.ts' })
    expect(back.related.map((x) => x.path)).toEqual(['src/hub.ts'])
  })

  test('examples leave out the sweep, as the counts do', async () => {
    const r = await related({ repo: repo.dir, target: 'src/hub.ts', examples: 10 })
    const subjects = r.related[0].examples.map((c) => c.subject)
    expect(subjects).toHaveLength(6)
    expect(subjects).not.toContain('chore: license headers everywhere')
    expect(subjects[0]).toBe('hub and partner 5')
  })

  test('an update counts its commit in every pair\'s support (the graph keeps no support of its own)', async () => {
    repo.write('src/hub.ts', fn('hub', '999')).commit('hub alone again')
    expect(((await analyze({ repo: repo.dir })) as { mode: string }).mode).toBe('incremental')
    const r = await related({ repo: repo.dir, target: 'src/partner.ts' })
    expect(r.related.map((x) => [x.path, x.shared])).toEqual([['src/hub.ts', 6]])
    expect(r.related[0].support).toBeCloseTo(6 / 40, 10)
    // the pairs' numbers moved (hub's revisions grew): the updated edges hold a fresh build's
    const clone = repo.clone()
    await analyze({ repo: clone.dir, force: true })
    const pairs = (await historyEdges(repo.dir)).coChanged
    expect(pairs.some((p) => p.includes('"src/partner.ts"'))).toBe(true)
    expect(pairs).toEqual((await historyEdges(clone.dir)).coChanged)
  })
})
