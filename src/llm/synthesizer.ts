import { scrubSecrets } from '../text/scrub.js'
import { keyRequired, synthesizerName, type LlmConfig } from './config.js'
import { parseAnswer } from './parse.js'
import { buildPrompt, fenceNonce, fingerprint, prepare, type PreparedRequest } from './prompt.js'
import { callModel, describeError, type ModelAnswer, type ModelCall } from './providers.js'
import type { SynthesisDeclined, SynthesisEstimate, SynthesisRequest, SynthesisResult, Synthesizer } from './types.js'
import { appendUsage, readCached, tokensOnDay, writeCached } from './usage.js'

/** Rough tokens of a text: ~4 characters a token (English prose and code; an estimate, not a tokenizer). */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4)

/** The fixed cost of a chat request beyond its text (roles, message framing). */
const FRAMING_TOKENS = 12

export interface SynthesizerOptions {
  /** The clock (tests). */
  now?: () => Date
  /** The model call (tests; default: the Vercel AI SDK). */
  call?: (config: LlmConfig, call: ModelCall) => Promise<ModelAnswer>
}

/** Input tokens of a prepared request: the prompt as it would be sent, with a nonce of the real length. */
function inputTokens(p: PreparedRequest): number {
  const { system, prompt } = buildPrompt(p, '0'.repeat(24))
  return estimateTokens(system) + estimateTokens(prompt) + FRAMING_TOKENS
}

function costOf(config: LlmConfig, input: number, output: number): number | null {
  if (!config.price) return null
  return Math.round(((input * config.price.inputPerMTok + output * config.price.outputPerMTok) / 1e6) * 1e6) / 1e6
}

/**
 * A synthesizer over one configured provider (issue 15), for one repository's `.gitwhy/`. Every
 * prompt is scrubbed and fenced (prompt.ts); an answer is served from the cache when the same
 * evidence was asked before; otherwise the run's and the day's token budgets are checked before
 * the call; every call and cache hit is logged; the answer is read back into cited sentences, and
 * declined when it hedges or cites nothing of the evidence.
 */
export class ConfiguredSynthesizer implements Synthesizer {
  readonly name: string
  /** Tokens this synthesizer (one CLI run, one MCP server) has spent. */
  private spent = 0
  private readonly now: () => Date
  private readonly call: NonNullable<SynthesizerOptions['call']>

  constructor(
    readonly config: LlmConfig,
    readonly gitwhyDir: string,
    options: SynthesizerOptions = {},
  ) {
    if (config.provider === 'none') throw new Error('no synthesizer for provider none')
    this.name = synthesizerName(config)!
    this.now = options.now ?? (() => new Date())
    this.call = options.call ?? callModel
  }

  /** What a request would cost, and whether it would be answered from the cache or refused by the budget; no call is made. */
  async estimate(request: SynthesisRequest): Promise<SynthesisEstimate> {
    const p = prepare(request, this.config.maxOutputTokens)
    const input = inputTokens(p)
    const output = p.maxOutputTokens
    const cached = readCached(this.gitwhyDir, fingerprint(p, this.name)) !== null
    return {
      synthesizer: this.name,
      input_tokens: input,
      output_tokens: output,
      cost: costOf(this.config, input, output),
      cached,
      budget: cached ? null : this.overBudget(input + output),
    }
  }

