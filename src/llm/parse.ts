import type { SynthesizedSentence } from './types.js'

/**
 * A model's answer read back (issue 15): split into sentences, each with the evidence ids it
 * cites in square brackets. A bracket that looks like a citation (a hex sha, `PR #12`, `#34`,
 * `L40-52`) but names no evidence of the request is dropped from the text and counted; other
 * brackets (`[sic]`, `[redacted]`) stay as they are.
 */
export interface ParsedAnswer {
  text: string
  sentences: SynthesizedSentence[]
  dropped_citations: number
  /** Some valid citation survived. */
  cited: boolean
  /** The model said it does not know (or as good as). */
  hedged: boolean
}

/** Phrases by which a model says the evidence does not answer. */
const HEDGES = [
  /\bI (?:do not|don't|dont) know\b/i,
  /\bI(?:'m| am) (?:not sure|unsure|unable)\b/i,
  /\b(?:cannot|can't|can not|could not|couldn't|unable to) (?:be )?(?:determine|tell|say|infer|know|find|establish)/i,
  /\bnot enough (?:information|evidence|context|detail|data)\b/i,
  /\binsufficient (?:information|evidence|context|detail|data)\b/i,
  /\b(?:it is|it's|it remains|remains|is still) (?:unclear|not clear|unknown)\b/i,
  /\bunclear (?:why|whether|what|how|from)\b/i,
  /\bno (?:clear )?evidence\b/i,
  /\bthe evidence (?:does not|doesn't|do not|don't) (?:say|explain|state|mention|show|indicate|specify|give)\b/i,
  /\bthere is no (?:information|indication|explanation|mention)\b/i,
  /\b(?:hard|difficult|impossible) to (?:say|tell|determine)\b/i,
  /\bno (?:reason|rationale|explanation) (?:is )?(?:given|provided|stated|recorded)\b/i,
]

/** What a bracket's item must look like to be taken for a citation. */
const CITATION_LIKE = /^(?:commit\s+)?(?:[0-9a-f]{7,40}|pr\s*#?\s*\d+|pull request\s*#?\s*\d+|#\d+|issue\s*#\d+|L\d+(?:-\d+)?)$/i

/** One bracket item as the ids are written: `PR #12`, `#34`, a lower-case sha. */
function normalise(item: string): string {
  const t = item.trim().replace(/^commit\s+/i, '')
  const pr = /^(?:pr|pull request)\s*#?\s*(\d+)$/i.exec(t)
  if (pr) return `PR #${pr[1]}`
  const issue = /^issue\s*#(\d+)$/i.exec(t)
  if (issue) return `#${issue[1]}`
  return /^[0-9a-f]{7,40}$/i.test(t) ? t.toLowerCase() : t
}

/** The evidence id an item names, or null. A sha matches an id it starts with, or that starts with it (7 characters or more). */
function resolve(item: string, ids: readonly string[]): string | null {
  const n = normalise(item)
  const exact = ids.find((id) => id.toLowerCase() === n.toLowerCase())
  if (exact) return exact
  if (/^[0-9a-f]{7,40}$/.test(n)) {
    const hits = ids.filter((id) => /^[0-9a-f]{7,40}$/i.test(id) && (n.startsWith(id.toLowerCase()) || id.toLowerCase().startsWith(n)))
    if (hits.length === 1) return hits[0]
  }
  return null
}

/** Markdown and list dressing a model adds although told not to. */
function undress(line: string): string {
  return line
    .replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '')
    .replace(/^\s*#{1,6}\s+/, '')
    .replace(/\*\*|__|`/g, '')
    .trim()
}

const ONLY_BRACKETS = /^(?:\s*\[[^\[\]]{1,120}\]\s*[.,;]?)+$/

function splitSentences(raw: string): string[] {
  const out: string[] = []
  for (const line of raw.split(/\r?\n/).map(undress).filter(Boolean)) {
    for (const piece of line.split(/(?<=[.!?])\s+(?=[A-Z"'(\[])/)) {
      const p = piece.trim()
      if (!p) continue
      // citations written after the full stop belong to the sentence before
      if (ONLY_BRACKETS.test(p) && out.length > 0) out[out.length - 1] = `${out[out.length - 1]} ${p}`
      else out.push(p)
    }
  }
  return out
}

export function parseAnswer(raw: string, evidenceIds: readonly string[]): ParsedAnswer {
  let dropped = 0
  const sentences: SynthesizedSentence[] = []
  for (const s of splitSentences(raw)) {
    const citations: string[] = []
    const text = s
      .replace(/\[([^\[\]]{1,120})\]/g, (whole: string, inner: string) => {
        const items = inner.split(/\s*(?:[,;]|\band\b)\s*/).filter(Boolean)
        if (!items.some((i) => CITATION_LIKE.test(i.trim()) || resolve(i, evidenceIds))) return whole
        const kept: string[] = []
        for (const item of items) {
          const id = resolve(item, evidenceIds)
          if (id) {
            if (!kept.includes(id)) kept.push(id)
            if (!citations.includes(id)) citations.push(id)
          } else if (CITATION_LIKE.test(item.trim())) dropped++
          // anything else inside a citation bracket (`see`, `e.g.`) goes with it
        }
        return kept.map((k) => `[${k}]`).join(' ')
      })
      .replace(/\s+([.,;!?])/g, '$1')
      .replace(/\s{2,}/g, ' ')
      .trim()
    if (text && !/^[.,;!?]+$/.test(text)) sentences.push({ text, citations })
  }
  return {
    text: sentences.map((s) => s.text).join(' '),
    sentences,
    dropped_citations: dropped,
    cited: sentences.some((s) => s.citations.length > 0),
    hedged: HEDGES.some((h) => h.test(raw)),
  }
}
