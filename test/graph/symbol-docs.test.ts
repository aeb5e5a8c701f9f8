/**
 * An update reads the stored documents of the files it walked again (syncSymbolDocsOf) by their
 * keys: one at a time for a few, in one statement past SYMBOL_DOC_LOOKUPS, never by a scan that
 * returns every document's text (0.18 s of git/git's update for `builtin/log.c`'s 78). Either way
 * it gives what that scan gives.
 */
import { join } from 'node:path'
import kuzu from 'kuzu'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SYMBOL_DOC_LOOKUPS, symbolDocsOf } from '../../src/graph/delta.js'
import { writeGraph } from '../../src/graph/load.js'
import type { GraphData } from '../../src/graph/types.js'
import { emptyGraph, tempDir } from './fixtures.js'

const BIG = SYMBOL_DOC_LOOKUPS + 50

function doc(row: number, path: string, kind: string, n: number): GraphData['docs'][number] {
  return { row, id: `${kind}:${path}#f${n}`, kind, ref: `${path}#f${n}`, path, line: n + 1, title: `f${n}`, text: `f${n} (function)\n"quoted", line\r\nend ${n}`, search: `f${n} function quoted line end`, hash: n % 2 ? '' : `h${n}` }
}

describe('the stored symbol documents of some files', () => {
  let dir: ReturnType<typeof tempDir>
  let db: InstanceType<typeof kuzu.Database>
  let conn: InstanceType<typeof kuzu.Connection>
  beforeAll(async () => {
    dir = tempDir()
    const g = emptyGraph()
    let row = 0
    for (let n = 0; n < BIG; n++) g.docs.push(doc(row++, 'src/big.ts', 'symbol', n))
    for (let n = 0; n < 3; n++) g.docs.push(doc(row++, 'src/small.ts', 'symbol', n))
    for (let n = 0; n < 40; n++) g.docs.push(doc(row++, 'src/other.ts', 'symbol', n))
    // a commit's document has no path, and a PR's none either: neither is a file's
    for (let n = 0; n < 20; n++) g.docs.push(doc(row++, '', 'commit', n))
    await writeGraph(join(dir.path, 'g.kuzu'), g)
    db = new kuzu.Database(join(dir.path, 'g.kuzu'), 64 << 20, true, true)
    conn = new kuzu.Connection(db)
  }, 60_000)
  afterAll(async () => {
    await conn?.close()
    await db?.close()
    dir?.cleanup()
  })

  const scan = async (paths: string[]) => {
    const statement = await conn.prepare("MATCH (d:Doc) WHERE d.kind = 'symbol' AND d.path IN $paths RETURN d.row AS row, d.id AS id, d.ref AS ref, d.line AS line, d.title AS title, d.text AS text, d.search AS search, d.hash AS hash")
    const result = await conn.execute(statement, { paths })
    return (await (Array.isArray(result) ? result[0] : result).getAll()).sort(byRow)
  }
  const byRow = (a: Record<string, unknown>, b: Record<string, unknown>) => Number(a.row) - Number(b.row)

  test('past SYMBOL_DOC_LOOKUPS, by their keys in one statement: the scan\'s documents, every column', async () => {
    const expected = await scan(['src/big.ts', 'src/small.ts'])
    expect(expected).toHaveLength(BIG + 3)
    expect((await symbolDocsOf(conn, ['src/big.ts', 'src/small.ts'])).sort(byRow)).toEqual(expected)
    expect((await symbolDocsOf(conn, ['src/big.ts', 'src/small.ts'], 0)).sort(byRow)).toEqual(expected)
  })

  test('a few, one key at a time: the same', async () => {
    const expected = await scan(['src/small.ts', 'src/gone.ts'])
    expect(expected).toHaveLength(3)
    expect((await symbolDocsOf(conn, ['src/small.ts', 'src/gone.ts'])).sort(byRow)).toEqual(expected)
    expect((await symbolDocsOf(conn, ['src/big.ts'], 10_000)).sort(byRow)).toEqual(await scan(['src/big.ts']))
    expect(await symbolDocsOf(conn, ['src/gone.ts'])).toEqual([])
  })
})
