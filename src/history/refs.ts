/**
 * Pull-request and issue references parsed offline from commit messages.
 *
 * - "Merge pull request #N from owner/branch" (GitHub merge commit) → PR N, title = message body's
 *   first line with a word in it (not a `---` separator).
 * - a squash subject ending "(#N)" → PR N, title = the subject without the suffix.
 * - "Merge branch 'x' into 'y'" + "See merge request group/project!N" and a bare "!N" → GitLab MR N.
 * - "Fixes/Closes/Resolves #N" (and their inflections) → issue N, closing.
 * - any other "#N" (not part of a PR reference) → issue N, referenced.
 */
import { splitMessage } from './message.js'

export interface MessageRefs {
  pullRequest: { number: number; title: string; source: 'github' | 'gitlab' } | null
  issues: Array<{ number: number; closes: boolean }>
}

const MERGE_PR = /^Merge pull request #(\d+) from (\S+)/
/** A squash merge's subject: its PR's title, then " (#N)" (the PR's number). */
export const SQUASH_PR = /\s\(#(\d+)\)\s*$/
const GITLAB_MR = /(?:^|\s)(?:[\w.-]+\/[\w./-]+)?!(\d+)\b/
const CLOSING = /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+((?:[\w.-]+\/[\w.-]+)?#\d+(?:\s*(?:,|and)\s*(?:[\w.-]+\/[\w.-]+)?#\d+)*)/gi
const HASH_REF = /(?:^|[^\w&/])#([1-9]\d*)\b/g

export function parseMessageRefs(message: string): MessageRefs {
  const lines = message.split('\n')
  const { subject } = splitMessage(message)
  let pullRequest: MessageRefs['pullRequest'] = null
  let prText = ''

  const merge = MERGE_PR.exec(subject)
  if (merge) {
    // the body's first line with a word in it: not a "---" separator (psf/requests' PR #35)
    const title = lines.slice(1).find((l) => /[\p{L}\p{N}]/u.test(l))?.trim() ?? subject
    pullRequest = { number: Number(merge[1]), title, source: 'github' }
    prText = merge[0]
  } else {
    const squash = SQUASH_PR.exec(subject)
    if (squash) {
      pullRequest = { number: Number(squash[1]), title: subject.slice(0, squash.index).trim(), source: 'github' }
      prText = squash[0]
    } else {
      const mr = /See merge request (\S*!\d+)/.exec(message) ?? (subject.startsWith('Merge branch') ? GITLAB_MR.exec(message) : null)
      if (mr) {
        const n = /!(\d+)/.exec(mr[0])
        if (n) {
          const title = lines.slice(1).find((l) => l.trim() !== '' && !l.startsWith('See merge request'))?.trim() ?? subject
          pullRequest = { number: Number(n[1]), title, source: 'gitlab' }
        }
      }
    }
  }

  const issues = new Map<number, boolean>()
  const rest = prText ? message.replace(prText, '') : message
  for (const m of rest.matchAll(CLOSING)) {
    for (const n of m[1].matchAll(/#(\d+)/g)) issues.set(Number(n[1]), true)
  }
  for (const m of rest.matchAll(HASH_REF)) {
    const n = Number(m[1])
    if (pullRequest && n === pullRequest.number) continue
    if (!issues.has(n)) issues.set(n, false)
  }
  return { pullRequest, issues: [...issues].map(([number, closes]) => ({ number, closes })) }
}

/**
 * The issues a pull request's description closes, as GitHub reads it: "Fixes #12", "closes #3,
 * #4 and #5" (any inflection). Only this repository's issues: `owner/repo#N` names another one.
 */
export function closingReferences(text: string): number[] {
  const out = new Set<number>()
  for (const m of text.matchAll(CLOSING)) {
    for (const ref of m[1].matchAll(/([\w.-]+\/[\w.-]+)?#(\d+)/g)) if (!ref[1] && Number(ref[2]) > 0) out.add(Number(ref[2]))
  }
  return [...out].sort((a, b) => a - b)
}
