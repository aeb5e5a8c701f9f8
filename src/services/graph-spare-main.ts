/**
 * The spare graph's copier (graph-spare.ts), started detached by analyze once it swapped an index
 * in: `node graph-spare-main.js <index dir>/graph.kuzu`. Quiet; a failure leaves no spare.
 */
import { makeSpare } from './graph-spare.js'

try {
  if (process.argv[2]) makeSpare(process.argv[2])
} catch {
  // the next update copies the graph
}
