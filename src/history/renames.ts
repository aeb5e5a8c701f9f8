import type { BlobIds, FileDiff } from '../git/diff-parser.js'

function basename(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1)
}

/**
 * Re-pair renames the way git blame, git log -L and git log --follow see them.
 *
 * `git log -M` pairs renames for the whole tree at once: each deleted file is the source of at
 * most one rename. The per-path readers ask for one path at a time ("where did THIS file come
 * from?"), so for an exact rename git takes the first deleted file with identical content,
 * preferring one with the same basename, in path order (diffcore-rename's find_identical_files
 * with a single destination) — even when `git log -M` gave that source to another file. A mass
 * rename of identical files (test harness stubs, licence headers) is where the two differ.
 *
 * Entries whose source changes become exact renames from the source git picks; a source left
 * without any entry keeps a deletion entry, so `git log -- that/path` still sees the commit.
 * Inexact renames keep `git log -M`'s pairing.
 */
export function pairRenamesPerPath(diffs: FileDiff[], oids: Array<BlobIds | undefined>): FileDiff[] {
  const byOid = new Map<string, string[]>()
  for (let i = 0; i < diffs.length; i++) {
    const d = diffs[i]
    const oldOid = oids[i]?.[0]
    if ((d.status === 'D' || d.status === 'R') && oldOid) {
      const source = d.status === 'D' ? d.path : d.oldPath
      const list = byOid.get(oldOid)
      if (list) list.push(source)
      else byOid.set(oldOid, [source])
    }
  }
  if (byOid.size === 0) return diffs
  let out: FileDiff[] | null = null
  const orphaned: string[] = []
  diffs.forEach((d, i) => {
    const newOid = oids[i]?.[1]
    if ((d.status !== 'R' && d.status !== 'A') || !newOid) return
    const candidates = byOid.get(newOid)
    if (!candidates) return
    const sorted = candidates.length > 1 ? [...candidates].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) : candidates
    const base = basename(d.path)
    const best = sorted.find((c) => basename(c) === base) ?? sorted[0]
    if (d.status === 'R' && best === d.oldPath) return
    out ??= [...diffs]
    if (d.status === 'R') orphaned.push(d.oldPath)
    out[i] = { ...d, status: 'R', oldPath: best, hunks: [], additions: 0, deletions: 0, whitespaceOnly: false }
  })
  if (!out) return diffs
  const result: FileDiff[] = out
  const named = new Set<string>()
  for (const d of result) if (d.status === 'D' || d.status === 'R') named.add(d.status === 'D' ? d.path : d.oldPath)
  for (const p of orphaned) {
    if (named.has(p)) continue
    named.add(p)
    result.push({ path: p, oldPath: p, status: 'D', binary: false, hunks: [], additions: 0, deletions: 0, whitespaceOnly: false })
  }
  return result
}
