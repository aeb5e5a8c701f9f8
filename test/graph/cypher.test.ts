import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UserError } from '../../src/errors.js'
import { assertReadOnlyCypher, parseCypherParam, runCypher } from '../../src/graph/cypher.js'
import { writeGraph } from '../../src/graph/load.js'
import { GraphStore } from '../../src/graph/store.js'
import { tempDir, trickyGraph } from './fixtures.js'

function refusal(statement: string): UserError {
  try {
    assertReadOnlyCypher(statement)
  } catch (error) {
    expect(error).toBeInstanceOf(UserError)
    return error as UserError
  }
  throw new Error(`expected the guard to refuse: ${statement}`)
}

describe('assertReadOnlyCypher', () => {
  it.each([
    'MATCH (c:Commit) RETURN c.sha LIMIT 5',
    "MATCH (c:Commit) WHERE c.subject CONTAINS 'CREATE' RETURN c",
    'MATCH (c:Commit) WHERE c.body CONTAINS "DELETE FROM x; DROP TABLE y" RETURN c.sha',
    "MATCH (c:Commit) WHERE c.subject = 'it\\'s SET; MERGE' RETURN c",
    'MATCH (commit:Commit)-[:TOUCHED]->(f:File) RETURN commit.sha AS commit, f.path AS set',
    'MATCH (c:Commit) RETURN c.sha // DELETE everything\n',
    'MATCH (c:Commit) /* CREATE (x) */ RETURN c.sha;',
    'MATCH (n) WHERE n.`create` = $delete RETURN n',
    'MATCH (s:Symbol) RETURN s.set, s.remove',
    'OPTIONAL MATCH (c:Commit) WITH c UNWIND [1,2] AS x RETURN count(*)',
    'CALL show_tables() RETURN *',
    'CALL table_info("Commit") RETURN *',
    "MATCH (c:Commit) WHERE c.subject =~ '.*(?i)drop.*' RETURN c.sha",
    'MATCH (c:Commit) RETURN c.sha AS `load`, c.short AS `copy`',
    'MATCH (c:Commit) WITH c.additions AS load_count, c.sha AS downloaded RETURN load_count, downloaded',
    'MATCH (s:Symbol) WHERE s.exported RETURN s.name LIMIT 1e3',
    "RETURN 1.5e-3 AS x, 'a\\u0041\\n' AS s /**/ // end",
    'MATCH (c:Commit) /* a * b */ RETURN c.sha //x\r\n',
  ])('allows %s', (statement) => {
    expect(() => assertReadOnlyCypher(statement)).not.toThrow()
  })

  it.each([
    ["CREATE (:Issue {number: 1})", 'CREATE'],
    ['MATCH (c:Commit) SET c.subject = "x"', 'SET'],
    ['MERGE (a:Author {email: "x"})', 'MERGE'],
    ['MATCH (c:Commit) DETACH DELETE c', 'DETACH'],
    ['MATCH (c:Commit) delete c', 'DELETE'],
    ['MATCH (c:Commit) REMOVE c.body', 'REMOVE'],
    ['DROP TABLE Commit', 'DROP'],
    ['ALTER TABLE Commit ADD x INT64', 'ALTER'],
    ["COPY Commit FROM '/tmp/x.csv'", 'COPY'],
    ["LOAD FROM '/etc/passwd' RETURN *", 'LOAD'],
    ["ATTACH '/tmp/other' AS o (dbtype kuzu)", 'ATTACH'],
    ['DETACH DATABASE o', 'DETACH DATABASE'],
    ['INSTALL httpfs', 'INSTALL'],
    ["IMPORT DATABASE '/tmp/x'", 'IMPORT'],
    ["EXPORT DATABASE '/tmp/x'", 'EXPORT'],
    ['BEGIN TRANSACTION', 'BEGIN'],
    ['COMMIT', 'COMMIT'],
    ['ROLLBACK', 'ROLLBACK'],
    ['CHECKPOINT', 'CHECKPOINT'],
    ["CALL create_fts_index('Commit', 'idx', ['subject'])", 'create_fts_index'],
    ["CALL drop_projected_graph('g')", 'drop_projected_graph'],
    ['CALL threads=1', 'threads'],
    ['MATCH (c:Commit) RETURN c; MATCH (f:File) RETURN f', 'multiple statements'],
    ["MATCH (c:Commit) WHERE c.subject = 'a' RETURN c; CREATE (:Issue {number: 2})", 'multiple statements'],
    // issue 8: the tokenizer read 1LOAD as one number
    ["UNWIND [1] AS x WITH x LIMIT 1LOAD FROM '/etc/passwd' (header=false, delim=':', file_format='csv') RETURN *", 'LOAD'],
    ["UNWIND [1] AS x WITH x WHERE x = 1.5e-3LOAD FROM '/etc/passwd' RETURN *", 'LOAD'],
    ["COPY (MATCH (c:Commit) RETURN c.sha) TO '/tmp/out.csv'", 'COPY'],
    ['UPDATE json', 'UPDATE'],
    ["COMMENT ON TABLE Commit IS 'x'", 'COMMENT'],
    // the word scan, whatever the tokenizer makes of what comes before
    ['MATCH (c:Commit) RETURN c.load', 'LOAD'],
    ['MATCH (c:Commit) RETURN $\\ATTACH', 'ATTACH'],
    ['MATCH (c:Commit) RETURN c AS _export', 'EXPORT'],
    ['MATCH (c:Commit) RETURN c.sha AS `x`LOAD', 'LOAD'],
  ])('refuses %s', (statement, what) => {
    const error = refusal(statement)
    expect(error.code).toBe('write_refused')
    expect(error.message).toContain(what)
    expect(error.message).toContain('`gitwhy cypher` is read-only')
  })

  it('asks to quote a refused word that is only a name', () => {
    expect(refusal('MATCH (c:Commit) RETURN c.sha AS load').remedy).toContain('quote it in backticks: `load`')
  })

  it.each([
    ["RETURN 'open", 'unterminated string'],
    ["RETURN 'a\\q'", 'bad escape \\q'],
    ["RETURN '\\u12'", 'bad escape \\u'],
    ['RETURN `open', 'unterminated `name`'],
    ['RETURN 1 /* open', 'unterminated /* comment'],
    ['RETURN 1 /* a **/ LOAD FROM x', 'unterminated /* comment'],
    ['RETURN 1 // a\rLOAD FROM x', 'lone carriage return'],
  ])('refuses %j, which Kuzu would not read as one literal or comment', (statement, what) => {
    const error = refusal(statement)
    expect(error.code).toBe('cypher_error')
    expect(error.message).toContain(what)
  })

  it('refuses an empty query', () => {
    expect(refusal('  // nothing\n').code).toBe('cypher_empty')
  })
})

