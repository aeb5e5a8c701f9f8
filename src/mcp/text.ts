import { commitsBehind, printable } from '../render.js'
import type { IndexInfo } from '../services/types.js'

/** The freshness line every tool answer ends with. */
export function indexLine(index: IndexInfo): string {
  const at = `index at ${index.head.slice(0, 7)}`
  if (!index.stale) return `${at} (fresh)`
  return index.commits_behind === null
    ? `${at}: STALE, HEAD is not a descendant (history rewritten); run \`gitwhy analyze\``
    : `${at}: STALE, ${commitsBehind(index.commits_behind)}; run \`gitwhy analyze\` (answers miss those commits)`
}

/** The text of a tool answer: its lines, each printable (see printable in render.ts). */
export function answerText(lines: string[]): string {
  return lines.map(printable).join('\n')
}
