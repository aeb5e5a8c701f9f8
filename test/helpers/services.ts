/**
 * The service layer under test, loaded lazily so the oracle self-tests run even while a service
 * module is missing or broken (a load failure then fails only the tests that need it).
 */
import type { EvidenceResult, HistoryResult } from '../../src/services/types.js'

export interface AnalyzeOptions { repo: string; force?: boolean; maxCommits?: number }
export interface EvidenceOptions { repo: string; path?: string; lineStart?: number; lineEnd?: number; symbol?: string; limit?: number }
export interface HistoryOptions { repo: string; path: string; limit?: number; followRenames?: boolean }

export interface Services {
  analyze(opts: AnalyzeOptions): Promise<unknown>
  evidence(opts: EvidenceOptions): Promise<EvidenceResult>
  history(opts: HistoryOptions): Promise<HistoryResult>
}

const paths = {
  analyze: '../../src/services/analyze.js',
  evidence: '../../src/services/evidence.js',
  history: '../../src/services/history.js',
} as const

async function load<K extends keyof Services>(name: K): Promise<Services[K]> {
  const mod = (await import(paths[name])) as Record<string, unknown>
  const fn = mod[name]
  if (typeof fn !== 'function') throw new Error(`src/services/${name}.ts does not export a function ${name}()`)
  return fn as Services[K]
}

/** Each service is imported on its first call. */
const lazy: Services = {
  analyze: async (opts) => (await load('analyze'))(opts),
  evidence: async (opts) => (await load('evidence'))(opts),
  history: async (opts) => (await load('history'))(opts),
}

/** The services exactly as the CLI calls them: every query opens the index anew. */
export async function services(): Promise<Services> {
  return lazy
}

interface Reader { close(): Promise<void> }

/**
 * The same services, but queries on one repository share an open index reader (the services'
 * optional `reader` argument), which makes hundreds of queries affordable. `analyze` first closes
 * the repository's reader so later queries see the new index. Set GITWHY_TEST_FRESH_READERS=1 to
 * open the index for every query instead. Call `close()` when done.
 */
export interface SharedServices extends Services { close(): Promise<void> }

export function sharedServices(): SharedServices {
  const readers = new Map<string, Promise<Reader | null>>()
  const fresh = process.env.GITWHY_TEST_FRESH_READERS === '1'
  const readerFor = (repo: string): Promise<Reader | null> => {
    let r = readers.get(repo)
    if (!r) {
      r = (async () => {
        try {
          const mod = (await import('../../src/services/index-reader.js')) as { IndexReader?: { open(repo: string): Promise<Reader> } }
          return mod.IndexReader ? await mod.IndexReader.open(repo) : null
        } catch {
          return null
        }
      })()
      readers.set(repo, r)
    }
    return r
  }
  const drop = async (repo: string): Promise<void> => {
    const r = readers.get(repo)
    readers.delete(repo)
    await (await r)?.close()
  }
  const withReader = async <O extends { repo: string }>(opts: O): Promise<O> => {
    if (fresh) return opts
    const reader = await readerFor(opts.repo)
    return reader ? { ...opts, reader } : opts
  }
  return {
    analyze: async (opts) => {
      await drop(opts.repo)
      return lazy.analyze(opts)
    },
    evidence: async (opts) => lazy.evidence(await withReader(opts)),
    history: async (opts) => lazy.history(await withReader(opts)),
    close: async () => {
      for (const repo of [...readers.keys()]) await drop(repo)
    },
  }
}

/**
 * Answers cached by query (for one state of the index): asking the same question twice in a test
 * costs nothing the second time. Create a new one after every analyze.
 */
export function memoServices(svc: Services): Services {
  const cache = new Map<string, Promise<unknown>>()
  const memo = <T>(kind: string, opts: object, run: () => Promise<T>): Promise<T> => {
    const key = `${kind}:${JSON.stringify(opts)}`
    let hit = cache.get(key) as Promise<T> | undefined
    if (!hit) {
      hit = run()
      cache.set(key, hit)
    }
    return hit
  }
  return {
    analyze: (opts) => {
      cache.clear()
      return svc.analyze(opts)
    },
    evidence: (opts) => memo('evidence', opts, () => svc.evidence(opts)),
    history: (opts) => memo('history', opts, () => svc.history(opts)),
  }
}
