/**
 * The spare graph (src/services/graph-spare.ts): analyze leaves a checked copy of the active
 * graph, and the next update moves it instead of copying the graph; a spare that is not a copy of
 * the graph an update starts from is never used.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { cypher } from '../../src/services/cypher.js'
import { makeSpare, SPARE_MIN_BYTES, SpareCopier, takeSpare, takeSpareWhenMade, wantsSpare } from '../../src/services/graph-spare.js'
import { hashFile, verifyAll } from '../../src/services/index-integrity.js'
import { status } from '../../src/services/status.js'
import { readMeta } from '../../src/services/workspace.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { waitFor } from '../helpers/wait.js'

describe('spares of fake index directories', () => {
  let root: string
  const graph = () => path.join(root, 'index-a', 'graph.kuzu')
  const spare = (name = 'index-a') => path.join(root, 'spares', `${name}.kuzu`)
  const record = (name = 'index-a') => path.join(root, 'spares', `${name}.json`)
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'gitwhy-spare-'))
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))
  const index = (name: string, bytes: Buffer, recorded?: [number, string]) => {
    const file = write(name, bytes)
    recorded ??= hashFile(file)
    writeFileSync(path.join(root, name, 'manifest.json'), JSON.stringify({ files: { 'graph.kuzu': recorded } }))
    return path.join(root, name, 'graph.kuzu')
  }
  const write = (name: string, bytes: Buffer) => {
    mkdirSync(path.join(root, name), { recursive: true })
    writeFileSync(path.join(root, name, 'graph.kuzu'), bytes)
    return path.join(root, name, 'graph.kuzu')
  }

  test('a spare is a checked copy, taken once, by the graph it copies only', () => {
    const bytes = Buffer.from('a graph of some bytes '.repeat(1000))
    index('index-a', bytes)
    expect(makeSpare(graph())).toBe(true)
    expect(readFileSync(spare())).toEqual(bytes)
    // another index's graph does not take it
    index('index-b', bytes)
    expect(takeSpare(path.join(root, 'index-b', 'graph.kuzu'), path.join(root, 'b-copy'))).toBe(false)
    const to = path.join(root, 'index-new', 'graph.kuzu')
    mkdirSync(path.dirname(to))
    const inode = statSync(spare()).ino
    expect(takeSpare(graph(), to)).toBe(true)
    expect(statSync(to).ino).toBe(inode)
    expect(readFileSync(to)).toEqual(bytes)
    expect(existsSync(record())).toBe(false)
    expect(takeSpare(graph(), `${to}.again`)).toBe(false)
  })

  test('a copy that does not match the manifest is not made a spare', () => {
    const bytes = Buffer.from('the graph as it is now')
    index('index-a', bytes, [bytes.length, '00000000'])
    expect(makeSpare(graph())).toBe(false)
    expect(existsSync(record())).toBe(false)
    expect(existsSync(spare())).toBe(false)
  })

  test('a spare changed since it was checked is removed, not taken', () => {
    index('index-a', Buffer.from('x'.repeat(4096)))
    expect(makeSpare(graph())).toBe(true)
    truncateSync(spare(), 100)
    expect(takeSpare(graph(), path.join(root, 'taken'))).toBe(false)
    expect(existsSync(spare())).toBe(false)
    expect(existsSync(path.join(root, 'taken'))).toBe(false)
    // the graph changed after its spare was made (its manifest with it): not taken either
    expect(makeSpare(graph())).toBe(true)
    index('index-a', Buffer.from('y'.repeat(4096)))
    expect(takeSpare(graph(), path.join(root, 'taken'))).toBe(false)
  })

  test("a new spare removes other indexes' spares", () => {
    index('index-a', Buffer.from('a'))
    index('index-b', Buffer.from('b'))
    expect(makeSpare(graph())).toBe(true)
    expect(makeSpare(path.join(root, 'index-b', 'graph.kuzu'))).toBe(true)
    expect(existsSync(record('index-a'))).toBe(false)
    expect(existsSync(spare('index-a'))).toBe(false)
    expect(existsSync(record('index-b'))).toBe(true)
  })

  test('a graph too small for a spare (or GITWHY_SPARE_GRAPH=off) removes the spares left', () => {
    index('index-a', Buffer.from('a'))
    index('index-b', Buffer.from('b'))
    expect(makeSpare(graph())).toBe(true)
    const before = process.env.GITWHY_SPARE_GRAPH
    delete process.env.GITWHY_SPARE_GRAPH
    try {
      SpareCopier.later().start(path.join(root, 'index-b', 'graph.kuzu'))
    } finally {
      if (before !== undefined) process.env.GITWHY_SPARE_GRAPH = before
    }
    expect(existsSync(path.join(root, 'spares'))).toBe(false)
  })

  // the built copier, as analyze starts it: waiting from the start of a build, told the graph at its end
  test.skipIf(!existsSync(path.resolve(__dirname, '../../dist/services/graph-spare-main.js')))('a standby copier copies the graph it is told, and exits untold when cancelled', async () => {
    const before = process.env.GITWHY_SPARE_GRAPH
    process.env.GITWHY_SPARE_GRAPH = 'on'
    try {
      index('index-a', Buffer.from('the graph'))
      const told = SpareCopier.standby(graph())
      const untold = SpareCopier.standby(graph())
      told.start(graph())
      await waitFor('the spare of the graph it was told', () => existsSync(record()), 30_000)
      expect(readFileSync(spare()).toString()).toBe('the graph')
      untold.cancel()
      // nothing else appears: the cancelled copier copied nothing (the one spare is still the first's)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(readdirSync(path.join(root, 'spares')).sort()).toEqual(['index-a.json', 'index-a.kuzu'])
    } finally {
      if (before === undefined) delete process.env.GITWHY_SPARE_GRAPH
      else process.env.GITWHY_SPARE_GRAPH = before
    }
  }, 40_000)

  test('an update that comes while a copier copies its graph waits for the spare; a dead copier\'s leftover is not waited for', async () => {
    const bytes = Buffer.from('the graph the last update made '.repeat(2000))
    index('index-a', bytes)
    mkdirSync(path.join(root, 'spares'), { recursive: true })
    // a copier at work: its copy under way, named by its (live) pid
    const copier = spawn('sleep', ['30'])
    await new Promise((resolve) => copier.once('spawn', resolve))
    const underWay = `${spare()}.${copier.pid}.tmp`
    writeFileSync(underWay, bytes.subarray(0, 100))
    setTimeout(() => {
      // it finishes: the spare and its record, its copy gone
      expect(makeSpare(graph())).toBe(true)
      rmSync(underWay)
      copier.kill()
    }, 300)
    const to = path.join(root, 'index-new', 'graph.kuzu')
    mkdirSync(path.dirname(to))
    const started = Date.now()
    expect(await takeSpareWhenMade(graph(), to)).toBe(true)
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    expect(readFileSync(to)).toEqual(bytes)
    expect(existsSync(record())).toBe(false)

    // a copy left by a copier that is gone: no wait, no spare
    const gone = spawn('true')
    await new Promise((resolve) => gone.once('exit', resolve))
    writeFileSync(`${spare()}.${gone.pid}.tmp`, bytes.subarray(0, 100))
    const again = Date.now()
    expect(await takeSpareWhenMade(graph(), `${to}.2`)).toBe(false)
    expect(Date.now() - again).toBeLessThan(1_000)
    // nor longer than it is told to wait for one that never finishes
    const stuck = spawn('sleep', ['30'])
    await new Promise((resolve) => stuck.once('spawn', resolve))
    writeFileSync(`${spare()}.${stuck.pid}.tmp`, bytes.subarray(0, 100))
    try {
      const waited = Date.now()
      expect(await takeSpareWhenMade(graph(), `${to}.3`, 300)).toBe(false)
      expect(Date.now() - waited).toBeGreaterThanOrEqual(250)
    } finally {
      stuck.kill()
    }
  })

  test('GITWHY_SPARE_GRAPH: on, off, or by size', () => {
    const before = process.env.GITWHY_SPARE_GRAPH
    try {
      delete process.env.GITWHY_SPARE_GRAPH
      expect(wantsSpare(SPARE_MIN_BYTES)).toBe(true)
      expect(wantsSpare(SPARE_MIN_BYTES - 1)).toBe(false)
      process.env.GITWHY_SPARE_GRAPH = 'on'
      expect(wantsSpare(1)).toBe(true)
      process.env.GITWHY_SPARE_GRAPH = 'off'
      expect(wantsSpare(SPARE_MIN_BYTES * 10)).toBe(false)
    } finally {
      if (before === undefined) delete process.env.GITWHY_SPARE_GRAPH
      else process.env.GITWHY_SPARE_GRAPH = before
    }
  })
})

// the copier is the built one (dist/), started detached by analyze as a user's run starts it
describe.skipIf(!existsSync(path.resolve(__dirname, '../../dist/services/graph-spare-main.js')))('an update moves the spare analyze left', () => {
  let repo: TestRepo
  const before = process.env.GITWHY_SPARE_GRAPH
  beforeAll(() => {
    process.env.GITWHY_SPARE_GRAPH = 'on'
    repo = createRepo()
    repo.write('src/a.ts', 'export function a() { return 1 }\n').commit('a')
  })
  afterAll(() => {
    if (before === undefined) delete process.env.GITWHY_SPARE_GRAPH
    else process.env.GITWHY_SPARE_GRAPH = before
    repo?.cleanup()
  })

  test('the new graph is the spare, and the index is whole', async () => {
    await analyze({ repo: repo.dir })
    const first = readMeta(repo.dir)!.indexDir
    const spares = path.join(repo.dir, '.gitwhy', 'spares')
    await waitFor('the spare of the first graph', () => existsSync(path.join(spares, `${first}.json`)), 30_000)
    const inode = statSync(path.join(spares, `${first}.kuzu`)).ino
    // status counts the spare's space
    const spared = statSync(path.join(spares, `${first}.kuzu`)).size + statSync(path.join(spares, `${first}.json`)).size
    expect((await status({ repo: repo.dir })).index?.spare_bytes).toBe(spared)
    repo.write('src/a.ts', 'export function a() { return 2 }\nexport function b() { return 3 }\n').commit('b')
    expect((await analyze({ repo: repo.dir })).mode).toBe('incremental')
    const meta = readMeta(repo.dir)!
    const dir = path.join(repo.dir, '.gitwhy', meta.indexDir)
    expect(statSync(path.join(dir, 'graph.kuzu')).ino).toBe(inode)
    expect(verifyAll(dir, meta.manifest)).toEqual([])
    // what a rebuild holds (after the checks below: it replaces the previous index)
    const changed = async () => (await cypher({ repo: repo.dir, statement: 'MATCH (s:Symbol)<-[:CHANGED]-(c:Commit) RETURN s.name AS name, c.subject AS subject ORDER BY name, subject' })).rows
    const updated = await changed()
    expect(updated.length).toBeGreaterThan(1)
    // the previous graph is untouched: its own file, as its manifest has it
    const previous = path.join(repo.dir, '.gitwhy', meta.previousIndexDir!)
    const recorded = JSON.parse(readFileSync(path.join(previous, 'manifest.json'), 'utf8')).files['graph.kuzu']
    expect(hashFile(path.join(previous, 'graph.kuzu'))).toEqual(recorded)
    expect(statSync(path.join(previous, 'graph.kuzu')).ino).not.toBe(inode)
    expect((await analyze({ repo: repo.dir, force: true })).mode).toBe('full')
    expect(await changed()).toEqual(updated)
  }, 60_000)
})
