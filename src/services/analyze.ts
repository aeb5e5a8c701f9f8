import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { readHistory, type RawCommit } from '../git/history-reader.js'
import { countLines, listTree, readBlobs } from '../git/tree.js'
import { writeGraph } from '../graph/load.js'
import { SCHEMA_VERSION } from '../graph/schema.js'
import type { GraphData, SymbolRow } from '../graph/types.js'
import { loadHistory, saveHistory } from '../history/cache.js'
import { commitTables } from '../history/commits.js'
import { buildGraph } from '../history/graph.js'
import { savePathIndex } from '../history/path-index.js'
import { saveCommitCatalog } from '../history/commit-catalog.js'
import { mapHistory, type MapTarget } from '../history/hunk-mapper.js'
import { classifyFile, createSymbolExtractor, DEFAULT_MAX_FILE_BYTES, isTestPath, loadLanguageRegistry, NO_CONTENT_DIFF_PATTERNS } from '../parse/index.js'
import type { SkipReason } from '../parse/types.js'
import { COMMITS_JSON, FILES_JSON, GRAPH_DB, HISTORY_JSON, INDEX_FILES, symbolIds, type IndexedFile } from './index-layout.js'
import {
  acquireLock,
  activateIndex,
  currentHead,
  excludeFromGit,
  gitwhyDir,
  isAncestor,
  newIndexDir,
  readMeta,
  resolveRepo,
  shallowCommits,
  type IndexMeta,
} from './workspace.js'

export interface AnalyzeOptions {
  repo?: string
  force?: boolean
  /** Index only the newest N commits (answers beyond the cut are reported as undecided). */
  maxCommits?: number
  /** Files larger than this are skipped (default 1 MB). */
  maxFileBytes?: number
  onProgress?: (phase: string, done: number, total: number) => void
}

export interface AnalyzeSummary {
  repo: string
  head: string
  mode: 'noop' | 'incremental' | 'full'
  new_commits: number
  counts: Record<string, number>
  skipped: Record<string, number>
  timings: Record<string, number>
}

const VERSION = '0.1.0'

