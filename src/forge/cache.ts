/**
 * The forge cache: what `gitwhy enrich` fetched from GitHub, in `.gitwhy/forge/`, outside every
 * rebuildable `index-*` directory (so `analyze --force` keeps it). Two files:
 *
 *   state.json   the checkpoint, rewritten atomically after every page: which listing is where
 *                (page, cutoff, what it covers), the ETag of every page fetched, the numbers the
 *                forge answered 404 for, counts, and how many bytes of the log are committed
 *   items.jsonl  the records, appended page by page (a later record of a number replaces an earlier
 *                one); bytes past the checkpoint (a killed run's half page) are ignored and cut
 *
 * Every text in a record is scrubbed of secrets when it is normalised (src/forge/github.ts), before
 * it is written here. Only light modules: status and analyze's no-op read the state.
 */
import { randomBytes } from 'node:crypto'
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs'
import path from 'node:path'

export const FORGE_DIR = 'forge'
const STATE = 'state.json'
const LOG = 'items.jsonl'
/** Not the cache of any index: the fingerprint meta.json records when there is no forge cache. */
export const NO_FORGE = 'none'

/** A pull request as enrichment keeps it (texts scrubbed). */
export interface ForgePull {
  k: 'pr'
  n: number
  title: string
  body: string
  labels: string[]
  /** open, closed or merged. */
  state: string
  author: string
  merged_at: string | null
  /** The commit the merge made on the base branch (merge, squash or rebase): maps a commit whose message names no PR to it. */
  merge_sha: string | null
  updated_at: string
}

/** A merged pull request the index did not reference when it was listed: only what maps a commit to it. */
export interface ForgePullLight {
  k: 'prl'
  n: number
  merged_at: string | null
  merge_sha: string | null
  updated_at: string
}

export interface ForgeIssue {
  k: 'issue'
  n: number
  title: string
  body: string
  labels: string[]
  state: string
  author: string
  updated_at: string
}

/** A review comment on an indexed file of a kept pull request. */
export interface ForgeReviewComment {
  k: 'rc'
  id: number
  pr: number
  path: string
  line: number | null
  author: string
  body: string
  created_at: string
  updated_at: string
}

export type ForgeRecord = ForgePull | ForgePullLight | ForgeIssue | ForgeReviewComment

export type ListingKind = 'pulls' | 'issues' | 'comments'
export const LISTINGS: readonly ListingKind[] = ['pulls', 'issues', 'comments']

/** A listing's run: newest updated first, page by page, down to the cutoff (null: to the end). */
export interface ListingRun {
  /** When the run began (the server's clock, less a minute): the next run's cutoff once this one completes. */
  startedAt: string | null
  cutoff: string | null
  page: number
  /** Pages the listing has (its Link rel="last"), when known. */
  pages: number | null
}

export interface ListingState {
  /** What the completed runs saw: every item updated from `from` (null: the beginning) to `to`. */
  covered: { from: string | null; to: string } | null
  /** A run under way (null: none): a new `gitwhy enrich` continues it at `page`. */
  run: ListingRun | null
}

/** What the last answer of a page URL was (for If-None-Match, and to go on after a 304). */
export interface PageMemo {
  etag: string
  count: number
  /** `updated_at` of its last item. */
  last: string | null
  next: boolean
  fetched: string
}

export interface ForgeCounts {
  pull_requests: number
  issues: number
  review_comments: number
  /** Merged PRs kept only for their merge commit. */
  merged_only: number
}

export interface ForgeState {
  version: 1
  forge: 'github'
  api: string
  /** owner/name on the forge. */
  repo: string
  /** Random per cache: with the revision, the fingerprint an index records. */
  id: string
  /** Bumped whenever a page or an item changed what the cache holds. */
  revision: number
  log: { file: string; bytes: number }
  listings: Record<ListingKind, ListingState>
  pages: Record<string, PageMemo>
  /** Numbers the forge answered 404 or 410 for, and when. */
  missing: Record<string, string>
  counts: ForgeCounts
  /** When a run last finished every listing. */
  enrichedAt: string | null
  lastRun: { at: string; complete: boolean; requests: number; not_modified: number } | null
}

export function forgeDir(gitwhyDir: string): string {
  return path.join(gitwhyDir, FORGE_DIR)
}

/** The cache's fingerprint (what an index built from it records), NO_FORGE when there is none (or it holds nothing yet). */
export function forgeFingerprint(state: Pick<ForgeState, 'id' | 'revision'> | null): string {
  return state && state.revision > 0 ? `${state.id}:${state.revision}` : NO_FORGE
}

/** The checkpoint, null when there is none (or it cannot be read: the cache then starts afresh). */
export function readForgeState(gitwhyDir: string): ForgeState | null {
  const file = path.join(forgeDir(gitwhyDir), STATE)
  if (!existsSync(file)) return null
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as ForgeState
    return state?.version === 1 && typeof state.id === 'string' ? state : null
  } catch {
    return null
  }
}

export function newForgeState(api: string, repo: string): ForgeState {
  const empty = (): ListingState => ({ covered: null, run: null })
  return {
    version: 1,
    forge: 'github',
    api,
    repo,
    id: randomBytes(6).toString('hex'),
    revision: 0,
    log: { file: LOG, bytes: 0 },
    listings: { pulls: empty(), issues: empty(), comments: empty() },
    pages: {},
    missing: {},
    counts: { pull_requests: 0, issues: 0, review_comments: 0, merged_only: 0 },
    enrichedAt: null,
    lastRun: null,
  }
}

