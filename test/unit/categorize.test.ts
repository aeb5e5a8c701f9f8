import { describe, expect, it } from 'vitest'
import { categorize, isBot, isRevert, MEGA_FILES, MEGA_LINES, MICRO_LINES } from '../../src/history/categorize.js'
import type { FileDiff } from '../../src/git/diff-parser.js'

function fd(additions: number, deletions: number, extra: Partial<FileDiff> = {}): FileDiff {
  return { path: 'f.ts', oldPath: 'f.ts', status: 'M', binary: false, hunks: [], additions, deletions, whitespaceOnly: false, ...extra }
}

const human = { parents: 1, authorName: 'Ada Lovelace', authorEmail: 'ada@example.com', message: 'Change things' }
const cat = (diff: FileDiff[], over: Partial<typeof human> = {}) => categorize({ ...human, ...over, diff })
const files = (n: number, each: (i: number) => FileDiff = () => fd(1, 0)) => Array.from({ length: n }, (_, i) => ({ ...each(i), path: `f${i}.ts`, oldPath: `f${i}.ts` }))

describe('thresholds', () => {
  it('has the documented values', () => {
    expect([MICRO_LINES, MEGA_LINES, MEGA_FILES]).toEqual([5, 1000, 50])
  })
})

describe('categorize', () => {
  it('merge: two or more parents, before anything else', () => {
    expect(cat([fd(5000, 0)], { parents: 2, authorName: 'dependabot[bot]', message: 'Revert "x"' })).toBe('merge')
    expect(cat([], { parents: 3 })).toBe('merge')
  })

  it('initial: no parents', () => {
    expect(cat([fd(5000, 0, { status: 'A' })], { parents: 0, authorName: 'renovate[bot]' })).toBe('initial')
  })

  it('bot: by name or email, before revert and size', () => {
    expect(cat([fd(3, 0)], { authorName: 'dependabot[bot]', authorEmail: '49699333+dependabot[bot]@users.noreply.github.com' })).toBe('bot')
    expect(cat([fd(3000, 0)], { authorName: 'CI Bot' })).toBe('bot')
    expect(cat([fd(3, 0)], { message: 'Revert "x"', authorName: 'release-bot' })).toBe('bot')
    expect(cat([fd(3, 0)], { authorName: 'Deploy', authorEmail: 'bot@example.com' })).toBe('bot')
  })

  it('revert: "Revert \\"…" subject or "This reverts commit <sha>"', () => {
    expect(cat([fd(300, 0)], { message: 'Revert "Add the thing"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.' })).toBe('revert')
    expect(cat([fd(300, 0)], { message: 'Undo the thing\n\nThis reverts commit abcdef1.' })).toBe('revert')
  })

  it('formatting: every changed file is whitespace-only (unchanged files ignored)', () => {
    expect(cat([fd(40, 40, { whitespaceOnly: true }), fd(2, 2, { whitespaceOnly: true })])).toBe('formatting')
    expect(cat([fd(40, 40, { whitespaceOnly: true }), fd(0, 0, { status: 'R', oldPath: 'old.ts' })])).toBe('formatting')
    // a changed binary file (or lockfile, mined as binary) is a real change beside the reindent
    expect(cat([fd(40, 40, { whitespaceOnly: true }), fd(0, 0, { binary: true })])).toBe('normal')
    // one real change spoils it
    expect(cat([fd(40, 40, { whitespaceOnly: true }), fd(1, 1)])).toBe('normal')
    // a huge reformat is still formatting, not mega
    expect(cat([fd(5000, 5000, { whitespaceOnly: true })])).toBe('formatting')
  })

  it('micro: at most MICRO_LINES changed lines (additions + deletions, all files)', () => {
    expect(cat([fd(3, 2)])).toBe('micro') // 5
    expect(cat([fd(3, 0), fd(0, 2)])).toBe('micro') // 5 over two files
    expect(cat([fd(3, 3)])).toBe('normal') // 6
    expect(cat([])).toBe('micro') // empty commit
    expect(cat([fd(0, 0, { status: 'R', oldPath: 'old.ts' })])).toBe('micro') // pure rename
  })

  it('mega: more than MEGA_LINES lines', () => {
    expect(cat([fd(500, 500)])).toBe('normal') // 1000
    expect(cat([fd(501, 500)])).toBe('mega') // 1001
    expect(cat([fd(600, 0), fd(0, 401)])).toBe('mega') // 1001 over two files
  })

  it('mega: more than MEGA_FILES files, even with few lines each (or none)', () => {
    expect(cat(files(50))).toBe('normal') // 50 files, 50 lines
    expect(cat(files(51))).toBe('mega')
    expect(cat(files(51, () => fd(0, 0, { status: 'R' })))).toBe('mega') // 51 pure renames
    expect(cat(files(50, () => fd(0, 0, { status: 'R' })))).toBe('micro')
  })
})

describe('isBot', () => {
  it.each([
    ['dependabot[bot]', 'support@github.com'],
    ['github-actions[bot]', '41898282+github-actions[bot]@users.noreply.github.com'],
    ['renovate', 'x@example.com'],
    ['Renovate Bot', 'x@example.com'],
    ['snyk-bot', 'x@example.com'],
    ['semantic-release-bot', 'x@example.com'],
    ['greenkeeper', 'x@example.com'],
    ['bot', 'x@example.com'],
    ['Jenkins', 'bot@ci.example.com'],
    ['Jenkins', 'ci+renovate@example.com'],
    ['Someone', 'someone[bot]@example.com'],
  ])('%s <%s> is a bot', (name, email) => {
    expect(isBot(name, email)).toBe(true)
  })

  it.each([
    ['Ada Lovelace', 'ada@example.com'],
    ['Robert Abbott', 'rob@example.com'],
    ['Talbot', 'talbot@example.com'],
    ['Botha', 'botha@example.com'],
    ['Robot Wars Fan', 'robot@example.com'],
    ['Jane', 'jane.bot@example.com'],
  ])('%s <%s> is not a bot', (name, email) => {
    expect(isBot(name, email)).toBe(false)
  })
})

describe('isRevert', () => {
  it('recognises git revert messages', () => {
    expect(isRevert('Revert "Add x"')).toBe(true)
    expect(isRevert('Something\n\nThis reverts commit 1234567.')).toBe(true)
    expect(isRevert('Revert "Revert "Add x""\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.')).toBe(true)
  })

  it('does not flag other mentions of reverting', () => {
    expect(isRevert('Reverting the cache change')).toBe(false)
    expect(isRevert('revert "x"')).toBe(false)
    expect(isRevert('Fix: do not Revert "x"')).toBe(false)
    expect(isRevert('This reverts commit 123456 (too short)')).toBe(false)
    expect(isRevert('This reverts commit XYZXYZXYZ')).toBe(false)
  })
})
