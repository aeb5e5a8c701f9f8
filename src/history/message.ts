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
