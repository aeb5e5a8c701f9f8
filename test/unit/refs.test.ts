import { describe, expect, it } from 'vitest'
import { parseMessageRefs } from '../../src/history/refs.js'

describe('parseMessageRefs: pull requests', () => {
  it('GitHub merge commit: PR number from the subject, title from the body', () => {
    expect(parseMessageRefs('Merge pull request #123 from owner/branch\n\nAdd the thing')).toEqual({
      pullRequest: { number: 123, title: 'Add the thing', source: 'github' },
      issues: [],
    })
  })

  it('GitHub merge commit without a body falls back to the subject as title', () => {
    expect(parseMessageRefs('Merge pull request #7 from o/b').pullRequest).toEqual({ number: 7, title: 'Merge pull request #7 from o/b', source: 'github' })
    // a separator line is no title (psf/requests' PR #35 was titled "---")
    expect(parseMessageRefs('Merge pull request #35 from o/b\n\n---\nFix the docs').pullRequest).toEqual({ number: 35, title: 'Fix the docs', source: 'github' })
    expect(parseMessageRefs('Merge pull request #36 from o/b\n\n---').pullRequest?.title).toBe('Merge pull request #36 from o/b')
  })

  it('GitHub merge commit: issues in the body are still collected', () => {
    expect(parseMessageRefs('Merge pull request #123 from owner/fix-9\n\nFix the crash\n\nFixes #9')).toEqual({
      pullRequest: { number: 123, title: 'Fix the crash', source: 'github' },
      issues: [{ number: 9, closes: true }],
    })
  })

  it('squash subject "(#N)"', () => {
    expect(parseMessageRefs('feat: x (#45)')).toEqual({ pullRequest: { number: 45, title: 'feat: x', source: 'github' }, issues: [] })
    expect(parseMessageRefs('feat: x (#45)  \n\n* squashed commit').pullRequest).toEqual({ number: 45, title: 'feat: x', source: 'github' })
  })

  it('"(#N)" not at the end of the subject is not a squash PR', () => {
    // the quoted subject still mentions #45: a plain reference
    expect(parseMessageRefs('Revert "feat: x (#45)"')).toEqual({ pullRequest: null, issues: [{ number: 45, closes: false }] })
    expect(parseMessageRefs('feat: x\n\nfollow-up (#45)').pullRequest).toBeNull()
  })

  it('a PR number is not repeated as an issue', () => {
    expect(parseMessageRefs('Fix crash (#45)\n\nFollow-up to #45, see #44')).toEqual({
      pullRequest: { number: 45, title: 'Fix crash', source: 'github' },
      issues: [{ number: 44, closes: false }],
    })
    expect(parseMessageRefs('Merge pull request #12 from a/b\n\nTitle\n\nsee #12 and #13').issues).toEqual([{ number: 13, closes: false }])
  })

  it('GitLab merge request: "See merge request group/proj!17"', () => {
    expect(parseMessageRefs("Merge branch 'feature' into 'main'\n\nAdd widget\n\nSee merge request group/proj!17")).toEqual({
      pullRequest: { number: 17, title: 'Add widget', source: 'gitlab' },
      issues: [],
    })
  })

  it('GitLab merge request: bare "!N" in a "Merge branch" commit', () => {
    expect(parseMessageRefs("Merge branch 'x' into 'main'\n\nAdd widget !21")).toEqual({
      pullRequest: { number: 21, title: 'Add widget !21', source: 'gitlab' },
      issues: [],
    })
  })

  it('"!N" outside a "Merge branch" commit, or glued to a word, is not an MR', () => {
    expect(parseMessageRefs('Wow !21 great').pullRequest).toBeNull()
    expect(parseMessageRefs("Merge branch 'x'\n\nWow!21").pullRequest).toBeNull()
  })
})

describe('parseMessageRefs: issues', () => {
  it('closing keywords, lists and cross-repo forms', () => {
    expect(parseMessageRefs('Fixes #1, closes #2 and resolves owner/repo#3').issues).toEqual([
      { number: 1, closes: true },
      { number: 2, closes: true },
      { number: 3, closes: true },
    ])
  })

  it('every GitHub keyword inflection, any case, optional colon', () => {
    const words = ['close', 'closes', 'closed', 'fix', 'fixes', 'fixed', 'resolve', 'resolves', 'resolved', 'FIXES', 'Fixes:']
    words.forEach((w, i) => {
      expect(parseMessageRefs(`${w} #${i + 1}`).issues, w).toEqual([{ number: i + 1, closes: true }])
    })
  })

  it('a keyword list "#1, #2 and #3" closes all of them', () => {
    expect(parseMessageRefs('Fixes #1, #2 and #3').issues).toEqual([
      { number: 1, closes: true },
      { number: 2, closes: true },
      { number: 3, closes: true },
    ])
  })

  it('a bare "#9" is a reference, not a closing one', () => {
    expect(parseMessageRefs('Tweak the parser, see #9')).toEqual({ pullRequest: null, issues: [{ number: 9, closes: false }] })
    expect(parseMessageRefs('#10 at the very start').issues).toEqual([{ number: 10, closes: false }])
    expect(parseMessageRefs('subject\n\n(#11) in parentheses in the body').issues).toEqual([{ number: 11, closes: false }])
  })

  it('closing wins over a plain reference of the same issue, whatever the order', () => {
    expect(parseMessageRefs('See #5\n\nFixes #5').issues).toEqual([{ number: 5, closes: true }])
  })

  it('keywords inside words do not close', () => {
    expect(parseMessageRefs('Hotfix #3').issues).toEqual([{ number: 3, closes: false }])
    expect(parseMessageRefs('prefix #4').issues).toEqual([{ number: 4, closes: false }])
    expect(parseMessageRefs('fixup #5').issues).toEqual([{ number: 5, closes: false }])
  })

  it('things that are not references', () => {
    const none = [
      'Port the C# code',
      'Escape &#123; in HTML',
      'Link https://example.com/docs/#42',
      'Link https://example.com/page#42',
      'Link https://example.com/page?x=1#7',
      'Issue#5 glued to a word',
      'See owner/repo#6 (another repository)',
      'Version #1a and #12abc',
      'No numbers here: #main, #',
    ]
    for (const m of none) expect(parseMessageRefs(m), m).toEqual({ pullRequest: null, issues: [] })
  })
})
