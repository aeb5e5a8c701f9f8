import { describe, expect, it } from 'vitest'
import { areaHistory, followHistories } from '../../src/history/area.js'
import { buildGraph } from '../../src/history/graph.js'
import { added, fd, graph, renamed, type NodeSpec } from './graph-builder.js'

const plain = { directory: false, follow: false }
const follow = { directory: false, follow: true }
const dir = { directory: true, follow: false }

// c3: root adds f;  c1 (main) and c2 (side) both change f;  c0 merges them.
function mergeGraph(vsMain: boolean, vsSide: boolean) {
  return graph([
    { parents: [1, 2], diffs: [vsMain ? [fd('f', [0, 1, 0, 1])] : [], vsSide ? [fd('f', [1, 2, 1, 2])] : []] },
    { parents: [3], diffs: [[fd('f', [1, 2, 1, 2])]] },
    { parents: [3], diffs: [[fd('f', [0, 1, 0, 1])]] },
    { parents: [], diffs: [[added('f', 2), added('g', 1)]] },
  ])
}

describe('areaHistory: plain (git log -- FILE)', () => {
  it('linear history lists the commits touching the file', () => {
    const g = graph([
      { parents: [1], diffs: [[fd('f', [0, 1, 0, 1])]] },
      { parents: [2], diffs: [[fd('g', [0, 1, 0, 1])]] },
      { parents: [], diffs: [[added('f', 1), added('g', 1)]] },
    ])
    expect(areaHistory(g, 0, 'f', plain)).toEqual({ hits: [{ commit: 0, path: 'f' }, { commit: 2, path: 'f' }], truncated: false })
    expect(areaHistory(g, 0, 'g', plain)).toEqual({ hits: [{ commit: 1, path: 'g' }, { commit: 2, path: 'g' }], truncated: false })
    expect(areaHistory(g, 1, 'f', plain).hits).toEqual([{ commit: 2, path: 'f' }])
  })

  it('a merge TREESAME to its second parent follows only that parent and is not listed', () => {
    expect(areaHistory(mergeGraph(true, false), 0, 'f', plain).hits).toEqual([
      { commit: 2, path: 'f' },
      { commit: 3, path: 'f' },
    ])
  })

  it('a merge TREESAME to its first parent follows only that parent', () => {
    expect(areaHistory(mergeGraph(false, false), 0, 'f', plain).hits).toEqual([
      { commit: 1, path: 'f' },
      { commit: 3, path: 'f' },
    ])
    expect(areaHistory(mergeGraph(false, true), 0, 'f', plain).hits).toEqual([
      { commit: 1, path: 'f' },
      { commit: 3, path: 'f' },
    ])
  })

  it('a merge different from every parent is listed and all parents are followed', () => {
    expect(areaHistory(mergeGraph(true, true), 0, 'f', plain).hits).toEqual([
      { commit: 0, path: 'f' },
      { commit: 1, path: 'f' },
      { commit: 2, path: 'f' },
      { commit: 3, path: 'f' },
    ])
  })

  it('does not follow renames, but the rename itself touches both names', () => {
    const g = graph([
      { parents: [1], diffs: [[fd('new', [0, 1, 0, 1])]] },
      { parents: [2], diffs: [[renamed('old', 'new')]] },
      { parents: [], diffs: [[added('old', 1)]] },
    ])
    expect(areaHistory(g, 0, 'new', plain).hits).toEqual([{ commit: 0, path: 'new' }, { commit: 1, path: 'new' }])
    expect(areaHistory(g, 0, 'old', plain).hits).toEqual([{ commit: 1, path: 'old' }, { commit: 2, path: 'old' }])
  })

  it('reports truncation when the walk reaches a cut parent or a shallow root', () => {
    const cut = graph([
      { parents: [1], diffs: [[fd('f', [0, 1, 0, 1])]] },
      { parents: [-1], diffs: [[fd('g', [0, 1, 0, 1])]] },
    ])
    expect(areaHistory(cut, 0, 'f', plain)).toEqual({ hits: [{ commit: 0, path: 'f' }], truncated: true })
    const shallow = graph([
      { parents: [1], diffs: [[fd('f', [0, 1, 0, 1])]] },
      { parents: [], diffs: [[added('f', 1)]], boundary: true },
    ])
    expect(areaHistory(shallow, 0, 'f', plain)).toEqual({ hits: [{ commit: 0, path: 'f' }, { commit: 1, path: 'f' }], truncated: true })
    const whole = graph([
      { parents: [1], diffs: [[fd('f', [0, 1, 0, 1])]] },
      { parents: [], diffs: [[added('f', 1)]] },
    ])
    expect(areaHistory(whole, 0, 'f', plain).truncated).toBe(false)
  })

  it('a merge pruned away from a cut side branch is not truncated', () => {
    const g = graph([
      { parents: [1, -1], diffs: [[], [fd('f', [0, 1, 0, 1])]] },
      { parents: [], diffs: [[added('f', 1)]] },
    ])
    expect(areaHistory(g, 0, 'f', plain)).toEqual({ hits: [{ commit: 1, path: 'f' }], truncated: false })
  })
})