describe('runCypher', () => {
  let dir: { path: string; cleanup: () => void }
  let store: GraphStore
  beforeAll(async () => {
    dir = tempDir()
    const dbPath = join(dir.path, 'graph.kuzu')
    await writeGraph(dbPath, trickyGraph())
    store = await GraphStore.open(dbPath, { readOnly: true })
  })
  afterAll(async () => {
    await store.close()
    dir.cleanup()
  })

  it('returns JSON-safe rows with parameters bound', async () => {
    const { rows } = await runCypher(store, 'MATCH (c:Commit)-[:PART_OF]->(p:PullRequest {number: $pr}) RETURN c.short AS short, p.title AS title, count(*) AS n', { params: { pr: 42 } })
    expect(rows).toEqual([{ short: '0000002', title: 'Fix "it", again\nreally', n: 1 }])
  })

  it('stops at the row cap and says so; 0 is no cap', async () => {
    expect(await runCypher(store, 'UNWIND range(1, 50) AS x RETURN x', { maxRows: 10 })).toEqual({ rows: Array.from({ length: 10 }, (_, i) => ({ x: i + 1 })), truncated: true })
    expect(await runCypher(store, 'UNWIND range(1, 10) AS x RETURN x', { maxRows: 10 })).toMatchObject({ truncated: false })
    expect((await runCypher(store, 'UNWIND range(1, 5000) AS x RETURN x', { maxRows: 0 })).rows).toHaveLength(5000)
    await expect(runCypher(store, 'RETURN 1', { maxRows: -1 })).rejects.toMatchObject({ code: 'bad_option' })
  })

  it('interrupts a query that runs past its timeout', async () => {
    const slow = 'UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y WITH x + y AS z WHERE z = -1 RETURN z'
    await expect(runCypher(store, slow, { timeoutSeconds: 0.3 })).rejects.toMatchObject({ code: 'cypher_timeout' })
    // the store still answers afterwards
    expect((await runCypher(store, 'RETURN 1 AS one')).rows).toEqual([{ one: 1 }])
  })

  it('refuses parameter values that Kuzu 0.11 would crash on or corrupt, and keeps answering', async () => {
    // each of these took the whole process down (empty list, empty map) or bound garbage ([1, 2.5])
    for (const params of [{ xs: [] }, { m: {} }, { xs: [null, 'a'] }, { xs: [1, 2.5] }, { xs: [1, 'a'] }, { xs: [[]] }, { m: { a: null } }, { x: Number.NaN }, { xs: [{}] }]) {
      await expect(runCypher(store, 'MATCH (f:File) WHERE f.path IN $xs OR $m IS NULL OR $x IS NULL RETURN f.path', { params })).rejects.toMatchObject({ code: 'bad_param' })
    }
    expect((await runCypher(store, 'RETURN $xs AS xs, $m AS m', { params: { xs: ['a', null], m: { a: 1, b: 'c' } } })).rows).toEqual([{ xs: ['a', null], m: { a: 1, b: 'c' } }])
  })

  it('turns a bad query into a cypher_error UserError', async () => {
    await expect(runCypher(store, 'MATCH (x:Nope) RETURN x')).rejects.toMatchObject({ code: 'cypher_error' })
  })

  it('refuses writes even without the guard (the database is read-only)', async () => {
    await expect(store.query("MATCH (i:Issue) SET i.title = 'x'")).rejects.toThrow(/read-only/)
  })

  it('needs a read-only store', async () => {
    const rwPath = join(dir.path, 'rw.kuzu')
    await writeGraph(rwPath, trickyGraph())
    const rw = await GraphStore.open(rwPath, { readOnly: false })
    try {
      await expect(runCypher(rw, 'MATCH (c:Commit) RETURN count(*) AS n')).rejects.toThrow(/readOnly: true/)
    } finally {
      await rw.close()
    }
  })
})

describe('parseCypherParam', () => {
  it('parses JSON values and falls back to text', () => {
    expect(parseCypherParam('limit=10')).toEqual(['limit', 10])
    expect(parseCypherParam('$flag=true')).toEqual(['flag', true])
    expect(parseCypherParam('path=src/a=b.ts')).toEqual(['path', 'src/a=b.ts'])
    expect(parseCypherParam('s="42"')).toEqual(['s', '42'])
    expect(() => parseCypherParam('novalue')).toThrow(UserError)
  })
})
