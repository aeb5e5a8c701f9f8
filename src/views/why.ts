import { renderIndexNote } from '../render.js'
import type { SearchMode } from '../services/search.js'
import { why, whyLines, type WhyResult } from '../services/why.js'
import { viewText, type View } from './view.js'

export interface WhyInput {
  args: { target: string }
  flags: { repo?: string; mode: string; limit: number; llm?: boolean; estimate?: boolean }
}

export const whyView: View<WhyInput, WhyResult> = {
  answer: ({ args, flags }) => why({ repo: flags.repo, text: args.target, mode: flags.mode as SearchMode, limit: flags.limit, llm: flags.llm !== false, estimate: flags.estimate === true }),
  text: (r) => viewText(whyLines(r), r.llm?.warning ? `warning: ${r.llm.warning}` : null, renderIndexNote(r.index)),
}
