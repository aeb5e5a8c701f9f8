import { describe, expect, it } from 'vitest'
import { mapAcross, mapHistory, splitRuns, union } from '../../src/history/hunk-mapper.js'
import { added, fd, graph, renamed } from './graph-builder.js'

// The hunks of MULTI_HUNK in diff-parser.test.ts (a.txt, 10 -> 11 lines):
//   @@ -2 +2 @@, @@ -3,0 +4,2 @@, @@ -5,2 +6,0 @@, @@ -8,2 +8,3 @@
// old: l1 l2 l3 l4 l5 l6 l7 l8 l9 l10
// new: l1 L2 l3 nA nB l4 l7 L8 L9 X l10
const MULTI = [1, 2, 1, 2, 3, 3, 3, 5, 4, 6, 6, 6, 7, 9, 7, 10]

describe('splitRuns', () => {
  it('splits the whole new file into lines passed to the parent and lines kept', () => {
    const { passed, kept } = splitRuns([0, 11, 0, 0], MULTI)
    // [start (parent coords), len, file, head]
    expect(passed).toEqual([0, 1, 0, 0, 2, 1, 0, 2, 3, 1, 0, 5, 6, 1, 0, 6, 9, 1, 0, 10])
    // [start (own coords), len, file, head]
    expect(kept).toEqual([1, 1, 0, 1, 3, 2, 0, 3, 7, 3, 0, 7])
  })

  it('handles a run starting mid-file, carrying its file and head offsets', () => {
    // new lines 4..7 (nB l4 l7 L8) of target file 2, lines 100..103 of the target
    const { passed, kept } = splitRuns([4, 4, 2, 100], MULTI)
    expect(passed).toEqual([3, 1, 2, 101, 6, 1, 2, 102])
    expect(kept).toEqual([4, 1, 2, 100, 7, 1, 2, 103])
  })

  it('handles several runs in one call', () => {
    const { passed, kept } = splitRuns([0, 2, 0, 0, 10, 1, 1, 50], MULTI)
    expect(passed).toEqual([0, 1, 0, 0, 9, 1, 1, 50])
    expect(kept).toEqual([1, 1, 0, 1])
  })

  it('without hunks everything passes unchanged; a run inside one hunk is all kept', () => {
    expect(splitRuns([3, 4, 0, 7], [])).toEqual({ passed: [3, 4, 0, 7], kept: [] })
    expect(splitRuns([7, 3, 1, 0], MULTI)).toEqual({ passed: [], kept: [7, 3, 1, 0] })
  })

  it('shifts lines after a pure deletion by the deleted count', () => {
    // @@ -2,3 +1,0 @@: old lines 1..3 (0-based) deleted after new line 0
    expect(splitRuns([0, 4, 0, 0], [1, 4, 1, 1])).toEqual({ passed: [0, 1, 0, 0, 4, 3, 0, 1], kept: [] })
  })
})

describe('union', () => {
  it('merges overlapping and adjacent ranges', () => {
    expect(union([0, 2], [2, 4])).toEqual([0, 4])
    expect(union([0, 5], [1, 2])).toEqual([0, 5])
    expect(union([1, 3], [0, 2])).toEqual([0, 3])
    expect(union([0, 2, 6, 8], [3, 4])).toEqual([0, 2, 3, 4, 6, 8])
    expect(union([0, 2, 4, 6], [2, 4])).toEqual([0, 6])
  })

  it('drops empty ranges', () => {
    expect(union([0, 2, 5, 5], [3, 4])).toEqual([0, 2, 3, 4])
    expect(union([], [1, 1])).toEqual([])
    expect(union([], [])).toEqual([])
    expect(union([2, 2], [0, 3])).toEqual([0, 3])
  })
})

