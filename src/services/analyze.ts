import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { readHistory, type RawCommit } from '../git/history-reader.js'
import { decodeSource } from '../git/decode.js'
import { countLines, listTreeAndLinks, readBlobs, type TreeLink } from '../git/tree.js'
import { writeGraph, type GraphVectors } from '../graph/load.js'
import { ACTIVITY_COLUMNS, NO_WORDS, SCHEMA_VERSION } from '../graph/schema.js'
import type { GraphDelta, GraphRels } from '../graph/delta.js'
import { GraphDeltaWriter } from '../graph/delta-writer.js'
import { SpareCopier } from './graph-spare.js'
import { dropHeadStart, type GraphHeadStart } from './graph-head-start.js'
import { NO_ACTIVITY, type ActivityRow, type CoChangeRow, type DecisionSimilarRow, type FileRow, type GraphData, type IssueRow, type PullRequestRow, type SymbolRow } from '../graph/types.js'
import { activityTables, analyticsRows, coChangeChangesets, computeColumnAnalytics, ownedByRows } from '../analytics/build.js'
import { activityAt, changesFromRows, headInput, sameActivity, type ActivityTable, loadAnalyticsColumns, loadAnalyticsState, loadStoredAnalytics, saveAnalyticsState, ownershipFromBlame, saveAnalyticsCache, saveStoredAnalytics, type AnalyticsCache, type StoredAnalytics } from '../analytics/cache.js'
import { AnalyticsColumns, inKeyOrder, type AnalyticsState } from '../analytics/columns.js'
import type { ChangeWithSymbolLines } from '../analytics/stats.js'
import type { AnalyticsConfig } from '../analytics/types.js'
import { commitTables } from '../history/commits.js'
import { revertsOf, type RevertEdge } from '../history/reverts.js'
import { LANDED_FILE, trajectoryRows, type LandedState } from '../trajectory/graph.js'
import { buildGraph } from '../history/graph.js'
import { PatchWriter, PathIndex, savePathIndex } from '../history/path-index.js'
import { linkOrCopy } from '../history/shards.js'
import { appendCommitCatalog, catalogForForge, loadCommitCatalog, saveCommitCatalog } from '../history/commit-catalog.js'
import { forgeFingerprint, loadForgeItems, NO_FORGE, readForgeState } from '../forge/cache.js'
import { applyForge, emptyDelta, forgeData, forgeDelta, type ForgeApplied, type ForgeData, type ForgeDelta } from '../forge/apply.js'
import { blameOwners, mapHistory, type IgnoredRevs, type MapResult, type MapTarget } from '../history/hunk-mapper.js'
import { resolveIdentities, summariseSignatures, type AuthorSignature, type IdentityConfig } from '../history/identity.js'
import { readIgnoredContent } from '../git/ignore-revs.js'
import { computeIgnoreGuesses, ignoredRevsFor, type IgnoreGuesses } from '../history/ignore-revs.js'
import type { HistoryGraph } from '../history/graph.js'
import { classifyFile, createSymbolExtractor, installedLanguageRegistry, isTestPath, NO_CONTENT_DIFF_PATTERNS } from '../parse/index.js'
import { treeSitterRuntime } from '../parse/runtime.js'
import { isModuleConfigFile } from '../codegraph/modules.js'
import { CODE_GRAPH_FILE, loadCodeGraph, resolverFingerprint, saveCodeGraph } from '../codegraph/cache.js'
import { buildFlows, type Flows } from '../codegraph/flows.js'
import { buildCodeGraph, MODULE_SYMBOL, resolutionFace, type CallEdge, type CodeGraph } from '../codegraph/resolve.js'
import type { SkipReason } from '../parse/types.js'
import { analyzeSettings, finishNoop, register, type ReadSettings } from './analyze-settings.js'
import { SKIPPED_BLOBS, writeSkippedFiles, type SkippedBlobs, type SkippedReason } from './skipped-files.js'
import { packageVersion } from '../setup/launcher.js'
import { COCHANGE_FILE, FORGE_FILE, GRAPH_DB, IGNORED_REVS_FILE, loadIndexedFiles, symbolIds, updateIndexedFiles, writeIndexedFiles, type IndexedFile } from './index-layout.js'
import { hashIndexFiles, readIndexJson, verifyAll, writeManifest } from './index-integrity.js'
import { docComment, symbolSearchText } from '../codegraph/search-text.js'
import { DocMaker, rawCommitDoc, type MadeDoc } from '../embed/doc-maker.js'
import { issueDoc, numberDocs, pullRequestDoc, symbolDoc, type DocRow } from '../embed/docs.js'
import { DocEmbedder, EMBEDDINGS_FILE, VECTORS_FILE, VectorCache } from '../embed/vectors.js'
import { isTrusted, trustIndex, unchangedSinceTrusted } from './index-trust.js'
import { boundHeapGrowth, collectGarbage } from '../runtime/gc.js'
import { optimiseHotLoops } from '../runtime/tiers.js'
import { traceFile, writeSpan, type Span } from '../trace.js'
import { verifyAgainstGit } from './index-verify.js'
import { decisionGraph, decisionsFingerprint, decisionTables, endsOf, loadableDecisions, NO_DECISIONS } from '../knowledge/decision-rows.js'
import type { Decision } from '../knowledge/decision-model.js'
import { similarDecisions } from '../knowledge/decision-similar.js'
import type { EmbeddingRecord } from '../embed/model.js'
import { reportDecisionHealth } from './decision-verify.js'
import {
  acquireLock,
  emptyTrash,
  activateIndex,
  excludeFromGit,
  gitwhyDir,
  isAncestor,
  missingIndexFiles,
  newIndexDir,
  originRemote,
  readMeta,
  resolveRepo,
  shallowCommits,
  updateMetaForge,
  writeFailure,
  type IndexMeta,
} from './workspace.js'

/** A phase's progress: `done` of `total` (0, 0: the phase started, its size not yet known). */
export type ProgressFn = (phase: string, done: number, total: number) => void

export interface AnalyzeOptions {
  repo?: string
  force?: boolean
  /** Index only the newest N commits (answers beyond the cut are reported as undecided). */
  maxCommits?: number
  /** Files larger than this are skipped (default 1 MB). */
  maxFileBytes?: number
  /** Group author emails into one identity per person beyond .mailmap (default true; see identity.ts). */
  identityMerge?: boolean
  /** Blame looks through the commits listed in blame.ignoreRevsFile / .git-blame-ignore-revs (default true). */
  ignoreRevs?: boolean
  /** Embed the search documents for `search` (default false: opt-in, it about doubles the CPU time of an analyze of vuejs/core; search is then full-text only). */
  embeddings?: boolean
  onProgress?: ProgressFn
  /** Something went wrong that does not affect the index (e.g. the user-level registry). */
  onWarning?: (message: string) => void
  /** Build afresh even where an update would do (after an update whose graph did not check out). */
  rebuild?: boolean
  /** The settings the no-op check just read for this repository (src/fast/analyze.ts): not read again. */
  settings?: ReadSettings
  /** The graph the fast path started copying for an update (graph-head-start.ts): taken, or dropped. */
  headStart?: GraphHeadStart
}

export interface AnalyzeSummary {
  repo: string
  head: string
  mode: 'noop' | 'incremental' | 'full'
  new_commits: number
  counts: Record<string, number>
  skipped: Record<string, number>
  timings: Record<string, number>
  /** The process's peak resident memory (MB) when each timed phase ended: the phase that raised it is the one to look at. */
  peak_mb?: Record<string, number>
  /** The search documents' embeddings: the model (null: not embedded, the default), and the texts this run sent to it (the others came from the previous index's vectors). */
  embeddings: { model: string | null; embedded: number }
}

const VERSION = packageVersion()

/**
 * Where a full build saves the history it mined, chunk by chunk, until the index is built: an
 * interrupted analyze (Ctrl-C, a kill, a crash) resumes from there instead of mining it again.
 */
function checkpointDir(repo: string): string {
  return path.join(gitwhyDir(repo), 'checkpoint')
}

export async function analyze(options: AnalyzeOptions): Promise<AnalyzeSummary> {
  try {
    return await analyzeResolved(options)
  } finally {
    // a head start the analyze did not take (a no-op after all, an error before it began)
    if (options.headStart && !options.headStart.adopted) await dropHeadStart(options.headStart)
  }
}

async function analyzeResolved(options: AnalyzeOptions): Promise<AnalyzeSummary> {
  const repo = await resolveRepo(options.repo)
  const trace = traceFile(repo)
  if (!trace) return analyzeTraced(repo, options)
  const started = Date.now()
  const t0 = performance.now()
  let summary: AnalyzeSummary | undefined
  let failure: unknown
  try {
    return (summary = await analyzeTraced(repo, options))
  } catch (error) {
    failure = error
    throw error
  } finally {
    writeSpan(trace, { ...phaseSpan('analyze', started, performance.now() - t0, undefined, failure), kind: 'analyze', ...(summary ? { sizes: { rows: summary.new_commits } } : {}) })
  }
}

/** A span of an analyze phase: its rows are the commits or files it returned, where it returns them. */
function phaseSpan(name: string, started: number, ms: number, result: unknown, failure: unknown): Span {
  const rows = Array.isArray(result) ? result.length : result && typeof result === 'object' && Array.isArray((result as { files?: unknown }).files) ? (result as { files: unknown[] }).files.length : undefined
  return {
    name,
    kind: 'phase',
    start: new Date(started).toISOString(),
    duration_ms: Math.round(ms * 1000) / 1000,
    ...(rows !== undefined ? { sizes: { rows } } : {}),
    ...(result && typeof result === 'object' && typeof (result as { cacheHit?: unknown }).cacheHit === 'boolean' ? { cache_hit: (result as { cacheHit: boolean }).cacheHit } : {}),
    ...(failure !== undefined ? { error: failure instanceof Error ? failure.message : String(failure) } : {}),
  }
}

async function analyzeTraced(repo: string, options: AnalyzeOptions): Promise<AnalyzeSummary> {
  const root = gitwhyDir(repo)
  const hadDir = existsSync(root)
  try {
    try {
      return await analyzeRepo(repo, options)
    } catch (error) {
      // the graph of an update did not hold the rows it should (Kuzu lost some: delta.ts RelLedger);
      // the update left nothing behind, and a rebuild gives the index it should have given
      if (!(error instanceof Error && error.name === 'GraphDeltaMismatch')) throw error
      options.onWarning?.(`rebuilt the index instead of updating it: ${error.message}`)
      return await analyzeRepo(repo, { ...options, rebuild: true })
    }
  } catch (error) {
    // a first analyze that fails leaves no .gitwhy/ behind (only what it wrote there: the .gitignore)
    if (!hadDir) {
      rmSync(checkpointDir(repo), { recursive: true, force: true })
      rmSync(path.join(root, '.gitignore'), { force: true })
      try {
        rmdirSync(root)
      } catch {
        // not empty: someone else's files (or another analyze) are there now
      }
    }
    throw writeFailure(error, root) ?? error
  }
}

