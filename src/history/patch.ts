import type { RangeChange } from './hunk-mapper.js'

/** One hunk of a commit's diff as `--patch` shows it: git's -U0 header and the `-`/`+` lines. */
export interface PatchHunk {
  header: string
  lines: string[]
}

/** The line count of each hunk (removed, then added) inside a FileDiff.text. */
function hunkOffsets(hunks: number[]): number[] {
  const offsets: number[] = []
  let at = 0
  for (let t = 0; t < hunks.length; t += 4) {
    offsets.push(at)
    at += hunks[t + 1] - hunks[t] + hunks[t + 3] - hunks[t + 2]
  }
  return offsets
}

function side(start: number, count: number): string {
  // git's -U0 numbers: an empty side names the line before it
  return count === 0 ? `${start},0` : count === 1 ? `${start + 1}` : `${start + 1},${count}`
}

/**
 * The hunks of a line-history change as `git log -L` shows them: every removed line of a hunk
 * that touched the range, and its added lines that lie inside the range (`ranges`, 0-based
 * half-open pairs in the commit's version). Context lines are not stored, so none are shown.
 */
export function rangeHunks(text: string, part: NonNullable<RangeChange['parts']>[number]): PatchHunk[] {
  const lines = text.split('\n')
  const offsets = hunkOffsets(part.hunks)
  const inRange = (line: number) => {
    for (let r = 0; r < part.ranges.length; r += 2) if (line >= part.ranges[r] && line < part.ranges[r + 1]) return true
    return false
  }
  return part.touched.map((t) => {
    const [os, oe, ns, ne] = part.hunks.slice(t * 4, t * 4 + 4)
    const at = offsets[t]
    const removed = lines.slice(at, at + oe - os)
    const added = lines.slice(at + oe - os, at + oe - os + ne - ns).filter((_, j) => inRange(ns + j))
    return { header: `@@ -${side(os, oe - os)} +${side(ns, ne - ns)} @@`, lines: [...removed, ...added] }
  })
}
