import { createHash } from 'node:crypto'
import { DEFAULT_MAX_OUTPUT_TOKENS, readLlmConfig } from './config.js'
import { ConfiguredSynthesizer, estimateWithout } from './synthesizer.js'
import type { SynthesisEstimate, SynthesisRequest, Synthesizer } from './types.js'

export type * from './types.js'
export { PROMPT_VERSION } from './prompt.js'

/** One synthesizer per repository and configuration in a process: its run budget is the process's (a CLI run, an MCP server). */
const loaded = new Map<string, ConfiguredSynthesizer>()

/**
 * The configured synthesizer for a repository's `.gitwhy/` directory (`llm` in config.json, the
 * GITWHY_LLM_* environment), or null when the provider is `none` (the default): callers then
 * answer extractively. A bad configuration is a UserError naming the key and the fix. Nothing of
 * the AI SDK is loaded here: the provider's packages load on the first call.
 */
export async function loadSynthesizer(gitwhyDir: string, env: NodeJS.ProcessEnv = process.env): Promise<Synthesizer | null> {
  const config = readLlmConfig(gitwhyDir, env)
  if (config.provider === 'none') return null
  const key = createHash('sha256').update(`${gitwhyDir}\0${JSON.stringify(config)}`).digest('hex')
  let s = loaded.get(key)
  if (!s) loaded.set(key, (s = new ConfiguredSynthesizer(config, gitwhyDir)))
  return s
}

/**
 * What a request would cost with `synthesizer` (tokens, cost at the configured price, cached or
 * not, refused by the budget or not), or with none configured its tokens only. No call is made.
 */
export async function estimate(request: SynthesisRequest, synthesizer: Synthesizer | null): Promise<SynthesisEstimate> {
  if (synthesizer?.estimate) return synthesizer.estimate(request)
  const e = estimateWithout(request, request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS)
  return synthesizer ? { ...e, synthesizer: synthesizer.name } : e
}
