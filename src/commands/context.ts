import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { context, contextLines, DEFAULT_MIN_CONFIDENCE, type ContextResult } from '../services/codegraph.js'

export default class Context extends BaseCommand {
  static summary = 'The 360° view of a symbol or file: callers, callees, imports, heritage, community, and its history in one line.'
  static description =
    'From the code graph analyze builds (CALLS, IMPORTS, EXTENDS, IMPLEMENTS) and the history (last change, revisions, owners, risk). Calls carry how they were resolved (same-scope, import-resolved, receiver-type, unique-name, ambiguous) and a confidence; --min-confidence drops the weaker ones. For a file: the calls into and out of its symbols, and its imports and importers.'
  static examples = ['<%= config.bin %> context Router.route', '<%= config.bin %> context src/server.ts:Server --json', '<%= config.bin %> context compose --min-confidence 0']
  static args = { target: Args.string({ description: 'symbol (Class.method, path:Name) or file', required: true }) }
  static flags = {
    limit: Flags.integer({ description: 'maximum items per list (0 = no cap)', default: 30 }),
    'min-confidence': Flags.string({ description: `lowest call confidence kept, 0..1 (default ${DEFAULT_MIN_CONFIDENCE}; guesses by name have 0.4 or less)` }),
  }

  async run(): Promise<ContextResult> {
    const { args, flags } = await this.parse(Context)
    const r = await context({ repo: flags.repo, target: args.target, limit: flags.limit, minConfidence: flags['min-confidence'] === undefined ? undefined : Number(flags['min-confidence']) })
    if (!this.jsonEnabled()) {
      for (const line of contextLines(r)) this.log(line)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
