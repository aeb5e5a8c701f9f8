import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { SEARCH_MODES } from '../services/search.js'
import type { WhyResult } from '../services/why.js'
import { whyView } from '../views/why.js'

export default class Why extends BaseCommand {
  static summary = 'Why does this code exist: an answer taken from the history, every claim cited, with a confidence.'
  static description =
    'TARGET is a path, PATH:START-END or a symbol; anything else is a question in words, located first through search (bm25 when the index has no embeddings). The answer is extractive: sentences made of the evidence\'s own words (commit subjects and bodies, PR and issue titles), each citing a commit [a1b2c3d], a PR [PR #12] or an issue [#34]. Confidence (0-1) weighs how much the messages explain, whether blame and line history agree, and how well a question matched; below 0.4 it says "not enough evidence" and lists the best evidence instead of guessing. With an LLM configured (`llm` in .gitwhy/config.json or GITWHY_LLM_PROVIDER; see the README) and confidence 0.4 or more, the model writes the sentences from the same evidence, scrubbed of secrets and fenced as untrusted data; an answer that hedges or cites nothing of the evidence, a spent budget or an unreachable server leaves the extractive answer, saying why.'
  static examples = [
    '<%= config.bin %> why src/router.ts:40-80',
    '<%= config.bin %> why Router.match',
    '<%= config.bin %> why "why does the router cache compiled paths?"',
    '<%= config.bin %> why "retry with backoff" --mode bm25 --json',
    '<%= config.bin %> why src/router.ts --estimate',
    '<%= config.bin %> why src/router.ts --no-llm',
  ]
  static args = { target: Args.string({ description: 'PATH, PATH:START-END, a symbol, or a question in words', required: true }) }
  static flags = {
    mode: Flags.string({ description: 'how a question is searched for: hybrid, bm25 (words only) or vector (meaning only)', options: [...SEARCH_MODES], default: 'hybrid' }),
    limit: Flags.integer({ description: 'maximum evidence items listed (0 = no cap)', default: 10 }),
    llm: Flags.boolean({ description: 'let the configured LLM write the answer (--no-llm: extractive only, no call)', default: true, allowNo: true }),
    estimate: Flags.boolean({ description: "print the LLM call's estimated tokens and cost, and make no call", default: false }),
  }

  async run(): Promise<WhyResult> {
    const { args, flags } = await this.parse(Why)
    return this.show(whyView, { args, flags })
  }
}
