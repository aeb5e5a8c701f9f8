import type { CommitCategory } from '../services/types.js'
import type { FileDiff } from '../git/diff-parser.js'

/**
 * Commit categories, first match wins:
 * merge (2+ parents) · initial (no parents) · bot (author looks automated) · revert (its diff
 * undoes the commit its message names: verified in reverts.ts, a message alone is not enough) ·
 * formatting (every changed file changed only whitespace) · then by size of the first-parent diff:
 * micro (≤ MICRO_LINES changed lines) · mega (> MEGA_LINES lines or > MEGA_FILES files) · normal.
 */
export const MICRO_LINES = 5
export const MEGA_LINES = 1000
export const MEGA_FILES = 50

const BOT_RE = /\[bot\]|(^|[^a-z])bot([^a-z]|$)|dependabot|renovate|github-actions|greenkeeper|snyk-bot|semantic-release|noreply@github\.com.*action/i

export function isBot(name: string, email: string): boolean {
  return BOT_RE.test(name) || /\[bot\]|^bot@|dependabot|renovate|github-actions/i.test(email)
}

export function categorize(input: { parents: number; authorName: string; authorEmail: string; reverts: boolean; diff: FileDiff[] }): CommitCategory {
  if (input.parents > 1) return 'merge'
  if (input.parents === 0) return 'initial'
  if (isBot(input.authorName, input.authorEmail)) return 'bot'
  if (input.reverts) return 'revert'
  const changed = input.diff.filter((d) => d.additions + d.deletions > 0)
  if (changed.length > 0 && changed.every((d) => d.whitespaceOnly) && !input.diff.some((d) => d.binary)) return 'formatting'
  let lines = 0
  for (const d of input.diff) lines += d.additions + d.deletions
  if (lines > MEGA_LINES || input.diff.length > MEGA_FILES) return 'mega'
  if (lines <= MICRO_LINES) return 'micro'
  return 'normal'
}
