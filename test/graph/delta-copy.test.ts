/**
 * A delta's relationship rows go in by COPY, up to 20,000 a statement (each COPY costs a checkpoint
 * and the rebuild of the node groups it touches however few its rows): an update whose communities
 * changed puts every membership back (vuejs/core: 4,847), and they must all be there, once.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { deltaRunner } from '../../src/graph/delta.js'
import { writeGraph } from '../../src/graph/load.js'
import { GraphStore } from '../../src/graph/store.js'
import { emptyGraph, tempDir } from './fixtures.js'

const IDLE = { revisions: 0, recent_revisions: 0, churn: 0, authors: 0, first_change: null, last_change: null, hotspot: 0, hotspot_percentile: 0, cochange_partners: 0 }
const SYMBOLS = 4_500
const symbol = (i: number) => ({ id: `src/a.ts#f${i}`, name: `f${i}`, qualified_name: `f${i}`, kind: 'function', path: 'src/a.ts', start_line: i + 1, end_line: i + 1, signature: '', exported: false, search: 'word', ...IDLE })

describe('graph delta: relationship rows by the thousand', () => {
  let dir: ReturnType<typeof tempDir>
  beforeAll(async () => {
    dir = tempDir()
    const g = emptyGraph()
    g.files.push({ path: 'src/a.ts', language: 'typescript', lines: SYMBOLS, is_test: false, present: true, ...IDLE })
    for (let i = 0; i < SYMBOLS; i++) g.symbols.push(symbol(i))
    g.defines.push(...g.symbols.map((s) => ({ path: 'src/a.ts', symbol: s.id })))
    g.communities.push({ id: 'c1', label: 'a', size: SYMBOLS, cohesion: 0.5 }, { id: 'c2', label: 'b', size: 0, cohesion: 0 })
    g.memberOf.push(...g.symbols.map((s) => ({ symbol: s.id, community: 'c1' })))
    await writeGraph(join(dir.path, 'g0.kuzu'), g)
  }, 60_000)
  afterAll(() => dir?.cleanup())

  test('every membership replaced in one part: each one there once, the right one', async () => {
    const run = deltaRunner()
    await run({ op: 'open', from: join(dir.path, 'g0.kuzu'), to: join(dir.path, 'g1.kuzu') })
    const communities = [{ id: 'c1', label: 'a', size: SYMBOLS / 2, cohesion: 0.5 }, { id: 'c2', label: 'b', size: SYMBOLS / 2, cohesion: 0.5 }]
    const memberOf = Array.from({ length: SYMBOLS }, (_, i) => ({ symbol: symbol(i).id, community: i % 2 ? 'c2' : 'c1' }))
    await run({ op: 'apply', delta: { updateFiles: [], renameAuthors: [], analytics: { removeFileCoChanges: [], removeSymbolCoChanges: [], replaceCommunities: true, ownershipOf: [] }, insert: { communities, memberOf } } })
    await run({ op: 'finish' })
    const store = await GraphStore.open(join(dir.path, 'g1.kuzu'), { readOnly: true })
    try {
      expect(await store.query('MATCH (s:Symbol)-[:MEMBER_OF]->(c:Community) RETURN c.id AS c, count(*) AS n ORDER BY c')).toEqual([{ c: 'c1', n: SYMBOLS / 2 }, { c: 'c2', n: SYMBOLS / 2 }])
      expect(await store.query("MATCH (s:Symbol {id: 'src/a.ts#f4499'})-[:MEMBER_OF]->(c:Community) RETURN c.id AS c")).toEqual([{ c: 'c2' }])
    } finally {
      await store.close()
    }
  }, 120_000)
})