describe('mapAcross (line-log.c range_set_map_across_diff)', () => {
  it('a hunk before the range only shifts it', () => {
    // 3 lines inserted at the top
    expect(mapAcross([10, 20], [2, 2, 2, 5])).toEqual({ ranges: [7, 17], touched: [] })
    // 2 lines deleted at the top
    expect(mapAcross([10, 20], [2, 4, 2, 2])).toEqual({ ranges: [12, 22], touched: [] })
  })

  it('a hunk after the range leaves it alone', () => {
    expect(mapAcross([10, 20], [25, 26, 25, 30])).toEqual({ ranges: [10, 20], touched: [] })
  })

  it('a hunk across the range start: the range grows to the hunk\'s pre-image', () => {
    // old [8,12) -> new [8,11)
    expect(mapAcross([10, 20], [8, 12, 8, 11])).toEqual({ ranges: [8, 21], touched: [0] })
  })

  it('a hunk across the range end', () => {
    // old [18,19) -> new [18,22)
    expect(mapAcross([10, 20], [18, 19, 18, 22])).toEqual({ ranges: [10, 19], touched: [0] })
  })

  it('a hunk starting exactly at the range end does not touch it', () => {
    expect(mapAcross([10, 20], [20, 21, 20, 22])).toEqual({ ranges: [10, 20], touched: [] })
  })

  it('a hunk ending exactly at the range start does not touch it (but shifts it)', () => {
    expect(mapAcross([10, 20], [8, 9, 8, 10])).toEqual({ ranges: [9, 19], touched: [] })
  })

  it('a pure deletion strictly inside the range touches it; the range grows by the deleted lines', () => {
    expect(mapAcross([10, 20], [15, 18, 15, 15])).toEqual({ ranges: [10, 23], touched: [0] })
  })

  it('a pure deletion exactly at the range start or end does not touch it', () => {
    expect(mapAcross([10, 20], [10, 13, 10, 10])).toEqual({ ranges: [13, 23], touched: [] })
    expect(mapAcross([10, 20], [20, 25, 20, 20])).toEqual({ ranges: [10, 20], touched: [] })
  })

  it('a pure insertion inside the range touches it and shrinks it', () => {
    expect(mapAcross([0, 10], [5, 5, 5, 8])).toEqual({ ranges: [0, 7], touched: [0] })
  })

  it('a range made only of inserted lines vanishes', () => {
    expect(mapAcross([3, 5], [3, 3, 3, 5])).toEqual({ ranges: [], touched: [0] })
  })

  it('several hunks: only touching ones are reported, shifts accumulate', () => {
    // range = new lines 5..6 ("l4 l7") of MULTI: hunk 2 (pure deletion at 6) is strictly inside
    expect(mapAcross([5, 7], MULTI)).toEqual({ ranges: [3, 7], touched: [2] })
    // range = new lines 0..10: every hunk touches, the range becomes the whole old file
    expect(mapAcross([0, 11], MULTI)).toEqual({ ranges: [0, 10], touched: [0, 1, 2, 3] })
    // range = new line 10 ("l10"): nothing touches, shifted by -1
    expect(mapAcross([10, 11], MULTI)).toEqual({ ranges: [9, 10], touched: [] })
  })

  it('keeps git <= 2.51 semantics: a hunk starting at the end of one range is checked against that range only', () => {
    // rs = [0,5) [6,10); the hunk [5,7) overlaps the second range, but git's
    // diff_ranges_filter_touched (before the Aug 2025 fix, `start > end`) compares it with the first.
    expect(mapAcross([0, 5, 6, 10], [5, 7, 5, 7])).toEqual({ ranges: [0, 5, 6, 10], touched: [] })
  })
})

