/**
 * `risk` reads the index's files, not the database: the activity columns from analytics-out.json,
 * a file's owners from analytics.json, a symbol's from its file's blame walked at call time, the
 * authors' names and last commits from the commit catalog. The graph is the oracle: for every file
 * and every symbol of a repository with several authors (one of them under two emails), a bot, a
 * commit without an email, co-changes, a rename, a merge and a formatting sweep blame looks
 * through, the answer must equal the one the graph's rows give, after a full build and after an
 * incremental update. Paths named like the members of the analytics files (read in part) are
 * among them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { epoch, lastActive } from '../../src/services/analytics.js'
import { analyze } from '../../src/services/analyze.js'
import { ownershipOf } from '../../src/analytics/stats.js'
import { riskFeatures, riskOf } from '../../src/analytics/risk.js'
import { indexClock } from '../../src/history/commit-catalog.js'
import { symbolIds } from '../../src/services/index-layout.js'
import { IndexReader } from '../../src/services/index-reader.js'
import { risk, risksOfFiles, riskWithActivity, type AssessedRisk } from '../../src/services/risk.js'
import type { Target } from '../../src/services/resolve.js'
import { createRepo, type Identity, type TestRepo } from '../helpers/repo.js'

const DAY = 86_400
const T0 = 1_700_000_000
const BOB: Identity = { name: 'Bob Builder', email: 'bob@example.test' }
const EVAN_OLD: Identity = { name: 'Evan You', email: 'yyx990803@gmail.com' }
const EVAN_NEW: Identity = { name: 'Evan You', email: 'evan@vuejs.org' }
const BOT: Identity = { name: 'renovate[bot]', email: '29139614+renovate[bot]@users.noreply.github.com' }
const GUS: Identity = { name: 'Gus Gone', email: 'gus@example.test' }
const NOBODY_A: Identity = { name: 'Anon One', email: '' }
const NOBODY_B: Identity = { name: 'Anon Two', email: '' }

/** The graph's answer, as `risk` read it before it read the index's files. */
const ORACLE = {
  file: `MATCH (f:File {path: $key})
    RETURN f.revisions AS revisions, f.recent_revisions AS recent_revisions, f.hotspot_percentile AS percentile, f.cochange_partners AS partners, f.last_change AS last_change`,
  symbol: `MATCH (s:Symbol {id: $key})
    RETURN s.revisions AS revisions, s.recent_revisions AS recent_revisions, s.hotspot_percentile AS percentile, s.cochange_partners AS partners, s.last_change AS last_change`,
  fileOwners: `MATCH (f:File {path: $key})-[o:OWNED_BY]->(a:Author)
    RETURN a.email AS email, a.name AS name, sum(o.lines) AS lines ORDER BY lines DESC, email`,
  symbolOwners: `MATCH (s:Symbol {id: $key})-[b:BLAMED_ON]->(c:Commit)-[:AUTHORED_BY]->(a:Author) WHERE c.category <> 'bot'
    RETURN a.email AS email, a.name AS name, sum(b.lines) AS lines ORDER BY lines DESC, email`,
  lastActive: `MATCH (c:Commit)-[:AUTHORED_BY]->(a:Author) WHERE a.email IN $emails
    RETURN a.email AS email, max(c.committer_date) AS last, max(CASE WHEN c.category <> 'bot' THEN c.committer_date ELSE NULL END) AS work`,
  authors: 'MATCH (a:Author) RETURN a.email AS email',
}

type Row = { revisions: number; recent_revisions: number; percentile: number; partners: number; last_change: string | null }
type OwnerRow = { email: string; name: string; lines: number }

