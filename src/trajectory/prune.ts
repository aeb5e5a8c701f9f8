/**
 * Bounds on the trajectory: old snapshots squashed into the next kept one, the shadow repository
 * repacked. `gitwhy trajectory prune` asks for it; the recorder does it at every start with the
 * defaults (30 days), so nothing grows without bound even when nobody asks.
 */
import { readJournal, rewriteJournal, TRAJECTORY_REF, type SnapshotRecord } from './journal.js'
import { dirBytes, type ShadowRepo } from './shadow.js'
import { commitMessage, withWriteLock } from './snapshot.js'

export interface PruneOptions {
  /** Snapshots older than this are squashed (ms). */
  maxAgeMs?: number
  /** When the shadow repository is larger than this, every snapshot not kept is squashed (bytes). */
  maxBytes?: number
}

export interface PruneResult {
  repo: string
  before: number
  after: number
  dropped: number
  bytes_before: number
  bytes_after: number
}

export const DEFAULT_PRUNE_AGE_MS = 30 * 24 * 3600 * 1000

/**
 * Squash old snapshots: each dropped snapshot's change folds into the next kept one (the tree of a
 * kept snapshot is unchanged). Kept always: each session's first and last snapshot, the baseline,
 * snapshots whose intent differs from the one before, checkpoints, and with --max-age the
 * snapshots younger than it. The shadow repository is then repacked and its unreachable objects
 * dropped.
 */
export async function pruneShadow(shadow: ShadowRepo, options: PruneOptions = {}): Promise<PruneResult> {
  const repo = shadow.repo
  const bytesBefore = dirBytes(shadow.paths.gitDir)
  const maxAge = options.maxAgeMs ?? DEFAULT_PRUNE_AGE_MS
  return withWriteLock(shadow, async () => {
    const journal = readJournal(repo)
    const over = options.maxBytes !== undefined && bytesBefore > options.maxBytes
    const cutoff = Date.now() - maxAge
    const keep = journal.map((r, i) => {
      if (r.kind !== 'auto') return true
      const prev = journal[i - 1]
      const next = journal[i + 1]
      if (!prev || prev.session !== r.session || !next || next.session !== r.session) return true
      if (prev.intent !== r.intent) return true
      return !over && Date.parse(r.time) >= cutoff
    })
    if (keep.every(Boolean)) return { repo, before: journal.length, after: journal.length, dropped: 0, bytes_before: bytesBefore, bytes_after: bytesBefore }
    const newId = new Map<string, string>()
    const kept: SnapshotRecord[] = []
    let parent: string | null = null
    let folded: SnapshotRecord[] = []
    for (const [i, r] of journal.entries()) {
      if (!keep[i]) {
        folded.push(r)
        continue
      }
      const merged: SnapshotRecord = folded.length === 0 ? { ...r } : foldInto(folded, r)
      const tree = await shadow.treeOf(r.id)
      const date = new Date(r.time)
      const sha = (await shadow.git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-'], { input: commitMessage(merged), env: { GIT_AUTHOR_DATE: `${Math.floor(date.getTime() / 1000)} +0000`, GIT_COMMITTER_DATE: `${Math.floor(date.getTime() / 1000)} +0000` } })).trim()
      for (const f of folded) newId.set(f.id, sha)
      newId.set(r.id, sha)
      merged.id = sha
      kept.push(merged)
      parent = sha
      folded = []
    }
    for (const r of kept) r.reverts = [...new Set(r.reverts.map((id) => newId.get(id)).filter((id): id is string => id !== undefined && id !== r.id))]
    await shadow.git(['update-ref', TRAJECTORY_REF, parent!])
    rewriteJournal(repo, kept)
    await shadow.git(['reflog', 'expire', '--expire=now', '--all'], { okCodes: [128] })
    await shadow.git(['gc', '--prune=now', '--quiet'])
    return { repo, before: journal.length, after: kept.length, dropped: journal.length - kept.length, bytes_before: bytesBefore, bytes_after: dirBytes(shadow.paths.gitDir) }
  })
}

/** A kept snapshot that absorbs the dropped ones before it: their files, symbols and reverts join its own. */
function foldInto(folded: SnapshotRecord[], r: SnapshotRecord): SnapshotRecord {
  const files = new Map(r.files.map((f) => [f.path, f]))
  const symbols = new Map(r.symbols.map((s) => [s.id, s]))
  for (const f of folded) {
    for (const x of f.files) if (!files.has(x.path)) files.set(x.path, x)
    for (const x of f.symbols) if (!symbols.has(x.id)) symbols.set(x.id, x)
  }
  return { ...r, files: [...files.values()], symbols: [...symbols.values()], reverts: [...new Set([...folded.flatMap((f) => f.reverts), ...r.reverts])], summary: `${r.summary} (+${folded.length} squashed)` }
}
