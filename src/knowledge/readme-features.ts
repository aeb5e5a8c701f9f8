/**
 * Features, what the product does, from a README: each `##` section under a heading that is about
 * the product (not installation, licence, contributing, …) is one feature, stated by its first
 * paragraph. Pure: (text) in, features out.
 */

export interface ReadmeFeature {
  title: string
  statement: string
  start_line: number
  end_line: number
  snippet: string
}

/** Sections about the project's housekeeping rather than what it does. */
const NOT_A_FEATURE = /^(table of contents|contents|toc|install(ation|ing)?|setup|getting started|quick ?start|requirements|prerequisites|usage|development|developing|building|build|tests?|testing|contribut(e|ing|ors)|licen[cs]e|changelog|release notes|sponsors?|backers|credits|acknowledg(e)?ments|authors?|support|faq|community|code of conduct|security|badges|documentation|docs|links|related( projects)?|see also|thanks|roadmap|status|versioning|migration|examples?|contribution|questions|issues|communication|(core )?team|maintainers|stay in touch|chat|ai agents|llms?)\b/i

export function readmeFeatures(text: string): ReadmeFeature[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const out: ReadmeFeature[] = []
  let fence = false
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*(```|~~~)/.test(lines[i])) fence = !fence
    const m = fence ? null : /^##\s+(.+?)\s*#*\s*$/.exec(lines[i])
    if (!m) continue
    const title = m[1].replace(/[*_`[\]]/g, '').replace(/\(.*?\)/g, '').trim()
    if (!title || NOT_A_FEATURE.test(title)) continue
    // the first prose paragraph of the section (not a code block, table, image or list of links)
    let s = i + 1
    while (s < lines.length && !/^#{1,2}\s/.test(lines[s]) && (lines[s].trim() === '' || /^\s*(```|~~~|\||!\[|<|#{3,})/.test(lines[s]))) {
      if (/^\s*(```|~~~)/.test(lines[s])) {
        s++
        while (s < lines.length && !/^\s*(```|~~~)/.test(lines[s])) s++
      }
      s++
    }
    if (s >= lines.length || /^#{1,2}\s/.test(lines[s])) continue
    let e = s
    while (e + 1 < lines.length && lines[e + 1].trim() !== '' && !/^\s*(#|```|~~~|\|)/.test(lines[e + 1])) e++
    const paragraph = lines.slice(s, e + 1)
    const statement = paragraph.map((l) => l.trim().replace(/^[-*+]\s+/, '')).join(' ').replace(/\s+/g, ' ').trim()
    if (statement.split(' ').length < 6) continue
    // an instruction to the reader or a list of links is housekeeping, not what the product does
    if (/^(>|please\b|if you\b|read\b|see\b|for (questions|support|more)\b)/i.test(statement)) continue
    if ((statement.match(/\]\(/g) ?? []).length >= 2 && statement.replace(/\[[^\]]*\]\([^)]*\)/g, '').split(' ').length < 15) continue
    out.push({ title, statement, start_line: s + 1, end_line: e + 1, snippet: paragraph.join('\n') })
  }
  return out
}