async function analyzeRepo(repo: string, options: AnalyzeOptions): Promise<AnalyzeSummary> {
  const settings = options.settings?.repo === repo && !options.rebuild ? options.settings.settings : await analyzeSettings(repo, options)
  const { head, maxFileBytes, maxCommits, analytics: analyticsConfig, identityMerge, identities, ignoreRevs, extraction, embeddings: embeddingModel, previous } = settings
  if (settings.invalidIgnoreRevs.length > 0) options.onWarning?.(`skipped lines of the blame ignore list that are not full commit ids (git refuses them too): ${settings.invalidIgnoreRevs.slice(0, 5).join(', ')}`)
  const usable = !options.force && previous !== null && settings.sameOptions && (await usablePrevious(repo, previous, options.onWarning))
  // the decisions the graph gets: read once, so that meta.json's fingerprint says what was loaded
  const decisions = loadableDecisions(repo, options.onWarning)
  const fingerprint = decisionsFingerprint(decisions)
  // the forge cache `gitwhy enrich` keeps: its fingerprint says whether the index holds what it holds
  const forgePrint = forgeFingerprint(readForgeState(gitwhyDir(repo)))
  if (usable && previous.head === head && !options.rebuild) {
    const sameDecisions = (previous.decisions ?? NO_DECISIONS) === fingerprint
    const sameForge = (previous.forge?.fingerprint ?? NO_FORGE) === forgePrint
    if ((sameDecisions && sameForge) || !previous.manifest) return finishNoop(repo, head, previous, options.onWarning)
    const refreshed = await refreshIndex(repo, previous, { decisions: sameDecisions ? null : { decisions, fingerprint }, recorded: decisions, forge: sameForge ? undefined : loadForge(repo) }, options)
    if (refreshed) return refreshed
    // the forge cache took back what the index holds (a deleted cache, an edited description): rebuilt
    options.onWarning?.('rebuilt the index: the forge cache no longer holds what the index took from it')
    return analyzeRepo(repo, { ...options, rebuild: true })
  }
  const similar = await similarOf(repo, decisions, embeddingModel)
  const forge = loadForge(repo)

  const release = acquireLock(repo)
  // what earlier runs retired is deleted meanwhile
  const trash = emptyTrash(repo)
  // the next update's spare graph is copied by a process started now, while this one is small
  const copier = SpareCopier.standby(previous ? path.join(gitwhyDir(repo), previous.indexDir, GRAPH_DB) : null)
  const started = performance.now()
  const timings: Record<string, number> = {}
  const peakMb: Record<string, number> = {}
  const progress = options.onProgress ?? (() => {})
  // Every timed phase shows in the progress, but those that report their own counts (and `update`,
  // which holds the update_* phases).
  // GITWHY_TRACE: a span per phase (null: off, nothing more is done)
  const trace = traceFile(repo)
  const time = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
    const shown = !SELF_REPORTING.has(name)
    const label = name.replace(/_/g, ' ')
    if (shown) progress(label, 0, 0)
    const t0 = performance.now()
    const started = trace ? Date.now() : 0
    let result: T | undefined
    let failure: unknown
    try {
      return (result = await fn())
    } catch (error) {
      failure = error
      throw error
    } finally {
      timings[`${name}_ms`] = Math.round(performance.now() - t0)
      peakMb[name] = Math.round(process.resourceUsage().maxRSS / 1024)
      if (shown) progress(label, 1, 1)
      if (trace) writeSpan(trace, phaseSpan(`analyze.${name}`, started, performance.now() - t0, result, failure))
    }
  }
  // the directory the fast path's head start copied the graph into is this one's (graph-head-start.ts)
  const early = options.headStart?.adopted === false && path.dirname(options.headStart.dir) === gitwhyDir(repo) ? options.headStart : null
  if (early) early.adopted = true
  const { id, dir } = early ?? newIndexDir(repo)
  // read meanwhile: its git process is ~20 ms at the end otherwise
  const remote = originRemote(repo)
  remote.catch(() => {})
  // vectors of texts the active index embedded with the same model are reused, even by a rebuild (not by --force)
  const activeDir = previous && !options.force ? path.join(gitwhyDir(repo), previous.indexDir) : null
  const cache = VectorCache.load(activeDir, embeddingModel)
  const embedder = embeddingModel ? new DocEmbedder(cache, (done, total) => progress('embeddings', done, total)) : null
  let writer: GraphDeltaWriter | null = null
  try {
    // three git questions at once: the exclude file, a shallow clone, the previous HEAD an ancestor of this one
    const ancestor = usable ? isAncestor(repo, previous.head, head) : Promise.resolve(false)
    const [, shallow] = await Promise.all([excludeFromGit(repo), shallowCommits(repo), ancestor])
    const prevDir = usable ? path.join(gitwhyDir(repo), previous.indexDir) : null
    const history: HistoryOptions = { repo, identityMerge, identities, ignoreRevs }
    const outgrown = prevDir !== null && !options.rebuild ? graphOutgrown(prevDir, previous!) : null
    if (outgrown) options.onWarning?.(`rebuilt the index: its graph had grown to ${mb(outgrown.now)} from ${mb(outgrown.built)} at its last full build (Kuzu does not reuse all the space an update frees)`)
    const canUpdate = !options.rebuild && prevDir !== null && maxCommits === null && shallow.size === 0 && !previous!.shallow && !outgrown && (await ancestor)
    // A build's documents (~8 s of this thread on rails/rails) are made on the maker's thread. With
    // embeddings, the commits' are asked for as the history's chunks arrive and embedded as they
    // come; without, all at once when the history is read (while this thread maps it).
    let maker: DocMaker | null = null
    let commitDocParts: Array<Promise<MadeDoc[]>> = []
    const read = (range: string, patches?: PatchWriter, checkpoints?: string) => {
      progress('history', 0, 0) // the phase's clock starts before git's first commit arrives
      commitDocParts = []
      return readHistory(repo, {
        range: [range],
        maxCommits: maxCommits ?? undefined,
        noContentDiff: NO_CONTENT_DIFF_PATTERNS,
        workDir: dir,
        onProgress: progress,
        patches,
        checkpointDir: checkpoints,
        onResumed: (done, total) => options.onWarning?.(`resumed an interrupted analyze: ${done} of ${total} commits were mined already`),
        onCommits: (chunk) => {
          if (!embedder) return
          // an update makes its few itself (the build, the one that writes the patch store, on the maker's thread)
          if (!patches) return embedder.add(chunk.map(rawCommitDoc))
          const part = (maker ??= new DocMaker()).commits(chunk)
          part.then((docs) => embedder.add(docs), () => {})
          commitDocParts.push(part)
        },
      })
    }
    // a full build writes the patch store as it reads the history, and checkpoints what it mined
    const readAll = async () => {
      // a build's heap, not an update's (whose collections it would only add: prettier +60 ms)
      boundHeapGrowth()
      const patches = new PatchWriter(dir)
      try {
        const commits = await read(head, patches, checkpointDir(repo))
        await patches.finish()
        return commits
      } catch (error) {
        await patches.close()
        throw error
      }
    }

    // an update's graph is copied and opened on the delta's thread meanwhile (null: a rebuild)
    if (early && !(canUpdate && early.from === path.join(prevDir!, GRAPH_DB))) await early.writer.close({ discard: true })
    else if (early) writer = early.writer
    writer ??= canUpdate ? new GraphDeltaWriter(path.join(prevDir!, GRAPH_DB), path.join(dir, GRAPH_DB), previous!.graphRels) : null
    // History (git-bound) and files (parse-bound) run concurrently.
    let historyPromise: Promise<RawCommit[]> | null = time('history', () => (canUpdate ? read(`${previous!.head}..${head}`) : readAll()))
    historyPromise.catch(() => {})
    // an update's largest reads, done while the files phase below waits for git (its first turn of the event loop)
    const prefetched = canUpdate ? whileWaiting(() => ({ columns: loadAnalyticsColumns(prevDir!), stored: loadStoredAnalytics(prevDir!), state: loadAnalyticsState(prevDir!) })) : null
    // an update's trajectory rows: worked out from when the new commits are read (mostly a wait for git)
    let filesRead: (files: IndexedFile[]) => void = () => {}
    const filesKnown = new Promise<IndexedFile[]>((resolve) => (filesRead = resolve))
    const trajectory = canUpdate ? updateTrajectory(repo, prevDir!, head, historyPromise, filesKnown) : null
    const { files, skipped, skippedPaths, skippedBlobs, previousFiles, links } = await time('files', () => indexFiles(repo, head, maxFileBytes, prevDir, progress, dir))
    recordSkippedFiles(dir, skippedPaths, skippedBlobs, links)
    filesRead(files)
    let commits = await historyPromise
    historyPromise = null

    let counts: Record<string, number> | null = null
    let forgeApplied: ForgeApplied | null = null
    let mode: AnalyzeSummary['mode'] = 'full'
    /** Files of the new index hashed as they were written (the manifest takes these as they are). */
    let hashed: Record<string, [number, string]> = {}
    /** The new graph's relationship counts (IndexMeta.graphRels). */
    let graphRels: GraphRels = {}
    const newCommits = commits.length
    if (canUpdate) {
      const updated = await time('update', () => updateIndex({ repo, prevDir: prevDir!, prefetched: prefetched!, timings, manifest: previous!.manifest!, dir, oldHead: previous!.head, head, fresh: commits, files, previousFiles, time, config: analyticsConfig, history, embedder, cache, writer: writer!, decisions, hadDecisions: (previous!.decisions ?? NO_DECISIONS) !== NO_DECISIONS, similar, forge, trajectory: trajectory!, onWarning: options.onWarning }))
      // the graph's thread's steps, timed there (they overlap this thread's phases)
      if (trace) for (const step of writer!.steps) writeSpan(trace, phaseSpan(`analyze.graph_${step.op}`, step.at, step.ms, undefined, undefined))
      if (updated) {
        ;({ counts, hashed, forgeApplied, graphRels } = updated)
        mode = 'incremental'
      } else {
        // a rebuild after all: its graph is loaded afresh where the copy was
        await writer!.close({ discard: true })
        commits = await time('history_full', readAll)
      }
    }
    if (!counts) {
      // the trajectory's rows (mostly a wait for git) are worked out while the history is mapped
      const trajectoryWarnings: string[] = []
      const pendingTrajectory = trajectoryRows(repo, head, () => knownAtHead(files), (m) => trajectoryWarnings.push(m))
      pendingTrajectory.catch(() => {})
      // the reverts' git pass (rails: ~2 s, nearly all of it git's) runs while the history is mapped
      const reverts = revertsOf(repo, commits, undefined, dir)
      reverts.catch(() => {})
      maker ??= new DocMaker(commits.length >= DOC_THREAD_COMMITS)
      const commitDocs = commitDocParts.length > 0 ? Promise.all(commitDocParts).then((parts) => parts.flat()) : maker.commits(commits)
      commitDocs.catch(() => {})
      commitDocParts = []
      const data = await mapAndSave(commits, commitDocs, maker, reverts, files, shallow, dir, head, analyticsConfig, history, time, progress, embedder, forge, (applied) => (forgeApplied = applied))
      // data.docs has them now, and the load lets each table go once written (~190 MB on git/git)
      await maker.close()
      const trajectory = await pendingTrajectory
      for (const m of trajectoryWarnings) options.onWarning?.(m)
      writeFileSync(path.join(dir, LANDED_FILE), JSON.stringify(trajectory.state))
      Object.assign(data, trajectory.rows)
      Object.assign(data, decisionTables(decisionGraph(decisions, similar), endsOf(data)))
      // The mined history is on disk now; let it go before Kuzu takes its buffer pool.
      commits = []
      counts = {
        commits: data.commits.length,
        files: files.length,
        symbols: data.symbols.length - data.defines.filter((d) => d.symbol.endsWith(`#${MODULE_SYMBOL}`)).length,
        calls: data.calls.length,
        imports: data.imports.length,
        authors: data.authors.length,
        pull_requests: data.pullRequests.length,
        issues: data.issues.length,
        blamed_on: data.blamedOn.length,
        changed: data.changed.length,
        docs: data.docs.length,
        decisions: data.decisions?.length ?? 0,
      }
      // the load empties data's tables as it writes them (release): what the vectors need stays here
      const docs = embedder ? data.docs : []
      const docCount = counts.docs
      const docHashes = new Set(data.docs.map((d) => d.hash))
      // Kuzu loads every other table while the workers finish; embeddings_ms is the wait for them
      // (timed when off too, 0 ms: --json's timings keep one set of keys)
      const vectors = async (): Promise<GraphVectors | undefined> => {
        await time('embeddings', () => embedder?.finish())
        cache.nextRow = docCount
        cache.save(dir, docHashes)
        return embedder && cache.dimensions > 0 ? { dimensions: cache.dimensions, ...cache.flat(docs) } : undefined
      }
      ;({ rels: graphRels } = await time('graph_load', () => writeGraph(path.join(dir, GRAPH_DB), data, { tmpDir: dir, vectors, vectorDimensions: embedder ? cache.dimensions || undefined : 0, release: true, onPhase: (name) => progress(`load ${name}`, 0, 1) })))
    }
    const manifest = await time('manifest', () => writeManifest(dir, mode === 'incremental' ? { dir: prevDir!, manifest: previous!.manifest! } : undefined, hashed))
    timings.total_ms = Math.round(performance.now() - started)
    const meta: IndexMeta = {
      schemaVersion: SCHEMA_VERSION,
      indexDir: id,
      head,
      shallow: shallow.size > 0,
      options: { maxCommits, maxFileBytes, analytics: analyticsConfig, identityMerge, identities, ignoreRevs, extraction, embeddings: embeddingModel },
      counts,
      skipped,
      timings,
      createdAt: new Date().toISOString(),
      gitwhyVersion: VERSION,
      manifest,
      remote: await remote,
      decisions: fingerprint,
      ...forgeMeta(forgeApplied),
      graphBuiltBytes: mode === 'incremental' ? (previous!.graphBuiltBytes ?? statSync(path.join(prevDir!, GRAPH_DB)).size) : statSync(path.join(dir, GRAPH_DB)).size,
      graphRels,
    }
    // the trash shares files with this index (hard-linked shards): deleting them changes their
    // change time, so the trust record is taken once that is over (it is, long since, nearly always)
    await trash
    trustIndex(repo, dir, manifest)
    activateIndex(repo, meta, copier)
    // removing older indexes unlinked files this one shares with them (hard-linked shards), which
    // changes their change time: record them as they are now, so the next run need not hash them
    refreshTrust(repo, dir, manifest)
    rmSync(checkpointDir(repo), { recursive: true, force: true })
    register(repo, head, options.onWarning)
    await reportDecisionHealth(repo, options.onWarning)
    return { repo, head, mode, new_commits: mode === 'incremental' ? newCommits : counts.commits, counts, skipped, timings, peak_mb: peakMb, embeddings: { model: embeddingModel?.id ?? null, embedded: embedder?.documents ?? 0 } }
  } catch (error) {
    await writer?.close()
    rmSync(dir, { recursive: true, force: true })
    throw error
  } finally {
    copier.cancel()
    await writer?.close()
    await embedder?.close()
    await trash
    release()
  }
}