describe('areaHistory: directory (git log -- DIR)', () => {
  const g = graph([
    { parents: [1], diffs: [[fd('srcx/b.ts', [0, 1, 0, 1])]] },
    { parents: [2], diffs: [[renamed('src/old.ts', 'lib/old.ts')]] },
    { parents: [3], diffs: [[fd('docs/readme.md', [0, 1, 0, 1])]] },
    { parents: [4], diffs: [[fd('src/deep/a.ts', [0, 1, 0, 1])]] },
    { parents: [], diffs: [[added('src/deep/a.ts', 1), added('src/old.ts', 1), added('docs/readme.md', 1), added('srcx/b.ts', 1)]] },
  ])

  it('matches files under the directory (and renames out of it), not siblings sharing the prefix', () => {
    expect(areaHistory(g, 0, 'src', dir).hits).toEqual([
      { commit: 1, path: 'src' },
      { commit: 3, path: 'src' },
      { commit: 4, path: 'src' },
    ])
    expect(areaHistory(g, 0, 'src/', dir).hits.map((h) => h.commit)).toEqual([1, 3, 4])
    expect(areaHistory(g, 0, 'srcx', dir).hits.map((h) => h.commit)).toEqual([0, 4])
    expect(areaHistory(g, 0, 'lib', dir).hits.map((h) => h.commit)).toEqual([1])
  })

  it('the root directory ("") matches everything', () => {
    expect(areaHistory(g, 0, '', dir).hits.map((h) => h.commit)).toEqual([0, 1, 2, 3, 4])
  })

  it('follow is ignored for directories', () => {
    expect(areaHistory(g, 0, 'src', { directory: true, follow: true }).hits.map((h) => h.commit)).toEqual([1, 3, 4])
  })
})

