/**
 * The trajectory's rows for the graph: loaded at every analyze (build and update alike, from the
 * journal and the shadow repository beside the index), so that one Cypher query crosses snapshots,
 * symbols and commits. Edges go only to nodes the index has: files and symbols present at the
 * indexed HEAD, commits of the indexed history.
 */
import type { GraphData } from '../graph/types.js'
import { readJournal } from './journal.js'
import { landedIn } from './landed.js'
import { ShadowRepo } from './shadow.js'

export type TrajectoryRows = Required<Pick<GraphData, 'snapshots' | 'snapshotFiles' | 'snapshotSymbols' | 'snapshotReverts' | 'landedIn'>>

/**
 * User state must never fail an index build: a journal line repeated (a crash between a prune's
 * rename and its end) counts once, and a shadow repository git cannot read gives no LANDED_IN
 * (with a warning) rather than an error.
 */
export async function trajectoryRows(repo: string, head: string, known: { files: ReadonlySet<string>; symbols: ReadonlySet<string> }, onWarning: (message: string) => void = () => {}): Promise<TrajectoryRows> {
  const journal = [...new Map(readJournal(repo).map((r) => [r.id, r])).values()]
  const ids = new Set(journal.map((r) => r.id))
  let landed = new Map<string, string>()
  if (journal.length > 0) {
    try {
      landed = await landedIn(repo, head, new ShadowRepo(repo), journal)
    } catch (error) {
      onWarning(`the edit trajectory's commits could not be matched (no LANDED_IN): ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return {
    snapshots: journal.map((r) => ({ id: r.id, time: r.time, session: r.session, intent: r.intent, summary: r.summary, kind: r.kind })),
    snapshotFiles: journal.flatMap((r) => r.files.filter((f) => known.files.has(f.path)).map((f) => ({ snapshot: r.id, path: f.path, added: f.added, removed: f.removed }))),
    snapshotSymbols: journal.flatMap((r) => r.symbols.filter((s) => known.symbols.has(s.id)).map((s) => ({ snapshot: r.id, symbol: s.id, added: s.added, removed: s.removed }))),
    snapshotReverts: journal.flatMap((r) => r.reverts.filter((t) => ids.has(t)).map((target) => ({ snapshot: r.id, target }))),
    landedIn: [...landed].map(([snapshot, sha]) => ({ snapshot, sha })),
  }
}
