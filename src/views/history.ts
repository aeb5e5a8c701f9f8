import { renderEvidence, renderIndexNote } from '../render.js'
import { history } from '../services/history.js'
import type { HistoryResult } from '../services/types.js'
import { trajectoryAppendix } from './trajectory.js'
import { viewText, type View } from './view.js'

export interface HistoryInput {
  args: { path: string }
  flags: { repo?: string; limit: number; renames: boolean; trajectory?: boolean }
}

export const historyView: View<HistoryInput, HistoryResult> = {
  answer: ({ args, flags }) => history({ repo: flags.repo, path: args.path, limit: flags.limit, followRenames: flags.renames, trajectory: flags.trajectory }),
  text(result) {
    const lines = [`${result.target.path} (${result.target.kind}${result.target.follow_renames ? ', renames followed' : ''}): ${result.total} commits`]
    for (const line of renderEvidence(result.evidence, result.total)) lines.push(`  ${line}`)
    if (result.truncated) lines.push('  (history cut: older commits are not in the index)')
    lines.push(...trajectoryAppendix(result.trajectory ?? []).map((line) => `  ${line}`))
    return viewText(lines, renderIndexNote(result.index))
  },
}
