#!/usr/bin/env node
// What one path's line walk costs (the walk `evidence`, `why` and `history` do per file or
// symbol): PathIndex.graphFor, the ignore passes, and mapHistory over the repository's history for
// one symbol's range of a file, for N files picked at random (seeded) among the indexed ones with
// symbols. Prints the mean of each part per walk, and a digest of the answers (blame of the first
// 50 lines, the range's changes) that must not change when only the speed does.
//
//   npm run build && node bench/walk.mjs REPO [--files 40] [--seed 7]
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { benchArgs, ROOT } from './lib.mjs'

const { opt, repo } = benchArgs('node bench/walk.mjs REPO [--files 40] [--seed 7]')
const N = Number(opt('files', 40))
let seed = Number(opt('seed', 7))
const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff

const { IndexReader } = await import(join(ROOT, 'dist/services/index-reader.js'))
const { mapHistory } = await import(join(ROOT, 'dist/history/hunk-mapper.js'))
const reader = await IndexReader.open(repo)
try {
  const files = reader.files().filter((f) => f.symbols.length > 0 && f.lines > 0)
  const pick = Array.from({ length: N }, () => files[Math.floor(rnd() * files.length)])
  const index = reader.pathIndex()
  index.graphFor(pick[0].path) // the first walk reads the DAG: not part of a walk's cost
  const t = { graph: 0, ignored: 0, walk: 0 }
  const answers = []
  for (const f of pick) {
    const sym = f.symbols[Math.floor(rnd() * f.symbols.length)]
    let s = performance.now()
    const graph = index.graphFor(f.path)
    t.graph += performance.now() - s
    s = performance.now()
    const ignored = reader.ignoredRevs(graph.shas)
    t.ignored += performance.now() - s
    s = performance.now()
    const r = mapHistory(graph, 0, [{ path: f.path, lines: f.lines, ranges: [{ start: sym.startLine, end: sym.endLine }] }], { ignored })
    t.walk += performance.now() - s
    answers.push(`${f.path} ${r.rangeHistory[0][0].map((c) => graph.shas[c.commit]).join(',')} ${Array.from(r.blame[0].slice(0, 50), (c) => (c < 0 ? `~${graph.shas[~c]}` : graph.shas[c])).join(',')}`)
  }
  const ms = (x) => (x / N).toFixed(2)
  console.log(`${repo}: ${N} walks over ${index.size} commits; per walk graphFor ${ms(t.graph)} ms, ignore passes ${ms(t.ignored)} ms, mapHistory ${ms(t.walk)} ms`)
  console.log(`answers digest ${createHash('sha256').update(answers.join('\n')).digest('hex').slice(0, 16)}`)
} finally {
  await reader.close()
}
