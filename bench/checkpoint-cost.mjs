#!/usr/bin/env node
// What one Kuzu checkpoint costs an update, by what the rows it writes are: a copy of an indexed
// repository's graph is opened as an update opens it (no automatic checkpoints), and each scenario
// changes a few rows and then checkpoints, timed apart (each round on a fresh copy). The large
// relationship tables and the full-text indexed ones (Doc's doc_search, Symbol's symbol_search)
// are the ones to watch: on git/git's graph one TOUCHED row costs its checkpoint ~90 ms, one
// inserted Doc ~95–170 ms and one deleted ~180 ms, however few rows come with them. The last
// scenario is the least any one-commit update writes (the commit with its TOUCHED, AUTHORED_BY and
// PARENT rows and its search document, one symbol's CHANGED and BLAMED_ON rows and end line) in
// one checkpoint: with the copy's open and close, the floor of an update's graph work.
//
//   node bench/checkpoint-cost.mjs <indexed repo> [--rounds 3] [--tmp DIR] [--json]
//
// The copy goes to --tmp (default: the OS temp dir) and is removed at the end; the index itself is
// only read.
import { closeSync, copyFileSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import zlib from 'node:zlib'
import kuzu from 'kuzu'
import { benchArgs, percentiles } from './lib.mjs'

const { opt, repo, json } = benchArgs('node bench/checkpoint-cost.mjs <indexed repo> [--rounds 3] [--tmp DIR] [--json]')
const rounds = Number(opt('rounds', 3))
const meta = JSON.parse(readFileSync(join(repo, '.gitwhy', 'meta.json'), 'utf8'))
const graph = join(repo, '.gitwhy', meta.indexDir, 'graph.kuzu')
const dir = mkdtempSync(join(opt('tmp', tmpdir()), 'gitwhy-bench-ckpt-'))
const copy = join(dir, 'graph.kuzu')
const log = (m) => process.stderr.write(`${m}\n`)

const open = async () => {
  copyFileSync(graph, copy)
  const opening = performance.now()
  // as src/graph/delta.ts opens an update's copy: 1 GB pool, no automatic checkpoint
  const db = new kuzu.Database(copy, 1024 * 1024 * 1024, true, false, 0, false)
  await db.init()
  const conn = new kuzu.Connection(db)
  await conn.init()
  const opened = performance.now() - opening
  const query = async (statement) => {
    const result = await conn.query(statement)
    const rows = []
    for (const r of Array.isArray(result) ? result : [result]) {
      rows.push(...r.getAllSync())
      r.close()
    }
    return rows
  }
  const timed = async (statement) => {
    const t = performance.now()
    await query(statement)
    return performance.now() - t
  }
  const close = async () => {
    const closing = performance.now()
    await conn.close()
    await db.close()
    const closed = performance.now() - closing
    rmSync(copy, { force: true })
    rmSync(`${copy}.wal`, { force: true })
    return closed
  }
  return { query, timed, close, opened }
}

/** What the manifest's CRC-32 of the graph costs one thread, read in 8 MB chunks as index-integrity.ts reads it. */
function checksumMs() {
  const started = performance.now()
  const fd = openSync(graph, 'r')
  const chunk = Buffer.allocUnsafe(8 << 20)
  let crc = 0
  for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0; ) crc = zlib.crc32(chunk.subarray(0, n), crc)
  closeSync(fd)
  return performance.now() - started
}

