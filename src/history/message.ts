/**
 * A commit message's subject and body as git's `%s` and `%b` give them: leading blank lines are
 * skipped; the subject is the first paragraph, its lines stripped of trailing whitespace (a CRLF
 * message's \r too) and joined with spaces; the body is the rest, from its first non-blank line.
 * A line of only whitespace is blank.
 */
export function splitMessage(message: string): { subject: string; body: string } {
  const lines = message.split('\n')
  let i = 0
  while (i < lines.length && isBlank(lines[i])) i++
  const subject: string[] = []
  for (; i < lines.length && !isBlank(lines[i]); i++) subject.push(lines[i].replace(TRAILING_SPACE, ''))
  while (i < lines.length && isBlank(lines[i])) i++
  return { subject: subject.join(' '), body: lines.slice(i).join('\n') }
}

// git's isspace(): ASCII whitespace only (a no-break space is text)
const TRAILING_SPACE = /[\t\n\v\f\r ]+$/

function isBlank(line: string): boolean {
  return line.replace(TRAILING_SPACE, '') === ''
}

/** The longest `why` kept: about two lines of a terminal. */
const WHY_MAX = 240
// a trailer line: `Token: value` where the token is a known one or has a hyphen (git's rule of thumb)
const TRAILER = /^(?:[A-Za-z][A-Za-z0-9]*-[A-Za-z0-9-]*|Cc|Fixes|Closes|Resolves|Refs?|Bug|Link|See-also|Issue|Signed-off-by|Change-Id)\s*:\s*\S/i
// squash-merge boilerplate: the `* sub-commit subject` list, its `---------` rule, Gerrit/GitLab footers
const BOILERPLATE = /^(?:(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|refs?|see)\s+(?:[\w.-]+\/[\w.-]+)?#\d+[\s,.]*$|\*\s|-{3,}\s*$|See merge request\s|This reverts commit\s|\(cherry picked from commit\s)/i

/**
 * The paragraph of a commit body that says why: its first paragraph that is not trailers
 * (Signed-off-by, Co-authored-by, Change-Id…) or squash-merge boilerplate (the `* subject`
 * list of the squashed commits), its lines joined and cut to about two lines. Null when the
 * body has none.
 */
export function firstParagraph(body: string): string | null {
  for (const paragraph of body.split(/\n[\t\v\f\r ]*\n/)) {
    const lines = paragraph.split('\n').map((l) => l.trim()).filter((l) => l !== '')
    if (lines.length === 0) continue
    if (lines.every((l) => TRAILER.test(l) || BOILERPLATE.test(l))) continue
    // a bullet list whose items are the squashed commits' subjects, continued on indented lines
    if (BOILERPLATE.test(lines[0]) && lines[0].startsWith('*')) continue
    const text = lines.filter((l) => !TRAILER.test(l)).join(' ').replace(/\s+/g, ' ')
    return text.length > WHY_MAX ? `${text.slice(0, WHY_MAX - 1).trimEnd()}…` : text
  }
  return null
}

/** Messages that say nothing about why (the whole subject, trailing punctuation aside). */
const VAGUE = /^(?:wip|fix(?:e[sd])?|bug ?fix(?:es)?|updates?d?|changes?|tmp|temp|misc|clean ?up|refactor(?:ing)?|tweaks?|minor|stuff|more|typo|lint|format(?:ting)?|save|commit|tests?|work|progress|asdf|\W*)$/i

/** A subject that states something: three words or more and not one of the vague ones. */
export function informativeSubject(subject: string): boolean {
  const s = subject.replace(/[\s.!:;,-]+$/, '').trim()
  return !VAGUE.test(s) && s.split(/\s+/).length >= 3
}

/** A body paragraph long enough to be a reason. */
export const informativeBody = (why: string | null | undefined): boolean => !!why && why.split(/\s+/).length >= 6

/**
 * The stated reason of a commit: its body's paragraph, else the paragraph of its PR's description
 * that says why (forge enrichment: a squash commit's body is often just the list of its commits).
 */
export function statedReason(e: { commit: { why?: string }; pull_requests: ReadonlyArray<{ number: number; why?: string }> }): { text: string; pr: number | null } | null {
  if (informativeBody(e.commit.why)) return { text: e.commit.why!, pr: null }
  const pr = e.pull_requests.find((p) => informativeBody(p.why))
  return pr ? { text: pr.why!, pr: pr.number } : null
}

/**
 * How much a commit's message explains, in [0, 1]: its stated reason, body or PR description (0.5),
 * its subject or a PR or issue title that states something (0.3), a PR or issue it names (0.2).
 * `why` and `brief` rank by it.
 */
export function messageQuality(e: { commit: { subject: string; why?: string }; pull_requests: ReadonlyArray<{ number: number; title: string; why?: string }>; issues: ReadonlyArray<{ title: string }> }): number {
  const titled = e.pull_requests.some((p) => informativeSubject(p.title)) || e.issues.some((i) => informativeSubject(i.title))
  return (statedReason(e) ? 0.5 : 0) + (informativeSubject(e.commit.subject) || titled ? 0.3 : 0) + (e.pull_requests.length + e.issues.length > 0 ? 0.2 : 0)
}
