import { renderIndexNote } from '../render.js'
import { augment, looksLikeGlob, renderAugment, type AugmentResult } from '../services/augment.js'
import { viewText, type View } from './view.js'

export interface AugmentInput {
  args: { pattern: string }
  flags: { repo?: string; limit: number; glob?: boolean }
}

export const augmentView: View<AugmentInput, AugmentResult> = {
  answer({ args, flags }) {
    const mode = flags.glob || looksLikeGlob(args.pattern) ? 'glob' : 'regex'
    return augment({ repo: flags.repo, query: { pattern: args.pattern, mode }, limit: flags.limit })
  },
  text(result, { args }) {
    const lines = result.matches.length === 0 ? [`no indexed symbol or file matches \`${args.pattern}\``] : renderAugment(result, result.index)
    return viewText(lines, renderIndexNote(result.index))
  },
}
