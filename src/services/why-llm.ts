import { estimate } from '../llm/index.js'
import type { SynthesisEstimate, SynthesisRequest, Synthesizer } from '../llm/index.js'
import type { WhyFacts, WhySentence } from './why.js'

/**
 * The LLM answerer of `why` (issue 15): the same evidence as the extractive answer, each piece
 * under the id the extractive answer cites it by (a short sha, `PR #12`, `#34`), handed to the
 * configured synthesizer; its cited sentences replace the extractive ones. Below MIN_CONFIDENCE it
 * is never asked; when it declines (hedged, uncited, budget, network) the extractive answer
 * stands and says why.
 */

/** What `why --json` says of the LLM (absent when none is configured and no estimate was asked). */
export interface WhyLlm {
  /** `openai-compatible:qwen2.5`; null: no provider configured (an estimate only). */
  synthesizer: string | null
  status: 'answered' | 'declined' | 'not called' | 'estimated'
  /** declined: `hedged`, `uncited`, `budget`, `error: ...`; not called: why not. */
  reason: string | null
  /** One line shown on stderr (a budget spent, the server unreachable). */
  warning: string | null
  cached: boolean
  /** Citations the model made that named no evidence of the request (dropped from its sentences). */
  dropped_citations: number
  tokens: { input: number; output: number } | null
  ms: number | null
  /** `why --estimate`: the call's tokens and cost, made without calling. */
  estimate: SynthesisEstimate | null
}

export interface WhyAnswer {
  text: string
  sentences: WhySentence[]
  answerer: string
}

/** The evidence pieces read for an answer: the best commits, beyond them only those the extractive answer cites. */
const COMMITS_SENT = 8

const short = (sha: string) => sha.slice(0, 7)

/** The instructions of the `why` task (trusted). */
const WHY_INSTRUCTIONS =
  'Explain why the subject exists or is the way it is: the problem it solves, or the decision or change that shaped it, as the evidence states it; when the subject is a question, answer it. Mention a revert, or a later change that altered the reason, only when the evidence shows one. Do not describe what the code does beyond what the evidence says.'

