/**
 * The spare graph's copier (graph-spare.ts), started detached by analyze: `node
 * graph-spare-main.js <index dir>/graph.kuzu`, or with `--standby`, which reads the graph's path
 * from stdin (started early, told at the end; told nothing, it exits). Quiet; a failure leaves no
 * spare.
 */
import { readFileSync } from 'node:fs'
import { makeSpare, STANDBY } from './graph-spare.js'

try {
  // a standby copier waits for its stdin to close: the path, or nothing (no spare this time)
  const graph = process.argv[2] === STANDBY ? readFileSync(0, 'utf8').split('\n')[0] : process.argv[2]
  if (graph) makeSpare(graph)
} catch {
  // the next update copies the graph
}