export async function analyze(options: AnalyzeOptions): Promise<AnalyzeSummary> {
  const repo = await resolveRepo(options.repo)
  const head = await currentHead(repo)
  if (!head) {
    throw new UserError(`the repository ${repo} has no commits yet`, 'commit something first, then run `gitwhy analyze`', 'empty_repo')
  }
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
  const maxCommits = options.maxCommits ?? null
  if (maxCommits !== null && (!Number.isInteger(maxCommits) || maxCommits < 1)) {
    throw new UserError(`--max-commits must be a positive whole number, got ${maxCommits}`, 'pass e.g. --max-commits 5000, or leave it out to index the whole history', 'bad_option')
  }
  const previous = readMeta(repo)
  const sameOptions = previous !== null && previous.options.maxCommits === maxCommits && previous.options.maxFileBytes === maxFileBytes
  const usable =
    !options.force && previous !== null && previous.schemaVersion === SCHEMA_VERSION && sameOptions && INDEX_FILES.every((f) => existsSync(path.join(gitwhyDir(repo), previous.indexDir, f)))
  if (usable && previous.head === head) {
    return { repo, head, mode: 'noop', new_commits: 0, counts: previous.counts, skipped: previous.skipped, timings: { total_ms: 0 } }
  }

  const release = acquireLock(repo)
  const started = performance.now()
  const timings: Record<string, number> = {}
  const time = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
    const t0 = performance.now()
    try {
      return await fn()
    } finally {
      timings[`${name}_ms`] = Math.round(performance.now() - t0)
    }
  }
  const { id, dir } = newIndexDir(repo)
  try {
    await excludeFromGit(repo)
    const shallow = await shallowCommits(repo)
    const prevDir = usable ? path.join(gitwhyDir(repo), previous.indexDir) : null
    const incremental = prevDir !== null && maxCommits === null && (await isAncestor(repo, previous!.head, head)) && existsSync(path.join(prevDir, HISTORY_JSON))
    const progress = options.onProgress ?? (() => {})

    // History (git-bound) and files (parse-bound) run concurrently.
    let historyPromise: Promise<{ commits: RawCommit[]; fresh: number }> | null = time('history', async (): Promise<{ commits: RawCommit[]; fresh: number }> => {
      if (incremental) {
        const fresh = await readHistory(repo, { range: [`${previous!.head}..${head}`], noContentDiff: NO_CONTENT_DIFF_PATTERNS, workDir: dir, onProgress: (d, t) => progress('history', d, t) })
        const old = loadHistory(path.join(prevDir!, HISTORY_JSON))
        return { commits: [...fresh, ...old], fresh: fresh.length }
      }
      const commits = await readHistory(repo, { range: [head], maxCommits: maxCommits ?? undefined, noContentDiff: NO_CONTENT_DIFF_PATTERNS, workDir: dir, onProgress: (d, t) => progress('history', d, t) })
      return { commits, fresh: commits.length }
    })
    historyPromise.catch(() => {})
    const { files, skipped } = await time('files', () => indexFiles(repo, head, maxFileBytes, prevDir, progress))
    const history = await historyPromise
    const fresh = history.fresh
    const data = await mapAndSave(history.commits, files, shallow, dir, time, progress)
    // The mined history is on disk now; let it go before Kuzu takes its buffer pool.
    historyPromise = null
    history.commits = []
    await time('graph_load', () => writeGraph(path.join(dir, GRAPH_DB), data, { tmpDir: dir, onPhase: (name) => progress(`load ${name}`, 0, 1) }))
    timings.total_ms = Math.round(performance.now() - started)
    const counts = {
      commits: data.commits.length,
      files: files.length,
      symbols: data.symbols.length,
      authors: data.authors.length,
      pull_requests: data.pullRequests.length,
      issues: data.issues.length,
      blamed_on: data.blamedOn.length,
      changed: data.changed.length,
    }
    const meta: IndexMeta = {
      schemaVersion: SCHEMA_VERSION,
      indexDir: id,
      head,
      shallow: shallow.size > 0,
      options: { maxCommits, maxFileBytes },
      counts,
      skipped,
      timings,
      createdAt: new Date().toISOString(),
      gitwhyVersion: VERSION,
    }
    activateIndex(repo, meta)
    return { repo, head, mode: incremental ? 'incremental' : 'full', new_commits: fresh, counts, skipped, timings }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    const code = (error as NodeJS.ErrnoException)?.code
    if (code === 'ENOSPC') {
      throw new UserError(`the disk is full: could not write the index under ${gitwhyDir(repo)}`, 'free some space and run `gitwhy analyze` again; the previous index is intact', 'disk_full')
    }
    throw error
  } finally {
    release()
  }
}

type Timer = <T>(name: string, fn: () => Promise<T> | T) => Promise<T>

/** Walk the history for every file and symbol, write the caches, and return the graph's rows. */
async function mapAndSave(
  commits: RawCommit[],
  files: IndexedFile[],
  shallow: ReadonlySet<string>,
  dir: string,
  time: Timer,
  progress: (phase: string, done: number, total: number) => void,
): Promise<GraphData> {
  const mapped = await time('hunk_map', () => {
    const graph = buildGraph(commits, shallow)
    const targets: MapTarget[] = files.map((f) => ({ path: f.path, lines: f.lines, ranges: f.symbols.map((s) => ({ start: s.startLine, end: s.endLine })) }))
    progress('hunk map', 0, 1)
    const result = mapHistory(graph, 0, targets)
    progress('hunk map', 1, 1)
    return { graph, result }
  })
  const data = await time('rows', () => buildRows(commits, mapped.graph, files, mapped.result))
  await time('save', () => {
    saveHistory(path.join(dir, HISTORY_JSON), commits)
    savePathIndex(dir, mapped.graph)
    saveCommitCatalog(path.join(dir, COMMITS_JSON), data)
    writeFileSync(path.join(dir, FILES_JSON), JSON.stringify(files))
  })
  return data
}