async function oracle(reader: IndexReader, kind: 'file' | 'symbol', key: string): Promise<{ risk: AssessedRisk; revisions: number; last_change: string | null; owners: OwnerRow[] }> {
  const g = await reader.graph()
  const [row] = await g.query<Row>(ORACLE[kind], { key })
  const owners = await g.query<OwnerRow>(kind === 'file' ? ORACLE.fileOwners : ORACLE.symbolOwners, { key })
  const lines = owners.map((o) => [o.email, o.lines] as [string, number])
  const own = ownershipOf(lines)
  const top = own.owners.slice(0, 3).map((o) => o.email)
  const active = new Map((top.length ? await g.query<{ email: string; last: string; work: string | null }>(ORACLE.lastActive, { emails: top }) : []).map((r) => [r.email, r]))
  const features = riskFeatures({
    revisions: row?.revisions ?? 0,
    recent_revisions: row?.recent_revisions ?? 0,
    percentile: row?.percentile ?? 0,
    partners: row?.partners ?? 0,
    owners: lines,
    ownerLastActive: epoch(own.owners[0] ? active.get(own.owners[0].email)?.work : undefined),
    headTime: indexClock(reader),
    config: reader.meta.options.analytics,
  })
  const names = new Map(owners.map((o) => [o.email, o.name]))
  const contributors = own.owners.slice(0, 3).map((o) => ({ name: names.get(o.email) ?? o.email, email: o.email, share: o.share, last_active: active.get(o.email)?.last ?? null }))
  return { risk: { ...riskOf(features, undefined, kind), features, contributors }, revisions: Number(row?.revisions ?? 0), last_change: row?.last_change ?? null, owners }
}

