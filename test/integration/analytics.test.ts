/**
 * History analytics end to end, on a repository built so that every answer is known by
 * construction: two files always changed together, a file hammered lately, a sole owner who
 * stopped committing, formatting sweeps and oversized changesets that must not create coupling,
 * a file split 60/40 between two authors. Then the same analytics after an incremental update must
 * equal those of a fresh full build.
 */
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type Identity, type TestRepo } from '../helpers/repo.js'
import { runCli, runJson, type CliOptions } from '../cli/cli.js'
import { asAgentSees, connectStdio, structured, text } from '../mcp/client.js'
import { compactDocument } from '../../src/mcp/compact.js'

const DAY = 86_400
const T0 = 1_735_689_600 // 2025-01-01
const BOB: Identity = { name: 'Bob Builder', email: 'bob@example.test' }
const GUS: Identity = { name: 'Gus Ghost', email: 'gus@example.test' }

const fn = (name: string, body: string) => `export function ${name}(): number {\n  return ${body}\n}\n`
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `export const ${tag}${i} = ${i}`).join('\n') + '\n'

/** Every file at its latest content, so each commit rewrites only what it means to. */
function build(repo: TestRepo): Record<string, string> {
  const sha: Record<string, string> = {}
  let t = T0
  const at = (days: number) => (t = T0 + days * DAY)
  repo.write('src/a.ts', fn('fa', '0')).write('src/b.ts', fn('fb', '0')).write('src/c.ts', fn('fc', '0')).write('src/d.ts', fn('fd', '0')).write('src/e.ts', fn('fe', '0'))
  repo.write('src/shared.ts', lines(10, 'ada'))
  for (let i = 0; i < 25; i++) repo.write(`gen/g${i}.ts`, `export const g${i} = 0\n`)
  sha.initial = repo.commit('Initial commit', { date: at(0) })
  repo.write('src/ghost.ts', lines(12, 'gus'))
  sha.ghost = repo.commit('Add the ghost module', { date: at(1), author: GUS })
  // Bob rewrites 4 of shared.ts's 10 lines: Ada owns 6, Bob 4
  repo.write('src/shared.ts', lines(10, 'ada').split('\n').map((l, i) => (i >= 6 && i < 10 ? l.replace('ada', 'bob') : l)).join('\n'))
  sha.bob = repo.commit('Bob takes four lines', { date: at(2), author: BOB })
  // a.ts and b.ts: always together, six times
  for (let i = 1; i <= 6; i++) {
    repo.write('src/a.ts', fn('fa', String(i))).write('src/b.ts', fn('fb', String(i)))
    repo.commit(`Change a and b together ${i}`, { date: at(10 + i) })
  }
  // d.ts alone five times, and five formatting sweeps over a.ts and d.ts (whitespace only)
  for (let i = 1; i <= 5; i++) {
    repo.write('src/d.ts', fn('fd', String(i)))
    repo.commit(`Change d ${i}`, { date: at(30 + i) })
  }
  for (let i = 1; i <= 5; i++) {
    const indent = ' '.repeat(2 + (i % 2) * 2)
    repo.write('src/a.ts', fn('fa', '6').replace('  return', `${indent}return`)).write('src/d.ts', fn('fd', '5').replace('  return', `${indent}return`))
    repo.commit(`Reformat ${i}`, { date: at(40 + i) })
  }
  // five oversized changesets (d.ts, e.ts and 29 generated files): over the 30-file cap
  for (let i = 1; i <= 5; i++) {
    repo.write('src/d.ts', fn('fd', String(100 + i))).write('src/e.ts', fn('fe', String(100 + i)))
    for (let g = 0; g < 25; g++) repo.write(`gen/g${g}.ts`, `export const g${g} = ${i}\n`)
    for (let g = 0; g < 4; g++) repo.write(`gen/extra${g}.ts`, `export const x${g} = ${i}\n`)
    repo.commit(`Regenerate ${i}`, { date: at(50 + i) })
  }
  // c.ts: eight changes in the last month before HEAD (day 400)
  for (let i = 1; i <= 8; i++) {
    repo.write('src/c.ts', fn('fc', String(i)))
    sha[`c${i}`] = repo.commit(`Tune c ${i}`, { date: at(370 + i * 3) })
  }
  // a CI config hammered even harder: a hotspot only with --all-files
  for (let i = 1; i <= 10; i++) {
    repo.write('.github/ci.yml', `retries: ${i}\n`)
    repo.commit(`CI retries ${i}`, { date: at(375 + i * 2) + 3600 })
  }
  sha.head = repo.commit('Release', { date: at(400), allowEmpty: true })
  return sha
}

