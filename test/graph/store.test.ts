import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UserError } from '../../src/errors.js'
import { writeGraph } from '../../src/graph/load.js'
import { GraphStore, toJsonValue } from '../../src/graph/store.js'
import { tempDir, trickyGraph } from './fixtures.js'

let dir: { path: string; cleanup: () => void }
let dbPath: string
beforeAll(async () => {
  dir = tempDir()
  dbPath = join(dir.path, 'graph.kuzu')
  await writeGraph(dbPath, trickyGraph())
})
afterAll(() => dir.cleanup())

async function openError(path: string, readOnly: boolean): Promise<UserError> {
  try {
    const store = await GraphStore.open(path, { readOnly })
    await store.close()
  } catch (error) {
    expect(error).toBeInstanceOf(UserError)
    return error as UserError
  }
  throw new Error(`expected opening ${path} to fail`)
}

/** A second process holding the database open, like a running `gitwhy analyze` or MCP server. */
async function holdOpen(path: string, readOnly: boolean): Promise<ChildProcess> {
  const script = `
    import kuzu from 'kuzu'
    const db = new kuzu.Database(${JSON.stringify(path)}, 64 * 1024 * 1024, true, ${readOnly})
    await db.init()
    process.stdout.write('ready\\n')
    process.stdin.resume()
    process.stdin.on('end', () => { db.closeSync(); process.exit(0) })`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] })
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => { if (chunk.toString().includes('ready')) resolve() })
    child.on('exit', (code) => reject(new Error(`holder exited early with ${code}`)))
  })
  return child
}

async function release(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  child.stdin?.end()
  await exited
}

describe('GraphStore.open', () => {
  it('turns a missing index into no_index with the analyze remedy', async () => {
    for (const readOnly of [true, false]) {
      const error = await openError(join(dir.path, 'missing.kuzu'), readOnly)
      expect(error.code).toBe('no_index')
      expect(error.remedy).toMatch(/gitwhy analyze/)
    }
  })

  it('turns a corrupt file or a directory into index_corrupt', async () => {
    const garbage = join(dir.path, 'garbage.kuzu')
    writeFileSync(garbage, 'this is not a database\n'.repeat(1000))
    expect((await openError(garbage, true)).code).toBe('index_corrupt')
    const folder = join(dir.path, 'folder.kuzu')
    mkdirSync(folder)
    const error = await openError(folder, true)
    expect(error.code).toBe('index_corrupt')
    expect(error.remedy).toMatch(/gitwhy analyze/)
  })

  it('reports a database held by a writer in another process as index_locked', async () => {
    const writer = await holdOpen(dbPath, false)
    try {
      const rw = await openError(dbPath, false)
      expect(rw.code).toBe('index_locked')
      expect(rw.remedy).toMatch(/retry/)
      const ro = await openError(dbPath, true)
      expect(ro.code).toBe('index_locked')
      expect(ro.message).toMatch(/being written by another process/)
      expect(ro.remedy).toMatch(/retry when/)
    } finally {
      await release(writer)
    }
    const store = await GraphStore.open(dbPath, { readOnly: true })
    await store.close()
  })

  it('lets readers share the database but keeps a writer out', async () => {
    const reader = await holdOpen(dbPath, true)
    try {
      const store = await GraphStore.open(dbPath, { readOnly: true })
      expect(await store.query('MATCH (p:PullRequest) RETURN p.number AS n')).toEqual([{ n: 42 }])
      await store.close()
      expect((await openError(dbPath, false)).code).toBe('index_locked')
    } finally {
      await release(reader)
    }
  })
})

describe('GraphStore.query', () => {
  it('refuses writes on a read-only store at the Kuzu level', async () => {
    const store = await GraphStore.open(dbPath, { readOnly: true })
    try {
      await expect(store.query("CREATE (:Issue {number: 99, title: 'x', url: '', source: ''})")).rejects.toThrow(/read-only/)
    } finally {
      await store.close()
    }
  })

  it('binds parameters and converts nodes, rels, paths, dates and big integers', async () => {
    const store = await GraphStore.open(dbPath, { readOnly: true })
    try {
      const [row] = await store.query(
        'MATCH (c:Commit)-[r:REFERENCES]->(i:Issue) WHERE i.number = $n RETURN c.author_date AS date, i AS issue, r AS ref, $big AS big',
        { n: 7, big: 2n ** 62n },
      )
      expect(row).toEqual({
        date: '2020-01-01T10:00:00.000Z',
        issue: { _label: 'Issue', number: 7, title: '', url: '', source: 'message', body: '', labels: '', state: '', author: '' },
        ref: { _label: 'REFERENCES', closes: true },
        big: (2n ** 62n).toString(),
      })
      const [path] = await store.query<{ p: { _nodes: unknown[]; _rels: unknown[] } }>(
        'MATCH p = (f:File)-[:DEFINES]->(s:Symbol) WHERE s.name = $name RETURN p', { name: 'bar' },
      )
      expect(path.p._nodes).toHaveLength(2)
      expect(path.p._rels).toEqual([{ _label: 'DEFINES' }])
      expect(JSON.parse(JSON.stringify(path))).toEqual(path)
    } finally {
      await store.close()
    }
  })

  it('runs concurrent queries on one store', async () => {
    const store = await GraphStore.open(dbPath, { readOnly: true })
    try {
      const counts = await Promise.all(Array.from({ length: 20 }, () => store.query<{ n: number }>('MATCH (c:Commit) RETURN count(*) AS n')))
      expect(new Set(counts.map(([r]) => r.n))).toEqual(new Set([16]))
    } finally {
      await store.close()
    }
  })
})

describe('toJsonValue', () => {
  it('keeps user map keys, drops Kuzu internals only on graph elements', () => {
    expect(toJsonValue({ _id: 1, a: 2n })).toEqual({ _id: 1, a: 2 })
    expect(toJsonValue({ _id: { offset: 1, table: 0 }, _label: 'File', path: 'a' })).toEqual({ _label: 'File', path: 'a' })
    expect(toJsonValue(-(2n ** 60n))).toBe((-(2n ** 60n)).toString())
    expect(toJsonValue(new Date('2020-01-01T00:00:00Z'))).toBe('2020-01-01T00:00:00.000Z')
  })
})
