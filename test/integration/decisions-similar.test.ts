/**
 * SIMILAR_TO between decisions (issue 16): in an index built with --embeddings, two decisions that
 * say the same thing in other words are linked, one on another subject is not; the update and a
 * rebuild give the same edge, and an index without embeddings has none. The bundled model, offline.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { DECISION_VECTORS_FILE } from '../../src/knowledge/decision-similar.js'
import { analyze } from '../../src/services/analyze.js'
import { cypher } from '../../src/services/cypher.js'
import { addDecision } from '../../src/services/decisions.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const SIMILAR = 'MATCH (a:Decision)-[s:SIMILAR_TO]->(b:Decision) RETURN a.id AS a, b.id AS b, s.score AS score'

describe('decisions: SIMILAR_TO by meaning', () => {
  let repo: TestRepo
  const ids: Record<string, string> = {}
  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/db.ts', 'export function open(path: string) {\n  return path\n}\n')
    repo.commit('Add db')
    await analyze({ repo: repo.dir, embeddings: true })
    ids.a = (await addDecision({ repo: repo.dir, statement: 'Never log the user password, not even in debug output' })).decision.id
    ids.b = (await addDecision({ repo: repo.dir, statement: 'Passwords of users must never be written to the logs, also not when debugging' })).decision.id
    ids.c = (await addDecision({ repo: repo.dir, statement: 'Use Kuzu as the embedded graph database for every index' })).decision.id
  }, 120_000)
  afterAll(() => repo?.cleanup())

  const edges = async () => (await cypher({ repo: repo.dir, statement: SIMILAR })).rows.map((r) => ({ pair: [r.a, r.b].sort(), score: Number(r.score) }))

  test('the paraphrases are linked, the other decision is not; the vectors are kept beside the index', async () => {
    await analyze({ repo: repo.dir }) // HEAD unchanged: the decisions reloaded
    const found = await edges()
    expect(found.map((e) => e.pair)).toEqual([[ids.a, ids.b].sort()])
    expect(found[0].score).toBeGreaterThanOrEqual(0.8)
    expect(existsSync(join(repo.dir, '.gitwhy', DECISION_VECTORS_FILE))).toBe(true)
  }, 120_000)

  test('an update and a rebuild give the same edge; without embeddings there is none', async () => {
    const before = await edges()
    repo.write('src/db.ts', 'export function open(path: string) {\n  return path.trim()\n}\n')
    repo.commit('Trim the path')
    expect((await analyze({ repo: repo.dir })).mode).toBe('incremental')
    expect(await edges()).toEqual(before)
    await analyze({ repo: repo.dir, force: true })
    expect(await edges()).toEqual(before)
    await analyze({ repo: repo.dir, force: true, embeddings: false })
    expect(await edges()).toEqual([])
  }, 180_000)
})