/** The request `why` hands the synthesizer: the subject, and one piece per commit, PR, issue and co-change partner. */
export function whyRequest(facts: WhyFacts, extractive: { sentences: WhySentence[] }, question: string | null): SynthesisRequest {
  const cited = new Set(extractive.sentences.flatMap((s) => s.citations))
  const pieces = new Map<string, string[]>()
  const add = (id: string, line: string) => {
    const lines = pieces.get(id)
    if (lines) lines.push(line)
    else pieces.set(id, [line])
  }
  facts.evidence.forEach((e, i) => {
    const id = short(e.commit.sha)
    if (i >= COMMITS_SENT && !cited.has(id) && !e.pull_requests.some((p) => cited.has(`PR #${p.number}`)) && !e.issues.some((x) => cited.has(`#${x.number}`))) return
    add(id, `commit ${id} (${e.commit.date.slice(0, 10)}, ${e.commit.category}): ${e.commit.subject}`)
    if (e.commit.why) add(id, `its message explains: ${e.commit.why}`)
    if (e.commit.reverts) add(id, `it reverts commit ${short(e.commit.reverts)}`)
    if (e.pull_requests.length) add(id, `it came through ${e.pull_requests.map((p) => `PR #${p.number}`).join(', ')}`)
    if (e.issues.length) add(id, `it refers to ${e.issues.map((x) => `issue #${x.number}`).join(', ')}`)
    add(id, `how it relates to the subject: ${[...new Set(e.reasons)].join('; ')}`)
    for (const p of e.pull_requests) add(`PR #${p.number}`, `pull request #${p.number}${p.title ? `: ${p.title}` : ''} (merged as commit ${id})`)
    for (const x of e.issues) add(`#${x.number}`, `issue #${x.number}${x.title ? `: ${x.title}` : ''} (referred to by commit ${id})`)
  })
  for (const p of facts.changesWith) {
    if (!p.example) continue
    add(short(p.example), `commit ${short(p.example)} is one of ${p.shared} commits in which the subject changed together with ${p.qualified_name ? `${p.qualified_name} in ` : ''}${p.path}`)
  }
  return {
    task: 'why',
    subject: question ? `the question ${JSON.stringify(question)}${facts.label !== 'this' ? `, about ${facts.label}` : ''}` : facts.label,
    instructions: WHY_INSTRUCTIONS,
    evidence: [...pieces].map(([id, lines]) => ({ id, text: lines.join('\n') })),
  }
}

const none = (synthesizer: string | null, status: WhyLlm['status'], reason: string | null): WhyLlm => ({ synthesizer, status, reason, warning: null, cached: false, dropped_citations: 0, tokens: null, ms: null, estimate: null })

/**
 * The answer with the synthesizer's help: its sentences when it answers, else the extractive
 * ones with the reason in `answerer`. `onlyEstimate`: estimate the call, make none.
 */
export async function answerWithLlm(
  synthesizer: Synthesizer | null,
  facts: WhyFacts,
  extractive: WhyAnswer,
  question: string | null,
  onlyEstimate: boolean,
): Promise<{ answer: WhyAnswer; llm: WhyLlm }> {
  const name = synthesizer?.name ?? null
  const request = whyRequest(facts, extractive, question)
  if (onlyEstimate) {
    const e = await estimate(request, synthesizer)
    const reason = !facts.enough ? `confidence below 0.4: no call would be made` : !synthesizer ? 'no provider configured' : null
    return { answer: { ...extractive, answerer: `${extractive.answerer} (llm estimate only)` }, llm: { ...none(name, 'estimated', reason), estimate: e } }
  }
  if (!synthesizer) return { answer: extractive, llm: none(name, 'not called', 'no provider configured') }
  if (!facts.enough) return { answer: { ...extractive, answerer: `${extractive.answerer} (llm not called: confidence below 0.4)` }, llm: none(name, 'not called', 'confidence below 0.4') }
  const r = await synthesizer.synthesize(request)
  if (!r.ok) {
    return {
      answer: { ...extractive, answerer: `${extractive.answerer} (llm declined: ${r.reason})` },
      llm: { ...none(name, 'declined', r.reason), warning: r.warning ?? null, dropped_citations: r.dropped_citations ?? 0 },
    }
  }
  return {
    answer: { text: r.text, sentences: r.sentences.map((s) => ({ text: s.text, citations: s.citations })), answerer: `llm (${name})` },
    llm: { ...none(name, 'answered', null), cached: r.cached, dropped_citations: r.dropped_citations, tokens: r.tokens, ms: r.ms },
  }
}

/** The text lines saying what the LLM did (after the answer), or would cost (before it). */
export function llmLines(llm: WhyLlm | undefined): { before: string[]; after: string[] } {
  if (!llm) return { before: [], after: [] }
  if (llm.status === 'estimated' && llm.estimate) {
    const e = llm.estimate
    const cost = e.cost === null ? 'no price configured (llm.price)' : `cost ~${e.cost.toFixed(6).replace(/0+$/, '').replace(/\.$/, '')}`
    const before = [`llm estimate, no call made: ~${e.input_tokens} input + up to ${e.output_tokens} output tokens, ${cost} (${e.synthesizer ?? 'no provider configured'})`]
    if (e.cached) before.push('llm estimate: answered before with this evidence: asking makes no call')
    if (e.budget) before.push(e.budget)
    if (llm.reason && llm.reason !== 'no provider configured') before.push(`llm estimate: ${llm.reason}`)
    return { before, after: [] }
  }
  if (llm.status === 'answered') {
    const notes = [llm.cached ? 'cached: no call made' : `${llm.tokens?.input ?? 0} input + ${llm.tokens?.output ?? 0} output tokens, ${llm.ms} ms`]
    if (llm.dropped_citations > 0) notes.push(`${llm.dropped_citations} citation${llm.dropped_citations === 1 ? '' : 's'} naming no evidence dropped`)
    return { before: [], after: [`answered by llm ${llm.synthesizer} (${notes.join('; ')})`] }
  }
  return { before: [], after: [`answered extractively: llm ${llm.status === 'declined' ? 'declined' : 'not called'} (${llm.reason})`] }
}
