import type { Synthesizer } from './types.js'

export type * from './types.js'

/**
 * The configured synthesizer for a repository's `.gitwhy/` directory, or null when the provider
 * is `none` (the default): callers then answer extractively.
 * (Placeholder until the providers land: always none.)
 */
export async function loadSynthesizer(_gitwhyDir: string): Promise<Synthesizer | null> {
  return null
}
