import { UserError, checkLimit, nearest } from '../errors.js'
import { areaHistory } from '../history/area.js'
import { IndexReader, withReader } from './index-reader.js'
import { withTrajectory } from './trajectory.js'
import type { HistoryResult } from './types.js'

export interface HistoryOptions {
  repo?: string
  path: string
  /** Maximum items; 0 = no cap. Default 50. */
  limit?: number
  /** Follow renames of a file (default true), like `git log --follow`. */
  followRenames?: boolean
  /** Append the recorded edits of the path no indexed commit holds (the edit trajectory). */
  trajectory?: boolean
  reader?: IndexReader
}

/** Every commit that touched a file (through its renames) or anything under a directory. */
export async function history(options: HistoryOptions): Promise<HistoryResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 50
    checkLimit(limit)
    const follow = options.followRenames ?? true
    let rel = reader.relativePath(options.path)
    const index = reader.pathIndex()
    let directory = false
    if (!index.has(rel) && !reader.file(rel)) {
      const prefix = rel === '' || rel === '.' ? '' : rel.replace(/\/+$/, '') + '/'
      const known = index.paths()
      if (prefix === '' || known.some((p) => p.startsWith(prefix))) {
        directory = true
        rel = prefix
      } else {
        const suggestions = nearest(rel, known)
        throw new UserError(`${rel} never existed in the indexed history`, suggestions.length ? `did you mean: ${suggestions.join(', ')}?` : 'check the path', 'unknown_path')
      }
    }
    const { entries, truncated } = reader.memo(`history\0${rel}\0${directory}\0${follow}`, () => {
      const graph = index.graphFor(rel, { prefix: directory })
      const result = areaHistory(graph, 0, rel, { directory, follow: follow && !directory })
      const entries = result.hits.map((h) => ({ sha: graph.shas[h.commit], source: 'area' as const, path_at_commit: directory ? h.path.replace(/\/$/, '') || '.' : h.path }))
      return { entries, truncated: result.truncated }
    })
    const items = reader.evidenceItems(entries)
    const result: HistoryResult = {
      target: { path: directory ? rel.replace(/\/$/, '') || '.' : rel, kind: directory ? 'directory' : 'file', follow_renames: follow && !directory },
      index: await reader.indexInfo(),
      evidence: limit === 0 ? items : items.slice(0, limit),
      total: items.length,
      truncated,
    }
    return options.trajectory ? withTrajectory(reader, { path: directory ? rel.replace(/\/$/, '') || '.' : rel }, result) : result
  })
}