describe('areaHistory: follow (git log --follow -- FILE)', () => {
  it('switches to the old name at a rename', () => {
    const g = graph([
      { parents: [1], diffs: [[fd('new.txt', [0, 1, 0, 1])]], date: 40 },
      { parents: [2], diffs: [[fd('other.txt', [0, 1, 0, 1])]], date: 30 },
      { parents: [3], diffs: [[renamed('old.txt', 'new.txt', [0, 1, 0, 1])]], date: 20 },
      { parents: [4], diffs: [[fd('old.txt', [1, 1, 1, 2]), fd('new.txt', [0, 1, 0, 1])]], date: 10 },
      { parents: [], diffs: [[added('old.txt', 1), added('new.txt', 1)]], date: 5 },
    ])
    expect(areaHistory(g, 0, 'new.txt', follow)).toEqual({
      hits: [
        { commit: 0, path: 'new.txt' },
        { commit: 2, path: 'new.txt' },
        { commit: 3, path: 'old.txt' },
        { commit: 4, path: 'old.txt' },
      ],
      truncated: false,
    })
    // without --follow the walk stays on new.txt (an unrelated, older new.txt)
    expect(areaHistory(g, 0, 'new.txt', plain).hits.map((h) => h.commit)).toEqual([0, 2, 3, 4])
  })

  it('never lists merges and walks every parent in committer-date order', () => {
    // c0 merge (t=50) of c1 (t=40) and c2 (t=45), both touching f; c3 root (t=10)
    const g = graph([
      { parents: [1, 2], diffs: [[fd('f', [0, 1, 0, 1])], [fd('f', [1, 2, 1, 2])]], date: 50 },
      { parents: [3], diffs: [[fd('f', [1, 2, 1, 2])]], date: 40 },
      { parents: [3], diffs: [[fd('f', [0, 1, 0, 1])]], date: 45 },
      { parents: [], diffs: [[added('f', 2)]], date: 10 },
    ])
    expect(areaHistory(g, 0, 'f', follow).hits.map((h) => h.commit)).toEqual([2, 1, 3])
    // TREESAME merges do not prune either
    const same = graph([
      { parents: [1, 2], diffs: [[], [fd('f', [1, 2, 1, 2])]], date: 50 },
      { parents: [3], diffs: [[fd('f', [1, 2, 1, 2])]], date: 40 },
      { parents: [3], diffs: [[fd('f', [0, 1, 0, 1])]], date: 45 },
      { parents: [], diffs: [[added('f', 2)]], date: 10 },
    ])
    expect(areaHistory(same, 0, 'f', follow).hits.map((h) => h.commit)).toEqual([2, 1, 3])
    expect(areaHistory(same, 0, 'f', plain).hits.map((h) => h.commit)).toEqual([1, 3])
  })

  it('equal dates come out first-in first-out', () => {
    const g = graph([
      { parents: [1, 2], diffs: [[fd('f', [0, 1, 0, 1])], [fd('f', [0, 1, 0, 1])]], date: 50 },
      { parents: [3], diffs: [[fd('f', [0, 1, 0, 1])]], date: 40 },
      { parents: [3], diffs: [[fd('f', [0, 1, 0, 1])]], date: 40 },
      { parents: [], diffs: [[added('f', 2)]], date: 10 },
    ])
    expect(areaHistory(g, 0, 'f', follow).hits.map((h) => h.commit)).toEqual([1, 2, 3])
  })

  it('the path switch is order-dependent, as in git: a side commit popped before the rename keeps the new name', () => {
    // c0 (t=50) merge of c1 (t=30, renames old->f) and c2 (t=40, edits old)
    const g = graph([
      { parents: [1, 2], diffs: [[fd('f', [0, 1, 0, 1])], [renamed('old', 'f', [0, 1, 0, 1])]], date: 50 },
      { parents: [3], diffs: [[renamed('old', 'f')]], date: 30 },
      { parents: [3], diffs: [[fd('old', [0, 1, 0, 1])]], date: 40 },
      { parents: [], diffs: [[added('old', 1)]], date: 10 },
    ])
    // c2 is visited first, while the current path is still "f": not listed; then c1 renames, then c3
    expect(areaHistory(g, 0, 'f', follow).hits).toEqual([
      { commit: 1, path: 'f' },
      { commit: 3, path: 'old' },
    ])
  })

  it('reports truncation at a cut parent or shallow root', () => {
    const g = graph([
      { parents: [1], diffs: [[fd('f', [0, 1, 0, 1])]] },
      { parents: [-1], diffs: [[fd('g', [0, 1, 0, 1])]] },
    ])
    expect(areaHistory(g, 0, 'f', follow)).toEqual({ hits: [{ commit: 0, path: 'f' }], truncated: true })
    const shallow = graph([{ parents: [], diffs: [[added('f', 1)]], boundary: true }])
    expect(areaHistory(shallow, 0, 'f', follow)).toEqual({ hits: [{ commit: 0, path: 'f' }], truncated: true })
  })
})

/**
 * `git log --follow` for one file written the plain way (a linear scan for the next commit by
 * committer date, first-in first-out on ties; one current name): the reference the one-walk
 * version must equal.
 */
