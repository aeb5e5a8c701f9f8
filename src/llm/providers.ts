import type { LlmConfig } from './config.js'

/**
 * The one place a model is called, through the Vercel AI SDK (ai@6: ai@7 needs Node 22). The SDK
 * and the provider packages are imported here, on the first call, so that a CLI start-up never
 * pays for them and an installation with no provider never loads them.
 */
export interface ModelCall {
  system: string
  prompt: string
  maxOutputTokens: number
}

export interface ModelAnswer {
  text: string
  inputTokens: number | null
  outputTokens: number | null
}

export async function callModel(config: LlmConfig, call: ModelCall): Promise<ModelAnswer> {
  // the SDK logs its warnings with console.info/warn, and the first one on stdout: that would
  // corrupt `--json` and the MCP server's stdio channel
  ;(globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = false
  const { generateText } = await import('ai')
  const model = await languageModel(config)
  const r = await generateText({
    model,
    system: call.system,
    prompt: call.prompt,
    maxOutputTokens: call.maxOutputTokens,
    ...(config.temperature !== null ? { temperature: config.temperature } : {}),
    // one attempt: offline or refused is answered extractively at once, not after retries
    maxRetries: 0,
    abortSignal: AbortSignal.timeout(config.timeoutMs),
  })
  return { text: r.text, inputTokens: r.usage.inputTokens ?? null, outputTokens: r.usage.outputTokens ?? null }
}

async function languageModel(config: LlmConfig) {
  const apiKey = config.apiKey ?? undefined
  if (config.provider === 'anthropic') {
    const { createAnthropic } = await import('@ai-sdk/anthropic')
    // no key given must not fall back to the SDK's own reading of ANTHROPIC_API_KEY (a key for another endpoint)
    return createAnthropic({ baseURL: config.baseUrl!, apiKey: apiKey ?? '', authToken: undefined })(config.model!)
  }
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible')
  return createOpenAICompatible({ name: config.provider, baseURL: config.baseUrl!, apiKey, includeUsage: true }).chatModel(config.model!)
}

/** An SDK or network error in one line: the HTTP status and the server's message, or the network cause. */
export function describeError(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; statusCode?: number; cause?: { code?: string; message?: string }; responseBody?: string }
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || /aborted|timed? ?out/i.test(e?.message ?? '')) return `no answer within ${Math.round(timeoutMs / 1000)} s`
  const code = e?.cause?.code ?? (e?.cause as { cause?: { code?: string } })?.cause?.code
  if (code) return `cannot reach the server (${code})`
  if (typeof e?.statusCode === 'number') return `HTTP ${e.statusCode}${e.message ? `: ${e.message}` : ''}`
  return e?.message ?? String(error)
}
