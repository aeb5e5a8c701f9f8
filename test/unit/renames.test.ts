import { describe, expect, it } from 'vitest'
import type { BlobIds, FileDiff } from '../../src/git/diff-parser.js'
import { pairRenamesPerPath } from '../../src/history/renames.js'

const X = 'a'.repeat(40)
const Y = 'b'.repeat(40)

type Entry = [FileDiff, BlobIds | undefined]

function fd(status: FileDiff['status'], path: string, oldPath = path, oids: { old?: string; new?: string } = {}, hunks: number[] = []): Entry {
  return [{ path, oldPath, status, binary: false, hunks, additions: 0, deletions: 0, whitespaceOnly: false }, [oids.old ?? '', oids.new ?? '']]
}

/** pairRenamesPerPath over entries given as [diff, blob ids] pairs. */
function pair(entries: Entry[]): FileDiff[] {
  return pairRenamesPerPath(entries.map((e) => e[0]), entries.map((e) => e[1]))
}

describe('pairRenamesPerPath: git blame / log -L / --follow pair renames one path at a time', () => {
  it('an exact rename takes the first identical source in path order, as git blame does', () => {
    const out = pair([
      fd('R', 'a/test.js', 'a/spec.js', { old: X, new: X }),
      fd('R', 'b/test.js', 'b/spec.js', { old: X, new: X }),
      fd('R', 'c/test.js', 'c/spec.js', { old: X, new: X }),
    ])
    expect(out.filter((d) => d.status === 'R').map((d) => `${d.oldPath}->${d.path}`)).toEqual(['a/spec.js->a/test.js', 'a/spec.js->b/test.js', 'a/spec.js->c/test.js'])
    // the sources git log -M used and git blame does not still show as deleted
    expect(out.filter((d) => d.status === 'D').map((d) => d.path).sort()).toEqual(['b/spec.js', 'c/spec.js'])
  })

  it('a source with the same basename wins over one earlier in path order', () => {
    const out = pair([
      fd('R', 'new/b/util.ts', 'z/util.ts', { old: X, new: X }),
      fd('D', 'a/other.ts', 'a/other.ts', { old: X }),
    ])
    expect(out[0].oldPath).toBe('z/util.ts')
    expect(out).toHaveLength(2)
  })

  it('an add whose content equals a deleted file becomes a rename from it', () => {
    const out = pair([fd('R', 'x2', 'x', { old: X, new: X }), fd('A', 'y', 'y', { new: X })])
    expect(out[1]).toMatchObject({ status: 'R', oldPath: 'x', path: 'y', hunks: [] })
  })

  it('inexact renames and unrelated content keep git log -M pairing; nothing to do returns the same array', () => {
    const entries = [fd('R', 'n', 'o', { old: X, new: Y }, [0, 1, 0, 1]), fd('A', 'q', 'q', { new: Y }), fd('M', 'm', 'm', { old: X, new: Y })]
    const diffs = entries.map((e) => e[0])
    expect(pairRenamesPerPath(diffs, entries.map((e) => e[1]))).toBe(diffs)
  })
})
