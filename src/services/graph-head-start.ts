import { rmSync } from 'node:fs'
import path from 'node:path'
import { GraphDeltaWriter } from '../graph/delta-writer.js'
import { SCHEMA_VERSION } from '../graph/schema.js'
import type { AnalyzeSettings } from './analyze-settings.js'
import { GRAPH_DB } from './index-layout.js'
import { gitwhyDir, newIndexDir } from './workspace.js'

/**
 * An update's graph, copied and opened on its thread from the moment the fast path's no-op check
 * finds HEAD moved, before the analyze service loads (~55 ms) and reads its settings: the graph's
 * thread is the update's longest path. The service adopts it when it updates that very index, and
 * discards it otherwise (its directory is then the new index's all the same, emptied of the copy).
 * Its directory is named after this process, so a concurrent analyze does not retire it
 * (removeStaleIndexDirs) although the writer lock is not taken yet.
 */
export interface GraphHeadStart {
  id: string
  dir: string
  /** The graph the copy was made from. */
  from: string
  writer: GraphDeltaWriter
  /** Set by the service once the directory is its own (it then closes or keeps the writer). */
  adopted: boolean
}

/** A head start when the settings promise an update (an index of this schema and options, HEAD moved), else null. */
export function graphHeadStart(repo: string, s: AnalyzeSettings): GraphHeadStart | null {
  const previous = s.previous
  if (!previous || !s.sameOptions || previous.head === s.head || previous.shallow || s.maxCommits !== null || previous.schemaVersion !== SCHEMA_VERSION) return null
  const { id, dir } = newIndexDir(repo)
  const from = path.join(gitwhyDir(repo), previous.indexDir, GRAPH_DB)
  return { id, dir, from, writer: new GraphDeltaWriter(from, path.join(dir, GRAPH_DB), previous.graphRels), adopted: false }
}

/** Closes a head start the service did not adopt and removes its directory. */
export async function dropHeadStart(h: GraphHeadStart): Promise<void> {
  await h.writer.close({ discard: true })
  rmSync(h.dir, { recursive: true, force: true })
}
