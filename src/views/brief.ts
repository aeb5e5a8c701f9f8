import { UserError } from '../errors.js'
import { renderIndexNote } from '../render.js'
import { brief, briefLines, briefWrites, type BriefResult } from '../services/brief.js'
import { viewText, type View } from './view.js'

export interface BriefInput {
  args: { target?: string }
  flags: { repo?: string; refresh?: boolean }
}

export const briefView: View<BriefInput, BriefResult> = {
  async answer({ args, flags }) {
    if (!args.target) throw new UserError('nothing to brief', 'pass a symbol, a file or PATH:START-END (or --all --community ID)', 'usage')
    const r = await brief({ repo: flags.repo, target: args.target, refresh: flags.refresh })
    // a CLI run ends here: the card's file is written before it does
    await briefWrites()
    return r
  },
  text: (r) => viewText(briefLines(r), renderIndexNote(r.index)),
}
