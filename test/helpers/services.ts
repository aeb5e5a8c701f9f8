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

export async function services(): Promise<Services> {
  return lazy
}