/** The records of the log up to the checkpoint, in order. */
function readLog(dir: string, state: ForgeState): ForgeRecord[] {
  const file = path.join(dir, state.log.file)
  if (state.log.bytes === 0 || !existsSync(file)) return []
  const text = readFileSync(file).subarray(0, state.log.bytes).toString('utf8')
  const out: ForgeRecord[] = []
  for (const line of text.split('\n')) {
    if (!line) continue
    try {
      out.push(JSON.parse(line) as ForgeRecord)
    } catch {
      // a damaged line costs that record, never the cache
    }
  }
  return out
}

/** The cache's records, merged: the last record of a number wins, and a light one never replaces a full one. */
export class ForgeItems {
  readonly pulls = new Map<number, ForgePull | ForgePullLight>()
  readonly issues = new Map<number, ForgeIssue>()
  readonly comments = new Map<number, ForgeReviewComment>()

  add(r: ForgeRecord): void {
    switch (r.k) {
      case 'pr':
        this.pulls.set(r.n, r)
        return
      case 'prl': {
        const had = this.pulls.get(r.n)
        if (!had || had.k === 'prl') this.pulls.set(r.n, r)
        return
      }
      case 'issue':
        this.issues.set(r.n, r)
        return
      case 'rc':
        this.comments.set(r.id, r)
    }
  }

  /** The record this one would replace, as JSON (undefined: none). */
  current(r: ForgeRecord): string | undefined {
    const had = r.k === 'rc' ? this.comments.get(r.id) : r.k === 'issue' ? this.issues.get(r.n) : this.pulls.get(r.n)
    return had ? JSON.stringify(had) : undefined
  }

  counts(): ForgeCounts {
    let full = 0
    for (const p of this.pulls.values()) if (p.k === 'pr') full++
    return { pull_requests: full, issues: this.issues.size, review_comments: this.comments.size, merged_only: this.pulls.size - full }
  }

  records(): ForgeRecord[] {
    return [...this.pulls.values(), ...this.issues.values(), ...this.comments.values()]
  }
}

/** Everything the cache holds, for analyze (null: no cache). */
export function loadForgeItems(gitwhyDir: string): { state: ForgeState; items: ForgeItems } | null {
  const dir = forgeDir(gitwhyDir)
  // a compaction swaps the log under a reader: the state names the new file once it is complete
  for (let attempt = 0; attempt < 3; attempt++) {
    const state = readForgeState(gitwhyDir)
    if (!state) return null
    try {
      const items = new ForgeItems()
      for (const r of readLog(dir, state)) items.add(r)
      return { state, items }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  return null
}

/** The writer's side: `enrich` appends each page's records and then checkpoints the state. */
export class ForgeCacheWriter {
  readonly items = new ForgeItems()
  private readonly dir: string

  constructor(
    gitwhyDir: string,
    public state: ForgeState,
  ) {
    this.dir = forgeDir(gitwhyDir)
    mkdirSync(this.dir, { recursive: true })
    const file = path.join(this.dir, state.log.file)
    for (const r of readLog(this.dir, state)) this.items.add(r)
    // a killed run may have appended past its checkpoint: those bytes are not part of the cache
    if (existsSync(file) && statSync(file).size > state.log.bytes) {
      const fd = openSync(file, 'r+')
      try {
        ftruncateSync(fd, state.log.bytes)
      } finally {
        closeSync(fd)
      }
    }
  }

  /** Adds the records that change what the cache holds (appended to the log); those that did. */
  add(records: ForgeRecord[]): ForgeRecord[] {
    const changed: ForgeRecord[] = []
    const lines: string[] = []
    for (const r of records) {
      const json = JSON.stringify(r)
      if (this.items.current(r) === json) continue
      // a light record never replaces a full one: nothing to write
      if (r.k === 'prl' && this.items.pulls.get(r.n)?.k === 'pr') continue
      this.items.add(r)
      lines.push(json)
      changed.push(r)
    }
    if (lines.length === 0) return changed
    const data = Buffer.from(lines.join('\n') + '\n', 'utf8')
    const fd = openSync(path.join(this.dir, this.state.log.file), 'a')
    try {
      writeSync(fd, data)
    } finally {
      closeSync(fd)
    }
    this.state.log.bytes += data.length
    this.state.revision++
    return changed
  }

  /** The state as it is now, written atomically (the checkpoint). */
  checkpoint(): void {
    this.state.counts = this.items.counts()
    const file = path.join(this.dir, STATE)
    const tmp = `${file}.${process.pid}.tmp`
    writeFileAtomic(tmp, file, JSON.stringify(this.state))
  }

  /** Rewrites the log without its replaced records once they are most of it (the fingerprint stays). */
  compact(): void {
    const records = this.items.records()
    const text = records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : '')
    const bytes = Buffer.byteLength(text)
    if (bytes * 2 > this.state.log.bytes) return
    const old = this.state.log.file
    const next = old === LOG ? 'items-1.jsonl' : LOG
    writeFileAtomic(path.join(this.dir, `${next}.${process.pid}.tmp`), path.join(this.dir, next), text)
    this.state.log = { file: next, bytes }
    this.checkpoint()
    rmSync(path.join(this.dir, old), { force: true })
  }
}

function writeFileAtomic(tmp: string, file: string, text: string): void {
  const fd = openSync(tmp, 'w')
  try {
    writeSync(fd, text)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, file)
}

/** Starts the cache afresh (another repository or API behind `origin`): the old records go. */
export function resetForgeCache(gitwhyDir: string): void {
  const dir = forgeDir(gitwhyDir)
  for (const name of [STATE, LOG, 'items-1.jsonl']) rmSync(path.join(dir, name), { force: true })
}
