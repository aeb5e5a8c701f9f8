/**
 * Load throughput on a synthetic history. Skipped unless asked for:
 *   GITWHY_BENCH=1 npx vitest run test/graph/load-throughput.test.ts
 */
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { writeGraph } from '../../src/graph/load.js'
import { GraphStore } from '../../src/graph/store.js'
import type { GraphData } from '../../src/graph/types.js'
import { emptyGraph, tempDir } from './fixtures.js'

const COMMITS = 10_000
const FILES = 5_000
const SYMBOLS = 50_000
const CHANGED = 300_000

function syntheticGraph(): GraphData {
  const g = emptyGraph()
  const sha = (i: number): string => i.toString(16).padStart(40, '0')
  const path = (i: number): string => `src/module_${i % 97}/file_${i}.ts`
  for (let a = 0; a < 200; a++) g.authors.push({ email: `dev${a}@example.com`, name: `Dev, "${a}"`, emails: `dev${a}@example.com` })
  for (let i = 0; i < COMMITS; i++) {
    g.commits.push({
      sha: sha(i), short: sha(i).slice(-7), author_name: `Dev, "${i % 200}"`, author_email: `dev${i % 200}@example.com`,
      author_date: new Date(1_600_000_000_000 + i * 60_000).toISOString().replace('Z', '+00:00'),
      committer_date: new Date(1_600_000_000_000 + i * 60_000).toISOString(),
      subject: `fix: change number ${i}, with "quotes"`, body: `Body line one for ${i}.\n\nFixes #${i % 500}\n`,
      parent_count: i === 0 ? 0 : 1, category: 'fix', additions: i % 50, deletions: i % 7, age: i, boundary: i === 0,
    })
    g.authoredBy.push({ sha: sha(i), email: `dev${i % 200}@example.com` })
    if (i > 0) g.parents.push({ sha: sha(i), parent: sha(i - 1), idx: 0 })
    for (let k = 0; k < 5; k++) {
      const f = (i * 5 + k) % FILES
      g.touched.push({ sha: sha(i), path: path(f), additions: k, deletions: 1, change: 'M', old_path: '' })
    }
  }
  for (let f = 0; f < FILES; f++) g.files.push({ path: path(f), language: 'typescript', lines: 200, is_test: f % 10 === 0, present: true })
  for (let s = 0; s < SYMBOLS; s++) {
    const f = s % FILES
    const id = `${path(f)}#Class${s}.method`
    g.symbols.push({ id, name: 'method', qualified_name: `Class${s}.method`, kind: 'method', path: path(f), start_line: 10, end_line: 40, signature: `method(a: string, b = "x"): void {`, exported: s % 3 === 0, search: `class${s} method a string b x` })
    g.defines.push({ path: path(f), symbol: id })
    g.blamedOn.push({ symbol: id, sha: sha(s % COMMITS), lines: 12 }, { symbol: id, sha: sha((s * 7) % COMMITS), lines: 18 })
  }
  for (let c = 0; c < CHANGED; c++) {
    g.changed.push({ sha: sha(c % COMMITS), symbol: g.symbols[(c * 31) % SYMBOLS].id, added: c % 9, removed: c % 4 })
  }
  return g
}

it.skipIf(process.env.GITWHY_BENCH !== '1')('loads a 10k-commit / 50k-symbol / 300k-CHANGED graph', async () => {
  const data = syntheticGraph()
  const dir = tempDir()
  try {
    const dbPath = join(dir.path, 'graph.kuzu')
    const result = await writeGraph(dbPath, data)
    const rows = Object.values(result.tables).reduce((sum, t) => sum + t.rows, 0)
    const lines = Object.entries(result.tables).map(([name, t]) => `  ${name.padEnd(12)} ${String(t.rows).padStart(8)} rows ${String(t.ms).padStart(6)} ms`)
    process.stderr.write(`${lines.join('\n')}\n  total ${rows} rows in ${result.ms} ms = ${Math.round(rows / (result.ms / 1000))} rows/s\n`)
    const store = await GraphStore.open(dbPath, { readOnly: true })
    try {
      expect(await store.query('MATCH ()-[r:CHANGED]->() RETURN count(r) AS n')).toEqual([{ n: CHANGED }])
    } finally {
      await store.close()
    }
  } finally {
    dir.cleanup()
  }
})
