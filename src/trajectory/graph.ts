/**
 * The trajectory's rows for the graph: loaded at every analyze (build and update alike, from the
 * journal and the shadow repository beside the index), so that one Cypher query crosses snapshots,
 * symbols and commits. Edges go only to nodes the index has: files and symbols present at the
 * indexed HEAD, commits of the indexed history.
 */
import type { GraphData } from '../graph/types.js'
import { readJournal } from './journal.js'
import { landedIn, type LandingCommit } from './landed.js'
import { ShadowRepo } from './shadow.js'

export type TrajectoryRows = Required<Pick<GraphData, 'snapshots' | 'snapshotFiles' | 'snapshotSymbols' | 'snapshotReverts' | 'landedIn'>>

/**
 * User state must never fail an index build: a journal line repeated (a crash between a prune's
 * rename and its end) counts once, and a shadow repository git cannot read gives no LANDED_IN
 * (with a warning) rather than an error.
 */
/**
 * What the index remembers of the trajectory for the next update: the snapshots it knew and where
 * those landed. A snapshot that had not landed in the indexed history can only land in a new
 * commit, and one that had stays where it landed.
 */
/** Where an index keeps its LandedState. */
export const LANDED_FILE = 'trajectory-landed.json'

/** The files and symbols at the indexed HEAD (what trajectory edges may point at). */
export interface KnownAtHead {
  files: ReadonlySet<string>
  symbols: ReadonlySet<string>
}

export interface LandedState {
  snapshots: string[]
  landed: Record<string, string>
}

/**
 * The trajectory's rows. `known` gives the files and symbols at the indexed HEAD (asked only when
 * there is a journal); `since`, in an update, the previous index's LandedState and the new
 * commits, so that only those are searched for the snapshots it knew.
 */
export async function trajectoryRows(
  repo: string,
  head: string,
  known: () => KnownAtHead | Promise<KnownAtHead>,
  onWarning: (message: string) => void = () => {},
  since?: { state: LandedState; fresh: readonly LandingCommit[] },
): Promise<{ rows: TrajectoryRows; state: LandedState }> {
  const journal = [...new Map(readJournal(repo).map((r) => [r.id, r])).values()]
  const ids = new Set(journal.map((r) => r.id))
  const landed = new Map<string, string>()
  if (journal.length > 0) {
    try {
      const shadow = new ShadowRepo(repo)
      if (since) {
        const before = new Set(since.state.snapshots)
        for (const [id, sha] of Object.entries(since.state.landed)) if (ids.has(id)) landed.set(id, sha)
        const waiting = journal.filter((r) => before.has(r.id) && !landed.has(r.id))
        // the known snapshots still waiting (in the new commits only) and the new ones, searched at once
        const found = await Promise.all([landedIn(repo, head, shadow, waiting, since.fresh), landedIn(repo, head, shadow, journal.filter((r) => !before.has(r.id)))])
        for (const part of found) for (const [id, sha] of part) landed.set(id, sha)
      } else {
        for (const [id, sha] of await landedIn(repo, head, shadow, journal)) landed.set(id, sha)
      }
    } catch (error) {
      onWarning(`the edit trajectory's commits could not be matched (no LANDED_IN): ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  const at = journal.length > 0 ? await known() : { files: new Set<string>(), symbols: new Set<string>() }
  return {
    rows: {
      snapshots: journal.map((r) => ({ id: r.id, time: r.time, session: r.session, intent: r.intent, summary: r.summary, kind: r.kind })),
      snapshotFiles: journal.flatMap((r) => r.files.filter((f) => at.files.has(f.path)).map((f) => ({ snapshot: r.id, path: f.path, added: f.added, removed: f.removed }))),
      snapshotSymbols: journal.flatMap((r) => r.symbols.filter((s) => at.symbols.has(s.id)).map((s) => ({ snapshot: r.id, symbol: s.id, added: s.added, removed: s.removed }))),
      snapshotReverts: journal.flatMap((r) => r.reverts.filter((t) => ids.has(t)).map((target) => ({ snapshot: r.id, target }))),
      landedIn: [...landed].map(([snapshot, sha]) => ({ snapshot, sha })),
    },
    state: { snapshots: [...ids], landed: Object.fromEntries(landed) },
  }
}
