/**
 * Decisions end to end on a throwaway repository (issue 16): mining planted decision language,
 * an ADR and a dependency while plain messages stay out; accepting and rejecting; a manual
 * decision with its targets and evidence checked; verification after the governed code is
 * renamed, deleted and rewritten, and after a later commit breaks a checkable constraint; the
 * decision file surviving `analyze --force`; the updated graph's decisions equal a full build's.
 * The tests run in order on one repository.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { DECISION_FILE, PROPOSED_FILE, readDecisions } from '../../src/knowledge/decision-store.js'
import { analyze } from '../../src/services/analyze.js'
import { cypher } from '../../src/services/cypher.js'
import { verifyDecisions } from '../../src/services/decision-verify.js'
import { acceptDecisions, addDecision, decisionsFor, mineDecisions, rejectDecision, supersedeDecision } from '../../src/services/decisions.js'
import { why } from '../../src/services/why.js'
import { doctor } from '../../src/services/doctor.js'
import { contextForPr, detectChangesLines } from '../../src/services/context-for-pr.js'
import { IndexReader } from '../../src/services/index-reader.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const ADR = `# 1. Use Kuzu for the graph

Date: 2024-01-01

## Status

Accepted

## Context

We need an embedded graph database that runs in process.

## Decision

We will use Kuzu as the embedded graph store for every index.

## Consequences

One writer at a time.
`

const fn = (name: string, body: string[]) => `export function ${name}(input: number): number {\n${body.map((l) => `  ${l}`).join('\n')}\n}\n`

describe('decisions', () => {
  let repo: TestRepo
  const sha: Record<string, string> = {}
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    repo = createRepo()
    repo.write('package.json', '{\n  "name": "app",\n  "dependencies": {\n    "kuzu": "0.11.3",\n    "unused-pkg": "1.0.0"\n  }\n}\n')
    repo.write('docs/adr/0001-use-kuzu.md', ADR)
    repo.write('src/db.ts', `import kuzu from 'kuzu'\n\n${fn('query', ['const q = input + 1', 'return q'])}\n${fn('other', ['const a = input * 2', 'const b = a + 3', 'const c = b - 1', 'return c'])}`)
    repo.write('src/ui.ts', fn('render', ['const v = input', 'return v']))
    repo.write('src/old.ts', fn('legacy', ['return input']))
    repo.write('src/gone.ts', fn('doomed', ['return input']))
    sha.init = repo.commit('Initial import')
    repo.write('src/db.ts', readFileSync(repo.path('src/db.ts'), 'utf8').replace('input + 1', 'input + 10'))
    sha.decided = repo.commit('Route every query through query()\n\nWe decided to route all SQL through query() because it is the one place that parameterises and logs every statement.')
    repo.write('src/ui.ts', fn('render', ['const v = input', 'return v + 0']))
    sha.plain1 = repo.commit('fix typo')
    repo.write('src/ui.ts', fn('render', ['const v = input', 'return v + 1']))
    sha.plain2 = repo.commit('Update render\n\nAdds one to the value and returns it to the caller as before.')
    await analyze({ repo: repo.dir })
  })
  afterAll(() => repo?.cleanup())

  test('mining: the ADR, the commit with decision language and the imported dependency; plain messages and unimported packages do not become decisions', async () => {
    const dry = await mineDecisions({ repo: repo.dir, dryRun: true, limit: 0 })
    expect(existsSync(join(repo.dir, '.gitwhy', PROPOSED_FILE))).toBe(false)
    const r = await mineDecisions({ repo: repo.dir, limit: 0 })
    expect(r.candidates.map((c) => c.id)).toEqual(dry.candidates.map((c) => c.id))
    expect(r.adr).toEqual({ files: 1, records: 1 })
    const adr = r.candidates.find((c) => c.source === 'adr')!
    expect(adr).toMatchObject({ title: 'Use Kuzu for the graph', statement: 'We will use Kuzu as the embedded graph store for every index.', status: 'proposed', confidence: 0.9 })
    expect(adr.evidence).toEqual([{ kind: 'document', path: 'docs/adr/0001-use-kuzu.md', start_line: 15, end_line: 15, snippet: 'We will use Kuzu as the embedded graph store for every index.' }])
    const mined = r.candidates.filter((c) => c.evidence.some((e) => e.kind === 'commit') && c.source === 'mined' && !c.title.startsWith('uses '))
    expect(mined.map((c) => (c.evidence[0] as { sha: string }).sha)).toEqual([sha.decided])
    expect(mined[0].statement).toMatch(/^We decided to route all SQL through query\(\)/)
    expect(mined[0].applies_to).toEqual([{ kind: 'symbol', path: 'src/db.ts', symbol: 'query' }])
    const deps = r.candidates.filter((c) => c.title.startsWith('uses '))
    expect(deps.map((c) => c.title)).toEqual(['uses kuzu'])
    expect(deps[0].applies_to).toEqual([{ kind: 'file', path: 'src/db.ts' }])
    expect(deps[0].evidence).toContainEqual({ kind: 'commit', sha: sha.init })
    ids.adr = adr.id
    ids.mined = mined[0].id
    ids.dep = deps[0].id
  })

  test('accept --auto records the confident ones in the committed file; a rejected candidate is not proposed again', async () => {
    const a = await acceptDecisions({ repo: repo.dir, auto: 0.8 })
    expect(a.accepted.map((d) => d.id).sort()).toEqual([ids.adr, ids.mined].sort())
    expect(a.accepted.every((d) => d.status === 'active')).toBe(true)
    await rejectDecision({ repo: repo.dir, id: ids.dep })
    const again = await mineDecisions({ repo: repo.dir, limit: 0 })
    expect(again.total).toBe(0)
    const state = readDecisions(repo.dir)
    expect(state.decisions.map((d) => d.id).sort()).toEqual([ids.adr, ids.mined].sort())
    expect(state.proposed.map((d) => [d.id, d.status])).toEqual([[ids.dep, 'rejected']])
    await expect(acceptDecisions({ repo: repo.dir, ids: [ids.dep] })).rejects.toThrow(/was rejected/)
  })

  test('decision add: targets through the resolver, evidence checked; a bad one changes nothing', async () => {
    const before = readFileSync(join(repo.dir, DECISION_FILE), 'utf8')
    await expect(addDecision({ repo: repo.dir, statement: 'x', evidence: ['deadbeef'] })).rejects.toMatchObject({ code: 'unknown_commit' })
    await expect(addDecision({ repo: repo.dir, statement: 'x', appliesTo: ['src/nope.ts'] })).rejects.toMatchObject({ code: 'unknown_path' })
    await expect(addDecision({ repo: repo.dir, statement: 'x', evidence: ['PR #99'] })).rejects.toMatchObject({ code: 'unknown_pr' })
    await expect(addDecision({ repo: repo.dir, statement: 'x', forbid: '(' })).rejects.toThrow(/not a valid regular expression/)
    expect(readFileSync(join(repo.dir, DECISION_FILE), 'utf8')).toBe(before)

    const other = await addDecision({ repo: repo.dir, statement: 'other() keeps its three-step arithmetic', appliesTo: ['other'], evidence: [sha.init.slice(0, 8), 'docs/adr/0001-use-kuzu.md:15'] })
    expect(other.decision.applies_to).toEqual([{ kind: 'symbol', path: 'src/db.ts', symbol: 'other' }])
    expect(other.decision.evidence).toEqual([{ kind: 'commit', sha: sha.init }, { kind: 'document', path: 'docs/adr/0001-use-kuzu.md', start_line: 15, end_line: 15, snippet: 'We will use Kuzu as the embedded graph store for every index.' }])
    ids.other = other.decision.id
    ids.noFetch = (await addDecision({ repo: repo.dir, statement: 'UI code never calls fetch directly', kind: 'constraint', appliesTo: ['src/ui.ts'], forbid: '\\bfetch\\(' })).decision.id
    ids.noFetchQuery = (await addDecision({ repo: repo.dir, statement: 'no fetch calls in src, by the syntax tree', kind: 'constraint', appliesTo: ['src/'], forbidQuery: '(call_expression function: (identifier) @f (#eq? @f "fetch"))' })).decision.id
    ids.old = (await addDecision({ repo: repo.dir, statement: 'legacy() stays for old clients', appliesTo: ['src/old.ts'] })).decision.id
    ids.gone = (await addDecision({ repo: repo.dir, statement: 'doomed() is kept on purpose', appliesTo: ['src/gone.ts'] })).decision.id

    const v = await verifyDecisions({ repo: repo.dir })
    const by = new Map(v.decisions.map((d) => [d.id, d]))
    expect(by.get(ids.other)).toMatchObject({ status: 'active', served: true, stale: { later_lines: 0 } })
    expect(by.get(ids.other)!.evidence.map((e) => e.verdict)).toEqual(['VERIFIED', 'VERIFIED'])
    expect(by.get(ids.noFetch)!.check).toMatchObject({ checked_files: 1, violations: [] })
    expect(v.summary).toMatchObject({ stale: 0, violations: 0, missing_targets: 0 })
  })

  test('after a rename, a deletion, a rewrite and a commit that breaks a constraint: verify follows, flags and lists them', async () => {
    repo.move('src/old.ts', 'src/renamed.ts')
    sha.rename = repo.commit('Move legacy to renamed.ts')
    repo.remove('src/gone.ts')
    sha.remove = repo.commit('Remove doomed')
    const db = readFileSync(repo.path('src/db.ts'), 'utf8')
    repo.write('src/db.ts', db.replace(fn('other', ['const a = input * 2', 'const b = a + 3', 'const c = b - 1', 'return c']), fn('other', ['const x = input << 1', 'const y = x ^ 7', 'const z = y | 1', 'return z'])))
    sha.rewrite = repo.commit('Rewrite other() with bit operations')
    repo.write('src/ui.ts', fn('render', ['const v = input', 'fetch("/api")', 'return v + 1']))
    sha.violate = repo.commit('Load data in render')
    const summary = await analyze({ repo: repo.dir })
    expect((summary as { mode: string }).mode).toBe('incremental')

    const v = await verifyDecisions({ repo: repo.dir })
    const by = new Map(v.decisions.map((d) => [d.id, d]))
    expect(by.get(ids.old)!.targets).toEqual([{ target: 'src/old.ts', exists: true, now: 'src/renamed.ts', note: 'renamed to src/renamed.ts' }])
    expect(by.get(ids.gone)!.targets[0]).toMatchObject({ target: 'src/gone.ts', exists: false })
    const other = by.get(ids.other)!
    expect(other.status).toBe('stale')
    expect(other.stale!.share).toBeGreaterThan(0.5)
    expect(other.stale!.commits.map((c) => c.sha)).toEqual([sha.rewrite])
    expect(by.get(ids.noFetch)!.check!.violations).toEqual([{ path: 'src/ui.ts', line: 3, text: 'fetch("/api")', commit: expect.objectContaining({ sha: sha.violate }) }])
    // the tree-sitter check finds the call, not the word: db.ts mentions no fetch() call
    expect(by.get(ids.noFetchQuery)!.check).toMatchObject({ kind: 'query', error: null, violations: [{ path: 'src/ui.ts', line: 3, text: 'fetch("/api")', commit: expect.objectContaining({ sha: sha.violate }) }] })
    expect(v.summary).toMatchObject({ stale: 1, violations: 2, missing_targets: 1 })

    // the answers: the renamed file still governed, the stale one flagged with the commit, the violation listed
    const renamed = await decisionsFor({ repo: repo.dir, target: 'src/renamed.ts' })
    expect(renamed.decisions.map((d) => [d.id, d.via])).toEqual([[ids.old, 'file'], [ids.noFetchQuery, 'directory']])
    const stale = await decisionsFor({ repo: repo.dir, target: 'src/db.ts:other' })
    expect(stale.decisions.find((d) => d.id === ids.other)).toMatchObject({ status: 'stale', via: 'symbol', stale_commits: [expect.objectContaining({ short: sha.rewrite.slice(0, 7) })] })
    const ui = await why({ repo: repo.dir, text: 'src/ui.ts' })
    expect(ui.decisions.map((d) => [d.id, d.violations.map((x) => x.line)])).toEqual([[ids.noFetch, [3]], [ids.noFetchQuery, [3]]])
  })

  test('supersede links two decisions; a superseded one is no longer served', async () => {
    const next = await addDecision({ repo: repo.dir, statement: 'other() may use bit operations', appliesTo: ['src/db.ts:other'] })
    await supersedeDecision({ repo: repo.dir, id: ids.other, by: next.decision.id })
    await expect(supersedeDecision({ repo: repo.dir, id: next.decision.id, by: ids.other })).rejects.toThrow(/only an active decision/)
    const r = await decisionsFor({ repo: repo.dir, target: 'src/db.ts:other' })
    expect(r.decisions.map((d) => d.id)).toContain(next.decision.id)
    expect(r.decisions.map((d) => d.id)).not.toContain(ids.other)
  })

  test('detect-changes / context-for-pr: the decisions a change touches, and the constraint its added line breaks', async () => {
    const ui = readFileSync(repo.path('src/ui.ts'), 'utf8')
    const old = readFileSync(repo.path('src/renamed.ts'), 'utf8')
    try {
      repo.write('src/ui.ts', ui.replace('return v + 1', 'fetch("/more")\n  return v + 1'))
      repo.write('src/renamed.ts', old.replace('return input', 'return input + 0'))
      const r = await contextForPr({ repo: repo.dir, worktree: true })
      expect(r.decisions.decisions.map((d) => [d.id, d.touched]).sort()).toEqual([[ids.noFetch, ['src/ui.ts']], [ids.noFetchQuery, ['src/renamed.ts', 'src/ui.ts']], [ids.old, ['src/renamed.ts']]].sort())
      // only the added line: the fetch("/api") committed earlier is verify's to report
      expect(r.decisions.violations.map((v) => [v.decision, v.path, v.line, v.text]).sort()).toEqual([[ids.noFetch, 'src/ui.ts', 4, 'fetch("/more")'], [ids.noFetchQuery, 'src/ui.ts', 4, 'fetch("/more")']].sort())
      expect(detectChangesLines(r).join('\n')).toContain(`VIOLATION of ${ids.noFetch}`)
    } finally {
      repo.write('src/ui.ts', ui)
      repo.write('src/renamed.ts', old)
    }
  })

  test('decisions recorded with HEAD unchanged: analyze reloads them into a new index (its other files shared), then is a no-op', async () => {
    const before = await IndexReader.open(repo.dir)
    const oldDir = before.dir
    await before.close()
    const summary = (await analyze({ repo: repo.dir })) as { mode: string; new_commits: number; counts: { decisions: number } }
    expect(summary).toMatchObject({ mode: 'incremental', new_commits: 0 })
    expect(summary.counts.decisions).toBe(readDecisions(repo.dir).decisions.length)
    const rows = (await cypher({ repo: repo.dir, statement: 'MATCH (d:Decision) RETURN count(*) AS n' })).rows
    expect(rows).toEqual([{ n: readDecisions(repo.dir).decisions.length }])
    const after = await IndexReader.open(repo.dir)
    expect(after.dir).not.toBe(oldDir)
    await after.close()
    // the new index is whole: every file matches its manifest, and the history answers as before
    expect((await doctor({ repo: repo.dir })).checks.filter((c) => c.status === 'fail')).toEqual([])
    expect((await decisionsFor({ repo: repo.dir, target: 'src/renamed.ts' })).decisions.map((d) => d.id)).toContain(ids.old)
    expect(((await analyze({ repo: repo.dir })) as { mode: string }).mode).toBe('noop')
  })

  test('the update loaded the same decisions, edges and all, as a full build; the file survives analyze --force', async () => {
    const dump = async (dir: string) => {
      const rows = async (statement: string) => (await cypher({ repo: dir, statement, maxRows: 10_000 })).rows.map((r) => JSON.stringify(r)).sort()
      return {
        nodes: await rows('MATCH (d:Decision) RETURN d.id, d.status, d.title, d.applies_to, d.check, d.superseded_by, d.decided_at'),
        governs: await rows('MATCH (d:Decision)-[g:GOVERNS]->(x) RETURN d.id, g.applies_to, label(x) AS t, coalesce(x.path, x.id) AS k'),
        evidence: await rows('MATCH (d:Decision)-[e:EVIDENCED_BY]->(x) RETURN d.id, label(x) AS t, e.start_line, e.end_line'),
        links: await rows('MATCH (a:Decision)-[r]->(b:Decision) RETURN a.id, label(r) AS l, r.reason, b.id'),
      }
    }
    // the decision that rewrote other() was added after the last analyze: an update with a new commit loads it
    repo.write('README.md', 'app\n')
    repo.commit('Add a readme')
    await analyze({ repo: repo.dir })
    const updated = await dump(repo.dir)
    expect(updated.nodes.length).toBe(readDecisions(repo.dir).decisions.length)
    // the graph keeps the target as recorded (the old path's File node, present: false); verify and the answers follow the rename
    expect(updated.governs.filter((g) => g.includes('"g.applies_to":"src/old.ts"'))).toEqual([JSON.stringify({ 'd.id': ids.old, 'g.applies_to': 'src/old.ts', t: 'File', k: 'src/old.ts' })])
    expect(updated.governs.filter((g) => g.includes('"g.applies_to":"src/"')).length).toBe(5)
    const [first, second] = [ids.noFetch, ids.noFetchQuery].sort()
    expect(updated.links).toContain(JSON.stringify({ 'a.id': first, l: 'RELATES_TO', 'r.reason': 'both govern src/ui.ts', 'b.id': second }))
    expect(updated.governs.filter((g) => g.includes('"Symbol"')).length).toBeGreaterThan(0)
    const clone = repo.clone()
    try {
      copyFileSync(join(repo.dir, DECISION_FILE), join(clone.dir, DECISION_FILE))
      mkdirSync(join(clone.dir, '.gitwhy'), { recursive: true })
      copyFileSync(join(repo.dir, '.gitwhy', PROPOSED_FILE), join(clone.dir, '.gitwhy', PROPOSED_FILE))
      await analyze({ repo: clone.dir, force: true })
      expect(await dump(clone.dir)).toEqual(updated)
    } finally {
      clone.cleanup()
    }
    const file = readFileSync(join(repo.dir, DECISION_FILE), 'utf8')
    const proposed = readFileSync(join(repo.dir, '.gitwhy', PROPOSED_FILE), 'utf8')
    await analyze({ repo: repo.dir, force: true })
    expect(readFileSync(join(repo.dir, DECISION_FILE), 'utf8')).toBe(file)
    expect(readFileSync(join(repo.dir, '.gitwhy', PROPOSED_FILE), 'utf8')).toBe(proposed)
    expect(await dump(repo.dir)).toEqual(updated)
  })

  test('every decision withdrawn: the next update empties the graph of them, and the one after has none to replace', async () => {
    const count = async () => (await cypher({ repo: repo.dir, statement: 'MATCH (d:Decision) OPTIONAL MATCH (d)-[r]-() RETURN count(DISTINCT d) AS d, count(r) AS r', maxRows: 10 })).rows[0]
    expect(Number((await count()).d)).toBeGreaterThan(0)
    rmSync(join(repo.dir, DECISION_FILE))
    repo.write('README.md', 'app, no decisions\n')
    repo.commit('Reword the readme')
    expect(((await analyze({ repo: repo.dir })) as { mode: string }).mode).toBe('incremental')
    expect(await count()).toEqual({ d: 0, r: 0 })
    repo.write('README.md', 'app, still no decisions\n')
    repo.commit('Reword the readme again')
    expect(((await analyze({ repo: repo.dir })) as { mode: string }).mode).toBe('incremental')
    expect(await count()).toEqual({ d: 0, r: 0 })
  })
})