describe('history analytics', () => {
  let repo: TestRepo
  let opts: CliOptions
  let sha: Record<string, string>
  const cli = (...args: string[]) => runJson([...args, '--repo', repo.dir], opts).then((r) => r.json)

  beforeAll(async () => {
    repo = createRepo()
    sha = build(repo)
    opts = { cwd: repo.dir, env: repo.env() }
    await runJson(['analyze', '--repo', repo.dir], opts)
  })
  afterAll(() => repo?.cleanup())

  test('co-change: a.ts and b.ts always together (degree 100); formatting sweeps and oversized commits couple nothing', async () => {
    const rows = (await cli('cypher', 'MATCH (x:File)-[r:CO_CHANGED]->(y:File) RETURN x.path AS a, y.path AS b, r.shared AS shared, r.degree AS degree, r.confidence AS confidence ORDER BY a, b')).rows
    // the initial commit touches 31 files: over the 30-file cap, so it counts for neither
    expect(rows).toEqual([{ a: 'src/a.ts', b: 'src/b.ts', shared: 6, degree: 100, confidence: 1 }])
    const related = await cli('related', 'src/b.ts')
    expect(related.related.map((r: any) => [r.key, r.shared])).toEqual([['src/a.ts', 6]])
    expect(related.related[0].confidence).toBe(1)
    expect(related.related[0].examples).toHaveLength(3)
    expect(related.related[0].examples[0].subject).toBe('Change a and b together 6')
    const symbols = (await cli('related', 'fb')).related
    expect(symbols.map((r: any) => r.qualified_name)).toEqual(['fa'])
  })

  test('activity columns: revisions exclude formatting; recent counts the last 90 days before HEAD', async () => {
    const rows = (await cli('cypher', 'MATCH (f:File) WHERE f.path STARTS WITH "src/" RETURN f.path AS path, f.revisions AS revisions, f.recent_revisions AS recent, f.authors AS authors ORDER BY path')).rows
    expect(rows).toEqual([
      { path: 'src/a.ts', revisions: 7, recent: 0, authors: 1 },
      { path: 'src/b.ts', revisions: 7, recent: 0, authors: 1 },
      { path: 'src/c.ts', revisions: 9, recent: 8, authors: 1 },
      { path: 'src/d.ts', revisions: 11, recent: 0, authors: 1 },
      { path: 'src/e.ts', revisions: 6, recent: 0, authors: 1 },
      { path: 'src/ghost.ts', revisions: 1, recent: 0, authors: 1 },
      { path: 'src/shared.ts', revisions: 2, recent: 0, authors: 2 },
    ])
  })

  test('hotspots: c.ts first (recent × total), its symbol too', async () => {
    const h = await cli('hotspots', '--limit', '3')
    expect(h.files[0]).toMatchObject({ path: 'src/c.ts', recent_revisions: 8, revisions: 9 })
    expect(h.files[0].score).toBeCloseTo(8 * Math.log(10), 6)
    expect(h.symbols[0]).toMatchObject({ qualified_name: 'fc', path: 'src/c.ts' })
    expect(h.as_of.slice(0, 10)).toBe('2026-02-05')
    expect(h.files.map((f: any) => f.path)).not.toContain('.github/ci.yml')
    const all = await cli('hotspots', '--limit', '3', '--all-files', '--level', 'file')
    expect(all.files[0]).toMatchObject({ path: '.github/ci.yml', recent_revisions: 10, revisions: 10 })
    const under = await cli('hotspots', '--path', 'src/a.ts', '--level', 'file')
    expect(under.files.map((f: any) => f.path)).toEqual(['src/a.ts'])
  })

  test('ownership from blame: shared.ts is 60/40 (bus factor 1); a directory sums its files', async () => {
    const o = await cli('ownership', 'src/shared.ts')
    expect(o.owners.map((x: any) => [x.email, x.lines, x.share])).toEqual([
      ['ada@example.test', 6, 0.6],
      ['bob@example.test', 4, 0.4],
    ])
    expect(o.bus_factor).toBe(1)
    const dir = await cli('ownership', 'src/')
    expect(dir.target).toEqual({ kind: 'directory', path: 'src/' })
    expect(dir.owners.find((x: any) => x.email === 'gus@example.test').lines).toBe(12)
  })

  test('ghosts: the sole owner who stopped committing, inactive longer than --days', async () => {
    const g = await cli('ghosts')
    expect(g.ghosts.map((x: any) => [x.path, x.owner.email, x.inactive_days])).toEqual([['src/ghost.ts', 'gus@example.test', 399]])
    expect((await cli('ghosts', '--days', '400')).ghosts).toEqual([])
  })

  test('risk: the ghost file names its inactive owner; c.ts is a hotspot; reasons are readable', async () => {
    const ghost = await cli('risk', 'src/ghost.ts')
    expect(ghost.features).toMatchObject({ ghost: true, bus_factor: 1, owner: 'gus@example.test' })
    expect(ghost.reasons.join(' ')).toMatch(/inactive/)
    expect(ghost.contributors[0]).toMatchObject({ email: 'gus@example.test', share: 1 })
    const c = await cli('risk', 'src/c.ts')
    expect(c.features.hotspot_percentile).toBeGreaterThan(0.8)
    expect(['LOW', 'MEDIUM', 'HIGH']).toContain(c.level)
    const sym = await cli('risk', 'fa')
    expect(sym.target).toMatchObject({ kind: 'symbol', qualified_name: 'fa', path: 'src/a.ts' })
  })

  test('context-for-pr: a branch changing a.ts alone misses b.ts', async () => {
    repo.branch('feature').checkout('feature')
    repo.write('src/a.ts', fn('fa', '42'))
    repo.commit('Change a alone', { date: T0 + 401 * DAY })
    try {
      const ctx = await cli('context-for-pr', '--base', 'main')
      expect(ctx.files.map((f: any) => [f.path, f.status, f.indexed])).toEqual([['src/a.ts', 'M', true]])
      expect(ctx.files[0].symbols.map((s: any) => s.qualified_name)).toEqual(['fa'])
      expect(ctx.missing_co_changes.map((m: any) => [m.path, m.usually_with])).toEqual([['src/b.ts', 'src/a.ts']])
      expect(ctx.owners_to_ask[0].email).toBe('ada@example.test')
      const given = await cli('context-for-pr', '--files', 'src/b.ts', 'src/a.ts')
      expect(given.missing_co_changes).toEqual([])
    } finally {
      repo.checkout('main')
    }
  })

  test('the MCP tools answer what the CLI answers; communities are resources', async () => {
    const { client } = await connectStdio({ cwd: repo.dir, env: opts.env })
    try {
      const same = async (tool: string, args: Record<string, unknown>, cliArgs: string[]) => {
        const result = await client.callTool({ name: tool, arguments: args })
        expect(result.isError, `${tool}: ${text(result)}`).toBeFalsy()
        expect(structured(result)).toEqual(await asAgentSees(client, tool, { repo: repo.dir, ...(await cli(...cliArgs)) }))
        return text(result)
      }
      expect(await same('risk', { target: 'src/ghost.ts' }, ['risk', 'src/ghost.ts'])).toMatch(/inactive/)
      expect(await same('related', { target: 'src/a.ts' }, ['related', 'src/a.ts'])).toMatch(/src\/b\.ts: 6 shared commits/)
      expect(await same('hotspots', { limit: 3 }, ['hotspots', '--limit', '3'])).toMatch(/src\/c\.ts: 8 recent/)
      expect(await same('ownership', { target: 'src/shared.ts' }, ['ownership', 'src/shared.ts', '--limit', '10'])).toMatch(/bus factor 1/)
      expect(await same('detect_changes', { files: ['src/a.ts'], limit: 10 }, ['context-for-pr', '--files', 'src/a.ts'])).toMatch(/src\/b\.ts \(with src\/a\.ts/)
      const list = JSON.parse((await client.readResource({ uri: 'gitwhy://communities' })).contents[0].text as string)
      // the resource is the CLI's document, compacted (src/mcp/compact.ts)
      expect(list).toEqual(compactDocument(await cli('communities', '--limit', '0')))
      if (list.communities.length > 0) {
        const first = JSON.parse((await client.readResource({ uri: `gitwhy://community/${list.communities[0].id}` })).contents[0].text as string)
        expect(first.community.id).toBe(list.communities[0].id)
      }
      const bad = await client.callTool({ name: 'risk', arguments: { target: 'src/nope.ts' } })
      expect(bad.isError).toBe(true)
      expect(text(bad)).toMatch(/did you mean/)
    } finally {
      await client.close()
    }
  })

  test('bad input: unknown target, a directory for risk, an unknown community, a bad base', async () => {
    const unknown = await runCli(['risk', 'src/nope.ts', '--repo', repo.dir], opts)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/not an indexed file[\s\S]*fix:/)
    const dir = await runCli(['risk', 'src/', '--repo', repo.dir], opts)
    expect(dir.code).toBe(1)
    const community = await runCli(['community', 'no-such-area', '--repo', repo.dir], opts)
    expect(community.code).toBe(1)
    const base = await runCli(['context-for-pr', '--base', 'nope', '--repo', repo.dir], opts)
    expect(base.code).toBe(1)
    expect(base.stderr).toMatch(/nope is not a commit/)
  })

  test('settings in .gitwhy/config.json: stricter co-change thresholds drop the pair; a bad setting is one clear error', async () => {
    const file = join(repo.dir, '.gitwhy', 'config.json')
    try {
      writeFileSync(file, JSON.stringify({ analytics: { minShared: 7 } }))
      const rebuilt = await cli('analyze')
      expect(rebuilt.mode).toBe('full')
      expect((await cli('related', 'src/a.ts')).related).toEqual([])
      writeFileSync(file, JSON.stringify({ analytics: { minShared: 'many' } }))
      const bad = await runCli(['analyze', '--repo', repo.dir], opts)
      expect(bad.code).toBe(1)
      expect(bad.stderr).toMatch(/analytics\.minShared must be a number[\s\S]*fix:/)
      writeFileSync(file, JSON.stringify({ analytics: { minShare: 3 } }))
      expect((await runCli(['analyze', '--repo', repo.dir], opts)).stderr).toMatch(/unknown analytics setting "minShare"[\s\S]*minShared/)
      // the index from before the bad settings still answers
      expect((await cli('related', 'src/a.ts')).related).toEqual([])
    } finally {
      rmSync(file, { force: true })
      await cli('analyze')
    }
    expect((await cli('related', 'src/a.ts')).related.map((r: any) => r.key)).toEqual(['src/b.ts'])
  })

  test('an incremental update gives the same analytics as a fresh full build', async () => {
    const dump = async () => {
      const q = async (s: string) => JSON.stringify((await cli('cypher', s)).rows)
      return [
        await q('MATCH (f:File) RETURN f.path, f.revisions, f.recent_revisions, f.churn, f.authors, f.first_change, f.last_change ORDER BY f.path'),
        await q('MATCH (s:Symbol) RETURN s.id, s.revisions, s.recent_revisions, s.churn, s.authors, s.first_change, s.last_change ORDER BY s.id'),
        await q('MATCH (a)-[r:CO_CHANGED]->(b) RETURN label(a), a.path, b.path, a.id, b.id, r.shared, r.degree, r.confidence, r.reverse_confidence ORDER BY label(a), a.path, b.path, a.id, b.id'),
        await q('MATCH (c:Community) RETURN c.id, c.label, c.size, c.cohesion ORDER BY c.id'),
        await q('MATCH (s:Symbol)-[:MEMBER_OF]->(c:Community) RETURN s.id, c.id ORDER BY s.id'),
        await q('MATCH (f:File)-[o:OWNED_BY]->(a:Author) RETURN f.path, a.email, o.lines, o.share ORDER BY f.path, a.email'),
      ]
    }
    repo.write('src/b.ts', fn('fb', '7')).write('src/a.ts', fn('fa', '7'))
    repo.commit('Change a and b together 7', { date: T0 + 402 * DAY })
    repo.write('src/shared.ts', lines(10, 'bob'))
    repo.commit('Bob owns shared now', { date: T0 + 403 * DAY, author: BOB })
    const update = await cli('analyze')
    expect(update.mode).toBe('incremental')
    const incremental = await dump()
    await cli('analyze', '--force')
    expect(await dump()).toEqual(incremental)
    const o = await cli('ownership', 'src/shared.ts')
    expect(o.owners.map((x: any) => [x.email, x.share])).toEqual([['bob@example.test', 1]])
  })
})