  async synthesize(request: SynthesisRequest): Promise<SynthesisResult | SynthesisDeclined> {
    const p = prepare(request, this.config.maxOutputTokens)
    const ids = p.evidence.map((e) => e.id)
    if (ids.length === 0) return { ok: false, reason: 'no evidence' }
    const key = fingerprint(p, this.name)
    const started = performance.now()

    const hit = readCached(this.gitwhyDir, key)
    if (hit) {
      const ms = Math.round(performance.now() - started)
      const out = this.read(hit.text, ids, { input: hit.tokens.input, output: hit.tokens.output }, ms, true)
      this.log(p, { input: 0, output: 0 }, ms, true, out.ok ? 'answered' : out.reason)
      return out
    }

    const input = inputTokens(p)
    const over = this.overBudget(input + p.maxOutputTokens)
    if (over) return { ok: false, reason: 'budget', warning: over }
    if (!this.config.apiKey && keyRequired(this.config)) {
      return { ok: false, reason: 'error: no API key', warning: `llm ${this.name}: no API key (set GITWHY_LLM_API_KEY, or the variable llm.apiKeyEnv names); answering extractively` }
    }

    const nonce = fenceNonce([p.subject, p.instructions, ...p.evidence.map((e) => e.text)])
    const { system, prompt } = buildPrompt(p, nonce)
    let answer: ModelAnswer
    try {
      answer = await this.call(this.config, { system, prompt, maxOutputTokens: p.maxOutputTokens })
    } catch (error) {
      const ms = Math.round(performance.now() - started)
      const why = scrubSecrets(describeError(error, this.config.timeoutMs)).replace(/\s+/g, ' ').slice(0, 200)
      this.log(p, { input: 0, output: 0 }, ms, false, 'error')
      return { ok: false, reason: `error: ${why}`, warning: `llm ${this.name} failed: ${why}; answering extractively` }
    }
    const ms = Math.round(performance.now() - started)
    // a server that reports no usage is charged the estimate
    const tokens = { input: answer.inputTokens ?? input, output: answer.outputTokens ?? estimateTokens(answer.text) }
    this.spent += tokens.input + tokens.output
    writeCached(this.gitwhyDir, key, { v: 1, synthesizer: this.name, task: p.task, text: answer.text, tokens, created: this.now().toISOString() })
    const out = this.read(answer.text, ids, tokens, ms, false)
    this.log(p, tokens, ms, false, out.ok ? 'answered' : out.reason)
    return out
  }

  /** The answer as cited sentences, or declined: hedged, or citing nothing of the evidence. */
  private read(text: string, ids: string[], tokens: { input: number; output: number }, ms: number, cached: boolean): SynthesisResult | SynthesisDeclined {
    // the answer is untrusted too: anything secret-shaped in it goes before it is shown or kept
    const parsed = parseAnswer(scrubSecrets(text), ids)
    if (parsed.hedged) return { ok: false, reason: 'hedged', dropped_citations: parsed.dropped_citations }
    if (!parsed.cited) return { ok: false, reason: 'uncited', dropped_citations: parsed.dropped_citations }
    return { ok: true, text: parsed.text, sentences: parsed.sentences, dropped_citations: parsed.dropped_citations, provider: this.config.provider, model: this.config.model!, cached, tokens, ms }
  }

  /** Why a call of `tokens` would break a budget (one line), or null. */
  private overBudget(tokens: number): string | null {
    const { runTokens, dayTokens } = this.config.budget
    if (runTokens !== null && this.spent + tokens > runTokens) {
      return `llm budget: this answer needs up to ${tokens} tokens and ${Math.max(0, runTokens - this.spent)} of this run's ${runTokens} remain (llm.budget.runTokens); answering extractively`
    }
    if (dayTokens !== null) {
      const today = tokensOnDay(this.gitwhyDir, this.now())
      if (today + tokens > dayTokens) return `llm budget: this answer needs up to ${tokens} tokens and ${Math.max(0, dayTokens - today)} of today's ${dayTokens} remain (llm.budget.dayTokens, UTC days); answering extractively`
    }
    return null
  }

  private log(p: PreparedRequest, tokens: { input: number; output: number }, ms: number, cacheHit: boolean, outcome: string): void {
    const cost = costOf(this.config, tokens.input, tokens.output)
    appendUsage(this.gitwhyDir, {
      ts: this.now().toISOString(),
      provider: this.config.provider,
      model: this.config.model!,
      task: p.task,
      input_tokens: tokens.input,
      output_tokens: tokens.output,
      ms,
      cache_hit: cacheHit,
      outcome: outcome.startsWith('error') ? 'error' : outcome,
      ...(cost !== null ? { cost } : {}),
    })
  }
}

/** The estimate of a request with no provider configured: its tokens, no cost. */
export function estimateWithout(request: SynthesisRequest, maxOutputTokens: number): SynthesisEstimate {
  const p = prepare(request, maxOutputTokens)
  return { synthesizer: null, input_tokens: inputTokens(p), output_tokens: p.maxOutputTokens, cost: null, cached: false, budget: null }
}