/**
 * `read` once this thread is next idle (setImmediate: after the event loop's wait for I/O), so
 * that it fills a wait for git instead of lengthening what runs now. Its failure reaches whoever
 * awaits the result, not the process (an update may give up before it does).
 */
function whileWaiting<T>(read: () => T): Promise<T> {
  const result = new Promise<T>((resolve, reject) => setImmediate(() => {
    try {
      resolve(read())
    } catch (error) {
      reject(error)
    }
  }))
  result.catch(() => {})
  return result
}

/** An updated graph this many times the size it was built at is loaded afresh (IndexMeta.graphBuiltBytes). */
const GRAPH_REGROWTH = 1.5

/** The previous index's graph when it has outgrown its build (sizes in bytes); null when not. */
function graphOutgrown(prevDir: string, previous: IndexMeta): { now: number; built: number } | null {
  if (previous.graphBuiltBytes === undefined) return null
  const now = statSync(path.join(prevDir, GRAPH_DB)).size
  return now > GRAPH_REGROWTH * previous.graphBuiltBytes ? { now, built: previous.graphBuiltBytes } : null
}

const mb = (bytes: number): string => `${Math.round(bytes / (1 << 20))} MB`

/**
 * HEAD unchanged, the recorded decisions or the forge cache changed: a new index whose files are
 * the active one's (hard links) and whose graph is a copy with the decisions replaced and the
 * forge's delta applied (PR and issue rows, their documents, new PART_OF and CLOSES edges, the
 * commit catalog's entries they touch), swapped in like any other. Null when the forge cache took
 * back something the index holds: the caller rebuilds.
 */
async function refreshIndex(
  repo: string,
  previous: IndexMeta,
  change: { decisions: { decisions: Decision[]; fingerprint: string } | null; recorded: Decision[]; forge?: ForgeData | null },
  options: AnalyzeOptions,
): Promise<AnalyzeSummary | null> {
  const started = performance.now()
  const prevDir = path.join(gitwhyDir(repo), previous.indexDir)
  // the forge's delta is worked out first: a cache that took something back rebuilds instead
  let forge: { delta: ForgeDelta; catalog: ReturnType<typeof catalogForForge> } | null = null
  if (change.forge !== undefined) {
    const old = readIndexJson<ForgeApplied>(prevDir, FORGE_FILE)
    const catalog = catalogForForge(prevDir, null)
    const delta = old ? forgeDelta(old, { prsOf: catalog.prsOf, issueRefs: catalog.issueRefs, freshCloses: [] }, change.forge) : null
    if (!delta) return null
    // a new cache that changes nothing here (only PRs and issues this history does not name): meta.json says so
    if (emptyDelta(delta) && !change.decisions) {
      const release = acquireLock(repo)
      try {
        updateMetaForge(repo, forgeMeta(delta.applied).forge)
      } finally {
        release()
      }
      return finishNoop(repo, previous.head, readMeta(repo) ?? previous, options.onWarning)
    }
    forge = { delta, catalog }
  }
  const release = acquireLock(repo)
  const { id, dir } = newIndexDir(repo)
  const writer = new GraphDeltaWriter(path.join(prevDir, GRAPH_DB), path.join(dir, GRAPH_DB), previous.graphRels)
  const model = previous.options.embeddings ?? null
  const vectors = forge ? VectorCache.load(prevDir, model) : null
  const embedder = vectors && model ? new DocEmbedder(vectors, (done, total) => options.onProgress?.('embeddings', done, total)) : null
  try {
    linkIndexFiles(prevDir, dir, new Set([GRAPH_DB, 'manifest.json', ...(forge ? ['commits', FORGE_FILE, EMBEDDINGS_FILE, VECTORS_FILE] : [])]))
    if (forge) {
      const parts = forgeParts(forge.delta, new Set(), new Set())
      const docs = numberDocs(parts.docs, vectors!.nextRow)
      embedder?.add(docs)
      await embedder?.finish()
      vectors!.nextRow += docs.length
      writer.apply({
        removeDocs: parts.removeDocs,
        updatePullRequests: parts.updatePullRequests,
        updateIssues: parts.updateIssues,
        insert: { pullRequests: parts.newPullRequests, issues: parts.newIssues, partOf: forge.delta.partOf, closes: forge.delta.closes, docs, docVectors: embedder ? docs.filter((d) => !d.unembedded).map((d) => ({ row: d.row, embedding: Array.from(vectors!.get(d.hash)!) })) : [] },
      })
      vectors!.save(dir)
      forge.catalog.write(dir, { prs: forge.delta.prs, issues: forge.delta.issues, partOf: forge.delta.partOf, rows: forge.delta.rows })
      writeFileSync(path.join(dir, FORGE_FILE), JSON.stringify(forge.delta.applied))
    }
    // the decisions last (their evidence may be a PR or an issue the forge just added), as a build loads them
    const addsEnds = forge !== null && (forge.delta.newPrs.size > 0 || forge.delta.newIssues.size > 0)
    if (change.decisions || addsEnds) {
      const recorded = change.decisions?.decisions ?? change.recorded
      writer.apply({ decisions: decisionGraph(recorded, await similarOf(repo, recorded, model)) })
    }
    const { counts, rels, graph } = await writer.finish()
    const manifest = writeManifest(dir, { dir: prevDir, manifest: previous.manifest! }, { [GRAPH_DB]: graph })
    const total = Math.round(performance.now() - started)
    const timings = { [forge ? 'refresh_ms' : 'decisions_ms']: total, total_ms: total }
    const meta: IndexMeta = {
      ...previous,
      indexDir: id,
      counts: { ...previous.counts, decisions: counts.decisions, pull_requests: counts.pull_requests, issues: counts.issues, docs: counts.docs },
      timings,
      createdAt: new Date().toISOString(),
      manifest,
      graphRels: rels,
      ...(change.decisions ? { decisions: change.decisions.fingerprint } : {}),
    }
    if (forge) {
      delete meta.forge
      Object.assign(meta, forgeMeta(forge.delta.applied))
    }
    trustIndex(repo, dir, manifest)
    activateIndex(repo, meta)
    refreshTrust(repo, dir, manifest)
    register(repo, previous.head, options.onWarning)
    if (change.decisions) await reportDecisionHealth(repo, options.onWarning)
    return { repo, head: previous.head, mode: 'incremental', new_commits: 0, counts: meta.counts, skipped: previous.skipped, timings, embeddings: { model: model?.id ?? null, embedded: embedder?.documents ?? 0 } }
  } catch (error) {
    await writer.close()
    rmSync(dir, { recursive: true, force: true })
    throw writeFailure(error, dir) ?? error
  } finally {
    await writer.close()
    await embedder?.close()
    release()
  }
}

/** The forge cache as analyze reads it (null: `gitwhy enrich` never ran here). */
function loadForge(repo: string): ForgeData | null {
  const loaded = loadForgeItems(gitwhyDir(repo))
  const fingerprint = forgeFingerprint(loaded?.state ?? null)
  return loaded && fingerprint !== NO_FORGE ? forgeData(fingerprint, loaded.items) : null
}

/** What meta.json records of the forge cache an index took its rows from (nothing when there was none). */
function forgeMeta(applied: ForgeApplied | null): Pick<IndexMeta, 'forge'> {
  if (!applied || applied.fingerprint === NO_FORGE) return {}
  return { forge: { fingerprint: applied.fingerprint, pull_requests: Object.keys(applied.prs).length, issues: Object.keys(applied.issues).length } }
}

/**
 * A forge delta as graph changes, given the PRs and issues an update inserts itself (their rows
 * go in with the forge's values; nothing to set or replace): new nodes, properties to set on
 * existing ones, and their documents (the old ones removed).
 */
function forgeParts(delta: ForgeDelta, insertedPrs: ReadonlySet<number>, insertedIssues: ReadonlySet<number>) {
  const updatePullRequests: PullRequestRow[] = []
  const newPullRequests: PullRequestRow[] = []
  const updateIssues: IssueRow[] = []
  const newIssues: IssueRow[] = []
  const removeDocs: string[] = []
  const docs: Array<Omit<DocRow, 'row'>> = []
  for (const [n, row] of delta.prs) {
    if (insertedPrs.has(n)) continue
    if (delta.newPrs.has(n)) newPullRequests.push(row)
    else {
      updatePullRequests.push(row)
      removeDocs.push(`pr:${n}`)
    }
    const doc = pullRequestDoc(row)
    if (doc) docs.push(doc)
  }
  for (const [n, row] of delta.issues) {
    if (insertedIssues.has(n)) continue
    if (delta.newIssues.has(n)) newIssues.push(row)
    else {
      updateIssues.push(row)
      removeDocs.push(`issue:${n}`)
    }
    const doc = issueDoc(row)
    if (doc) docs.push(doc)
  }
  return { updatePullRequests, newPullRequests, updateIssues, newIssues, removeDocs, docs }
}

/** Every file of an index directory but `except`, hard-linked into another (copied where links are refused). */
function linkIndexFiles(from: string, to: string, except: ReadonlySet<string>, rel = ''): void {
  for (const entry of readdirSync(path.join(from, rel), { withFileTypes: true })) {
    const name = rel ? `${rel}/${entry.name}` : entry.name
    if (except.has(name)) continue
    if (entry.isDirectory()) {
      mkdirSync(path.join(to, name), { recursive: true })
      linkIndexFiles(from, to, except, name)
      continue
    }
    linkOrCopy(path.join(from, name), path.join(to, name))
  }
}

/** SIMILAR_TO among the decisions: in an index with embeddings only (the model's vectors are kept, so it loads only for a new text). */
async function similarOf(repo: string, decisions: Decision[], model: EmbeddingRecord | null): Promise<DecisionSimilarRow[]> {
  return model ? similarDecisions(gitwhyDir(repo), decisions, `${model.id} ${model.hash}`) : []
}

/**
 * Whether the active index can be kept or updated: intact (every file matches its manifest, or is
 * still the very file that was hashed here; a damaged one is rebuilt) and built or verified on this machine (one that came with a clone or a
 * copy is checked against git's objects first; any mismatch rebuilds it).
 */