async function indexFiles(
  repo: string,
  head: string,
  maxFileBytes: number,
  prevDir: string | null,
  progress: (phase: string, done: number, total: number) => void,
): Promise<{ files: IndexedFile[]; skipped: Record<string, number> }> {
  const tree = await listTree(repo, head)
  const previous = new Map<string, IndexedFile>()
  if (prevDir && existsSync(path.join(prevDir, FILES_JSON))) {
    for (const f of JSON.parse(readFileSync(path.join(prevDir, FILES_JSON), 'utf8')) as IndexedFile[]) previous.set(f.blob + '\0' + f.path, f)
  }
  const skipped: Record<SkipReason, number> = { binary: 0, generated: 0, vendored: 0, minified: 0, too_large: 0 }
  const files: IndexedFile[] = []
  const toRead: string[] = []
  const byBlob = new Map<string, string[]>()
  for (const e of tree) {
    const reuse = previous.get(e.blob + '\0' + e.path)
    if (reuse) {
      files.push(reuse)
      continue
    }
    if (e.size > maxFileBytes) {
      skipped.too_large++
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
  const registry = loadLanguageRegistry()
  const languages = new Set<string>()
  for (const paths of byBlob.values()) for (const p of paths) {
    const spec = registry.languageOf(p)
    if (spec) languages.add(spec.id)
  }
  const extractor = await createSymbolExtractor({ registry, languages: [...languages] })
  try {
    let done = 0
    const total = toRead.length
    await readBlobs(repo, toRead, (blob, content) => {
      for (const p of byBlob.get(blob) ?? []) {
        const reason = classifyFile(p, content, { maxBytes: maxFileBytes })
        if (reason) {
          skipped[reason]++
          continue
        }
        const language = extractor.languageOf(p)
        const symbols = language ? extractor.extract(p, content.toString('utf8')) : []
        files.push({ path: p, blob, lines: countLines(content), language, symbols })
      }
      if (++done % 200 === 0) progress('parse', done, total)
    })
    progress('parse', total, total)
  } finally {
    extractor.close()
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return { files, skipped }
}

function buildRows(commits: RawCommit[], graph: ReturnType<typeof buildGraph>, files: IndexedFile[], result: ReturnType<typeof mapHistory>): GraphData {
  const paths = new Set<string>()
  const tables = commitTables(commits, graph, paths)
  const present = new Map(files.map((f) => [f.path, f]))
  const data: GraphData = { ...tables, files: [], symbols: [], defines: [], contains: [], changed: [], blamedOn: [] }
  for (const f of files) paths.add(f.path)
  for (const p of paths) {
    const f = present.get(p)
    data.files.push({ path: p, language: f?.language ?? null, lines: f?.lines ?? 0, is_test: isTestPath(p), present: f !== undefined })
  }
  files.forEach((f, fi) => {
    const ids = symbolIds(f)
    const blame = result.blame[fi]
    f.symbols.forEach((s, si) => {
      const id = ids[si]
      const row: SymbolRow = { id, name: s.name, qualified_name: s.qualifiedName, kind: s.kind, path: f.path, start_line: s.startLine, end_line: s.endLine, signature: s.signature, exported: s.exported }
      data.symbols.push(row)
      data.defines.push({ path: f.path, symbol: id })
      if (s.parentIndex !== null) data.contains.push({ parent: ids[s.parentIndex], child: id })
      const owners = new Map<number, number>()
      for (let line = s.startLine - 1; line < Math.min(s.endLine, blame.length); line++) {
        const v = blame[line]
        const c = v < 0 ? ~v : v
        owners.set(c, (owners.get(c) ?? 0) + 1)
      }
      for (const [c, lines] of owners) if (c >= 0 && c < commits.length) data.blamedOn.push({ symbol: id, sha: commits[c].sha, lines })
      for (const ch of result.rangeHistory[fi][si]) data.changed.push({ sha: commits[ch.commit].sha, symbol: id, added: ch.added, removed: ch.removed })
    })
  })
  return data
}
