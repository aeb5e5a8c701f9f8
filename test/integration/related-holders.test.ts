/**
 * `related` for a symbol leaves out partners that only hold another partner (and symbol hotspots
 * the symbols that only hold another hotspot): a change to a method
 * is a change to its class too, so a class that changed with the target exactly as often as one of
 * its methods says nothing the method does not (rails/rails: every Ruby file wraps its code in
 * namespace modules, and one method's partners were three nested modules of one file). A holder
 * that changed with the target more often than any of its listed members stays.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { hotspots, related } from '../../src/services/analytics.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const target = (n: number) => `export function target(): number {\n  return ${n}\n}\n`
/** Class `name` with methods returning the given values, one method per line block. */
const klass = (name: string, methods: Record<string, number>) =>
  `export class ${name} {\n${Object.entries(methods)
    .map(([m, v]) => `  ${m}(): number {\n    return ${v}\n  }\n`)
    .join('')}}\n`

describe('related: partners that only hold another partner', () => {
  let repo: TestRepo
  beforeAll(async () => {
    repo = createRepo()
    const c = { m: 0, n: 0 }
    const d = { k: 0 }
    let t = 0
    const write = () => repo.write('src/target.ts', target(++t)).write('src/c.ts', klass('C', c)).write('src/d.ts', klass('D', d))
    write().commit('initial')
    // with the initial commit (it adds all three files): target with C.m 7 times, with C.n 6 times
    // (C: 12), with D.k 6 times (D: 6)
    for (let i = 0; i < 6; i++) {
      c.m++
      write().commit(`target and C.m ${i}`)
    }
    for (let i = 0; i < 5; i++) {
      c.n++
      write().commit(`target and C.n ${i}`)
    }
    for (let i = 0; i < 5; i++) {
      d.k++
      write().commit(`target and D.k ${i}`)
    }
    await analyze({ repo: repo.dir })
  })
  afterAll(() => repo?.cleanup())

  test('a holder with as many shared changes as its member goes; one with more stays', async () => {
    const r = await related({ repo: repo.dir, target: 'src/target.ts:target' })
    const partners = r.related.map((x) => [x.qualified_name, x.shared])
    expect(partners).toContainEqual(['C', 12])
    expect(partners).toContainEqual(['C.m', 7])
    expect(partners).toContainEqual(['C.n', 6])
    expect(partners).toContainEqual(['D.k', 6])
    expect(partners.map(([name]) => name)).not.toContain('D')
  })

  test('symbol hotspots leave out a holder whose member changed (all but) as often', async () => {
    const r = await hotspots({ repo: repo.dir, level: 'symbol', limit: 0 })
    const names = r.symbols.map((s) => [s.qualified_name, s.revisions])
    // D and D.k: 6 revisions each; C: 12, its busiest method C.m 7
    expect(names).toContainEqual(['D.k', 6])
    expect(names.map(([n]) => n)).not.toContain('D')
    expect(names).toContainEqual(['C', 12])
  })

  test('the limit counts what is listed, after the holders went', async () => {
    // by shared changes, then the partner's share, then id: C, C.m, C.n, D, D.k before the holders go
    const r = await related({ repo: repo.dir, target: 'src/target.ts:target', limit: 4 })
    expect(r.related.map((x) => x.qualified_name)).toEqual(['C', 'C.m', 'C.n', 'D.k'])
  })
})