const fn = (name: string, body: string[]) => `export function ${name}(v: number): number {\n${body.map((b) => `  ${b}\n`).join('')}  return v\n}\n`
const klass = (name: string, methods: string[], tag: string) =>
  `export class ${name} {\n${methods.map((m) => `  ${m}(v: number): number {\n    return v + 1 // ${tag}\n  }\n`).join('')}}\n`

function build(repo: TestRepo): void {
  let day = 0
  const at = (d: number) => T0 + (day = d) * DAY
  repo.write('src/a.ts', fn('fa', ['v = v + 1 // ada']) + fn('ga', ['v = v * 2 // ada']))
  repo.write('src/b.ts', klass('Store', ['get', 'set', 'clear'], 'ada'))
  repo.write('src/deps.ts', fn('pin', Array.from({ length: 8 }, (_, i) => `v = v + ${i} // dep`)))
  repo.write('src/old-name.ts', fn('moved', ['v = v - 1 // ada']))
  repo.write('src/ghost.ts', fn('haunt', ['v = v + 13 // gus']))
  // paths named like the members of the analytics files, which are read in part
  for (const name of ['files', 'symbols', 'ownership']) repo.write(name, `${name}\n`)
  repo.commit('Initial commit', { date: at(0) })
  repo.write('src/ghost.ts', fn('haunt', ['v = v + 13 // gus', 'v = v * 13 // gus']))
  repo.commit('Gus haunts', { date: at(1), author: GUS })
  // a and b change together: co-change partners
  for (let i = 1; i <= 6; i++) {
    repo.write('src/a.ts', fn('fa', [`v = v + ${i} // bob`]) + fn('ga', ['v = v * 2 // ada']))
    repo.write('src/b.ts', klass('Store', ['get', 'set', 'clear'], 'ada').replace('v + 1 // ada', `v + ${i} // evan`))
    repo.commit(`Tune a and b ${i}`, { date: at(10 + i), author: i % 2 ? BOB : EVAN_OLD })
  }
  // the bot rewrites most of deps.ts, a person one line of it
  repo.write('src/deps.ts', fn('pin', Array.from({ length: 8 }, (_, i) => `v = v + ${i}.1 // bot`)))
  repo.commit('chore(deps): update everything', { date: at(30), author: BOT })
  repo.write('src/deps.ts', fn('pin', Array.from({ length: 8 }, (_, i) => (i === 0 ? 'v = v + 0 // ada' : `v = v + ${i}.1 // bot`))))
  repo.commit('Pin the first dependency by hand', { date: at(31) })
  // a rename with an edit
  repo.move('src/old-name.ts', 'src/new-name.ts')
  repo.write('src/new-name.ts', fn('moved', ['v = v - 1 // ada', 'v = v - 2 // bob']))
  repo.commit('Rename and extend', { date: at(40), author: BOB })
  // a branch merged with a merge commit
  repo.branch('feature').checkout('feature')
  repo.write('src/feature.ts', klass('Feature', ['on', 'off'], 'evan'))
  repo.commit('Add a feature', { date: at(50), author: EVAN_NEW })
  repo.checkout('main')
  repo.write('src/a.ts', fn('fa', ['v = v + 6 // bob']) + fn('ga', ['v = v * 3 // ada']))
  repo.commit('Tune ga', { date: at(51) })
  repo.merge('feature', { message: 'Merge branch feature', noFF: true, date: at(52) })
  // commits without an email keep their own names
  repo.write('src/anon.ts', fn('anon', ['v = v + 1 // anon one']))
  repo.commit('Anonymous one', { date: at(60), author: NOBODY_A })
  repo.write('src/anon.ts', fn('anon', ['v = v + 1 // anon one', 'v = v + 2 // anon two']))
  repo.commit('Anonymous two', { date: at(61), author: NOBODY_B })
  // a formatting sweep blame looks through
  repo.write('src/b.ts', klass('Store', ['get', 'set', 'clear'], 'ada').replace('v + 1 // ada', 'v + 6 // evan').replaceAll('    return', '      return'))
  const sweep = repo.commit('Reindent the store', { date: at(70), author: BOB })
  repo.write('.git-blame-ignore-revs', `${sweep}\n`)
  repo.commit('Ignore the sweep in blame', { date: at(71) })
  // recent work before HEAD
  for (let i = 1; i <= 4; i++) {
    repo.write('src/a.ts', fn('fa', [`v = v + ${10 + i} // evan`]) + fn('ga', ['v = v * 3 // ada']))
    repo.write('src/b.ts', klass('Store', ['get', 'set', 'clear'], 'ada').replace('v + 1 // ada', `v + ${10 + i} // evan`).replaceAll('    return', '      return'))
    repo.commit(`Recent a and b ${i}`, { date: at(300 + i), author: EVAN_NEW })
  }
  repo.commit('Release', { date: at(day + 1), allowEmpty: true })
}

/** Every file and symbol of the index as a risk target. */
function targets(reader: IndexReader): Array<Exclude<Target, { kind: 'directory' }>> {
  return reader.files().flatMap((f) => {
    const ids = symbolIds(f)
    return [{ kind: 'file' as const, path: f.path }, ...f.symbols.map((s, i) => ({ kind: 'symbol' as const, id: ids[i], qualified_name: s.qualifiedName, symbol_kind: s.kind, path: f.path, start_line: s.startLine, end_line: s.endLine }))]
  })
}

/** Every answer of the index's files against the graph's. */
async function expectSameAsGraph(repo: TestRepo): Promise<number> {
  const reader = await IndexReader.open(repo.dir)
  try {
    const all = targets(reader)
    for (const t of all) {
      const key = t.kind === 'file' ? t.path : t.id
      const { owners, ...expected } = await oracle(reader, t.kind, key)
      // and the owners' lines it counted (what `risk` weighs for the people to ask)
      expect(await riskWithActivity(reader, t), `${t.kind} ${key}`).toEqual({ ...expected, lines: owners.map((o) => [o.email, o.lines]) })
    }
    // many files at once (context-for-pr): the same risks, and each file's owner rows
    const batch = await risksOfFiles(reader, reader.files().map((f) => f.path))
    for (const t of all) {
      const key = t.kind === 'file' ? t.path : t.id
      const { risk: expected, owners } = await oracle(reader, t.kind, key)
      expect((t.kind === 'file' ? batch.files : batch.symbols).get(key), `batch ${t.kind} ${key}`).toEqual(expected)
      if (t.kind === 'file') expect(batch.owners.get(key) ?? [], `batch owners ${key}`).toEqual(owners)
    }
    // every author's last commits
    const g = await reader.graph()
    const emails = (await g.query<{ email: string }>(ORACLE.authors)).map((r) => r.email)
    const graphLast = await g.query<{ email: string; last: string; work: string | null }>(ORACLE.lastActive, { emails })
    expect(await lastActive(reader, emails)).toEqual(new Map(graphLast.map((r) => [r.email, { last: r.last, work: r.work }])))
    return all.length
  } finally {
    await reader.close()
  }
}

describe('risk from the index files equals risk from the graph', () => {
  let repo: TestRepo
  beforeAll(async () => {
    repo = createRepo()
    build(repo)
    await analyze({ repo: repo.dir })
  }, 120_000)
  afterAll(() => repo?.cleanup())

  test('the fixture has what the comparison needs: owners, a bot, a nameless author, co-change, an ignored sweep', async () => {
    const reader = await IndexReader.open(repo.dir)
    try {
      expect(reader.ignoredShas().size).toBe(1)
      const g = await reader.graph()
      const authors = await g.query<{ email: string; name: string }>('MATCH (a:Author) RETURN a.email AS email, a.name AS name ORDER BY email')
      expect(authors.map((a) => a.email)).toEqual(expect.arrayContaining(['', BOT.email, BOB.email, EVAN_NEW.email, GUS.email]))
      expect(authors.find((a) => a.email === '')!.name).toBe(NOBODY_B.name)
      const deps = await oracle(reader, 'file', 'src/deps.ts')
      expect(deps.owners.map((o) => o.email)).toEqual(['ada@example.test'])
      const a = await oracle(reader, 'file', 'src/a.ts')
      expect(a.risk.features.cochange_breadth).toBeGreaterThan(0)
      const anon = await oracle(reader, 'file', 'src/anon.ts')
      expect(anon.risk.contributors.map((c) => c.name)).toEqual(['Anon Two'])
    } finally {
      await reader.close()
    }
  })

  test('every file and symbol after a full build', async () => {
    expect(await expectSameAsGraph(repo)).toBeGreaterThan(15)
  }, 120_000)

  test('a single risk never opens the database', async () => {
    const reader = await IndexReader.open(repo.dir)
    reader.graph = () => Promise.reject(new Error('risk opened the database'))
    const file = await risk({ reader, target: 'src/b.ts' })
    expect(file.contributors.map((c) => c.email)).toContain(EVAN_NEW.email)
    const symbol = await risk({ reader, target: 'Store.get' })
    expect(symbol.target.kind).toBe('symbol')
    await expect(risk({ reader, target: 'src/nope.ts' })).rejects.toMatchObject({ code: 'unknown_path' })
    await expect(risk({ reader, target: 'src/' })).rejects.toMatchObject({ code: 'is_directory' })
    await expect(risk({ reader, target: 'NoSuchSymbol' })).rejects.toMatchObject({ code: 'unknown_symbol' })
  })

  test('every file and symbol after an incremental update', async () => {
    repo.write('src/a.ts', fn('fa', ['v = v + 99 // gus']) + fn('ga', ['v = v * 3 // ada']))
    repo.write('src/b.ts', klass('Store', ['get', 'set', 'clear', 'drop'], 'bob'))
    repo.commit('Gus comes back', { date: T0 + 400 * DAY, author: GUS })
    repo.write('src/deps.ts', fn('pin', Array.from({ length: 9 }, (_, i) => `v = v + ${i}.2 // bot`)))
    repo.commit('chore(deps): update everything again', { date: T0 + 401 * DAY, author: BOT })
    expect((await analyze({ repo: repo.dir })).mode).toBe('incremental')
    expect(await expectSameAsGraph(repo)).toBeGreaterThan(15)
  }, 120_000)
})
