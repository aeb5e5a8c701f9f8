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

export async function trajectoryRows(repo: string, head: string, known: { files: ReadonlySet<string>; symbols: ReadonlySet<string> }): Promise<TrajectoryRows> {
  const journal = readJournal(repo)
  const ids = new Set(journal.map((r) => r.id))
  const landed = journal.length === 0 ? new Map<string, string>() : await landedIn(repo, head, new ShadowRepo(repo), journal)
  return {
    snapshots: journal.map((r) => ({ id: r.id, time: r.time, session: r.session, intent: r.intent, summary: r.summary, kind: r.kind })),
    snapshotFiles: journal.flatMap((r) => r.files.filter((f) => known.files.has(f.path)).map((f) => ({ snapshot: r.id, path: f.path, added: f.added, removed: f.removed }))),
    snapshotSymbols: journal.flatMap((r) => r.symbols.filter((s) => known.symbols.has(s.id)).map((s) => ({ snapshot: r.id, symbol: s.id, added: s.added, removed: s.removed }))),
    snapshotReverts: journal.flatMap((r) => r.reverts.filter((t) => ids.has(t)).map((target) => ({ snapshot: r.id, target }))),
    landedIn: [...landed].map(([snapshot, sha]) => ({ snapshot, sha })),
  }
}
