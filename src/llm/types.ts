/**
 * The synthesis contract (issue 15): what `why`, `brief` and `suggest-commit` hand to an optional
 * LLM, and what they get back. Everything stays extractive unless a provider is configured; a
 * synthesizer that declines (no provider, budget spent, hedged or uncited answer, network error)
 * returns a fallback reason and the caller keeps its extractive answer.
 */

/** One piece of evidence: an id the answer must cite (`a1b2c3d`, `PR #12`, `#34`, `L40-52`) and its untrusted text. */
export interface EvidenceBlock {
  id: string
  text: string
}

export interface SynthesisRequest {
  /** What is asked; part of the cache key and of the usage log. */
  task: 'why' | 'brief' | 'commit-message'
  /** What is being explained, in words (`function parse in src/a.ts`, a question, a staged diff's summary). Untrusted. */
  subject: string
  /** The task's own instructions (trusted): the shape of the answer wanted. */
  instructions: string
  /** The evidence, best first. Scrubbed and fenced as untrusted data before it leaves the machine. */
  evidence: EvidenceBlock[]
  /** Output cap in tokens (default chosen by the synthesizer). */
  maxOutputTokens?: number
}

export interface SynthesizedSentence {
  text: string
  /** Evidence ids it cites: only ids of the request's evidence survive. */
  citations: string[]
}

export interface SynthesisResult {
  ok: true
  text: string
  sentences: SynthesizedSentence[]
  /** Citations the model made that name no evidence of the request (dropped). */
  dropped_citations: number
  provider: string
  model: string
  /** Answered from the cache keyed by the evidence fingerprint (no call made). */
  cached: boolean
  tokens: { input: number; output: number }
  ms: number
}

export interface SynthesisDeclined {
  ok: false
  /** Why the extractive answer stands: `no provider`, `no evidence`, `budget`, `hedged`, `uncited`, `error: ...`. */
  reason: string
  /** One line for the user (stderr) when something is wrong rather than merely unanswerable: a budget spent, a network error, no key. */
  warning?: string
  /** hedged / uncited: the citations of the declined answer that named no evidence. */
  dropped_citations?: number
}

/** What a request would cost, made without calling anything (`why --estimate`). */
export interface SynthesisEstimate {
  /** `openai-compatible:qwen2.5`, or null when no provider is configured (tokens are still estimated). */
  synthesizer: string | null
  /** The prompt's tokens, estimated at ~4 characters a token. */
  input_tokens: number
  /** The output cap: the most the answer can cost. */
  output_tokens: number
  /** input and output at the configured price (llm.price, per million tokens); null when not priced. */
  cost: number | null
  /** The same evidence was answered before: asking makes no call and costs nothing. */
  cached: boolean
  /** The budget line a call would be refused with, or null. */
  budget: string | null
}

export interface Synthesizer {
  /** `openai-compatible:qwen2.5`, `anthropic:claude-...`, `ollama:llama3`. */
  readonly name: string
  synthesize(request: SynthesisRequest): Promise<SynthesisResult | SynthesisDeclined>
  /** What `synthesize(request)` would cost, with no call made (see `estimate()` in index.ts for any synthesizer). */
  estimate?(request: SynthesisRequest): Promise<SynthesisEstimate>
}
