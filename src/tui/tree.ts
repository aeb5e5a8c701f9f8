/**
 * The explorer's file tree and its fuzzy filter, as pure functions of the file list: the rows a
 * pane shows for a set of expanded directories, or for a filter (every match with its
 * directories, all open).
 */

export interface TreeRow {
  /** A file's path, or a directory's path ending in `/`. */
  key: string
  /** The last part of the path (a directory's with its `/`). */
  name: string
  depth: number
  dir: boolean
  /** Character positions of `name` the filter matched (for highlighting); empty without a filter. */
  marks: number[]
}

/** The directories a path lies in, outermost first, each ending in `/`. */
export function ancestors(path: string): string[] {
  const parts = path.split('/')
  const out: string[] = []
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join('/') + '/')
  return out
}

/**
 * A fuzzy match of `query` in `text` (case-insensitive, in order, gaps allowed), as fzf-like
 * scores: consecutive characters and characters after `/`, `.`, `_`, `-` or a case change score
 * more, the file name more than its directories. null: no match.
 */
export function fuzzyMatch(query: string, text: string): { score: number; positions: number[] } | null {
  const q = query.toLowerCase().replace(/\s+/g, '')
  if (q === '') return { score: 0, positions: [] }
  const t = text.toLowerCase()
  // the match that ends latest starts from the last possible occurrence of the last character:
  // search backwards first so that the file name (the end of the path) wins over a directory
  let end = t.length
  const positions: number[] = new Array(q.length)
  for (let i = q.length - 1; i >= 0; i--) {
    const at = t.lastIndexOf(q[i], end - 1)
    if (at < 0) return null
    positions[i] = at
    end = at
  }
  // then tighten forwards: each character as early as possible after the previous one
  for (let i = 1; i < q.length; i++) {
    const at = t.indexOf(q[i], positions[i - 1] + 1)
    if (at >= 0 && at < positions[i]) positions[i] = at
  }
  const base = text.lastIndexOf('/') + 1
  let score = 0
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]
    score += 1
    if (i > 0 && positions[i - 1] === p - 1) score += 3
    const before = p === 0 ? '/' : text[p - 1]
    if ('/._- '.includes(before) || (/[a-z]/.test(before) && /[A-Z]/.test(text[p]))) score += 2
    if (p >= base) score += 1
  }
  score -= (positions[positions.length - 1] - positions[0]) / 20
  return { score, positions }
}

/** The tree rows for the expanded directories (`dir/` keys) or, with a filter, every matching file with its directories. */
export function treeRows(paths: readonly string[], expanded: ReadonlySet<string>, filter = ''): TreeRow[] {
  const marks = new Map<string, number[]>()
  let shown: readonly string[] = paths
  if (filter.trim() !== '') {
    const hits: string[] = []
    for (const p of paths) {
      const m = fuzzyMatch(filter, p)
      if (m) {
        hits.push(p)
        const base = p.lastIndexOf('/') + 1
        marks.set(p, m.positions.filter((x) => x >= base).map((x) => x - base))
      }
    }
    shown = hits
  }
  const open = (dir: string) => filter.trim() !== '' || expanded.has(dir)
  const rows: TreeRow[] = []
  const seen = new Set<string>()
  // paths are sorted: a directory's rows come right before its first file
  for (const p of [...shown].sort(byTreeOrder)) {
    let visible = true
    for (const dir of ancestors(p)) {
      if (!visible) break
      if (!seen.has(dir)) {
        seen.add(dir)
        const depth = dir.split('/').length - 2
        rows.push({ key: dir, name: dir.slice(dir.lastIndexOf('/', dir.length - 2) + 1), depth, dir: true, marks: [] })
      }
      visible = open(dir)
    }
    if (visible) rows.push({ key: p, name: p.slice(p.lastIndexOf('/') + 1), depth: p.split('/').length - 1, dir: false, marks: marks.get(p) ?? [] })
  }
  return rows
}

/** Directories before the files beside them, as file managers list them; otherwise by name. */
export function byTreeOrder(a: string, b: string): number {
  const pa = a.split('/')
  const pb = b.split('/')
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] === pb[i]) continue
    const aDir = i < pa.length - 1
    const bDir = i < pb.length - 1
    if (aDir !== bDir) return aDir ? -1 : 1
    return pa[i] < pb[i] ? -1 : 1
  }
  return pa.length - pb.length
}

/** The row of `key`, else of its nearest shown directory (it is inside a closed one); none given: the first file (a filter's first match). */
export function rowIndexOf(rows: readonly TreeRow[], key: string | null): number {
  if (key === null) return Math.max(0, rows.findIndex((r) => !r.dir))
  const exact = rows.findIndex((r) => r.key === key)
  if (exact >= 0) return exact
  const dirs = ancestors(key).reverse()
  for (const d of dirs) {
    const i = rows.findIndex((r) => r.key === d)
    if (i >= 0) return i
  }
  return 0
}

/** The first row of a window of `height` rows that keeps `cursor` in view, the cursor near the middle. */
export function windowStart(count: number, cursor: number, height: number): number {
  if (count <= height) return 0
  return Math.max(0, Math.min(cursor - Math.floor(height / 2), count - height))
}
