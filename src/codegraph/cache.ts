import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { deserialize, serialize } from 'node:v8'
import { PROJECT_ROOT } from '../parse/registry.js'
import { readIndexFile } from '../services/index-integrity.js'
import type { Flows } from './flows.js'
import type { CodeGraph } from './resolve.js'

/**
 * The code graph and flows an index holds, beside its graph: an update diffs the new ones against
 * these instead of building the previous ones again (~0.3 s on vuejs/core). They are what the
 * graph's edges were written from, so the diff is right even when a newer gitwhy resolves
 * differently. Optional: an index without the file (or with one that does not parse) has them
 * rebuilt from its files.
 */
export const CODE_GRAPH_FILE = 'codegraph.bin'

export interface StoredCodeGraph {
  graph: CodeGraph
  flows: Flows
  /** The resolver that built it (resolverFingerprint): another one would resolve the unchanged files differently. */
  resolver: string | null
}

let fingerprint: string | null | undefined
/** A hash of the resolution code (this module's siblings as built, found from the project's root in a bundle too), or null where they cannot be read. */
export function resolverFingerprint(): string | null {
  if (fingerprint === undefined) {
    try {
      const hash = createHash('sha256')
      // the built files (a bundled copy of this module runs from dist/bundle), or the sources when they run directly (tests)
      const sources = import.meta.url.endsWith('.ts')
      for (const name of ['resolve', 'modules']) hash.update(readFileSync(sources ? new URL(`./${name}.ts`, import.meta.url) : path.join(PROJECT_ROOT, 'dist', 'codegraph', `${name}.js`)))
      fingerprint = hash.digest('hex')
    } catch {
      fingerprint = null
    }
  }
  return fingerprint
}

export function saveCodeGraph(dir: string, stored: Omit<StoredCodeGraph, 'resolver'>): void {
  writeFileSync(path.join(dir, CODE_GRAPH_FILE), serialize({ ...stored, resolver: resolverFingerprint() } satisfies StoredCodeGraph))
}

/** The stored code graph, or null when the index has none (a damaged one throws, as every index file does). */
export function loadCodeGraph(dir: string): StoredCodeGraph | null {
  const data = readIndexFile(dir, CODE_GRAPH_FILE)
  if (data === null) return null
  try {
    const stored = deserialize(data) as StoredCodeGraph
    return Array.isArray(stored?.graph?.calls) && Array.isArray(stored?.flows?.processes) ? stored : null
  } catch {
    return null
  }
}