async function usablePrevious(repo: string, previous: IndexMeta, onWarning: ((message: string) => void) | undefined): Promise<boolean> {
  if (previous.schemaVersion !== SCHEMA_VERSION) return false
  const dir = path.join(gitwhyDir(repo), previous.indexDir)
  const missing = existsSync(dir) ? missingIndexFiles(dir) : ['the index directory']
  // built or verified here and untouched since: no need to hash it again (index-trust.ts)
  if (missing.length === 0 && unchangedSinceTrusted(repo, dir, previous.manifest)) return true
  const problems = missing.length > 0 ? missing.map((f) => `${f} is missing`) : verifyAll(dir, previous.manifest)
  if (problems.length > 0) {
    onWarning?.(`the index is damaged (${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; …' : ''}): rebuilding it`)
    return false
  }
  if (isTrusted(repo, dir, previous.manifest)) {
    // hashed and intact: the next run can take it as it is on disk now
    refreshTrust(repo, dir, previous.manifest!)
    return true
  }
  const started = performance.now()
  const mismatches = await verifyAgainstGit(repo, dir, previous, await shallowCommits(repo))
  if (mismatches.length > 0) {
    onWarning?.(`the index in ${gitwhyDir(repo)} was not built here and does not match this repository's history (${mismatches.join('; ')}): rebuilding it`)
    return false
  }
  trustIndex(repo, dir, previous.manifest!)
  onWarning?.(`verified the index in ${gitwhyDir(repo)} (not built here) against the repository's history in ${Math.round(performance.now() - started)} ms`)
  return true
}

/** Record the files of a trusted index as they are now (best effort: the record is only a shortcut). */
function refreshTrust(repo: string, dir: string, manifest: string): void {
  try {
    trustIndex(repo, dir, manifest)
  } catch {
    // the next run hashes the index instead
  }
}

type Timer = <T>(name: string, fn: () => Promise<T> | T) => Promise<T>

/** How authors are grouped and which commits blame looks through (recorded in meta.json). */
interface HistoryOptions {
  repo: string
  identityMerge: boolean
  identities: IdentityConfig
  ignoreRevs: string[] | null
}

const IDENTITIES_FILE = 'identities.json'

/** The author signatures an index was grouped from (an update regroups them with the new commits'). */
function saveSignatures(dir: string, signatures: AuthorSignature[]): void {
  writeFileSync(path.join(dir, IDENTITIES_FILE), JSON.stringify(signatures.map((s) => [s.authorEmail, s.authorName, s.authorDate, s.count ?? 1])))
}

function loadSignatures(dir: string): AuthorSignature[] {
  const rows = JSON.parse(readFileSync(path.join(dir, IDENTITIES_FILE), 'utf8')) as Array<[string, string, string, number]>
  return rows.map(([authorEmail, authorName, authorDate, count]) => ({ authorEmail, authorName, authorDate, count }))
}

/**
 * The ignore passes of the listed commits of `graph` that `known` does not hold yet, added to it
 * and written to `dir` (every walk, evidence's too, reads them from there).
 */
async function ignoredRevs(graph: HistoryGraph, h: HistoryOptions, dir: string, known: IgnoreGuesses = {}): Promise<IgnoredRevs | undefined> {
  const wanted = new Set(h.ignoreRevs ?? [])
  const todo: number[] = []
  if (wanted.size > 0)
    graph.shas.forEach((sha, i) => {
      if (wanted.has(sha) && !known[sha]) todo.push(i)
    })
  const guesses = todo.length > 0 ? { ...known, ...computeIgnoreGuesses(graph, todo, await readIgnoredContent(h.repo, graph, todo)) } : known
  writeFileSync(path.join(dir, IGNORED_REVS_FILE), JSON.stringify(guesses))
  return ignoredRevsFor(graph.shas, guesses)
}

/**
 * The author and category of these commits, of the new ones (`fresh`) or the stored ones: what
 * `columns.withUpdate(fresh, …).authorsBySha(shas)` gives (a sha in both: the stored one's), without the join.
 */
function authorsBySha(shas: Iterable<string>, fresh: readonly ChangeWithSymbolLines[], columns: AnalyticsColumns): Map<string, { author: string; category: string }> {
  const wanted = new Set(shas)
  const out = new Map<string, { author: string; category: string }>()
  for (const c of fresh) if (wanted.has(c.sha)) out.set(c.sha, { author: c.author, category: c.category })
  for (const [sha, who] of columns.authorsBySha(wanted)) out.set(sha, who)
  return out
}

/** Lines owned at HEAD per author for each file: bots own none (their commits' category is bot). */
function humanAuthor(commits: ReadonlyMap<string, { author: string; category: string }>): (sha: string) => string | undefined {
  return (sha) => {
    const c = commits.get(sha)
    return c && c.category !== 'bot' ? c.author : undefined
  }
}

/**
 * The commits these blames name (a line past the cut names ~index, as blameOwners reads it): an
 * update's ownership looks up their authors only (a few hundred of git/git's 82,000 commits:
 * looking them all up was ~0.18 s of the update).
 */
function blamedShas(blames: ReadonlyArray<ArrayLike<number>>, shas: readonly string[]): Set<string> {
  const seen = new Uint8Array(shas.length)
  const out = new Set<string>()
  for (const blame of blames) {
    for (let l = 0; l < blame.length; l++) {
      const v = blame[l]
      const c = v < 0 ? ~v : v
      if (c < shas.length && seen[c] === 0) {
        seen[c] = 1
        out.add(shas[c])
      }
    }
  }
  return out
}

/** Walk the history for every file and symbol, write the caches, and return the graph's rows. */
async function mapAndSave(
  commits: RawCommit[],
  /** The commits' documents asked for (in their order); asked again when they do not match. */
  madeDocs: Promise<MadeDoc[]>,
  /** Makes the symbols' documents meanwhile. */
  maker: DocMaker,
  /** The verified reverts, found meanwhile (awaited after the hunk map). */
  pendingReverts: Promise<RevertEdge[]>,
  files: IndexedFile[],
  shallow: ReadonlySet<string>,
  dir: string,
  head: string,
  config: AnalyticsConfig,
  history: HistoryOptions,
  time: Timer,
  progress: ProgressFn,
  embedder: DocEmbedder | null,
  forge: ForgeData | null,
  onForge: (applied: ForgeApplied) => void,
): Promise<GraphData> {
  const mapped = await time('hunk_map', async () => {
    const graph = buildGraph(commits, shallow)
    const targets: MapTarget[] = files.map((f) => ({ path: f.path, lines: f.lines, ranges: f.symbols.map((s) => ({ start: s.startLine, end: s.endLine })) }))
    const ignored = await ignoredRevs(graph, history, dir)
    const result = mapHistory(graph, 0, targets, { ignored, onProgress: (done, total) => progress('hunk map', done, total) })
    progress('hunk map', graph.shas.length, graph.shas.length)
    return { graph, result }
  })
  const reverts = await time('reverts', () => pendingReverts)
  /** The symbols' rows (their `search` to come from the maker) and the PRs' and issues' documents. */
  let madeSymbols: { rows: SymbolRow[]; entities: MadeDoc[] } | null = null
  const data = await time('rows', (): GraphData => {
    const paths = new Set<string>()
    const signatures = summariseSignatures(commits)
    saveSignatures(dir, signatures)
    const tables = commitTables(commits, mapped.graph, paths, { identities: resolveIdentities(signatures, history.identities, history.identityMerge), reverts })
    // the forge cache's titles, descriptions and merge commits (`gitwhy enrich`), over the messages' rows
    const applied = applyForge(tables, forge)
    writeFileSync(path.join(dir, FORGE_FILE), JSON.stringify(applied))
    onForge(applied)
    for (const f of files) paths.add(f.path)
    const byPath = new Map(files.map((f) => [f.path, f]))
    const subjects = new Map(tables.commits.map((c) => [c.sha, c.subject]))
    const symbols = symbolRows(files, mapped.result, mapped.graph.shas, (sha) => subjects.get(sha), maker)
    madeSymbols = { rows: [...symbols.symbols], entities: entityDocs(tables) }
    return { ...tables, files: [...paths].map((p) => fileRow(p, byPath.get(p))), ...symbols, docs: [], docVectors: [], fileCoChanged: [], symbolCoChanged: [], communities: [], memberOf: [], ownedBy: [], imports: [], calls: [], extends: [], implements: [], processes: [], stepIn: [] }
  })
  const code = await time('code_graph', () => {
    const graph = buildCodeGraph(files, installedLanguageRegistry())
    const modules = moduleRows(graph.modules)
    data.symbols.push(...modules.symbols)
    data.defines.push(...modules.defines)
    const flows = buildFlows(files, graph)
    saveCodeGraph(dir, { graph, flows })
    Object.assign(data, { imports: graph.imports, calls: graph.calls, extends: graph.extends, implements: graph.implements }, flows)
    return graph
  })
  // the hunk map's and the rows' garbage goes before the analytics add theirs (git/git: peak 1.89 -> 1.40 GB in this phase)
  collectGarbage()
  await time('analytics', () => {
    const authorOf = humanAuthor(new Map(data.commits.map((c) => [c.sha, { author: c.author_email, category: c.category }])))
    const ownership: AnalyticsCache['ownership'] = Object.create(null)
    files.forEach((f, fi) => (ownership[f.path] = ownershipFromBlame(mapped.result.blame[fi], f.lines, mapped.graph.shas, authorOf)))
    const cache = AnalyticsColumns.fromCache({ changes: changesFromRows(data), renames: data.renamedFrom, ownership })
    const analytics = withAnalytics(cache, files, headTime(cache, head), config, data.files, data.symbols, dir, code)
    analytics.save()
    Object.assign(data, analytics.rows)
  })
  await time('save', async () => {
    savePathIndex(dir, mapped.graph)
    saveCommitCatalog(dir, data)
    writeIndexedFiles(dir, files)
    // the documents the maker made meanwhile (done by now, as a rule: a wait would show here)
    const [made, symbols] = await Promise.all([madeDocs, maker.symbols()])
    const commitDocs = made.length === commits.length && made.every((d, i) => d.ref === commits[i].sha) ? made : await maker.commits(commits)
    symbols.search.forEach((search, i) => (madeSymbols!.rows[i].search = search))
    data.docs = numberDocs([...commitDocs, ...madeSymbols!.entities, ...symbols.docs], 0)
    embedder?.add(data.docs)
  })
  return data
}

