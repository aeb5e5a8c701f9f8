// node bench/hunk-map.mjs <indexed repo> [--rounds N] [--dist DIR]: the hunk map alone (mapHistory over every
// indexed file and symbol, on the graph the index stores), timed per round, with a hash of its result.
import { createHash } from 'node:crypto'
import { readdirSync } from 'node:fs'
import path from 'node:path'
const args = process.argv.slice(2)
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback)
const repo = path.resolve(args[0])
const dist = path.resolve(opt('--dist', path.join(import.meta.dirname, '..', 'dist')))
const rounds = Number(opt('--rounds', 3))
const { PathIndex } = await import(path.join(dist, 'history/path-index.js'))
const { loadIndexedFiles } = await import(path.join(dist, 'services/index-layout.js'))
const { mapHistory } = await import(path.join(dist, 'history/hunk-mapper.js'))
const root = path.join(repo, '.gitwhy')
const dir = path.join(root, readdirSync(root).filter((d) => d.startsWith('index-')).sort().pop())
const files = loadIndexedFiles(dir)
const graph = PathIndex.open(dir).graphFor(files.map((f) => f.path))
const targets = files.map((f) => ({ path: f.path, lines: f.lines, ranges: f.symbols.map((s) => ({ start: s.startLine, end: s.endLine })) }))
console.log(`${files.length} files, ${targets.reduce((n, t) => n + t.ranges.length, 0)} ranges, ${graph.shas.length} commits`)
for (let r = 0; r < rounds; r++) {
  const t = performance.now()
  const result = mapHistory(graph, 0, targets)
  const ms = performance.now() - t
  const h = createHash('sha256')
  for (const b of result.blame) h.update(new Uint8Array(b.buffer, b.byteOffset, b.byteLength))
  h.update(JSON.stringify(result.rangeHistory))
  h.update(JSON.stringify(result.rangeTruncated))
  console.log(`round ${r + 1}: ${ms.toFixed(0)} ms  ${h.digest('hex').slice(0, 16)}`)
}
