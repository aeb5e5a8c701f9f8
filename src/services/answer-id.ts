import { createHash } from 'node:crypto'

/**
 * The id every `why` and `brief` answer carries (issue 15), so that `gitwhy feedback ID up|down`
 * can name it: the same question over the same evidence gets the same id in any process.
 * `kind` is the answering command, `target` what was asked (a path, range, symbol or question),
 * `evidence` the ids the answer rests on (commit shas, `PR #12`, `#34`), in any order.
 */
export function answerId(kind: 'why' | 'brief', target: string, evidence: readonly string[]): string {
  const h = createHash('sha256').update(`${kind}\0${target.trim()}\0${[...new Set(evidence)].sort().join('\0')}`)
  return `${kind === 'why' ? 'w' : 'b'}-${h.digest('hex').slice(0, 12)}`
}