describe('risk --backtest on a repository whose future fixes are planted', () => {
  /**
   * Twelve files; four of them are changed every week for the months before T, the rest twice.
   * After T (the last two months), fixes land either in the busy four or in four quiet ones.
   */
  function plant(fixBusy: boolean): TestRepo {
    const repo = createRepo()
    for (let f = 0; f < 12; f++) repo.write(`src/m${f}.ts`, fn(`m${f}`, '0'))
    repo.commit('Initial commit', { date: T0 })
    let day = 1
    for (let week = 0; week < 20; week++) {
      for (let f = 0; f < 4; f++) repo.write(`src/m${f}.ts`, fn(`m${f}`, String(week + 1)))
      repo.commit(`Work on the busy modules ${week}`, { date: T0 + (day += 7) * DAY })
    }
    for (let f = 4; f < 12; f++) {
      repo.write(`src/m${f}.ts`, fn(`m${f}`, '1'))
      repo.commit(`Touch m${f}`, { date: T0 + (day += 1) * DAY })
    }
    // T = HEAD − 2 × 30 days; the fixes come after it
    const fixed = fixBusy ? [0, 1, 2, 3] : [8, 9, 10, 11]
    for (const [i, f] of fixed.entries()) {
      repo.write(`src/m${f}.ts`, fn(`m${f}`, `${100 + i}`))
      repo.commit(`fix: m${f} off by one`, { date: T0 + (day + 10 + i) * DAY })
    }
    repo.commit('Release', { date: T0 + (day + 62) * DAY, allowEmpty: true })
    return repo
  }

  test('fixes in the busy files: the score ranks them first (AUC 1); fixes in quiet files: below chance', async () => {
    for (const [fixBusy, check] of [
      [true, (auc: number) => expect(auc).toBe(1)],
      [false, (auc: number) => expect(auc).toBeLessThan(0.5)],
    ] as const) {
      const repo = plant(fixBusy)
      try {
        const opts = { cwd: repo.dir, env: repo.env() }
        await runJson(['analyze', '--repo', repo.dir], opts)
        const { json } = await runJson(['risk', '--backtest', '--months', '2', '--repo', repo.dir], opts)
        expect(json.files).toBe(12)
        expect(json.positives).toBe(4)
        check(json.auc)
        if (fixBusy) expect(json.precision_at_10pct).toBe(1)
        const human = await runCli(['risk', '--backtest', '--months', '2', '--repo', repo.dir], opts)
        expect(human.stdout).toMatch(/ROC AUC \d\.\d{3}/)
      } finally {
        repo.cleanup()
      }
    }
  }, 300_000)
})