async function indexFiles(
  repo: string,
  head: string,
  maxFileBytes: number,
  prevDir: string | null,
  progress: ProgressFn,
  /** Where git's listing is spooled (the new index's directory: the file is gone before the manifest is taken). */
  workDir: string,
): Promise<{ files: IndexedFile[]; skipped: Record<string, number>; skippedPaths: Map<string, SkippedReason>; skippedBlobs: Map<string, [SkipReason, string]>; previousFiles: Map<string, IndexedFile>; links: TreeLink[] }> {
  // git lists the tree while this thread reads the previous index's files, and the parser's
  // runtime compiles meanwhile (~50 ms, off this thread for the most part)
  const listing = listTreeAndLinks(repo, head, workDir)
  listing.catch(() => {})
  treeSitterRuntime().catch(() => {})
  const previousFiles = new Map<string, IndexedFile>()
  if (prevDir) for (const f of loadIndexedFiles(prevDir)) previousFiles.set(f.path, f)
  const { files: tree, links } = await listing
  const skipped: Record<SkipReason, number> = { binary: 0, generated: 0, vendored: 0, minified: 0, too_large: 0 }
  const skippedPaths = new Map<string, SkippedReason>()
  // the previous index's files skipped for their content: the same blob at the same path is skipped unread
  const skippedBlobs = new Map<string, [SkipReason, string]>()
  const previousSkips = prevDir ? (readIndexJson<SkippedBlobs>(prevDir, SKIPPED_BLOBS) ?? {}) : {}
  const files: IndexedFile[] = []
  const toRead: string[] = []
  const byBlob = new Map<string, string[]>()
  for (const e of tree) {
    const reuse = previousFiles.get(e.path)
    if (reuse && reuse.blob === e.blob) {
      files.push(reuse)
      continue
    }
    if (e.size > maxFileBytes) {
      skipped.too_large++
      skippedPaths.set(e.path, 'too_large')
      continue
    }
    const skip = Object.hasOwn(previousSkips, e.path) ? previousSkips[e.path] : undefined
    if (skip && skip[1] === e.blob && skip[0] !== 'too_large' && Object.hasOwn(skipped, skip[0])) {
      skipped[skip[0]]++
      skippedPaths.set(e.path, skip[0])
      skippedBlobs.set(e.path, skip)
      continue
    }
    const list = byBlob.get(e.blob)
    if (list) list.push(e.path)
    else {
      byBlob.set(e.blob, [e.path])
      toRead.push(e.blob)
    }
  }
  // Load only the grammars the files to parse need (all of them cost ~0.3 s).
  const registry = installedLanguageRegistry()
  const languages = new Set<string>()
  for (const paths of byBlob.values()) for (const p of paths) {
    const spec = registry.languageOf(p)
    if (spec) languages.add(spec.id)
  }
  const extractor = await createSymbolExtractor({ registry, languages: [...languages] })
  try {
    let done = 0
    const total = toRead.length
    if (total > 0) progress('parse', 0, total)
    await readBlobs(repo, toRead, (blob, content) => {
      for (const p of byBlob.get(blob) ?? []) {
        const reason = classifyFile(p, content, { maxBytes: maxFileBytes })
        if (reason) {
          skipped[reason]++
          skippedPaths.set(p, reason)
          if (reason !== 'too_large') skippedBlobs.set(p, [reason, blob])
          continue
        }
        const language = extractor.languageOf(p)
        const source = language ? decodeSource(content) : ''
        const x = language ? extractor.extractFile(p, source) : null
        const file: IndexedFile = { path: p, blob, lines: countLines(content), language, symbols: x?.symbols ?? [] }
        if (x?.symbols.length) {
          const lines = source.split('\n')
          const docs = x.symbols.map((s) => docComment(lines, s.startLine, s.endLine))
          if (docs.some(Boolean)) file.docs = docs
        }
        // heritage with the file, calls apart (index-layout.ts FILE_CALLS)
        const heritage = x?.references.filter((r) => r.kind !== 'call') ?? []
        if (heritage.length) file.references = heritage
        if (x && heritage.length < x.references.length) file.calls = x.references.filter((r) => r.kind === 'call')
        if (x?.bindings.length) file.bindings = x.bindings
        if (x?.imports.length) file.imports = x.imports
        if (x?.exports.length) file.exports = x.exports
        if (x?.entries.length) file.entries = x.entries
        if (isModuleConfigFile(p)) file.config = decodeSource(content)
        files.push(file)
      }
      if (++done % 200 === 0) progress('parse', done, total)
    })
    if (total > 0) progress('parse', total, total)
  } finally {
    extractor.close()
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return { files, skipped, skippedPaths, skippedBlobs, previousFiles, links }
}

/** The files and symbols at the indexed HEAD: what trajectory edges may point at, in a build and an update alike. */
function knownAtHead(files: IndexedFile[]): { files: Set<string>; symbols: Set<string> } {
  return { files: new Set(files.map((f) => f.path)), symbols: new Set(files.flatMap((f) => symbolIds(f))) }
}

function fileRow(p: string, f: IndexedFile | undefined): FileRow {
  return { path: p, language: f?.language ?? null, lines: f?.lines ?? 0, is_test: isTestPath(p), present: f !== undefined, ...NO_ACTIVITY }
}

/** "Now" for the analytics: the indexed HEAD's committer date. */
function headTime(cache: AnalyticsColumns, head: string): number {
  const at = cache.sha.indexOf(head)
  if (at >= 0) return cache.time[at]
  let max = 0
  for (let i = 0; i < cache.time.length; i++) max = Math.max(max, cache.time[i])
  return max
}

/**
 * Compute the analytics and write their activity columns into the given File and Symbol rows;
 * returns the analytics tables' rows, and `save`, which writes the analytics' files into `dir`
 * (an update calls it once the graph has its rows, while the graph's thread finishes).
 */
function withAnalytics(
  cache: AnalyticsColumns,
  files: IndexedFile[],
  now: number,
  config: AnalyticsConfig,
  fileRows: FileRow[],
  symbolRows: SymbolRow[],
  dir: string,
  code: CodeGraph,
  update?: { previous: StoredAnalytics; structure?: string; state?: AnalyticsState; replaced: Iterable<string> },
) {
  const counted = update?.state ? { state: update.state, replaced: update.replaced } : undefined
  const out = computeColumnAnalytics(cache, headInput(files, now, code), config, update?.previous, update?.structure, counted)
  const activity = activityTables(out)
  const rowOf = (t: ActivityTable, key: string) => {
    const i = sortedIndexOf(t.key, key)
    return i === undefined ? NO_ACTIVITY : activityAt(t, i)
  }
  for (const r of fileRows) if (r.present) Object.assign(r, rowOf(activity.files, r.path))
  for (const r of symbolRows) Object.assign(r, rowOf(activity.symbols, r.id))
  // an update's ownership rows (of the files it touched, no other's) went with its walk's
  const rows = analyticsRows(out, update ? {} : cache.ownership)
  const stored: StoredAnalytics = {
    files: activity.files,
    symbols: activity.symbols,
    fileCoChanged: rows.fileCoChanged,
    symbolCoChanged: rows.symbolCoChanged,
    communities: rows.communities,
    memberOf: rows.memberOf,
    communityKey: out.communityKey,
    structureKey: out.structureKey,
  }
  const save = () => {
    saveAnalyticsCache(dir, cache)
    saveStoredAnalytics(dir, stored)
    saveAnalyticsState(dir, out.state)
    writeFileSync(path.join(dir, COCHANGE_FILE), JSON.stringify(coChangeChangesets(out)))
  }
  return { rows, stored, save, incremental: out.incremental }
}

/** The same imports and calls, in the same order, as far as Louvain reads them (structureKey). */
function sameEdges(a: CodeGraph, b: CodeGraph): boolean {
  if (a === b) return true
  if (a.imports.length !== b.imports.length || a.calls.length !== b.calls.length) return false
  for (let i = 0; i < a.imports.length; i++) if (a.imports[i].from !== b.imports[i].from || a.imports[i].to !== b.imports[i].to) return false
  for (let i = 0; i < a.calls.length; i++) {
    const x = a.calls[i]
    const y = b.calls[i]
    if (x.from !== y.from || x.to !== y.to || x.confidence !== y.confidence) return false
  }
  return true
}

/** Each key's row in an activity table (its keys are a stats map's: each once). */
function keyIndex(t: ActivityTable): Map<string, number> {
  return new Map(t.key.map((key, i) => [key, i]))
}

/** The index of `key` in keys sorted as `<` sorts them (an activity table's: a stats map's order), by bisection. */
function sortedIndexOf(keys: readonly string[], key: string): number | undefined {
  let lo = 0
  let hi = keys.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (keys[mid] < key) lo = mid + 1
    else hi = mid
  }
  return keys[lo] === key ? lo : undefined
}

/** Two flat rows with the same fields and values (either may be missing). */
function sameRow(a: object | undefined, b: object | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  const x = a as Record<string, unknown>
  const y = b as Record<string, unknown>
  const keys = Object.keys(x)
  return keys.length === Object.keys(y).length && keys.every((k) => Object.hasOwn(y, k) && x[k] === y[k])
}

const sameRows = (a: readonly object[], b: readonly object[]) => a.length === b.length && a.every((r, i) => sameRow(r, b[i]))

/**
 * What an update writes for the analytics: only what differs from the previous index. Symbols
 * that were re-inserted lost their edges (DETACH DELETE), so theirs are written whatever changed.
 */
function analyticsDelta(
  before: StoredAnalytics,
  after: StoredAnalytics,
  u: { reinserted: Set<string>; touchedPaths: Set<string> },
): { analytics: Partial<GraphData>; activity: NonNullable<GraphDelta['activity']>; analyticsChange: NonNullable<GraphDelta['analytics']> } {
  const activity: NonNullable<GraphDelta['activity']> = { files: [], symbols: [] }
  const changed = (old: ActivityTable, now: ActivityTable, skip: Set<string>, fn: (key: string, row: ActivityRow) => void) => {
    // both tables hold their keys sorted (the stats' order): walked side by side, no index of either
    const at = inKeyOrder(old.key) && inKeyOrder(now.key) ? null : keyIndex(old)
    let j = 0
    now.key.forEach((key, i) => {
      let match: number | undefined
      if (at) match = at.get(key)
      else {
        while (j < old.key.length && old.key[j] < key) j++
        if (j < old.key.length && old.key[j] === key) match = j
      }
      if (skip.has(key)) return
      if (match === undefined || !sameActivity(old, match, now, i)) fn(key, activityAt(now, i))
    })
  }
  changed(before.files, after.files, u.touchedPaths, (path, row) => activity.files.push({ path, ...row }))
  changed(before.symbols, after.symbols, u.reinserted, (id, row) => activity.symbols.push({ id, ...row }))
  const pairs = (list: CoChangeRow[]) => new Map(list.map((r) => [`${r.a}\0${r.b}`, r]))
  // a pair that stays with other numbers has them set (every pair of an edited file's symbols
  // does: deleting and inserting them was a guard row, a COPY and a second checkpoint); one whose
  // symbol was inserted again (its edges went with it) is inserted
  const diffPairs = (old: CoChangeRow[], now: CoChangeRow[], keep: (r: CoChangeRow) => boolean) => {
    const o = pairs(old)
    const n = pairs(now)
    const remove = [...o].filter(([k, r]) => !n.has(k) && !keep(r)).map(([, r]) => ({ a: r.a, b: r.b }))
    const set = [...n].filter(([k, r]) => o.has(k) && !keep(r) && !sameRow(o.get(k), r)).map(([, r]) => r)
    const insert = [...n].filter(([k, r]) => !o.has(k) || keep(r)).map(([, r]) => r)
    return { remove, set, insert }
  }
  const files = diffPairs(before.fileCoChanged, after.fileCoChanged, () => false)
  const symbols = diffPairs(before.symbolCoChanged, after.symbolCoChanged, (r) => u.reinserted.has(r.a) || u.reinserted.has(r.b))
  const communitiesChanged = !sameRows(before.communities, after.communities) || !sameRows(before.memberOf, after.memberOf)
  return {
    analytics: {
      fileCoChanged: files.insert,
      symbolCoChanged: symbols.insert,
      communities: communitiesChanged ? after.communities : [],
      memberOf: communitiesChanged ? after.memberOf : after.memberOf.filter((m) => u.reinserted.has(m.symbol)),
    },
    activity,
    // the touched files' ownership went with the walk's rows (updateIndex)
    analyticsChange: { removeFileCoChanges: files.remove, removeSymbolCoChanges: symbols.remove, setFileCoChanges: files.set, setSymbolCoChanges: symbols.set, replaceCommunities: communitiesChanged, ownershipOf: [] },
  }
}

/**
 * The flows of `after` are those stored with `before` (buildFlows would give the same): the same
 * files, a changed file's symbols the same as far as flows read them (name, kind, export, nesting),
 * the same calls in the same order as far as flows read them (sameEdges: source, target,
 * confidence; not the line), the same entries and modules. An edit inside a function that keeps
 * its calls: buildFlows was ~0.13 s of git/git's update.
 */
function sameFlowInput(previous: Map<string, IndexedFile>, files: IndexedFile[], before: CodeGraph, after: CodeGraph): boolean {
  if (previous.size !== files.length || !sameEdges(before, after)) return false
  const same = <T>(a: readonly T[], b: readonly T[], eq: (x: T, y: T) => boolean) => a.length === b.length && a.every((x, i) => eq(x, b[i]))
  if (!same(before.entries, after.entries, (x, y) => x.symbol === y.symbol && x.kind === y.kind && x.label === y.label)) return false
  if (!same(before.modules, after.modules, (x, y) => x.id === y.id && x.path === y.path)) return false
  for (const f of files) {
    const old = previous.get(f.path)
    if (!old) return false
    if (old.blob !== f.blob && !same(old.symbols, f.symbols, (x, y) => x.qualifiedName === y.qualifiedName && x.kind === y.kind && x.exported === y.exported && x.parentIndex === y.parentIndex)) return false
  }
  return true
}

