import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { feedbackCounts } from './feedback.js'
import { sparesDir } from './graph-spare.js'
import { IndexReader } from './index-reader.js'
import type { IndexInfo } from './types.js'
import { damagedIndex, verifyAll } from './index-integrity.js'
import { unchangedSinceTrusted } from './index-trust.js'
import { currentHead, gitwhyDir, metaDamaged, readMeta, resolveRepo } from './workspace.js'
import { forgeFingerprint, LISTINGS, readForgeState } from '../forge/cache.js'

export interface StatusResult {
  repo: string
  indexed: boolean
  head: string | null
  index: (IndexInfo & { built_at: string; schema_version: number; size_bytes: number; spare_bytes: number; shallow: boolean; max_commits: number | null }) | null
  counts: Record<string, number>
  skipped: Record<string, number>
  timings: Record<string, number>
  /** What `gitwhy enrich` fetched (null: never ran here), and whether the index holds it. */
  enrichment: EnrichmentStatus | null
  /** Answer feedback (`gitwhy feedback`): votes up and down, the answers voted on, the answers recorded (.gitwhy/answers.jsonl). */
  feedback: { up: number; down: number; voted_answers: number; recorded_answers: number }
}

export interface EnrichmentStatus {
  forge: 'github'
  /** owner/name, and the API it was read from. */
  repo: string
  api: string
  /** Records in the forge cache (.gitwhy/forge/). */
  pull_requests: number
  issues: number
  review_comments: number
  /** When a run last finished every listing (null: none has yet). */
  enriched_at: string | null
  /** When the last run ended, and whether it finished (false: the next `gitwhy enrich` goes on). */
  last_run: string | null
  complete: boolean
  /** The active index holds what the cache holds now (false: run `gitwhy analyze`), and how many of its PR and issue rows came from it. */
  in_index: boolean
  index_pull_requests: number
  index_issues: number
}

/** The forge cache's state as status reports it: state.json only (no records read). */
export function enrichmentStatus(repo: string): EnrichmentStatus | null {
  const state = readForgeState(gitwhyDir(repo))
  if (!state) return null
  const meta = readMeta(repo)
  return {
    forge: state.forge,
    repo: state.repo,
    api: state.api,
    pull_requests: state.counts.pull_requests,
    issues: state.counts.issues,
    review_comments: state.counts.review_comments,
    enriched_at: state.enrichedAt,
    last_run: state.lastRun?.at ?? null,
    complete: LISTINGS.every((k) => state.listings[k].run === null),
    in_index: meta?.forge?.fingerprint === forgeFingerprint(state),
    index_pull_requests: meta?.forge?.pull_requests ?? 0,
    index_issues: meta?.forge?.issues ?? 0,
  }
}

/**
 * Bytes under `dir` (0 when there is none). An entry that goes while it is walked counts nothing:
 * the spare copier renames and an analyze removes files there at any time.
 */
function dirSize(dir: string): number {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return 0
  }
  let total = 0
  for (const name of names) {
    const p = path.join(dir, name)
    const s = statSync(p, { throwIfNoEntry: false })
    if (s) total += s.isDirectory() ? dirSize(p) : s.size
  }
  return total
}

/**
 * Indexed HEAD vs the working HEAD, counts, size, freshness. Works before the first analyze too.
 * A damaged index is an error naming the fix: every file is hashed, unless each is still the very
 * file this machine hashed (index-trust.ts: same size, inode and change time; a stat each, so a
 * status call stays quick on a large index). `doctor` always hashes everything.
 */
export async function status(options: { repo?: string }): Promise<StatusResult> {
  const repo = await resolveRepo(options.repo)
  const head = await currentHead(repo)
  if (!readMeta(repo) && !metaDamaged(repo)) return { repo, indexed: false, head, index: null, counts: {}, skipped: {}, timings: {}, enrichment: enrichmentStatus(repo), feedback: feedbackCounts(repo) }
  const reader = IndexReader.openRoot(repo)
  try {
    const problems = unchangedSinceTrusted(repo, reader.dir, reader.meta.manifest) ? [] : verifyAll(reader.dir, reader.meta.manifest)
    if (problems.length > 0) throw damagedIndex(reader.dir, problems.slice(0, 3).join('; ') + (problems.length > 3 ? '; …' : ''))
    const info = await reader.indexInfo(head)
    const m = reader.meta
    return {
      repo,
      indexed: true,
      head,
      index: { ...info, built_at: m.createdAt, schema_version: m.schemaVersion, size_bytes: dirSize(reader.dir), spare_bytes: dirSize(sparesDir(gitwhyDir(repo))), shallow: m.shallow, max_commits: m.options.maxCommits },
      counts: m.counts,
      skipped: m.skipped,
      timings: m.timings,
      enrichment: enrichmentStatus(repo),
      feedback: feedbackCounts(repo),
    }
  } finally {
    await reader.close()
  }
}
