import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { DEFAULT_MIN_CONFIDENCE } from '../services/codegraph.js'
import { rename, renameLines, type RenameResult } from '../services/rename.js'

export default class Rename extends BaseCommand {
  static summary = 'Rename a symbol: its definition and every reference the code graph resolves to it, as a plan of edits (dry run unless --apply), plus the text hits to review.'
  static description =
    'Edits (file, line, column, old, new) come from the graph: the definition, calls resolved to the symbol with at least --min-confidence, the import and re-export statements that bind it by name, and the classes that extend or implement it. Every other whole-word hit of the name in indexed files (comments, strings, calls resolved elsewhere or with low confidence, type annotations) is listed under "review these" and never edited. --apply writes the edits only when every file to edit still has the content the index was built from (otherwise: the index is stale, run analyze), and only regular files inside the repository.'
  static examples = ['<%= config.bin %> rename addNumbers sum', '<%= config.bin %> rename src/math.ts:addNumbers sum --apply', '<%= config.bin %> rename Router.route handle --json']
  static args = {
    symbol: Args.string({ description: 'symbol (Class.method, path:Name)', required: true }),
    newName: Args.string({ name: 'NEW_NAME', description: 'the new name (an identifier)', required: true }),
  }
  static flags = {
    apply: Flags.boolean({ description: 'write the edits (default: print the plan only)' }),
    'min-confidence': Flags.string({ description: `lowest call confidence edited, 0..1 (default ${DEFAULT_MIN_CONFIDENCE}; weaker calls are listed for review)` }),
    limit: Flags.integer({ description: 'maximum review hits listed (0 = no cap); edits are never cut', default: 50 }),
  }

  async run(): Promise<RenameResult> {
    const { args, flags } = await this.parse(Rename)
    const min = flags['min-confidence'] === undefined ? undefined : Number(flags['min-confidence'])
    const r = await rename({ repo: flags.repo, target: args.symbol, newName: args.newName, apply: flags.apply, limit: flags.limit, minConfidence: min })
    if (!this.jsonEnabled()) {
      for (const line of renameLines(r)) this.log(line)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
