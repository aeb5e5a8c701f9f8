import { UserError } from '../errors.js'
import { renderEvidence, renderIndexNote } from '../render.js'
import { evidence } from '../services/evidence.js'
import type { EvidenceResult } from '../services/types.js'
import { trajectoryAppendix } from './trajectory.js'
import { viewText, type View } from './view.js'

export interface EvidenceInput {
  args: { target?: string }
  flags: { repo?: string; symbol?: string; limit: number; patch?: boolean }
}

export const evidenceView: View<EvidenceInput, EvidenceResult> = {
  async answer({ args, flags }) {
    if (!args.target && !flags.symbol) throw new UserError('nothing to explain', 'pass PATH[:START[-END]] or --symbol NAME', 'usage')
    if (args.target && flags.symbol) throw new UserError('pass either PATH[:START[-END]] or --symbol, not both', 'drop one of them', 'usage')
    return evidence({ repo: flags.repo, path: args.target, symbol: flags.symbol, limit: flags.limit, patch: flags.patch })
  },
  text(result) {
    const tg = result.target
    const lines = [`${tg.path}:${tg.line_start}-${tg.line_end}${tg.symbol ? `  (${tg.symbol.kind} ${tg.symbol.qualified_name})` : ''}`]
    for (const line of renderEvidence(result.evidence, result.total)) lines.push(`  ${line}`)
    if (result.clamped) lines.push(`  note: ${result.clamped.note}`)
    if (result.undecided) lines.push(`  ${result.undecided.lines} lines undecided: ${result.undecided.reason}`)
    lines.push(...trajectoryAppendix(result.trajectory ?? []).map((line) => `  ${line}`))
    return viewText(lines, renderIndexNote(result.index))
  },
}
