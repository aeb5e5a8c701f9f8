import { describe, expect, it } from 'vitest'
import { splitMessage } from '../../src/history/message.js'
import { parseMessageRefs } from '../../src/history/refs.js'

// Expected values are `git log --format=%s%x00%b` of commits with these messages (git 2.39); the
// message is given as gitwhy holds it (%B without its trailing newlines).
describe('splitMessage = git %s / %b', () => {
  it('a CRLF message (psf/requests 5e6ecdad): no \\r in the subject, the blank \\r line ends it', () => {
    expect(splitMessage('Typo in documentation\r\n\r\nThe kwarg is named\r')).toEqual({ subject: 'Typo in documentation', body: 'The kwarg is named\r' })
  })

  it('leading blank lines skipped, a wrapped first paragraph joined with spaces, whitespace-only lines are blank', () => {
    expect(splitMessage('\n\n  \nwrapped subject  \nsecond line\t\n \t\n\nbody one\n\nbody two')).toEqual({ subject: 'wrapped subject second line', body: 'body one\n\nbody two' })
  })

  it('a subject alone has an empty body; a no-break space is text, not blank', () => {
    expect(splitMessage('only')).toEqual({ subject: 'only', body: '' })
    expect(splitMessage('nbsp\u00a0\n\u00a0\nbody')).toEqual({ subject: 'nbsp\u00a0 \u00a0 body', body: '' })
  })

  it('PR references read the same subject (a squash suffix on a wrapped subject\'s second line)', () => {
    expect(parseMessageRefs('Fix the\r\nthing (#42)\r\n\r\nbody\r').pullRequest).toEqual({ number: 42, title: 'Fix the thing', source: 'github' })
  })
})
