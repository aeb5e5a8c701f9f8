#!/usr/bin/env node
// How an update's `UNWIND $rows` statements find their nodes, timed on a copy of an indexed
// repository's graph: `MATCH (n:T {key: r.key})` (a field of the row in the pattern: Kuzu 0.11.3
// plans a cross product of the rows with the whole table, filtered pair by pair) against
// `WITH r, r.key AS k MATCH (n:T) WHERE n.key = k` (a hash join of the rows with one scan of the
// table), which src/graph/delta.ts writes. Each statement sets the activity columns of N files and
// N symbols to the values they hold, so both leave the same graph.
//
//   node bench/set-rows.mjs <indexed repo> [--rows 500,2000,5000] [--tmp DIR] [--json]
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import kuzu from 'kuzu'
import { ACTIVITY_COLUMNS } from '../dist/graph/schema.js'
import { benchArgs } from './lib.mjs'

const { opt, repo, json } = benchArgs('node bench/set-rows.mjs <indexed repo> [--rows 500,2000,5000] [--tmp DIR] [--json]')
const sizes = String(opt('rows', '500,2000,5000')).split(',').map(Number)
const meta = JSON.parse(readFileSync(join(repo, '.gitwhy', 'meta.json'), 'utf8'))
const dir = mkdtempSync(join(opt('tmp', tmpdir()), 'gitwhy-bench-set-'))
const copy = join(dir, 'graph.kuzu')

// the parameters as delta.ts passes them (activityParams): timestamps as ISO text, doubles as text
const cast = (c) => (c.type === 'TIMESTAMP' ? `timestamp(r.${c.name})` : c.type === 'DOUBLE' ? `cast(r.${c.name}, 'DOUBLE')` : `r.${c.name}`)
const param = (c, v) => (v === null || v === undefined ? null : c.type === 'TIMESTAMP' ? new Date(v).toISOString() : c.type === 'DOUBLE' ? String(v) : v)
const set = (v) => ACTIVITY_COLUMNS.map((c) => `${v}.${c.name} = ${cast(c)}`).join(', ')
const tables = [
  { table: 'File', key: 'path' },
  { table: 'Symbol', key: 'id' },
]
const forms = {
  'row field in the pattern': ({ table, key }) => `UNWIND $rows AS r MATCH (n:${table} {${key}: r.${key}}) SET ${set('n')}`,
  'key bound by WITH': ({ table, key }) => `UNWIND $rows AS r WITH r, r.${key} AS k MATCH (n:${table}) WHERE n.${key} = k SET ${set('n')}`,
}

try {
  copyFileSync(join(repo, '.gitwhy', meta.indexDir, 'graph.kuzu'), copy)
  // as an update opens its copy (src/graph/delta.ts): 1 GB pool, no automatic checkpoint
  const db = new kuzu.Database(copy, 1024 * 1024 * 1024, true, false, 0, false)
  await db.init()
  const conn = new kuzu.Connection(db)
  await conn.init()
  const run = async (statement, params = {}) => {
    const prepared = await conn.prepare(statement)
    if (!prepared.isSuccess()) throw new Error(prepared.getErrorMessage())
    const t = performance.now()
    const result = await conn.execute(prepared, params)
    const rows = []
    for (const r of Array.isArray(result) ? result : [result]) {
      rows.push(...r.getAllSync())
      r.close()
    }
    return { ms: performance.now() - t, rows }
  }
  const out = []
  for (const t of tables) {
    const stored = (await run(`MATCH (n:${t.table}) RETURN n.${t.key} AS ${t.key}, ${ACTIVITY_COLUMNS.map((c) => `n.${c.name} AS ${c.name}`).join(', ')}`)).rows
    const rows = stored.map((s) => Object.fromEntries([[t.key, s[t.key]], ...ACTIVITY_COLUMNS.map((c) => [c.name, param(c, s[c.name])])]))
    for (const n of sizes.filter((n) => n <= rows.length)) {
      for (const [form, statement] of Object.entries(forms)) {
        const { ms } = await run(statement(t), { rows: rows.slice(0, n) })
        out.push({ table: t.table, nodes: rows.length, rows: n, form, ms: Math.round(ms) })
      }
    }
  }
  await conn.close()
  await db.close()
  if (json) console.log(JSON.stringify({ repo, results: out }, null, 2))
  else {
    console.log(`| ${repo} | nodes | rows set | ${Object.keys(forms).join(' | ')} |`)
    console.log(`|---|---|---|${Object.keys(forms).map(() => '---').join('|')}|`)
    for (let i = 0; i < out.length; i += Object.keys(forms).length) {
      const group = out.slice(i, i + Object.keys(forms).length)
      console.log(`| ${group[0].table} | ${group[0].nodes} | ${group[0].rows} | ${group.map((g) => `${g.ms} ms`).join(' | ')} |`)
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