/**
 * The files an update re-resolves, with the previous code graph for the others: the changed ones,
 * when none changed what other files' resolution reads (resolutionFace) and no file came or went.
 */
function codeGraphReuse(previous: Map<string, IndexedFile>, files: IndexedFile[], graph: CodeGraph): { previous: CodeGraph; dirty: Set<string> } | undefined {
  if (previous.size !== files.length) return undefined
  const dirty = new Set<string>()
  for (const f of files) {
    const old = previous.get(f.path)
    if (!old) return undefined
    // a file no grammar parses, before or after (a README, a text file), nothing is resolved in;
    // a module configuration (tsconfig.json, package.json, go.mod) is, when its face changed
    if (old.blob === f.blob || (!old.language && !f.language && resolutionFace(old) === resolutionFace(f))) continue
    if (resolutionFace(old) !== resolutionFace(f)) return undefined
    dirty.add(f.path)
  }
  return { previous: graph, dirty }
}

/** The `<module>` symbols of the files with module-level calls (no history of their own). */
function moduleRows(modules: CodeGraph['modules']): Pick<GraphData, 'symbols' | 'defines'> {
  return {
    symbols: modules.map((m) => ({ id: m.id, name: MODULE_SYMBOL, qualified_name: MODULE_SYMBOL, kind: 'module', path: m.path, start_line: 1, end_line: Math.max(1, m.lines), signature: '', exported: false, search: NO_WORDS, ...NO_ACTIVITY })),
    defines: modules.map((m) => ({ path: m.path, symbol: m.id })),
  }
}

/**
 * The `<module>` symbols of the touched files, kept in place as other symbols are (symbolChanges):
 * the ones that went are deleted, the new ones inserted (with their DEFINES edges), the others get
 * their line count set. Deleting one and inserting it again cost ~40 ms of the update's checkpoint.
 */
function moduleChanges(before: CodeGraph, after: CodeGraph, touched: ReadonlySet<string>): { deleteSymbols: string[]; updateSymbols: SymbolRow[]; insert: Pick<GraphData, 'symbols' | 'defines'> } {
  const was = new Map(moduleRows(before.modules.filter((m) => touched.has(m.path))).symbols.map((r) => [r.id, r]))
  const now = moduleRows(after.modules.filter((m) => touched.has(m.path)))
  const fresh = new Set(now.symbols.filter((r) => !was.has(r.id)).map((r) => r.id))
  const kept = new Set(now.symbols.map((r) => r.id))
  return {
    deleteSymbols: [...was.keys()].filter((id) => !kept.has(id)),
    updateSymbols: now.symbols.filter((r) => was.has(r.id) && !sameRow(was.get(r.id), r)),
    insert: { symbols: now.symbols.filter((r) => fresh.has(r.id)), defines: now.defines.filter((d) => fresh.has(d.symbol)) },
  }
}

/** Items by a key, each key's in the items' order. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const item of items) {
    const k = key(item)
    const list = out.get(k)
    if (list) list.push(item)
    else out.set(k, [item])
  }
  return out
}

/**
 * The calls an update removes and inserts that differ by their line alone (a source below an edit
 * moved), paired in line order within their source, callee, confidence and reason: their lines are
 * set instead (`moveCalls`). Deleting and inserting them cost ~0.25 s of git/git's update for an
 * edit in builtin/log.c (246 calls: a keyed delete, then a COPY, which checkpoints first). A
 * source's calls stay removed and inserted where a SET could find another row than the one meant:
 * a call it keeps with a moved one's old line, callee, confidence and reason, or one it deletes with
 * that line and callee (the delete matches those), or two moved calls of one such key going to
 * different lines.
 */
export function lineMoves(calls: { remove: CallEdge[]; insert: CallEdge[] }, old: Map<string, CallEdge[]>): { remove: CallEdge[]; insert: CallEdge[]; moves: Array<CallEdge & { to_line: number }> } {
  const group = (e: CallEdge) => `${e.from}\0${e.to}\0${e.confidence}\0${e.reason}`
  const inserted = groupBy(calls.insert, group)
  // the candidates by source: each removed call with the inserted one it becomes
  const candidates = new Map<string, Array<[CallEdge, CallEdge]>>()
  for (const [key, removed] of groupBy(calls.remove, group)) {
    const added = inserted.get(key)
    if (!added || added.length !== removed.length) continue
    const byLine = (x: CallEdge, y: CallEdge) => x.line - y.line
    const [a, b] = [[...removed].sort(byLine), [...added].sort(byLine)]
    const from = removed[0].from
    const list = candidates.get(from) ?? []
    a.forEach((e, i) => list.push([e, b[i]]))
    candidates.set(from, list)
  }
  const moved = new Set<CallEdge>()
  const removedSet = new Set(calls.remove)
  const moves: Array<CallEdge & { to_line: number }> = []
  for (const [from, pairs] of candidates) {
    const oldKey = (e: CallEdge) => `${group(e)}\0${e.line}`
    const target = new Map<string, number>()
    let safe = pairs.every(([was, now]) => {
      const k = oldKey(was)
      if (target.has(k) && target.get(k) !== now.line) return false
      target.set(k, now.line)
      return was.line !== now.line
    })
    const movedOld = new Set(pairs.map(([was]) => was))
    const movingAt = new Set(pairs.map(([was]) => `${was.to}\0${was.line}`))
    for (const e of old.get(from) ?? []) {
      if (!safe || movedOld.has(e)) continue
      // a call that stays with a moved one's whole key, or one deleted at a moved one's callee and line
      if (target.has(oldKey(e)) || (removedSet.has(e) && movingAt.has(`${e.to}\0${e.line}`))) safe = false
    }
    if (!safe) continue
    for (const [was, now] of pairs) {
      moved.add(was).add(now)
      moves.push({ ...was, to_line: now.line })
    }
  }
  return { remove: calls.remove.filter((e) => !moved.has(e)), insert: calls.insert.filter((e) => !moved.has(e)), moves }
}

/**
 * What an update changes in the code graph: every edge is recomputed from all files (resolution
 * of an unchanged file can depend on a changed one's exports) and the difference applied. Edges of
 * re-inserted symbols went with them (DETACH DELETE), so theirs are written whatever changed.
 */
function codeGraphDelta(before: CodeGraph, after: CodeGraph, flows: { before: Flows; after: Flows }, deleted: ReadonlySet<string>, modules: Pick<GraphData, 'symbols' | 'defines'>) {
  // the very graph and flows, no symbol to give its edges back: nothing to diff (~80 ms on git/git)
  if (before === after && flows.before === flows.after && deleted.size === 0) {
    return { remove: { calls: [], moveCalls: [], extends: [], implements: [], imports: [], processes: [] }, insert: { calls: [], extends: [], implements: [], imports: [], ...modules, processes: [], stepIn: [] } }
  }
  const callKey = (e: CodeGraph['calls'][number]) => `${e.from}\0${e.to}\0${e.line}\0${e.confidence}\0${e.reason}`
  const pairKey = (e: { from: string; to: string }) => `${e.from}\0${e.to}`
  // edges grouped by their source: a source whose edges are the same, in the same order, is
  // settled without a key for each of them (most are, after a small change)
  const bySource = <T extends { from: string }>(edges: T[]) => groupBy(edges, (e) => e.from)
  const sameEdge = (a: Partial<CodeGraph['calls'][number]>, b: Partial<CodeGraph['calls'][number]>) => a.to === b.to && a.line === b.line && a.confidence === b.confidence && a.reason === b.reason
  // `was`: the old edges by source (read, not changed: lineMoves reads it after)
  const diff = <T extends { from: string; to: string }>(was: Map<string, T[]>, now: T[], key: (e: T) => string, symbols: boolean) => {
    const gone = (e: T) => symbols && (deleted.has(e.from) || deleted.has(e.to))
    const remove: T[] = []
    const insert: T[] = []
    const seen = new Set<string>()
    for (const [from, edges] of bySource(now)) {
      const previous = was.get(from) ?? []
      seen.add(from)
      if (previous.length === edges.length && previous.every((e, i) => sameEdge(e, edges[i]))) {
        for (const e of edges) if (gone(e)) insert.push(e)
        continue
      }
      const o = new Set(previous.map(key))
      const n = new Set(edges.map(key))
      for (const e of previous) if (!n.has(key(e)) && !gone(e)) remove.push(e)
      for (const e of edges) if (!o.has(key(e)) || gone(e)) insert.push(e)
    }
    for (const [from, edges] of was) if (!seen.has(from)) for (const e of edges) if (!gone(e)) remove.push(e)
    return { remove, insert }
  }
  const oldCalls = bySource(before.calls)
  const calls = lineMoves(diff(oldCalls, after.calls, callKey, true), oldCalls)
  const ext = diff(bySource(before.extends), after.extends, pairKey, true)
  const impl = diff(bySource(before.implements), after.implements, pairKey, true)
  const imports = diff(bySource(before.imports), after.imports, pairKey, false)
  // a flow that changed at all is replaced whole; an unchanged one gets back the steps of re-inserted symbols
  const flowKeys = (f: Flows) => {
    const keys = new Map(f.processes.map((p) => [p.id, JSON.stringify(p)]))
    for (const s of f.stepIn) keys.set(s.process, `${keys.get(s.process)}\0${s.symbol}\0${s.step}`)
    return keys
  }
  const [old, now] = [flowKeys(flows.before), flowKeys(flows.after)]
  const replaced = new Set(flows.after.processes.filter((p) => old.get(p.id) !== now.get(p.id)).map((p) => p.id))
  const afterIds = new Set(flows.after.processes.map((p) => p.id))
  return {
    remove: {
      calls: calls.remove.map(({ from, to, line }) => ({ from, to, line })),
      moveCalls: calls.moves,
      extends: ext.remove,
      implements: impl.remove,
      imports: imports.remove,
      processes: flows.before.processes.filter((p) => !afterIds.has(p.id) || replaced.has(p.id)).map((p) => p.id),
    },
    insert: {
      calls: calls.insert,
      extends: ext.insert,
      implements: impl.insert,
      imports: imports.insert,
      ...modules,
      processes: flows.after.processes.filter((p) => replaced.has(p.id)),
      stepIn: flows.after.stepIn.filter((s) => replaced.has(s.process) || deleted.has(s.symbol)),
    },
  }
}


/** The search documents of pull requests and issues with titles. */
function entityDocs(tables: Pick<GraphData, 'pullRequests' | 'issues'>): Array<Omit<DocRow, 'row'>> {
  return [...tables.pullRequests.map(pullRequestDoc), ...tables.issues.map(issueDoc)].filter((d) => d !== null)
}

type SymbolTables = Pick<GraphData, 'symbols' | 'defines' | 'contains' | 'changed' | 'blamedOn'> & { docs: Array<Omit<DocRow, 'row'>> }

/**
 * Symbol rows of `files` (indexed like the walk's targets) with their blame and line-history
 * edges, and their search documents (with the subjects of the commits owning most of their lines).
 * With a maker (a full build) the documents and the rows' full-text words (`search`, '' until
 * then) are the maker's to make, to be had from `maker.symbols()` in the rows' order.
 */