describe('mapHistory', () => {
  it('linear history: blame and line history', () => {
    // c2: f = a b c            (root)
    // c1: f = a N1 N2 b c      (insert 2 after line 1)
    // c0: f = a N1 N2 B' c     (change line 4)
    const g = graph([
      { parents: [1], diffs: [[fd('f', [3, 4, 3, 4])]] },
      { parents: [2], diffs: [[fd('f', [1, 1, 1, 3]), fd('other', [0, 1, 0, 1])]] },
      { parents: [], diffs: [[added('f', 3), added('other', 1)]] },
    ])
    const r = mapHistory(g, 0, [{ path: 'f', lines: 5, ranges: [{ start: 2, end: 3 }, { start: 1, end: 5 }, { start: 5, end: 5 }] }])
    expect([...r.blame[0]]).toEqual([2, 1, 1, 0, 2])
    expect(r.rangeHistory[0]).toEqual([
      [{ commit: 1, added: 2, removed: 0 }],
      [
        { commit: 0, added: 1, removed: 1 },
        { commit: 1, added: 2, removed: 0 },
        { commit: 2, added: 3, removed: 0 },
      ],
      [{ commit: 2, added: 3, removed: 0 }],
    ])
    expect(r.rangeTruncated).toEqual([[false, false, false]])
  })

  it('starts from a head other than 0 and handles several targets', () => {
    const g = graph([
      { parents: [1], diffs: [[fd('f', [0, 1, 0, 1])]] },
      { parents: [2], diffs: [[fd('g', [0, 0, 0, 1])]] },
      { parents: [], diffs: [[added('f', 2), added('g', 1)]] },
    ])
    const r = mapHistory(g, 1, [
      { path: 'f', lines: 2, ranges: [] },
      { path: 'g', lines: 2, ranges: [{ start: 1, end: 1 }] },
    ])
    expect([...r.blame[0]]).toEqual([2, 2])
    expect([...r.blame[1]]).toEqual([1, 2])
    expect(r.rangeHistory).toEqual([[], [[{ commit: 1, added: 1, removed: 0 }]]])
  })

  it('follows a rename (with edits, and a pure rename)', () => {
    // c2: a.txt = x y         c1: a.txt -> b.txt (100%)     c0: b.txt -> c.txt, line 2 changed
    const g = graph([
      { parents: [1], diffs: [[renamed('b.txt', 'c.txt', [1, 2, 1, 2])]] },
      { parents: [2], diffs: [[renamed('a.txt', 'b.txt')]] },
      { parents: [], diffs: [[added('a.txt', 2)]] },
    ])
    const r = mapHistory(g, 0, [{ path: 'c.txt', lines: 2, ranges: [{ start: 1, end: 1 }, { start: 2, end: 2 }] }])
    expect([...r.blame[0]]).toEqual([2, 0])
    expect(r.rangeHistory[0]).toEqual([
      [{ commit: 2, added: 2, removed: 0 }],
      [
        { commit: 0, added: 1, removed: 1 },
        { commit: 2, added: 2, removed: 0 },
      ],
    ])
  })

  it('a binary change or a re-add takes the whole file', () => {
    const g = graph([
      { parents: [1], diffs: [[fd('f', [], { binary: true })]] },
      { parents: [], diffs: [[added('f', 3)]] },
    ])
    expect([...mapHistory(g, 0, [{ path: 'f', lines: 3, ranges: [] }]).blame[0]]).toEqual([0, 0, 0])
  })

  describe('merges', () => {
    // c3: f = A B C                         (root)
    // c1: f = A B C D       (main, parent c3: append D)
    // c2: f = A B' C        (side, parent c3: B -> B')
    // c0: f = A B' C D E    (merge c1 + c2, E is new in the merge: an "evil" merge)
    const g = graph([
      { parents: [1, 2], diffs: [[fd('f', [1, 2, 1, 2, 4, 4, 4, 5])], [fd('f', [3, 3, 3, 5])]] },
      { parents: [3], diffs: [[fd('f', [3, 3, 3, 4])]] },
      { parents: [3], diffs: [[fd('f', [1, 2, 1, 2])]] },
      { parents: [], diffs: [[added('f', 3)]] },
    ])
    const r = mapHistory(g, 0, [
      {
        path: 'f',
        lines: 5,
        ranges: [{ start: 2, end: 2 }, { start: 5, end: 5 }, { start: 1, end: 4 }, { start: 4, end: 4 }],
      },
    ])

    it('blame: a line unchanged in parent 2 goes to parent 2, a line new against every parent stays', () => {
      expect([...r.blame[0]]).toEqual([3, 2, 3, 1, 0])
    })

    it('line history: a range untouched in some parent follows that parent only, the merge is not shown', () => {
      // B' (line 2): changed vs c1, unchanged vs c2 -> follow c2
      expect(r.rangeHistory[0][0]).toEqual([
        { commit: 2, added: 1, removed: 1 },
        { commit: 3, added: 3, removed: 0 },
      ])
      // D (line 4): unchanged vs c1 -> follow c1 only, where it was inserted (the range ends there)
      expect(r.rangeHistory[0][3]).toEqual([{ commit: 1, added: 1, removed: 0 }])
    })

    it('line history: a range touched against every parent shows the merge (first-parent counts) and goes to all parents', () => {
      expect(r.rangeHistory[0][1]).toEqual([{ commit: 0, added: 1, removed: 0 }])
      expect(r.rangeHistory[0][2]).toEqual([
        { commit: 0, added: 1, removed: 1 },
        { commit: 1, added: 1, removed: 0 },
        { commit: 2, added: 1, removed: 1 },
        { commit: 3, added: 3, removed: 0 },
      ])
      expect(r.rangeTruncated).toEqual([[false, false, false, false]])
    })
  })

  it('merge: a parent with an identical blob takes the whole file (blame), line-log still follows the first untouched parent', () => {
    // c3: f = A;  c1 (main): A X;  c2 (side): A X Y;  c0: merge taking the side version A X Y
    const g = graph([
      { parents: [1, 2], diffs: [[fd('f', [2, 2, 2, 3])], []] },
      { parents: [3], diffs: [[fd('f', [1, 1, 1, 2])]] },
      { parents: [3], diffs: [[fd('f', [1, 1, 1, 3])]] },
      { parents: [], diffs: [[added('f', 1)]] },
    ])
    const r = mapHistory(g, 0, [{ path: 'f', lines: 3, ranges: [{ start: 2, end: 2 }, { start: 3, end: 3 }] }])
    // X is unchanged against c1 too, but git blame hands the whole file to c2 (identical blob)
    expect([...r.blame[0]]).toEqual([3, 2, 2])
    expect(r.rangeHistory[0]).toEqual([[{ commit: 1, added: 1, removed: 0 }], [{ commit: 2, added: 2, removed: 0 }]])
  })

  it('merge where only a pure rename separates the result from parent 2', () => {
    // c3: old = A B (root);  c1 (main): old -> new, B -> B';  c2 (side): A -> A'
    // c0: merge = new: A' B, i.e. side's blob under main's name (a pure rename against c2)
    const g = graph([
      { parents: [1, 2], diffs: [[fd('new', [0, 2, 0, 2])], [renamed('old', 'new')]] },
      { parents: [3], diffs: [[renamed('old', 'new', [1, 2, 1, 2])]] },
      { parents: [3], diffs: [[fd('old', [0, 1, 0, 1])]] },
      { parents: [], diffs: [[added('old', 2)]] },
    ])
    const r = mapHistory(g, 0, [{ path: 'new', lines: 2, ranges: [] }])
    // the whole file goes to c2 as "old": line 1 was changed in c2, line 2 comes from the root
    expect([...r.blame[0]]).toEqual([2, 3])
  })

  describe('cut histories', () => {
    it('a parent outside the indexed history (-1): lines and ranges reaching it are undecided (~idx) / truncated', () => {
      // c1's parent is cut (--max-commits); c1 added line 3, c0 changed line 2
      const g = graph([
        { parents: [1], diffs: [[fd('f', [1, 2, 1, 2])]] },
        { parents: [-1], diffs: [[fd('f', [2, 2, 2, 3])]] },
      ])
      expect(g.boundary).toEqual([false, true])
      const r = mapHistory(g, 0, [{ path: 'f', lines: 3, ranges: [{ start: 1, end: 1 }, { start: 2, end: 2 }, { start: 3, end: 3 }] }])
      expect([...r.blame[0]]).toEqual([~1, 0, 1])
      expect(r.blame[0][0]).toBe(-2)
      expect(r.rangeHistory[0]).toEqual([[], [{ commit: 0, added: 1, removed: 1 }], [{ commit: 1, added: 1, removed: 0 }]])
      expect(r.rangeTruncated).toEqual([[true, true, false]])
    })

    it('a shallow root: its lines are undecided', () => {
      const g = graph([
        { parents: [1], diffs: [[fd('f', [0, 1, 0, 1])]] },
        { parents: [], diffs: [[added('f', 2)]], boundary: true },
      ])
      const r = mapHistory(g, 0, [{ path: 'f', lines: 2, ranges: [] }])
      expect([...r.blame[0]]).toEqual([0, ~1])
    })

    it('a non-shallow root: its lines are decided', () => {
      const g = graph([
        { parents: [1], diffs: [[fd('f', [0, 1, 0, 1])]] },
        { parents: [], diffs: [[added('f', 2)]] },
      ])
      expect([...mapHistory(g, 0, [{ path: 'f', lines: 2, ranges: [] }]).blame[0]]).toEqual([0, 1])
    })
  })
})
