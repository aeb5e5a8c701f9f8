import path from 'node:path'
import { decisionsFingerprint, loadableDecisions, NO_DECISIONS } from '../knowledge/decision-rows.js'
import { forgeFingerprint, NO_FORGE, readForgeState } from '../forge/cache.js'
import { existsSync } from 'node:fs'
import { UserError } from '../errors.js'
import { currentEmbeddingModel, type EmbeddingRecord } from '../embed/model.js'
import { readAnalyticsConfig } from '../analytics/config.js'
import type { AnalyticsConfig } from '../analytics/types.js'
import { readIgnoreRevs } from '../git/ignore-revs.js'
import { SCHEMA_VERSION } from '../graph/schema.js'
import { readIdentityConfig, type IdentityConfig } from '../history/identity.js'
import { DEFAULT_MAX_FILE_BYTES } from '../parse/classify.js'
import { installedLanguageRegistry } from '../parse/registry.js'
import type { AnalyzeOptions, AnalyzeSummary } from './analyze.js'
import { unchangedSinceTrusted } from './index-trust.js'
import { recordIndex } from './registry.js'
import { currentHead, ensureGitwhyDir, gitwhyDir, lockFile, missingIndexFiles, originRemote, readMeta, removeStaleIndexDirs, resolveRepo, tryLock, updateMetaRemote, type IndexMeta } from './workspace.js'

/**
 * What an analyze is asked to build (the options meta.json records) and whether the active index
 * was built with the same: the first step of every analyze. Only light modules here: the CLI's fast
 * path (bin/run.js, src/cli/analyze-fast.ts) runs it before oclif loads, to answer a no-op.
 */
export interface AnalyzeSettings {
  head: string
  maxFileBytes: number
  maxCommits: number | null
  analytics: AnalyticsConfig
  identityMerge: boolean
  identities: IdentityConfig
  ignoreRevs: string[] | null
  /** Lines of the blame ignore list that are not full commit ids (warned about, skipped). */
  invalidIgnoreRevs: string[]
  extraction: string
  /** The model the search documents are embedded with; null (the default): no vectors, search is full-text only. */
  embeddings: EmbeddingRecord | null
  previous: IndexMeta | null
  /** The previous index was built with exactly these options (and extraction code). */
  sameOptions: boolean
}

export async function analyzeSettings(repo: string, options: AnalyzeOptions): Promise<AnalyzeSettings> {
  const head = await currentHead(repo)
  if (!head) {
    throw new UserError(`the repository ${repo} has no commits yet`, 'commit something first, then run `gitwhy analyze`', 'empty_repo')
  }
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
  const maxCommits = options.maxCommits ?? null
  if (maxCommits !== null && (!Number.isInteger(maxCommits) || maxCommits < 1)) {
    throw new UserError(`--max-commits must be a positive whole number, got ${maxCommits}`, 'pass e.g. --max-commits 5000, or leave it out to index the whole history', 'bad_option')
  }
  const analytics = readAnalyticsConfig(gitwhyDir(repo))
  const identityMerge = options.identityMerge !== false
  const identities = readIdentityConfig(gitwhyDir(repo))
  const ignoreList = options.ignoreRevs === false ? null : await readIgnoreRevs(repo)
  const ignoreRevs = ignoreList ? ignoreList.shas : null
  const extraction = installedLanguageRegistry().fingerprint
  const previous = readMeta(repo)
  // opt-in: embedding about doubles the CPU time of an analyze of vuejs/core (README, Search); once on, an index
  // stays embedded until `--no-embeddings` (left out, the flag means what the index was built with)
  const embedded = options.embeddings ?? Boolean(previous?.options.embeddings)
  const embeddings = embedded ? currentEmbeddingModel() : null
  const sameOptions =
    previous !== null &&
    previous.options.maxCommits === maxCommits &&
    previous.options.maxFileBytes === maxFileBytes &&
    JSON.stringify(previous.options.analytics) === JSON.stringify(analytics) &&
    previous.options.identityMerge === identityMerge &&
    JSON.stringify(previous.options.identities) === JSON.stringify(identities) &&
    JSON.stringify(previous.options.ignoreRevs) === JSON.stringify(ignoreRevs) &&
    // another model (or none): every vector is embedded again
    JSON.stringify(previous.options.embeddings ?? null) === JSON.stringify(embeddings) &&
    // New languages or changed queries: every file's symbols are extracted again.
    previous.options.extraction === extraction
  return { head, maxFileBytes, maxCommits, analytics, identityMerge, identities, ignoreRevs, invalidIgnoreRevs: ignoreList?.invalid ?? [], extraction, embeddings, previous, sameOptions }
}

/** Settings read for a repository (by the no-op check: the analyze that follows takes them as they are). */
export interface ReadSettings {
  repo: string
  settings: AnalyzeSettings
}

/** The answer of an analyze that finds the index current: it only tidies up and follows a changed remote. */
export async function finishNoop(repo: string, head: string, previous: IndexMeta, onWarning: AnalyzeOptions['onWarning']): Promise<AnalyzeSummary> {
  ensureGitwhyDir(repo)
  // what failed or killed builds left behind goes, unless another analyze is building now
  const release = tryLock(lockFile(repo))
  if (release) {
    try {
      removeStaleIndexDirs(repo)
      // the one thing a no-op analyze refreshes: links follow a changed remote
      updateMetaRemote(repo, await originRemote(repo))
    } finally {
      release()
    }
  }
  register(repo, head, onWarning)
  return { repo, head, mode: 'noop', new_commits: 0, counts: previous.counts, skipped: previous.skipped, timings: { total_ms: 0 }, embeddings: { model: previous.options.embeddings?.id ?? null, embedded: 0 } }
}

/**
 * The no-op answer when nothing needs checking: same options, same HEAD, and an index this
 * machine built or verified whose every file is still the very file it hashed (index-trust.ts).
 * null in every other case, warnings included: then the full analyze decides, as it always does.
 */
export async function analyzeIfCurrent(options: AnalyzeOptions, onSettings?: (settings: ReadSettings) => void): Promise<AnalyzeSummary | null> {
  if (options.force) return null
  const repo = await resolveRepo(options.repo)
  const s = await analyzeSettings(repo, options)
  onSettings?.({ repo, settings: s })
  const previous = s.previous
  if (!previous || !s.sameOptions || previous.head !== s.head || previous.schemaVersion !== SCHEMA_VERSION || s.invalidIgnoreRevs.length > 0) return null
  const dir = path.join(gitwhyDir(repo), previous.indexDir)
  if (!existsSync(dir) || missingIndexFiles(dir).length > 0 || !unchangedSinceTrusted(repo, dir, previous.manifest)) return null
  // recorded decisions changed: the full analyze reloads them into the graph
  if ((previous.decisions ?? NO_DECISIONS) !== decisionsFingerprint(loadableDecisions(repo))) return null
  // the forge cache changed (`gitwhy enrich`): the full analyze applies it
  if ((previous.forge?.fingerprint ?? NO_FORGE) !== forgeFingerprint(readForgeState(gitwhyDir(repo)))) return null
  return finishNoop(repo, s.head, previous, options.onWarning)
}

/** Record the index in the user-level registry; a failure there (read-only HOME) only warns. */
export function register(repo: string, head: string, onWarning: AnalyzeOptions['onWarning']): void {
  try {
    recordIndex(repo, head)
  } catch (error) {
    onWarning?.(`could not record ${repo} in the repository registry (${(error as Error).message}); MCP tools can still reach it by path`)
  }
}
