/**
 * Architecture decision records, the two common shapes:
 *   Nygard  `# 1. Title`, `Date:`, `## Status` / `## Context` / `## Decision` / `## Consequences`
 *   MADR    `# Title`, status in YAML front matter or a `* Status:` line, `## Context and Problem
 *           Statement`, `## Considered Options`, `## Decision Outcome` ("Chosen option: …, because …")
 * and a DECISIONS.md log, each `##` section one decision. Pure: (path, text) in, records out.
 */

export type AdrStatus = 'accepted' | 'proposed' | 'superseded' | 'rejected' | 'unknown'

export interface AdrRecord {
  format: 'nygard' | 'madr' | 'log'
  title: string
  status: AdrStatus
  /** What was decided (the Decision section's first paragraph, or MADR's chosen option). */
  statement: string
  /** Why (the context, or MADR's "because …"). */
  rationale: string
  /** The date the record gives (YYYY-MM-DD), if any. */
  date: string | null
  /** The lines that state the decision (1-based, inclusive) and their text: the evidence a verifier checks. */
  start_line: number
  end_line: number
  snippet: string
}

/** Paths that hold decision records: adr/decisions folders, ADR-numbered files, a DECISIONS.md. */
export function isAdrPath(p: string): boolean {
  if (!/\.(md|markdown)$/i.test(p)) return false
  const base = p.split('/').pop()!
  if (/^decisions\.md$/i.test(base)) return true
  if (/^(readme|index|template|adr-template)\.md$/i.test(base)) return false
  if (/(^|\/)(adr|adrs|decisions|architecture[-_]decisions|decision[-_]records)\//i.test(p)) return true
  return /^adr[-_ ]?\d+/i.test(base)
}

interface Section {
  heading: string
  level: number
  /** Line of the heading (1-based). */
  line: number
  body: string[]
}

function sections(lines: string[], from: number): Section[] {
  const out: Section[] = []
  let fence = false
  for (let i = from; i < lines.length; i++) {
    const line = lines[i]
    if (/^\s*(```|~~~)/.test(line)) fence = !fence
    const m = fence ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line)
    if (m) out.push({ heading: m[2], level: m[1].length, line: i + 1, body: [] })
    else if (out.length > 0) out[out.length - 1].body.push(line)
  }
  return out
}

/** The first paragraph of a section body (blank lines around it dropped), with its offset in the body. */
function firstParagraph(body: string[]): { text: string[]; offset: number } {
  let start = body.findIndex((l) => l.trim() !== '')
  if (start < 0) return { text: [], offset: 0 }
  let end = start
  while (end < body.length && body[end].trim() !== '') end++
  return { text: body.slice(start, end), offset: start }
}

const oneLine = (lines: string[]): string => lines.map((l) => l.trim().replace(/^[-*]\s+/, '')).join(' ').replace(/\s+/g, ' ').trim()

export function adrStatus(text: string): AdrStatus {
  const t = text.toLowerCase()
  if (/supersed|replaced by|amended by/.test(t)) return 'superseded'
  if (/reject|deprecat|obsolete|withdrawn|declined/.test(t)) return 'rejected'
  if (/accept|approv|adopted|done|implemented|decided|agreed/.test(t)) return 'accepted'
  if (/propos|draft|open|review|discuss|hold|pending/.test(t)) return 'proposed'
  return 'unknown'
}

const find = (all: Section[], re: RegExp) => all.find((s) => re.test(s.heading))

/** One file's records: one for an ADR, several for a DECISIONS.md log, none for anything else. */
export function parseAdr(p: string, text: string): AdrRecord[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  let from = 0
  const front: Record<string, string> = {}
  if (lines[0]?.trim() === '---') {
    const close = lines.indexOf('---', 1)
    if (close > 0) {
      for (const l of lines.slice(1, close)) {
        const m = /^([A-Za-z_-]+):\s*(.*)$/.exec(l)
        if (m) front[m[1].toLowerCase()] = m[2].replace(/^["']|["']$/g, '')
      }
      from = close + 1
    }
  }
  const all = sections(lines, from)
  const top = all.find((s) => s.level === 1)
  const title = (top?.heading ?? front.title ?? '').replace(/^(adr[-_ ]?)?\d+[.:)]?\s*[-:]?\s*/i, '').trim()
  const headerText = top ? top.body.join('\n') : ''
  const dateOf = (s: string) => /(\d{4}-\d{2}-\d{2})/.exec(s)?.[1] ?? null

  const outcome = find(all, /^decision outcome$/i)
  const decision = find(all, /^(the )?decisions?$/i)
  if (outcome || (decision && (find(all, /^status$/i) || find(all, /^context/i)))) {
    const madr = outcome !== undefined
    const section = (outcome ?? decision)!
    const para = firstParagraph(section.body)
    if (para.text.length === 0) return []
    const statusSection = find(all, /^status$/i)
    const statusText = front.status ?? /^\s*[-*]\s*status:\s*(.*)$/im.exec(headerText)?.[1] ?? (statusSection ? oneLine(firstParagraph(statusSection.body).text) : '')
    const context = find(all, /^context/i)
    let statement = oneLine(para.text)
    let rationale = context ? oneLine(firstParagraph(context.body).text) : ''
    const chosen = /^chosen option:?\s*(.*?)(?:,\s*because\s*(.*))?$/i.exec(statement)
    if (madr && chosen) {
      statement = `Chosen option: ${chosen[1].replace(/^["“]|["”]$/g, '')}`
      if (chosen[2]) rationale = chosen[2]
    }
    const start = section.line + 1 + para.offset
    return [{
      format: madr ? 'madr' : 'nygard',
      title: title || statement.slice(0, 80),
      status: adrStatus(statusText),
      statement,
      rationale,
      date: dateOf(front.date ?? '') ?? dateOf(/^\s*[-*]?\s*date:\s*(.*)$/im.exec(headerText)?.[1] ?? ''),
      start_line: start,
      end_line: start + para.text.length - 1,
      snippet: para.text.join('\n'),
    }]
  }
  if (/^decisions\.md$/i.test(p.split('/').pop()!)) {
    return all.filter((s) => s.level === 2).flatMap((s) => {
      const para = firstParagraph(s.body)
      if (para.text.length === 0) return []
      const start = s.line + 1 + para.offset
      const statement = oneLine(para.text)
      return [{ format: 'log' as const, title: s.heading, status: 'accepted' as const, statement, rationale: '', date: dateOf(s.heading), start_line: start, end_line: start + para.text.length - 1, snippet: para.text.join('\n') }]
    })
  }
  return []
}
