/**
 * Hotspots rank source by default (issue 9 item 7): a test file changes with every fix of what it
 * tests and outranks it, so tests (and their symbols) are ranked only with --include-tests /
 * MCP include_tests.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { hotspots } from '../../src/services/analytics.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const fn = (name: string, body: string) => `export function ${name}(): number {\n  return ${body}\n}\n`

describe('hotspots: tests only on request', () => {
  let repo: TestRepo
  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/app.ts', fn('app', '0')).write('src/util.ts', fn('util', '0')).write('test/app.spec.ts', fn('appSpec', '0'))
    repo.commit('initial')
    for (let i = 1; i <= 6; i++) repo.write('src/app.ts', fn('app', String(i))).write('test/app.spec.ts', fn('appSpec', String(i))).commit(`fix app ${i}`)
    for (let i = 1; i <= 4; i++) repo.write('test/app.spec.ts', fn('appSpec', String(10 + i))).commit(`more app tests ${i}`)
    repo.write('src/util.ts', fn('util', '1')).commit('util')
    await analyze({ repo: repo.dir })
  })
  afterAll(() => repo?.cleanup())

  test('source by default; the test file first with includeTests', async () => {
    const plain = await hotspots({ repo: repo.dir })
    expect(plain.files.map((f) => f.path)).toEqual(['src/app.ts', 'src/util.ts'])
    expect(plain.symbols.map((s) => s.qualified_name)).toEqual(['app', 'util'])
    const all = await hotspots({ repo: repo.dir, includeTests: true })
    expect(all.files.map((f) => f.path)).toEqual(['test/app.spec.ts', 'src/app.ts', 'src/util.ts'])
    expect(all.symbols[0].qualified_name).toBe('appSpec')
  })
})