function referenceFollow(g: ReturnType<typeof graph>, start: string): { hits: Array<{ commit: number; path: string }>; truncated: boolean } {
  const hits: Array<{ commit: number; path: string }> = []
  let path = start
  let truncated = false
  const queue: Array<[number, number]> = [[0, 0]]
  const seen = new Set([0])
  let counter = 1
  while (queue.length > 0) {
    let best = 0
    for (let j = 1; j < queue.length; j++) {
      const [a, ra] = queue[j]
      const [b, rb] = queue[best]
      if (g.dates[a] > g.dates[b] || (g.dates[a] === g.dates[b] && ra < rb)) best = j
    }
    const [i] = queue.splice(best, 1)[0]
    const parents = g.parents[i]
    if (parents.length <= 1) {
      const entries = (g.diffs[i][0] ?? []).filter((d) => d.path === path || (d.status === 'R' && d.oldPath === path))
      if (entries.length > 0) {
        hits.push({ commit: i, path })
        const r = entries.find((d) => d.status === 'R' && d.path === path)
        if (r) path = r.oldPath
      }
      if (parents.length === 0 && g.boundary[i]) truncated = true
    }
    for (const p of parents) {
      if (p < 0) truncated = true
      else if (!seen.has(p)) {
        seen.add(p)
        queue.push([p, counter++])
      }
    }
  }
  return { hits, truncated }
}

describe('followHistories: several files in one walk', () => {
  it('a swap (x → y and y → x in one commit) switches each file to the other name', () => {
    const g = graph([
      { parents: [1], diffs: [[fd('x', [0, 1, 0, 1])]] },
      { parents: [2], diffs: [[renamed('y', 'x'), renamed('x', 'y')]] },
      { parents: [], diffs: [[added('x', 1), added('y', 1)]] },
    ])
    expect(followHistories(g, 0, ['x', 'y'])).toEqual([
      { hits: [{ commit: 0, path: 'x' }, { commit: 1, path: 'x' }, { commit: 2, path: 'y' }], truncated: false },
      { hits: [{ commit: 1, path: 'y' }, { commit: 2, path: 'x' }], truncated: false },
    ])
  })

  it('gives every file what its own walk gives (seeded random histories with renames, merges, re-used names)', () => {
    let seed = 7
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n
    const names = ['a', 'b', 'c', 'd', 'e']
    for (let round = 0; round < 30; round++) {
      const n = 40
      const nodes: NodeSpec[] = []
      for (let i = 0; i < n; i++) {
        const older = n - 1 - i
        const parents = older === 0 ? [] : rnd(6) === 0 && older > 2 ? [i + 1, i + 2 + rnd(older - 1)] : [i + 1]
        const diffs = (parents.length === 0 ? [[]] : parents.map(() => [])) as NodeSpec['diffs']
        for (const list of diffs) {
          for (let k = rnd(3); k >= 0; k--) {
            const from = names[rnd(names.length)]
            const to = names[rnd(names.length)]
            list.push(rnd(3) === 0 && from !== to ? renamed(from, to) : fd(to, [0, 1, 0, 1]))
          }
        }
        nodes.push({ parents, diffs, date: 10_000 - i * 10 + rnd(25) })
      }
      const g = graph(nodes)
      const together = followHistories(g, 0, names)
      names.forEach((name, k) => {
        const alone = referenceFollow(g, name)
        expect(together[k], `round ${round}, ${name}`).toEqual(alone)
        expect(areaHistory(g, 0, name, follow), `round ${round}, ${name}`).toEqual(alone)
      })
    }
  })
})

describe('buildGraph', () => {
  it('indexes parents, marks cut parents and shallow commits as boundary, parses dates', () => {
    const f = fd('f', [0, 1, 0, 1])
    const g = buildGraph(
      [
        { sha: 'aaa', parents: ['bbb', 'zzz'], diffs: [[f], []], committerDate: '2024-01-02T03:04:05+00:00' },
        { sha: 'bbb', parents: ['ccc'], diffs: [[f]], committerDate: '2024-01-02T04:04:05+01:00' },
        { sha: 'ccc', parents: [], diffs: [], committerDate: '1970-01-01T00:00:10Z' },
      ],
      new Set(['ccc']),
    )
    expect(g).toEqual({
      shas: ['aaa', 'bbb', 'ccc'],
      parents: [[1, -1], [2], []],
      diffs: [[[f], []], [[f]], [[]]],
      boundary: [true, false, true],
      dates: [1704164645, 1704164645, 10],
    })
  })
})
