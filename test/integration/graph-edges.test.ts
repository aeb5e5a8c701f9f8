/**
 * The graph's BLAMED_ON / CHANGED edges come from the same hunk-mapper walk as `evidence`: for
 * every symbol, the edges must equal the evidence answer (which the oracle suite compares with
 * git), and the commit-level tables must agree with git's own counts.
 */
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { evidence } from '../../src/services/evidence.js'
import { IndexReader } from '../../src/services/index-reader.js'
import { cypher } from '../../src/services/cypher.js'
import { mergesScenario, renamesScenario, type Scenario } from '../helpers/scenarios.js'

for (const [name, build] of [['merges', mergesScenario], ['renames', renamesScenario]] as const) {
  describe(`graph edges: ${name}`, () => {
    let scenario: Scenario
    beforeAll(async () => {
      scenario = build()
      await analyze({ repo: scenario.repo.dir })
    })
    afterAll(() => scenario?.cleanup())

    test('every symbol: BLAMED_ON equals evidence blame, CHANGED equals blame ∪ history', async () => {
      const repo = scenario.repo.dir
      const { rows: symbols } = await cypher({ repo, statement: 'MATCH (s:Symbol) RETURN s.id AS id, s.path AS path, s.qualified_name AS q ORDER BY id' })
      expect(symbols.length).toBeGreaterThan(3)
      const reader = await IndexReader.open(repo)
      try {
        for (const s of symbols) {
          const { rows: blamed } = await cypher({ repo, statement: 'MATCH (s:Symbol)-[b:BLAMED_ON]->(c:Commit) WHERE s.id = $id RETURN c.sha AS sha, b.lines AS lines', params: { id: s.id } })
          const { rows: changed } = await cypher({ repo, statement: 'MATCH (c:Commit)-[:CHANGED]->(s:Symbol) WHERE s.id = $id RETURN c.sha AS sha', params: { id: s.id } })
          const ev = await evidence({ reader, symbol: `${s.path}:${s.q}`, limit: 0 })
          const evBlame = Object.fromEntries(ev.evidence.filter((e) => e.source === 'blame').map((e) => [e.commit.sha, e.lines]))
          expect(Object.fromEntries(blamed.map((r) => [r.sha, r.lines])), `BLAMED_ON of ${s.id}`).toEqual(evBlame)
          expect(new Set(changed.map((r) => r.sha)), `CHANGED of ${s.id}`).toEqual(new Set(ev.evidence.map((e) => e.commit.sha)))
        }
      } finally {
        await reader.close()
      }
    })

    test('commits, parents and first-parent TOUCHED rows agree with git', async () => {
      const repo = scenario.repo.dir
      const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' })
      const count = async (statement: string) => Number((await cypher({ repo, statement })).rows[0].n)
      expect(await count('MATCH (c:Commit) RETURN count(*) AS n')).toBe(Number(git('rev-list', '--count', 'HEAD').trim()))
      const parentEdges = git('rev-list', '--parents', 'HEAD').trim().split('\n').reduce((n, l) => n + l.split(' ').length - 1, 0)
      expect(await count('MATCH (:Commit)-[:PARENT]->(:Commit) RETURN count(*) AS n')).toBe(parentEdges)
      const merges = Number(git('rev-list', '--count', '--min-parents=2', 'HEAD').trim())
      expect(await count("MATCH (c:Commit) WHERE c.category = 'merge' RETURN count(*) AS n")).toBe(merges)
      // every non-merge commit's TOUCHED set is the file set of `git show --name-only` (renames as the new name)
      const { rows } = await cypher({ repo, statement: 'MATCH (c:Commit)-[:TOUCHED]->(f:File) WHERE c.parent_count < 2 RETURN c.sha AS sha, f.path AS path' })
      const touched = new Map<string, Set<string>>()
      for (const r of rows) {
        if (!touched.has(r.sha as string)) touched.set(r.sha as string, new Set())
        touched.get(r.sha as string)!.add(r.path as string)
      }
      for (const sha of git('rev-list', '--no-merges', 'HEAD').trim().split('\n')) {
        const files = git('-c', 'core.quotePath=false', 'show', '--format=', '--name-only', '-M', '--root', sha).trim().split('\n').filter(Boolean)
        expect(touched.get(sha) ?? new Set(), `TOUCHED of ${sha.slice(0, 7)}`).toEqual(new Set(files))
      }
    })
  })
}
