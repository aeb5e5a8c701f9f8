/**
 * Commit units (src/history/units.ts) on a fixture history: a run of "wip" commits by one author
 * within an hour is one unit; another author, a gap over an hour or an explained commit ends a
 * run; a mega-commit is one part per file group; the result never depends on the input's order.
 */
import { describe, expect, test } from 'vitest'
import { commitUnits, fileGroup, microCommit, vagueCommit, type UnitCommit } from '../../src/history/units.js'

const T0 = 1_704_067_200
const MIN = 60
const ada = { author: 'Ada', email: 'ada@example.test' }
const bob = { author: 'Bob', email: 'bob@example.test' }

let n = 0
function c(who: typeof ada, time: number, subject: string, extra: Partial<UnitCommit> = {}): UnitCommit {
  n++
  return { sha: n.toString(16).padStart(40, '0'), ...who, time, subject, why: null, category: 'normal', ...extra }
}

/** A history: an explained origin, eight "wip" commits by Bob 5 minutes apart, Ada's fix, a second session, a mega-commit. */
function fixture(): UnitCommit[] {
  n = 0
  const origin = c(ada, T0, 'Retry payment calls against the flaky gateway', { why: 'The gateway drops about one call in fifty during peak hours.' })
  const wips = ['wip', 'wip', 'fix typo', 'wip', 'wip', 'wip', 'wip', 'wip'].map((s, i) => c(bob, T0 + 86_400 + i * 5 * MIN, s, { category: i === 2 ? 'micro' : 'normal' }))
  const fix = c(ada, T0 + 86_400 + 50 * MIN, 'Reject an empty card number before charging')
  // Bob again, but two hours later: a new session
  const later = [c(bob, T0 + 86_400 + 3 * 3600, 'wip'), c(bob, T0 + 86_400 + 3 * 3600 + 10 * MIN, 'lint')]
  const files = [...Array.from({ length: 40 }, (_, i) => `packages/core/src/f${i}.ts`), ...Array.from({ length: 25 }, (_, i) => `packages/web/src/w${i}.ts`), 'README.md']
  const mega = c(ada, T0 + 2 * 86_400, 'Move to a monorepo', { category: 'mega', files })
  // an explained small change (micro by size) alone is a unit of its own
  const alone = c(bob, T0 + 3 * 86_400, 'Raise the attempt limit to five', { category: 'micro' })
  return [origin, ...wips, fix, ...later, mega, alone]
}

describe('commit units', () => {
  test('eight "wip" commits by one author within an hour are one unit; other authors, gaps and explained commits are not folded', () => {
    const commits = fixture()
    const units = commitUnits(commits)
    expect(units.map((u) => [u.kind, u.shas.length, u.author])).toEqual([
      ['commit', 1, 'Ada'],
      ['run', 8, 'Bob'],
      ['commit', 1, 'Ada'],
      ['run', 2, 'Bob'],
      ['part', 1, 'Ada'],
      ['part', 1, 'Ada'],
      ['part', 1, 'Ada'],
      ['commit', 1, 'Bob'],
    ])
    const run = units[1]
    expect(run.shas).toEqual(commits.slice(1, 9).map((x) => x.sha))
    expect(run.folded).toEqual([
      ['wip', 7],
      ['fix typo', 1],
    ])
    expect(run.subjects).toEqual([])
    expect(run.end - run.start).toBe(35 * MIN)
    expect(units[0].subjects).toEqual(['Retry payment calls against the flaky gateway'])
    expect(units[3].folded).toEqual([
      ['lint', 1],
      ['wip', 1],
    ])
    // the mega-commit, by top folder (packages/x in a container folder), largest part first
    expect(units.slice(4, 7).map((u) => u.group)).toEqual([
      { name: 'packages/core', files: 40, total: 66 },
      { name: 'packages/web', files: 25, total: 66 },
      { name: '.', files: 1, total: 66 },
    ])
    expect(units[7].subjects).toEqual(['Raise the attempt limit to five'])
  })

  test('the order of the input does not matter; a custom grouping (a community) decomposes mega-commits', () => {
    const commits = fixture()
    const shuffled = [...commits].reverse()
    expect(commitUnits(shuffled)).toEqual(commitUnits(commits))
    const byKind = commitUnits(commits, { groupOf: (p) => (p.endsWith('.md') ? 'docs' : 'code') })
    expect(byKind.filter((u) => u.kind === 'part').map((u) => u.group?.name)).toEqual(['code', 'docs'])
    // a tighter window splits the run where consecutive commits are further apart than it
    expect(commitUnits(commits, { window: 4 * MIN }).filter((u) => u.kind === 'run')).toHaveLength(0)
  })

  test('what counts as vague, micro, and which group a path is in', () => {
    expect(vagueCommit({ subject: 'wip' })).toBe(true)
    expect(vagueCommit({ subject: 'fix typo' })).toBe(true)
    expect(vagueCommit({ subject: 'wip: scheduler, more component' })).toBe(true)
    expect(vagueCommit({ subject: 'wip', why: 'The gateway bans clients that retry more often than three times.' })).toBe(false)
    expect(vagueCommit({ subject: 'Reject an empty card number' })).toBe(false)
    expect(microCommit({ sha: 'a', author: 'A', email: 'a', time: 0, subject: 'Reject an empty card number', category: 'micro' })).toBe(true)
    expect(microCommit({ sha: 'a', author: 'A', email: 'a', time: 0, subject: 'wip', category: 'merge' })).toBe(false)
    expect(microCommit({ sha: 'a', author: 'A', email: 'a', time: 0, subject: 'wip', category: 'revert' })).toBe(false)
    expect(fileGroup('README.md')).toBe('.')
    expect(fileGroup('src/a.ts')).toBe('src')
    expect(fileGroup('src/server/a.ts')).toBe('src/server')
    expect(fileGroup('packages/runtime-core/src/renderer.ts')).toBe('packages/runtime-core')
    expect(fileGroup('docs/guide/intro.md')).toBe('docs')
  })
})
