/** Small builders for hand-made AnalyticsInput histories (pure: no git). */
import type { AnalyticsInput, Change } from '../../src/analytics/types.js'
import type { CommitCategory } from '../../src/services/types.js'

export const DAY = 86_400
/** 2024-01-01T00:00:00Z: HEAD's committer date in every fixture. */
export const HEAD = Date.UTC(2024, 0, 1) / 1000

/** A file in a commit: a path (1 addition), or [path, additions, deletions]. */
export type FileSpec = string | [path: string, additions: number, deletions: number]

export interface CommitSpec {
  /** Days before HEAD (fractions allowed); the commit's time is HEAD − daysAgo days. */
  daysAgo: number
  author?: string
  category?: CommitCategory
  subject?: string
  files?: FileSpec[]
  symbols?: string[]
  /** Renames done by this commit: [from, to]; `to` should also be among `files`. */
  renames?: Array<[from: string, to: string]>
  /** Exact per-symbol lines (ChangeWithSymbolLines). */
  symbolLines?: Record<string, number>
}

export interface History {
  commit(spec: CommitSpec): History
  /** `times` commits at once, each `spacing` days older than the previous. */
  repeat(times: number, spec: CommitSpec, spacing?: number): History
  build(state: { files: string[]; ownership?: AnalyticsInput['ownership']; symbols?: AnalyticsInput['symbols']; headTime?: number }): AnalyticsInput
}

export function history(): History {
  const made: Array<{ change: Change; order: number }> = []
  const renames: AnalyticsInput['renames'] = []
  const api: History = {
    commit(spec) {
      const order = made.length
      const sha = `c${String(order).padStart(4, '0')}`
      const files = (spec.files ?? []).map((f) => (typeof f === 'string' ? { path: f, additions: 1, deletions: 0 } : { path: f[0], additions: f[1], deletions: f[2] }))
      const change: Change & { symbolLines?: Record<string, number> } = {
        sha,
        time: HEAD - Math.round(spec.daysAgo * DAY),
        author: spec.author ?? 'ada@example.com',
        category: spec.category ?? 'normal',
        subject: spec.subject ?? `change ${order}`,
        files,
        symbols: spec.symbols ?? [],
      }
      if (spec.symbolLines) change.symbolLines = spec.symbolLines
      for (const [from, to] of spec.renames ?? []) renames.push({ path: to, from, sha })
      made.push({ change, order })
      return api
    },
    repeat(times, spec, spacing = 1) {
      for (let i = 0; i < times; i++) api.commit({ ...spec, daysAgo: spec.daysAgo + i * spacing })
      return api
    },
    build(state) {
      // newest first; of two commits at the same second the later-made one is newer
      const changes = [...made].sort((x, y) => y.change.time - x.change.time || y.order - x.order).map((m) => m.change)
      return {
        headTime: state.headTime ?? HEAD,
        changes,
        renames: [...renames],
        files: state.files.map((path) => ({ path, language: 'typescript' })),
        symbols: state.symbols ?? [],
        ownership: state.ownership ?? {},
      }
    },
  }
  return api
}

/** Deterministic PRNG (mulberry32) for synthetic histories. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
