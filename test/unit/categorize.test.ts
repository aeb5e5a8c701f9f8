import { describe, expect, it } from 'vitest'
import { categorize, isBot, MEGA_FILES, MEGA_LINES, MICRO_LINES } from '../../src/history/categorize.js'
import { parseLineDiffs, revertClaim, undoneShare } from '../../src/history/reverts.js'
import type { FileDiff } from '../../src/git/diff-parser.js'

function fd(additions: number, deletions: number, extra: Partial<FileDiff> = {}): FileDiff {
  return { path: 'f.ts', oldPath: 'f.ts', status: 'M', binary: false, hunks: [], additions, deletions, whitespaceOnly: false, ...extra }
}

const human = { parents: 1, authorName: 'Ada Lovelace', authorEmail: 'ada@example.com', reverts: false }
const cat = (diff: FileDiff[], over: Partial<typeof human> = {}) => categorize({ ...human, ...over, diff })
const files = (n: number, each: (i: number) => FileDiff = () => fd(1, 0)) => Array.from({ length: n }, (_, i) => ({ ...each(i), path: `f${i}.ts`, oldPath: `f${i}.ts` }))

describe('thresholds', () => {
  it('has the documented values', () => {
    expect([MICRO_LINES, MEGA_LINES, MEGA_FILES]).toEqual([5, 1000, 50])
  })
})

describe('categorize', () => {
  it('merge: two or more parents, before anything else', () => {
    expect(cat([fd(5000, 0)], { parents: 2, authorName: 'dependabot[bot]', reverts: true })).toBe('merge')
    expect(cat([], { parents: 3 })).toBe('merge')
  })

  it('initial: no parents', () => {
    expect(cat([fd(5000, 0, { status: 'A' })], { parents: 0, authorName: 'renovate[bot]' })).toBe('initial')
  })

  it('bot: by name or email, before revert and size', () => {
    expect(cat([fd(3, 0)], { authorName: 'dependabot[bot]', authorEmail: '49699333+dependabot[bot]@users.noreply.github.com' })).toBe('bot')
    expect(cat([fd(3000, 0)], { authorName: 'CI Bot' })).toBe('bot')
    expect(cat([fd(3, 0)], { reverts: true, authorName: 'release-bot' })).toBe('bot')
    expect(cat([fd(3, 0)], { authorName: 'Deploy', authorEmail: 'bot@example.com' })).toBe('bot')
  })

  it('revert: only a verified revert (reverts.ts), whatever its size', () => {
    expect(cat([fd(300, 0)], { reverts: true })).toBe('revert')
    expect(cat([fd(300, 0)], { reverts: false })).toBe('normal')
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

describe('revertClaim', () => {
  it('reads the named SHAs and the quoted subject', () => {
    expect(revertClaim('Revert "Add x"')).toEqual({ shas: [], subject: 'Add x' })
    expect(revertClaim('Something\n\nThis reverts commit 1234567.')).toEqual({ shas: ['1234567'], subject: null })
    expect(revertClaim('Revert "Revert "Add x""\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.')).toEqual({ shas: ['0123456789abcdef0123456789abcdef01234567'], subject: 'Revert "Add x"' })
    expect(revertClaim('chore: Revert "ci: Add Bundle Analysis (#4072)" (#4076)')?.subject).toBe('ci: Add Bundle Analysis (#4072)')
  })

  it('claims nothing for other mentions of reverting', () => {
    expect(revertClaim('Reverting the cache change')).toBeNull()
    expect(revertClaim('Fix: do not Revert "x"')).toBeNull()
    expect(revertClaim('This reverts commit 123456 (too short)')).toBeNull()
    expect(revertClaim('This reverts commit XYZXYZXYZ')).toBeNull()
  })
})

describe('undoneShare', () => {
  const diff = (sha: string, files: Record<string, [string[], string[]]>) =>
    `\x01${sha}\x02\n` + Object.entries(files).map(([p, [add, del]]) => `diff --git a/${p} b/${p}\n--- a/${p}\n+++ b/${p}\n@@ -1 +1 @@\n${del.map((l) => `-${l}`).join('\n')}\n${add.map((l) => `+${l}`).join('\n')}`).join('\n') + '\n'
  const parsed = parseLineDiffs(
    diff('x', { 'a.ts': [['one', 'two'], ['old']], 'b.ts': [['three'], []] }) +
      diff('full', { 'a.ts': [['old'], ['one', 'two']], 'b.ts': [[], ['three']] }) +
      diff('part', { 'a.ts': [[], ['two']] }) +
      diff('other', { 'a.ts': [['four', 'five'], ['one']] }),
  )
  it('1 for a whole revert, 1 for a partial one, little for an unrelated change', () => {
    expect(undoneShare(parsed.get('full')!, parsed.get('x')!)).toBe(1)
    expect(undoneShare(parsed.get('part')!, parsed.get('x')!)).toBe(1)
    expect(undoneShare(parsed.get('other')!, parsed.get('x')!)).toBeLessThan(0.5)
    expect(undoneShare(parsed.get('x')!, parsed.get('x')!)).toBe(0)
  })
})
