import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { totalmem } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BUFFER_POOL_BYTES, loadBufferPoolBytes, writeGraph } from '../../src/graph/load.js'
import { ACTIVITY_COLUMNS, HAS_VECTOR_INDEX, TABLES, tableLabel } from '../../src/graph/schema.js'
import { CODE_QUERIES } from '../../src/graph/queries.js'
import { GraphStore } from '../../src/graph/store.js'
import { emptyGraph, tempDir, trickyGraph, TRICKY_STRINGS } from './fixtures.js'

let dir: { path: string; cleanup: () => void }
beforeEach(() => { dir = tempDir() })
afterEach(() => dir.cleanup())

describe('writeGraph', () => {
  it('round-trips every table exactly, tricky strings included', async () => {
    const data = trickyGraph()
    const dbPath = join(dir.path, 'graph.kuzu')
    const tmpParent = join(dir.path, 'tmp')
    const phases: string[] = []
    const result = await writeGraph(dbPath, data, { tmpDir: tmpParent, onPhase: (p) => phases.push(p), vectors: { dimensions: 2, data: Float32Array.from(data.docVectors[0].embedding) }, vectorIndexRows: 0 })
    expect(result.ms).toBeGreaterThanOrEqual(0)
    expect(result.tables.Commit.rows).toBe(TRICKY_STRINGS.length)
    expect(phases[0]).toBe('schema')
    expect(phases).toContain('RENAMED_FROM')
    expect(readdirSync(tmpParent)).toEqual([])
    expect(existsSync(`${dbPath}.wal`)).toBe(false)

    const store = await GraphStore.open(dbPath, { readOnly: true })
    try {
      const commits = await store.query(
        `MATCH (c:Commit) RETURN c.sha AS sha, c.short AS short, c.author_name AS author_name, c.author_email AS author_email,
           c.author_date AS author_date, c.committer_date AS committer_date, c.subject AS subject, c.body AS body,
           c.parent_count AS parent_count, c.category AS category, c.additions AS additions, c.deletions AS deletions,
           c.age AS age, c.boundary AS boundary ORDER BY c.sha`,
      )
      expect(commits).toEqual(data.commits.map((c) => ({
        ...c, author_date: '2020-01-01T10:00:00.000Z', committer_date: '2020-01-02T06:00:00.000Z',
      })))

      const activity = (v: string) => ACTIVITY_COLUMNS.map((c) => `${v}.${c.name} AS ${c.name}`).join(', ')
      const files = await store.query(`MATCH (f:File) RETURN f.path AS path, f.language AS language, f.lines AS lines, f.is_test AS is_test, f.present AS present, ${activity('f')} ORDER BY f.path`)
      expect(files).toEqual([...data.files].sort((a, b) => (a.path < b.path ? -1 : 1)))

      const symbols = await store.query(`MATCH (s:Symbol) RETURN s.id AS id, s.name AS name, s.qualified_name AS qualified_name, s.kind AS kind, s.path AS path, s.start_line AS start_line, s.end_line AS end_line, s.signature AS signature, s.exported AS exported, s.search AS search, ${activity('s')} ORDER BY s.id`)
      expect(symbols).toEqual(data.symbols)

      // search documents: the text as written, the vector from the NumPy file, both indexes built
      const docs = await store.query('MATCH (d:Doc) RETURN d.row AS row, d.id AS id, d.kind AS kind, d.ref AS ref, d.path AS path, d.line AS line, d.title AS title, d.text AS text, d.search AS search, d.hash AS hash')
      expect(docs).toEqual(data.docs)
      const near = await store.query("CALL QUERY_VECTOR_INDEX('DocVector', 'doc_vector', $v, 1) RETURN node.row AS row, node.embedding AS embedding, distance", { v: [0.6, 0.8] })
      expect(near).toHaveLength(1)
      expect(near[0].row).toBe(0)
      expect((near[0].embedding as number[]).map((x) => Math.round(x * 1e6) / 1e6)).toEqual([0.6, 0.8])
      expect(near[0].distance as number).toBeLessThan(1e-6)

      const authors = await store.query('MATCH (a:Author) RETURN a.email AS email, a.name AS name, a.emails AS emails ORDER BY a.email')
      expect(authors).toEqual([...data.authors].sort((a, b) => (a.email < b.email ? -1 : 1)))

      expect(await store.query('MATCH (p:PullRequest) RETURN p.number AS number, p.title AS title, p.url AS url, p.source AS source, p.body AS body, p.labels AS labels, p.state AS state, p.author AS author, p.merged_at AS merged_at, p.reviews AS reviews')).toEqual(data.pullRequests)
      expect(await store.query('MATCH (i:Issue) RETURN i.number AS number, i.title AS title, i.url AS url, i.source AS source, i.body AS body, i.labels AS labels, i.state AS state, i.author AS author ORDER BY i.number')).toEqual(data.issues)

      expect(await store.query('MATCH (c:Commit)-[t:TOUCHED]->(f:File) RETURN c.sha AS sha, f.path AS path, t.additions AS additions, t.deletions AS deletions, t.change AS change, t.old_path AS old_path ORDER BY c.sha')).toEqual(data.touched)
      expect(await store.query('MATCH (c:Commit)-[r:CHANGED]->(s:Symbol) RETURN c.sha AS sha, s.id AS symbol, r.added AS added, r.removed AS removed ORDER BY c.sha')).toEqual(data.changed)
      expect(await store.query('MATCH (s:Symbol)-[b:BLAMED_ON]->(c:Commit) RETURN s.id AS symbol, c.sha AS sha, b.lines AS lines ORDER BY c.sha')).toEqual(data.blamedOn)
      expect(await store.query('MATCH (f:File)-[:DEFINES]->(s:Symbol) RETURN f.path AS path, s.id AS symbol ORDER BY s.id')).toEqual(data.defines)
      expect(await store.query('MATCH (p:Symbol)-[:CONTAINS]->(c:Symbol) RETURN p.id AS parent, c.id AS child')).toEqual(data.contains)
      expect(await store.query('MATCH (c:Commit)-[:AUTHORED_BY]->(a:Author) RETURN c.sha AS sha, a.email AS email ORDER BY c.sha')).toEqual(data.authoredBy)
      expect(await store.query('MATCH (c:Commit)-[p:PARENT]->(q:Commit) RETURN c.sha AS sha, q.sha AS parent, p.idx AS idx ORDER BY c.sha')).toEqual(data.parents)
      expect(await store.query('MATCH (c:Commit)-[:PART_OF]->(p:PullRequest) RETURN c.sha AS sha, p.number AS number')).toEqual(data.partOf)
      expect(await store.query('MATCH (c:Commit)-[r:REFERENCES]->(i:Issue) RETURN c.sha AS sha, i.number AS number, r.closes AS closes ORDER BY c.sha')).toEqual(data.references)
      expect(await store.query('MATCH (p:PullRequest)-[:CLOSES]->(i:Issue) RETURN p.number AS pr, i.number AS issue')).toEqual(data.closes)
      expect(await store.query('MATCH (f:File)-[r:RENAMED_FROM]->(o:File) RETURN f.path AS path, o.path AS from, r.sha AS sha')).toEqual(data.renamedFrom)
      const pair = 'r.shared AS shared, r.degree AS degree, r.confidence AS confidence, r.reverse_confidence AS reverse_confidence'
      expect(await store.query(`MATCH (x:File)-[r:CO_CHANGED]->(y:File) RETURN x.path AS a, y.path AS b, ${pair}`)).toEqual(data.fileCoChanged)
      expect(await store.query(`MATCH (x:Symbol)-[r:CO_CHANGED]->(y:Symbol) RETURN x.id AS a, y.id AS b, ${pair}`)).toEqual(data.symbolCoChanged)
      expect(await store.query('MATCH (c:Community) RETURN c.id AS id, c.label AS label, c.size AS size, c.cohesion AS cohesion')).toEqual(data.communities)
      expect(await store.query('MATCH (s:Symbol)-[:MEMBER_OF]->(c:Community) RETURN s.id AS symbol, c.id AS community ORDER BY s.id')).toEqual(data.memberOf)
      expect(await store.query('MATCH (f:File)-[o:OWNED_BY]->(a:Author) RETURN f.path AS path, a.email AS email, o.lines AS lines, o.share AS share ORDER BY a.email')).toEqual(data.ownedBy)
      expect(await store.query('MATCH (a:File)-[:IMPORTS]->(b:File) RETURN a.path AS from, b.path AS to')).toEqual(data.imports)
      expect(await store.query('MATCH (a:Symbol)-[c:CALLS]->(b:Symbol) RETURN a.id AS from, b.id AS to, c.confidence AS confidence, c.reason AS reason, c.line AS line ORDER BY c.line')).toEqual(data.calls)
      expect(await store.query('MATCH (a:Symbol)-[:EXTENDS]->(b:Symbol) RETURN a.id AS from, b.id AS to')).toEqual(data.extends)
      expect(await store.query('MATCH (a:Symbol)-[:IMPLEMENTS]->(b:Symbol) RETURN a.id AS from, b.id AS to')).toEqual(data.implements)
      expect(await store.query('MATCH (p:Process) RETURN p.id AS id, p.label AS label, p.kind AS kind, p.entry AS entry, p.steps AS steps, p.depth AS depth')).toEqual(data.processes)
      expect(await store.query('MATCH (s:Symbol)-[r:STEP_IN]->(p:Process) RETURN s.id AS symbol, p.id AS process, r.step AS step ORDER BY r.step')).toEqual(data.stepIn)
    } finally {
      await store.close()
    }
  })

  it('stores every date as JavaScript reads it, whether written as it is or parsed again', async () => {
    // canonical UTC instants go to the CSV as they are; the rest (offsets, a 31st of April, hour
    // 24, garbage) through Date.parse as before
    const dates = ['2020-01-01T10:00:00.000Z', '1999-12-28T23:59:59.999Z', '2021-04-31T00:00:00.000Z', '2021-02-29T12:00:00.000Z', '2021-01-01T24:00:00.000Z', '2021-01-31T00:00:00.000Z', '2020-01-01T12:00:00+02:00', '2020-06-15T00:00:00Z', 'not a date']
    const data = trickyGraph()
    data.commits = data.commits.slice(0, dates.length).map((c, i) => ({ ...c, author_date: dates[i], committer_date: dates[i] }))
    const dbPath = join(dir.path, 'graph.kuzu')
    await writeGraph(dbPath, { ...data, touched: [], changed: [], blamedOn: [], authoredBy: [], parents: [], partOf: [], references: [], reverts: [], snapshotReverts: [], landedIn: [], evidencedBy: [] } as typeof data)
    const store = await GraphStore.open(dbPath, { readOnly: true })
    try {
      const rows = await store.query('MATCH (c:Commit) RETURN c.sha AS sha, c.author_date AS date')
      const bySha = new Map(rows.map((r) => [r.sha, r.date]))
      data.commits.forEach((c, i) => {
        const ms = Date.parse(dates[i])
        expect(bySha.get(c.sha), dates[i]).toBe(Number.isNaN(ms) ? null : new Date(ms).toISOString())
      })
    } finally {
      await store.close()
    }
  })

  it('returns counts and sums as numbers, not BigInt', async () => {
    const dbPath = join(dir.path, 'graph.kuzu')
    await writeGraph(dbPath, trickyGraph())
    const store = await GraphStore.open(dbPath, { readOnly: true })
    try {
      const [row] = await store.query('MATCH (c:Commit) RETURN count(*) AS n, sum(c.additions) AS added, max(c.age) AS top')
      expect(row).toEqual({ n: TRICKY_STRINGS.length, added: 1200, top: TRICKY_STRINGS.length - 1 })
      expect(typeof row.added).toBe('number')
      expect(() => JSON.stringify(row)).not.toThrow()
    } finally {
      await store.close()
    }
  })

  it('asks for the vectors only once every other table is loaded and indexed (analyze embeds meanwhile)', async () => {
    const data = trickyGraph()
    const dbPath = join(dir.path, 'graph.kuzu')
    const phases: string[] = []
    let askedAfter: string[] = []
    const result = await writeGraph(dbPath, data, {
      onPhase: (p) => phases.push(p),
      vectors: async () => {
        askedAfter = [...phases]
        return { dimensions: 2, data: Float32Array.from(data.docVectors[0].embedding) }
      },
      vectorIndexRows: 1,
    })
    for (const def of TABLES) {
      const rows = data[def.rows] as unknown[]
      if (def.name !== 'DocVector' && rows.length > 0) expect(askedAfter, tableLabel(def)).toContain(tableLabel(def))
    }
    expect(askedAfter).not.toContain('DocVector')
    expect(phases.slice(askedAfter.length)).toEqual(['DocVector', 'vector index', 'checkpoint'])
    expect(Object.keys(result.tables)).toEqual(TABLES.map(tableLabel))
    const store = await GraphStore.open(dbPath, { readOnly: true })
    try {
      const nearest = await store.query("CALL QUERY_VECTOR_INDEX('DocVector', 'doc_vector', $v, 1) RETURN node.row AS row", { v: data.docVectors[0].embedding })
      expect(nearest).toEqual([{ row: data.docVectors[0].row }])
    } finally {
      await store.close()
    }
  })

  it('builds no vector index below vectorIndexRows: the scan query then gives the nearest exactly', async () => {
    const data = emptyGraph()
    const vectors = [[1, 0], [0.6, 0.8], [0, 1], [-1, 0]]
    data.docs = vectors.map((_, row) => ({ row, id: `commit:${row}`, kind: 'commit', ref: String(row), path: '', line: 0, title: `subject ${row}`, text: `subject ${row}`, search: `subject ${row}`, hash: String(row) }))
    const dbPath = join(dir.path, 'graph.kuzu')
    const phases: string[] = []
    await writeGraph(dbPath, data, { onPhase: (p) => phases.push(p), vectors: { dimensions: 2, data: Float32Array.from(vectors.flat()) }, vectorIndexRows: vectors.length + 1 })
    expect(phases.slice(-2)).toEqual(['DocVector', 'checkpoint'])
    const store = await GraphStore.open(dbPath, { readOnly: true })
    try {
      expect(await store.query(HAS_VECTOR_INDEX)).toEqual([{ n: 0 }])
      const near = await store.query<{ row: number; distance: number }>(CODE_QUERIES.docNearestScan, { v: [0.8, 0.6], top: 3 })
      expect(near.map((n) => n.row)).toEqual([1, 0, 2])
      expect(near.map((n) => Math.round(n.distance * 1e6) / 1e6)).toEqual([0.04, 0.2, 0.4])
    } finally {
      await store.close()
    }
  })

  it('sizes the buffer pool by the largest table: a node table as big as the least pool still loads (git/git\'s Doc table)', async () => {
    // Kuzu holds a node table's whole COPY in the pool: 8 MB of documents need more than 32 MB
    // (measured), so on an 8 MB pool this fails unless the pool grows with the table
    const data = emptyGraph()
    const floor = 8 * 1024 * 1024
    const body = 'why this line exists; '.repeat(40)
    for (let row = 0; data.docs.length === 0 || row * body.length * 2 < floor; row++) {
      data.docs.push({ row, id: `commit:${row}`, kind: 'commit', ref: String(row), path: '', line: 0, title: `subject ${row}`, text: `${row} ${body}`, search: `${row} ${body}`, hash: String(row) })
    }
    const dbPath = join(dir.path, 'graph.kuzu')
    const result = await writeGraph(dbPath, data, { tmpDir: join(dir.path, 'tmp'), bufferPoolFloor: floor })
    expect(result.tables.Doc.rows).toBe(data.docs.length)
    const store = await GraphStore.open(dbPath, { readOnly: true })
    try {
      expect(await store.query('MATCH (d:Doc) RETURN count(*) AS n, sum(size(d.text)) AS chars')).toEqual([{ n: data.docs.length, chars: data.docs.reduce((n, d) => n + d.text.length, 0) }])
    } finally {
      await store.close()
    }
  })

  it('creates every table even when all row arrays are empty', async () => {
    const dbPath = join(dir.path, 'graph.kuzu')
    const result = await writeGraph(dbPath, emptyGraph())
    expect(Object.keys(result.tables)).toEqual(TABLES.map(tableLabel))
    const store = await GraphStore.open(dbPath, { readOnly: true })
    try {
      const tables = await store.query<{ name: string }>('CALL show_tables() RETURN name ORDER BY name')
      expect(tables.map((t) => t.name)).toEqual([...new Set(TABLES.map((t) => t.name))].sort())
      expect(await store.query('MATCH (c:Commit) RETURN count(c) AS n')).toEqual([{ n: 0 }])
    } finally {
      await store.close()
    }
  })

  it('refuses an existing path and leaves it alone', async () => {
    const dbPath = join(dir.path, 'graph.kuzu')
    writeFileSync(dbPath, 'not mine')
    await expect(writeGraph(dbPath, emptyGraph())).rejects.toThrow(/already exists/)
  })

  it('removes the partial database and the CSVs when a COPY fails', async () => {
    const dbPath = join(dir.path, 'graph.kuzu')
    const tmpParent = join(dir.path, 'tmp')
    mkdirSync(tmpParent)
    const data = trickyGraph()
    data.changed.push({ sha: 'f'.repeat(40), symbol: 'nope', added: 1, removed: 0 })
    await expect(writeGraph(dbPath, data, { tmpDir: tmpParent })).rejects.toThrow(/COPY CHANGED/)
    expect(existsSync(dbPath)).toBe(false)
    expect(existsSync(`${dbPath}.wal`)).toBe(false)
    expect(readdirSync(tmpParent)).toEqual([])
  })

  it('refuses a non-integer in an INT64 column with the table and column named', async () => {
    const data = trickyGraph()
    data.files[0].lines = 1.5
    await expect(writeGraph(join(dir.path, 'graph.kuzu'), data)).rejects.toThrow(/File\.lines/)
  })
})

describe('loadBufferPoolBytes', () => {
  it('grows with the largest CSV and with the vectors to come, within half the memory', () => {
    const MB = 1024 * 1024
    expect(loadBufferPoolBytes(0)).toBe(BUFFER_POOL_BYTES)
    expect(loadBufferPoolBytes(100 * MB)).toBe(564 * MB)
    // git/git: a 100 MB Doc CSV and 97,434 vectors of 512 floats (200 MB) that its pool could not hold
    const vectors = 97_434 * 512 * 4
    expect(loadBufferPoolBytes(100 * MB, BUFFER_POOL_BYTES, vectors)).toBe(Math.min(564 * MB + 3 * vectors, Math.floor(totalmem() / 2)))
    expect(loadBufferPoolBytes(0, BUFFER_POOL_BYTES, 1e15)).toBe(Math.floor(totalmem() / 2))
  })
})