function symbolRows(files: IndexedFile[], result: MapResult, shas: string[], subjectOf: (sha: string) => string | undefined, maker?: DocMaker): SymbolTables {
  const rows: SymbolTables = { symbols: [], defines: [], contains: [], changed: [], blamedOn: [], docs: [] }
  files.forEach((f, fi) => {
    const ids = symbolIds(f)
    const blame = result.blame[fi]
    f.symbols.forEach((s, si) => {
      const id = ids[si]
      rows.symbols.push(fileSymbolRow(f, si, id, maker ? '' : undefined))
      rows.defines.push({ path: f.path, symbol: id })
      if (s.parentIndex !== null) rows.contains.push({ parent: ids[s.parentIndex], child: id })
      const owners = [...blameOwners(blame, s.startLine - 1, s.endLine, shas.length).owners]
      for (const [c, lines] of owners) rows.blamedOn.push({ symbol: id, sha: shas[c], lines })
      const ownerSubjects = owners.sort((a, b) => b[1] - a[1]).map(([c]) => subjectOf(shas[c]) ?? '')
      const summary = { id, qualifiedName: s.qualifiedName, kind: s.kind, path: f.path, startLine: s.startLine, signature: s.signature, doc: f.docs?.[si] ?? '', ownerSubjects }
      if (maker) maker.symbol(summary)
      else rows.docs.push(symbolDoc(summary))
      for (const ch of result.rangeHistory[fi][si]) rows.changed.push({ sha: shas[ch.commit], symbol: id, added: ch.added, removed: ch.removed })
    })
  })
  return rows
}

/** A symbol's row as its file gives it (no activity yet): what a full build writes for it. */
function fileSymbolRow(f: IndexedFile, si: number, id: string, search?: string): SymbolRow {
  const s = f.symbols[si]
  return { id, name: s.name, qualified_name: s.qualifiedName, kind: s.kind, path: f.path, start_line: s.startLine, end_line: s.endLine, signature: s.signature, exported: s.exported, search: search ?? symbolSearchText({ ...s, path: f.path }, f.docs?.[si] ?? ''), ...NO_ACTIVITY }
}

/**
 * What an update does to the symbols of the files it re-walked. A symbol whose id and search text
 * (the full-text index's column) stay is kept in place: its other columns set, its history edges
 * made equal to the new walk's, its CONTAINS edge moved if its parent changed. Only the others
 * are deleted (with every edge) and inserted again (the files' `<module>` symbols are the code
 * graph's: moduleChanges). Deleting and re-inserting full-text indexed rows is most of what an
 * update's graph costs Kuzu (the checkpoint rewrites the index's postings): ~0.3 s on vuejs/core
 * for one edited file, where a typical edit changes one or two of its symbols.
 */
function symbolChanges(previous: IndexedFile[], rows: SymbolTables): {
  delta: Pick<GraphDelta, 'deleteSymbols' | 'updateSymbols' | 'syncHistory' | 'removeContains'>
  insert: Omit<SymbolTables, 'docs'>
  deleted: Set<string>
} {
  const before = new Map<string, SymbolRow>()
  const parentBefore = new Map<string, string>()
  for (const f of previous) {
    const ids = symbolIds(f)
    f.symbols.forEach((s, si) => {
      before.set(ids[si], fileSymbolRow(f, si, ids[si]))
      if (s.parentIndex !== null) parentBefore.set(ids[si], ids[s.parentIndex])
    })
  }
  const kept = new Set(rows.symbols.filter((r) => before.get(r.id)?.search === r.search).map((r) => r.id))
  const deleted = new Set([...before.keys()].filter((id) => !kept.has(id)))
  const parentNow = new Map(rows.contains.map((c) => [c.child, c.parent]))
  const bothKept = (c: { parent: string; child: string }) => kept.has(c.parent) && kept.has(c.child)
  return {
    delta: {
      deleteSymbols: [...deleted],
      updateSymbols: rows.symbols.filter((r) => kept.has(r.id) && !sameRow(before.get(r.id), r)),
      syncHistory: { symbols: [...kept], changed: rows.changed.filter((c) => kept.has(c.symbol)), blamedOn: rows.blamedOn.filter((b) => kept.has(b.symbol)) },
      removeContains: [...parentBefore].map(([child, parent]) => ({ parent, child })).filter((c) => bothKept(c) && parentNow.get(c.child) !== c.parent),
    },
    insert: {
      symbols: rows.symbols.filter((r) => !kept.has(r.id)),
      defines: rows.defines.filter((d) => !kept.has(d.symbol)),
      contains: rows.contains.filter((c) => !bothKept(c) || parentBefore.get(c.child) !== c.parent),
      changed: rows.changed.filter((c) => !kept.has(c.symbol)),
      blamedOn: rows.blamedOn.filter((b) => !kept.has(b.symbol)),
    },
    deleted,
  }
}

const MAX_UPDATE_COMMITS = 500
/** A build of fewer commits makes its documents on this thread: the maker's thread would start for ~0.1 s of work. */
const DOC_THREAD_COMMITS = 5_000
/** Timed phases whose progress they report themselves (with counts), or that hold other phases. */
const SELF_REPORTING = new Set(['history', 'history_full', 'files', 'hunk_map', 'graph_load', 'update', 'embeddings'])

/**
 * An update in place of a rebuild, when it is exactly equivalent: the previous HEAD is on the new
 * HEAD's first-parent line (so a file no new commit touches keeps every answer: its lines and
 * ranges pass through the new commits' first parents unchanged), and the new commits attach to
 * that line only (so no older commit changes pull request). Only the files the new commits touch
 * are walked (over the new commits and their lineage in the stored history), and the graph gets a
 * delta. Returns null when the conditions do not hold; the caller then rebuilds.
 */
