/**
 * Decision language in commit and PR messages: the sentences that record a choice ("we decided",
 * "instead of", "must not", "always use", "deprecated in favour of", "workaround for"), each with
 * the kind of finding it suggests and a confidence. Pure. The cues are data; a sentence needs a
 * cue, and what lifts it above a passing mention is a stated reason ("because", "so that",
 * "otherwise") and the message being prose rather than a list of changes.
 */
import type { DecisionKind } from './decision-model.js'

interface Cue {
  name: string
  re: RegExp
  kind: DecisionKind
  /** How strongly the cue alone says "a decision was made here". */
  weight: number
}

const CUES: Cue[] = [
  { name: 'we decided', re: /\b(we|i|team)\s+(have\s+)?(decided|chose|chosen|opted|settled on|agreed)\b/i, kind: 'decision', weight: 0.6 },
  { name: 'decided to', re: /\b(decided|decision)\s+(to|was|is|that|against|on)\b/i, kind: 'decision', weight: 0.5 },
  { name: 'deprecated in favour of', re: /\bdeprecated?\b[^.]{0,60}\bin\s+favou?r\s+of\b/i, kind: 'convention', weight: 0.6 },
  { name: 'in favour of', re: /\b(drop|remov|replac|switch|mov|migrat)\w*\b[^.]{0,60}\bin\s+favou?r\s+of\b/i, kind: 'decision', weight: 0.5 },
  { name: 'must not', re: /\b(must|shall)\s+(not|never)\b|\bmustn't\b|\bshould\s+never\b/i, kind: 'constraint', weight: 0.45 },
  // "X should not Y" is as often the bug a fix describes as a rule: it needs a reason to count
  { name: 'should not', re: /\bshould\s*(not|n't)\b/i, kind: 'constraint', weight: 0.3 },
  { name: 'never use', re: /\b(never|do not|don't)\s+(use|call|import|rely on|depend on|mutate|touch)\b/i, kind: 'constraint', weight: 0.45 },
  { name: 'always use', re: /\balways\s+(use|call|go through|prefer|import|wrap|run)\b/i, kind: 'convention', weight: 0.5 },
  { name: 'prefer over', re: /\bprefer\w*\b[^.]{0,60}\b(over|to)\b/i, kind: 'convention', weight: 0.35 },
  { name: 'workaround for', re: /\b(work\s?around|workaround)\s+(for|to)\b|\bas a workaround\b|\bto work around\b/i, kind: 'decision', weight: 0.45 },
  { name: 'instead of', re: /\binstead\s+of\b/i, kind: 'decision', weight: 0.3 },
  { name: 'by design', re: /\b(by design|intentionally|on purpose|deliberately|trade-?off)\b/i, kind: 'decision', weight: 0.3 },
]

const REASON = /\b(because|since|so that|in order to|to avoid|to prevent|otherwise|which (caused|causes|breaks|led)|due to|as it|as this|the reason)\b/i

export interface DecisionSentence {
  sentence: string
  kind: DecisionKind
  confidence: number
  cue: string
}

/** Text that is not the author's prose: trailers, quoted lines, code, links, lists of commits. */
function proseLines(body: string): string[] {
  const out: string[] = []
  let fence = false
  for (const raw of body.split('\n')) {
    const line = raw.trim()
    if (/^(```|~~~)/.test(line)) {
      fence = !fence
      continue
    }
    if (fence || !line) {
      out.push('')
      continue
    }
    if (/^[A-Z][\w-]+(-by|-to)?:\s/i.test(line) && /^(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|cc|fixes|closes|refs?|see|change-id|pr-url|bug|link):/i.test(line)) continue
    if (/^>/.test(line) || /^\* [0-9a-f]{7,}\b/.test(line) || /^(\s{4}|\t)/.test(raw)) continue
    if (/^(bumps?|updates?|dependabot|renovate)\b/i.test(line)) continue
    // a squashed branch's commit list ("* fix(x): …"): the history of the PR, not its rationale
    if (/^([-*+]\s+)?(feat|fix|refactor|perf|chore|docs|test|tests|style|build|ci|revert|wip)(\([^)]*\))?!?:\s/i.test(line)) continue
    out.push(line.replace(/^[-*+]\s+|^\d+[.)]\s+/, ''))
  }
  return out
}

/** Sentences of the prose (paragraphs joined, split at sentence ends). */
export function sentences(text: string): string[] {
  const paragraphs = proseLines(text).join('\n').split(/\n{2,}|\n(?=[A-Z])/)
  return paragraphs
    .flatMap((p) => p.replace(/\s+/g, ' ').trim().split(/(?<=[.!?])\s+(?=[A-Z`"(])/))
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
}

/** A message from a bot or a dependency update: its wording is generated, not decided. */
export function generatedMessage(subject: string): boolean {
  return /^(chore|build)\(deps(-dev)?\)|^bump\s|^update dependency|^\[bot\]|^merge (branch|pull request|remote-tracking)|^revert\b|^release\b|^v?\d+\.\d+\.\d+$|^chore: release/i.test(subject.trim())
}

/**
 * The decision sentences of one message (its subject and body), best first, at most `max`. A
 * plain message ("fix typo", "update deps", "add tests for parser") yields none.
 */
export function decisionSentences(subject: string, body: string, max = 2): DecisionSentence[] {
  if (generatedMessage(subject)) return []
  const all = [subject.trim(), ...sentences(body)]
  const bodyWords = body.split(/\s+/).filter(Boolean).length
  const out: DecisionSentence[] = []
  all.forEach((sentence, i) => {
    const words = sentence.split(/\s+/).length
    if (words < 5 || words > 80) return
    const found = CUES.filter((c) => c.re.test(sentence))
    // "returned X instead of Y", "was Y instead of": the bug a fix describes, not a choice
    const bugReport = /\b(returned|returns|returning|produced|produces|was|were|got|gets|throws|threw|incorrectly|wrongly|erroneously|unexpectedly)\b[^.]*\binstead of\b/i.test(sentence)
    const cues = found.filter((c) => !(bugReport && c.name === 'instead of'))
    if (cues.length === 0) return
    const best = cues.reduce((a, b) => (b.weight > a.weight ? b : a))
    let confidence = best.weight + 0.05 * (cues.length - 1)
    const reason = REASON.test(sentence) || (i + 1 < all.length && REASON.test(all[i + 1]))
    if (reason) confidence += 0.2
    // a rationale written out in the body is what a recorded decision looks like; a subject alone rarely is one
    if (i === 0) confidence -= 0.1
    if (bodyWords >= 25) confidence += 0.05
    // "instead of", "should not" and "by design" in a one-line fix describe the fix, not a choice
    if (best.weight < 0.35 && !reason) return
    // code-ish sentences (mostly identifiers and punctuation) describe the diff
    const symbolic = (sentence.match(/[`(){}[\];=<>]/g) ?? []).length / sentence.length
    if (symbolic > 0.06) confidence -= 0.15
    confidence = Math.max(0, Math.min(0.95, confidence))
    if (confidence < 0.35) return
    out.push({ sentence: sentence.length > 400 ? `${sentence.slice(0, 397)}…` : sentence, kind: best.kind, confidence: Math.round(confidence * 100) / 100, cue: best.name })
  })
  return out.sort((a, b) => b.confidence - a.confidence).slice(0, max)
}