const quote = (s) => `'${String(s).replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
try {
  // what the scenarios change: a Symbol and the last Doc row
  const probe = await open()
  const lastRow = Number((await probe.query('MATCH (d:Doc) RETURN max(d.row) AS m'))[0].m ?? 0)
  const symbol = (await probe.query("MATCH (s:Symbol) WHERE s.name <> '<module>' RETURN s.id AS id, s.search AS search LIMIT 1"))[0]
  await probe.close()
  const scenarios = [
    ['nothing', []],
    ['one Commit inserted', ["CREATE (:Commit {sha: 'bench', subject: 'bench'})"]],
    ['500 File activity values set', ['MATCH (f:File) WITH f LIMIT 500 SET f.recent_revisions = f.recent_revisions']],
    ['one Symbol end line set', symbol ? [`MATCH (s:Symbol {id: ${quote(symbol.id)}}) SET s.end_line = s.end_line`] : []],
    ['one CHANGED row inserted', symbol ? [`MATCH (c:Commit) WITH c LIMIT 1 MATCH (s:Symbol {id: ${quote(symbol.id)}}) CREATE (c)-[:CHANGED {added: 1, removed: 0}]->(s)`] : []],
    ['one BLAMED_ON row inserted', symbol ? [`MATCH (c:Commit) WITH c LIMIT 1 MATCH (s:Symbol {id: ${quote(symbol.id)}}) CREATE (s)-[:BLAMED_ON {lines: 1}]->(c)`] : []],
    ['one TOUCHED row inserted', ["MATCH (c:Commit) WITH c LIMIT 1 MATCH (f:File) WITH c, f LIMIT 1 CREATE (c)-[:TOUCHED {additions: 1, deletions: 0, change: 'M'}]->(f)"]],
    ['one Symbol search set (symbol_search)', symbol ? [`MATCH (s:Symbol {id: ${quote(symbol.id)}}) SET s.search = ${quote(`${symbol.search} bench`)}`] : []],
    ['one Doc inserted (doc_search)', [`CREATE (:Doc {row: ${lastRow + 1}, id: 'commit:bench', kind: 'commit', ref: 'bench', path: '', line: 0, title: 'bench', text: 'bench', search: 'bench checkpoint parser', hash: ''})`]],
    ['one Doc deleted (doc_search)', [`MATCH (d:Doc {row: ${lastRow}}) DELETE d`]],
    ['a one-commit update\'s least', [
      "CREATE (:Commit {sha: 'bench', subject: 'bench'})",
      "MATCH (c:Commit {sha: 'bench'}), (f:File) WITH c, f LIMIT 1 CREATE (c)-[:TOUCHED {additions: 1, deletions: 0, change: 'M'}]->(f)",
      "MATCH (c:Commit {sha: 'bench'}), (a:Author) WITH c, a LIMIT 1 CREATE (c)-[:AUTHORED_BY]->(a)",
      "MATCH (c:Commit {sha: 'bench'}), (p:Commit) WHERE p.sha <> 'bench' WITH c, p LIMIT 1 CREATE (c)-[:PARENT {idx: 0}]->(p)",
      `CREATE (:Doc {row: ${lastRow + 1}, id: 'commit:bench', kind: 'commit', ref: 'bench', path: '', line: 0, title: 'bench', text: 'bench', search: 'bench checkpoint parser', hash: ''})`,
      ...(symbol ? [
        `MATCH (c:Commit {sha: 'bench'}), (s:Symbol {id: ${quote(symbol.id)}}) CREATE (c)-[:CHANGED {added: 1, removed: 0}]->(s)`,
        `MATCH (c:Commit {sha: 'bench'}), (s:Symbol {id: ${quote(symbol.id)}}) CREATE (s)-[:BLAMED_ON {lines: 1}]->(c)`,
        `MATCH (s:Symbol {id: ${quote(symbol.id)}}) SET s.end_line = s.end_line`,
      ] : []),
    ]],
  ]
  const out = []
  for (const [name, statements] of scenarios) {
    const change = []
    const checkpoint = []
    const opened = []
    const closed = []
    // each round on a fresh copy, as an update's first checkpoint after opening it
    for (let i = 0; i < rounds; i++) {
      const g = await open()
      opened.push(g.opened)
      let ms = 0
      for (const s of statements) ms += await g.timed(s)
      change.push(ms)
      checkpoint.push(await g.timed('CHECKPOINT'))
      closed.push(await g.close())
    }
    const p50 = (xs) => Math.round(percentiles(xs).p50)
    out.push({ scenario: name, open_ms: p50(opened), change_ms: p50(change), checkpoint_ms: p50(checkpoint), close_ms: p50(closed), checkpoint_all_ms: checkpoint.map(Math.round) })
    log(`${name}: checkpoint ${checkpoint.map(Math.round).join(' / ')} ms`)
  }
  if (json) console.log(JSON.stringify({ repo, graph_mb: Math.round(statSync(graph).size / 1e6), scenarios: out }, null, 2))
  else {
    console.log(`| ${repo} | open | change | checkpoint | close | checkpoint, each round |`)
    console.log('|---|---|---|---|---|---|')
    for (const r of out) console.log(`| ${r.scenario} | ${r.open_ms} ms | ${r.change_ms} ms | **${r.checkpoint_ms} ms** | ${r.close_ms} ms | ${r.checkpoint_all_ms.join(' / ')} |`)
    const least = out.at(-1)
    console.log(`\nthe floor of a one-commit update's graph work (open + change + checkpoint + close, medians): ${least.open_ms + least.change_ms + least.checkpoint_ms + least.close_ms} ms; the manifest's checksum of the graph (${Math.round(statSync(graph).size / 1e6)} MB, one thread): ${Math.round(checksumMs())} ms`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
