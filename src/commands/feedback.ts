import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { feedbackLines, giveFeedback, type FeedbackResult } from '../services/feedback.js'
import { resolveRepo } from '../services/workspace.js'

export default class Feedback extends BaseCommand {
  static summary = 'Say whether a why answer helped: later answers re-rank their evidence by it.'
  static description =
    'ANSWER_ID is the answer_id a `why` answer carries (its text ends with it; --json and MCP give it too). An up vote ranks the commits that answer cited higher in later answers about the same or overlapping code, or a similar question; a down vote ranks them lower; the evidence says so in its reasons. Votes go to .gitwhy/feedback.jsonl (outside the index: analyze --force keeps them); `gitwhy status` counts them.'
  static examples = ['<%= config.bin %> feedback w-1a2b3c4d5e6f up', '<%= config.bin %> feedback w-1a2b3c4d5e6f down --note "the PR that added it is the better answer"']
  static args = {
    answer_id: Args.string({ description: 'the answer_id of a why answer', required: true }),
    vote: Args.string({ description: 'up (it helped) or down (it did not)', required: true }),
  }
  static flags = {
    note: Flags.string({ description: 'what was right or wrong with the answer' }),
  }

  async run(): Promise<FeedbackResult> {
    const { args, flags } = await this.parse(Feedback)
    const r = await giveFeedback({ repo: await resolveRepo(flags.repo), id: args.answer_id, vote: args.vote, note: flags.note })
    if (!this.jsonEnabled()) for (const line of feedbackLines(r)) this.log(line)
    return r
  }
}