async function updateIndex(u: {
  repo: string
  prevDir: string
  /** The previous index's analytics input and output, read meanwhile. */
  prefetched: Promise<{ columns: AnalyticsColumns; stored: StoredAnalytics; state: AnalyticsState | undefined }>
  /** analyze's timings: the graph thread's are added. */
  timings: Record<string, number>
  /** The previous index's manifest hash (its files' hashes are reused for the hard links). */
  manifest: string
  dir: string
  oldHead: string
  head: string
  fresh: RawCommit[]
  files: IndexedFile[]
  previousFiles: Map<string, IndexedFile>
  time: Timer
  config: AnalyticsConfig
  history: HistoryOptions
  embedder: DocEmbedder | null
  cache: VectorCache
  /** The graph's delta, its copy of the previous graph under way (the caller closes it). */
  writer: GraphDeltaWriter
  decisions: Decision[]
  /** The previous index's graph holds decisions (its fingerprint is not NO_DECISIONS). */
  hadDecisions: boolean
  /** SIMILAR_TO among them (decision-similar.ts). */
  similar: DecisionSimilarRow[]
  /** The forge cache (`gitwhy enrich`), null when there is none. */
  forge: ForgeData | null
  /** The trajectory's rows, worked out since the new commits were read (updateTrajectory), and its warnings so far. */
  trajectory: PendingTrajectory
  onWarning?: (message: string) => void
}): Promise<{ counts: Record<string, number>; hashed: Record<string, [number, string]>; forgeApplied: ForgeApplied; graphRels: GraphRels } | null> {
  const { prevDir, dir, oldHead, head, fresh, files, previousFiles, time, config, history, embedder, cache: vectorCache, writer } = u
  if (fresh.length === 0 || fresh.length > MAX_UPDATE_COMMITS) return null
  const old = PathIndex.open(prevDir)
  const freshIndex = new Map(fresh.map((c, i) => [c.sha, i]))
  let tip = fresh[0].sha
  for (let i = freshIndex.get(tip); i !== undefined; i = freshIndex.get(tip)) tip = fresh[i].parents[0] ?? ''
  if (tip !== oldHead) return null
  const mainline = new Set<string>()
  for (let age = old.size - 1; age >= 0; age = old.dag.parents[age][0] ?? -1) mainline.add(old.dag.shas[age])
  for (const c of fresh) for (const p of c.parents) if (!freshIndex.has(p) && !mainline.has(p)) return null

  const catalog = loadCommitCatalog(prevDir)
  const known = catalog.known()
  const knownPrs = known.pullRequests
  const knownIssues = known.issues
  const knownAuthors = known.emails
  // the new commits may regroup authors: an older commit whose identity changes needs a rebuild
  const oldSignatures = loadSignatures(prevDir)
  const signatures = summariseSignatures([...oldSignatures, ...fresh])
  const before = resolveIdentities(oldSignatures, history.identities, history.identityMerge)
  const identities = resolveIdentities(signatures, history.identities, history.identityMerge)
  for (const [email, who] of before) if (JSON.stringify(identities.get(email)) !== JSON.stringify(who)) return null
  const paths = new Set<string>()
  // the stored history as the analytics keep it, newest first as a build reads it: its subjects
  // serve the reverts and the walk (the catalog would read every shard for them), and the analytics
  // below start from it
  const { columns, stored: storedAnalytics, state: analyticsState } = await u.prefetched
  const reverts = await time('reverts', () => revertsOf(u.repo, fresh, columns, dir))
  // the new commits' ages follow the stored ones': no stored commit's row changes
  const tables = commitTables(fresh, buildGraph(fresh, new Set()), paths, { identities, reverts, firstAge: old.size })
  // a new commit naming an older PR can change that PR's title: rebuild instead
  if (tables.pullRequests.some((p) => knownPrs.has(p.number))) return null
  // What the forge cache gives the new commits (and, when it changed, the older ones): worked out
  // before anything is written, since a cache that took something back rebuilds instead.
  const forgeBefore = readIndexJson<ForgeApplied>(prevDir, FORGE_FILE)
  if (!forgeBefore) return null
  for (const n of forgeBefore.added_issues) knownIssues.add(n)
  let forgeChange: { delta: ForgeDelta; catalog: ReturnType<typeof catalogForForge> } | null = null
  if (u.forge || forgeBefore.fingerprint !== NO_FORGE) {
    const catalog = catalogForForge(prevDir, tables)
    const delta = forgeDelta(forgeBefore, { prsOf: catalog.prsOf, issueRefs: catalog.issueRefs, freshCloses: tables.closes }, u.forge)
    if (!delta) return null
    forgeChange = { delta, catalog }
  }
  const forgeApplied: ForgeApplied = forgeChange?.delta.applied ?? { ...forgeBefore, message_closes: [...new Set([...forgeBefore.message_closes, ...tables.closes.map((c) => `${c.pr}:${c.issue}`)])].sort() }
  // the new commits' PRs and issues go in with the forge's rows; the older ones it changed are set
  const freshIssues = tables.issues.filter((i) => !knownIssues.has(i.number))
  const forgeRows = forgeChange ? forgeParts(forgeChange.delta, new Set(tables.pullRequests.map((p) => p.number)), new Set(freshIssues.map((i) => i.number))) : null
  const freshTables = {
    pullRequests: tables.pullRequests.map((p) => forgeChange?.delta.prs.get(p.number) ?? p),
    issues: freshIssues.map((i) => forgeChange?.delta.issues.get(i.number) ?? i),
  }
  for (const c of tables.commits) c.boundary = false
  fresh.forEach((c) => c.parents.forEach((p, idx) => {
    if (!freshIndex.has(p)) tables.parents.push({ sha: c.sha, parent: p, idx })
  }))

  // The history's own rows (the new commits, PRs and issues, and their edges to files the graph
  // has) go in now and are checkpointed while this thread walks: the graph's thread has nothing
  // else to do until the walk's rows come. Their documents go with the walk's: a checkpoint that
  // finds any change to a full-text index rewrites its postings, ~135–180 ms on git/git however
  // few the documents, and the walk's part changes the symbols' documents anyway.
  const isKnown = (p: string) => old.has(p) || previousFiles.has(p)
  const commitDocs = fresh.map(rawCommitDoc)
  embedder?.add(commitDocs)
  const historyDocs = numberDocs([...commitDocs, ...entityDocs(freshTables)], vectorCache.nextRow)
  const toKnown = { touched: (t: { path: string }) => isKnown(t.path), renamedFrom: (r: { path: string; from: string }) => isKnown(r.path) && isKnown(r.from) }
  writer.apply({
    renameAuthors: tables.authors.filter((a) => knownAuthors.has(a.email)),
    insert: {
      ...tables,
      touched: tables.touched.filter(toKnown.touched),
      renamedFrom: tables.renamedFrom.filter(toKnown.renamedFrom),
      authors: tables.authors.filter((a) => !knownAuthors.has(a.email)),
      pullRequests: freshTables.pullRequests,
      issues: freshTables.issues,
    },
  })
  writer.checkpoint()

  // the files the new commits touched, walked over the new commits and their stored lineage
  const current = new Map(files.map((f) => [f.path, f]))
  const affected = files.filter((f) => paths.has(f.path) || previousFiles.get(f.path)?.blob !== f.blob)
  const { symbols, owners } = await time('update_walk', async () => {
    const graph = old.graphFor(affected.map((f) => f.path), { fresh })
    const targets: MapTarget[] = affected.map((f) => ({ path: f.path, lines: f.lines, ranges: f.symbols.map((s) => ({ start: s.startLine, end: s.endLine })) }))
    const result = mapHistory(graph, 0, targets, { ignored: await ignoredRevs(graph, history, dir, readIndexJson<IgnoreGuesses>(prevDir, IGNORED_REVS_FILE) ?? {}) })
    // the subjects of the commits the blame names (a symbol's document has its owners'), not of all
    const blamed = blamedShas(result.blame, graph.shas)
    const subjects = columns.subjectsBySha(blamed)
    for (const c of tables.commits) subjects.set(c.sha, c.subject)
    return { symbols: symbolRows(affected, result, graph.shas, (sha) => subjects.get(sha)), owners: { result, shas: graph.shas, blamed } }
  })
  const docs = [...historyDocs, ...numberDocs([...symbols.docs, ...(forgeRows?.docs ?? [])], vectorCache.nextRow + historyDocs.length)]
  embedder?.add(docs)

  const touchedPaths = new Set([...paths, ...affected.map((f) => f.path)])
  const replaceSymbolsOf = [...touchedPaths].filter((p) => previousFiles.has(p))
  const symbolChange = symbolChanges(replaceSymbolsOf.map((p) => previousFiles.get(p)!), symbols)
  const updateFiles = [...touchedPaths].filter(isKnown).map((p) => fileRow(p, current.get(p)))
  const insertFiles = [...touchedPaths].filter((p) => !isKnown(p)).map((p) => fileRow(p, current.get(p)))
  // the walked files' line ownership (by their blame's human authors): its rows go with the walk's
  // (a COPY of them in the last part checkpointed what came before it, on the update's path)
  const freshChanges = changesFromRows({ commits: tables.commits, touched: tables.touched, changed: [] })
  const authorOf = humanAuthor(authorsBySha(owners.blamed, freshChanges, columns))
  const walkedOwnership: AnalyticsCache['ownership'] = Object.create(null)
  affected.forEach((f, fi) => (walkedOwnership[f.path] = ownershipFromBlame(owners.result.blame[fi], f.lines, owners.shas, authorOf)))

  // The walk's rows (and the new files, with the history's edges to them, and the forge's rows) go
  // in while this thread computes the code graph and the analytics, whose rows follow. Inserted
  // nodes go in with no activity; the last part sets it (with the activity that changed elsewhere).
  writer.apply({
    ...symbolChange.delta,
    syncSymbolDocsOf: replaceSymbolsOf,
    removeDocs: forgeRows?.removeDocs,
    updatePullRequests: forgeRows?.updatePullRequests,
    updateIssues: forgeRows?.updateIssues,
    analytics: { removeFileCoChanges: [], removeSymbolCoChanges: [], replaceCommunities: false, ownershipOf: [...touchedPaths] },
    insert: {
      ...symbolChange.insert,
      ownedBy: ownedByRows(walkedOwnership),
      docs,
      files: insertFiles,
      touched: tables.touched.filter((t) => !toKnown.touched(t)),
      renamedFrom: tables.renamedFrom.filter((r) => !toKnown.renamedFrom(r)),
      pullRequests: forgeRows?.newPullRequests ?? [],
      issues: forgeRows?.newIssues ?? [],
      partOf: forgeChange?.delta.partOf ?? [],
      closes: forgeChange?.delta.closes ?? [],
    },
  })

  const registry = installedLanguageRegistry()
  const graphs = await time('code_graph', () => {
    const stored = loadCodeGraph(prevDir)
    const before = stored ?? (() => {
      const graph = buildCodeGraph([...previousFiles.values()], registry)
      return { graph, flows: buildFlows([...previousFiles.values()], graph) }
    })()
    // stored by this gitwhy's resolution and flow code (the fingerprint hashes both)
    const sameCode = stored !== null && stored.resolver !== null && stored.resolver === resolverFingerprint()
    const reuse = sameCode ? codeGraphReuse(previousFiles, files, stored.graph) : undefined
    // no file came or went and none that is parsed changed (a commit of text files): the stored
    // graph is what this resolver builds from these files, kept as it is (its build, diff and
    // save: ~0.25 s on git/git)
    const unchanged = reuse !== undefined && reuse.dirty.size === 0
    return { before, after: unchanged ? before.graph : buildCodeGraph(files, registry, reuse), stored: stored !== null, sameCode, unchanged }
  })

  const { code, modules, flows } = await time('flows', () => {
    const { before, after } = graphs
    const reuse = graphs.unchanged || (graphs.sameCode && sameFlowInput(previousFiles, files, before.graph, after))
    const flows = reuse ? before.flows : buildFlows(files, after)
    const modules = moduleChanges(before.graph, after, touchedPaths)
    const deleted = new Set([...symbolChange.deleted, ...modules.deleteSymbols])
    return { code: codeGraphDelta(before.graph, after, { before: before.flows, after: flows }, deleted, modules.insert), modules, flows }
  })
  // the code graph's part goes in and is checkpointed while this thread computes the analytics
  writer.apply({ deleteSymbols: modules.deleteSymbols, updateSymbols: modules.updateSymbols, codeGraph: code.remove, insert: code.insert })
  writer.checkpoint()

  // Analytics: the previous inputs with the new commits, the re-walked files' symbol histories
  // and ownership replaced, then computed from scratch as a full build does.
  optimiseHotLoops()
  const { analytics, activity, analyticsChange, save: saveAnalytics } = await time('update_analytics', () => {
    const cache = columns
    const gone = new Set(replaceSymbolsOf.flatMap((p) => symbolIds(previousFiles.get(p)!)))
    const next = cache.withUpdate(freshChanges, gone, symbols.changed, tables.renamedFrom)
    const ownership: AnalyticsCache['ownership'] = Object.create(null)
    for (const [p, o] of Object.entries(cache.ownership)) if (current.has(p) && !touchedPaths.has(p)) ownership[p] = o
    next.ownership = Object.assign(ownership, walkedOwnership)
    // the previous index's code graph as it was stored has the edges its structureKey hashed
    const structure = graphs.stored && sameEdges(graphs.before.graph, graphs.after) ? storedAnalytics.structureKey : undefined
    const replaced = [...gone, ...symbols.changed.map((c) => c.symbol)]
    const { stored, save, incremental } = withAnalytics(next, files, headTime(next, head), config, [...updateFiles, ...insertFiles], symbols.symbols, dir, graphs.after, { previous: storedAnalytics, structure, state: analyticsState, replaced })
    const delta = analyticsDelta(storedAnalytics, stored, {
      reinserted: new Set(symbolChange.insert.symbols.map((r) => r.id)),
      touchedPaths,
    })
    // the trace's cache_hit: counted from the previous pass's state (column-update.ts), not in a full pass
    return { ...delta, save, cacheHit: incremental }
  })

  await time('embeddings', () => embedder?.finish())
  vectorCache.nextRow += docs.length
  const activityOf = (row: ActivityRow): ActivityRow => Object.fromEntries(ACTIVITY_COLUMNS.map((c) => [c.name, row[c.name as keyof ActivityRow]])) as unknown as ActivityRow
  // where the trajectory's snapshots landed (started with the update)
  const { rows: trajectory, state: landedNow } = await u.trajectory.rows
  for (const m of u.trajectory.warnings) u.onWarning?.(m)
  writeFileSync(path.join(dir, LANDED_FILE), JSON.stringify(landedNow))
  writer.apply({
    replaceSnapshots: true,
    updateFiles,
    analytics: analyticsChange,
    activity: {
      files: [...activity.files, ...insertFiles.map((f) => ({ path: f.path, ...activityOf(f) }))],
      symbols: [...activity.symbols, ...symbolChange.insert.symbols.map((r) => ({ id: r.id, ...activityOf(r) }))],
    },
    insert: {
      ...analytics,
      docVectors: embedder ? docs.filter((d) => !d.unembedded).map((d) => ({ row: d.row, embedding: Array.from(vectorCache.get(d.hash)!) })) : [],
      ...trajectory,
    },
  })
  // the decisions last: their edges end at this update's symbols and communities
  // (none now and none before: nothing to replace, ~10 ms of deletes that find nothing)
  if (u.decisions.length > 0 || u.hadDecisions) writer.apply({ decisions: decisionGraph(u.decisions, u.similar) })
  // the graph is finished (checkpointed, closed, hashed) on its thread while this one saves the rest
  const finished = writer.finish()
  finished.catch(() => {})
  await time('update_save', () => {
    // the analytics' and code graph's files: computed before, written now that the graph has its rows
    saveAnalytics()
    if (graphs.unchanged) linkOrCopy(path.join(prevDir, CODE_GRAPH_FILE), path.join(dir, CODE_GRAPH_FILE))
    else saveCodeGraph(dir, { graph: graphs.after, flows })
    vectorCache.save(dir)
    saveSignatures(dir, signatures)
    old.appendTo(dir, fresh)
    if (forgeChange) forgeChange.catalog.write(dir, { prs: forgeChange.delta.prs, issues: forgeChange.delta.issues, partOf: forgeChange.delta.partOf, rows: forgeChange.delta.rows })
    else appendCommitCatalog(prevDir, dir, tables)
    writeFileSync(path.join(dir, FORGE_FILE), JSON.stringify(forgeApplied))
    const changed = files.filter((f) => previousFiles.get(f.path)?.blob !== f.blob)
    updateIndexedFiles(prevDir, dir, changed, [...previousFiles.keys()].filter((p) => !current.has(p)))
  })
  // the manifest's hashes of this thread's files meanwhile (not the graph's: Kuzu's own files
  // beside it, the WAL and the checkpoint's shadow pages, come and go until it is closed)
  const own = hashIndexFiles(dir, { dir: prevDir, manifest: u.manifest }, {}, (rel) => rel === GRAPH_DB || rel.startsWith(`${GRAPH_DB}.`))
  const { counts, rels, graph } = await time('update_graph', () => finished)
  // what the graph's thread spent (its parts overlap this thread's phases; update_graph is the wait at the end)
  for (const step of ['open', 'apply', 'checkpoint', 'finish'] as const) u.timings[`graph_${step}_ms`] = Math.round(writer.busy(step))
  return { counts: { ...counts, files: files.length }, hashed: { ...own, [GRAPH_DB]: graph }, forgeApplied, graphRels: rels }
}

interface PendingTrajectory {
  rows: ReturnType<typeof trajectoryRows>
  warnings: string[]
}

/**
 * An update's trajectory rows, started as soon as the new commits are read: where the previous
 * index's snapshots landed, the new (first-parent, non-merge) commits searched for the rest. Its
 * warnings wait in `warnings` for the update to give them (none when it is given up).
 */
function updateTrajectory(repo: string, prevDir: string, head: string, fresh: Promise<RawCommit[]>, files: Promise<IndexedFile[]>): PendingTrajectory {
  const warnings: string[] = []
  const rows = fresh.then((commits) => {
    const landedBefore = readIndexJson<LandedState>(prevDir, LANDED_FILE)
    const landing = commits.filter((c) => c.parents.length <= 1).map((c) => ({ sha: c.sha, time: Date.parse(c.committerDate) / 1000 })).reverse()
    return trajectoryRows(repo, head, () => files.then(knownAtHead), (m) => warnings.push(m), landedBefore ? { state: landedBefore, fresh: landing } : undefined)
  })
  rows.catch(() => {})
  return { rows, warnings }
}

/** The per-path reasons of what indexFiles skipped, plus the symlinks and submodules it never sees (skipped-files.ts). */
function recordSkippedFiles(dir: string, skipped: Map<string, SkippedReason>, blobs: Map<string, [SkipReason, string]>, links: readonly TreeLink[]): void {
  for (const link of links) skipped.set(link.path, link.kind)
  writeSkippedFiles(dir, skipped, blobs)
}
