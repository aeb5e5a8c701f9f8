import { renderIndexNote } from '../render.js'
import type { SearchMode } from '../services/search.js'
import { why, whyLines, type WhyResult } from '../services/why.js'
import { viewText, type View } from './view.js'

export interface WhyInput {
  args: { target: string }
  flags: { repo?: string; mode: string; limit: number }
}

export const whyView: View<WhyInput, WhyResult> = {
  answer: ({ args, flags }) => why({ repo: flags.repo, text: args.target, mode: flags.mode as SearchMode, limit: flags.limit }),
  text: (r) => viewText(whyLines(r), renderIndexNote(r.index)),
}
