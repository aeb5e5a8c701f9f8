import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { decisionsFor, governingLines, type DecisionsForResult } from '../../services/decisions.js'

export default class DecisionsFor extends BaseCommand {
  static summary = 'The active decisions that govern a file, directory or symbol (and its community), stale ones flagged.'
  static description = 'A decision reaches the target when it governs the symbol, a symbol containing it, its file, a directory holding it, or another symbol of its community (communities from analyze). Each is verified first: one whose evidence is all rejected is not shown; a stale one is shown with the commits that rewrote its code; a checkable one with its violations.'
  static examples = ['<%= config.bin %> decisions for src/db/query.ts', '<%= config.bin %> decisions for Router.match --json']
  static args = { target: Args.string({ description: 'PATH, DIR/, a symbol or PATH:SYMBOL', required: true }) }
  static flags = { limit: Flags.integer({ description: 'maximum decisions (0 = no cap)', default: 20, min: 0 }) }

  async run(): Promise<DecisionsForResult> {
    const { args, flags } = await this.parse(DecisionsFor)
    const result = await decisionsFor({ repo: flags.repo, target: args.target, limit: flags.limit })
    if (!this.jsonEnabled()) {
      const name = result.target.qualified_name ? `${result.target.path}:${result.target.qualified_name}` : result.target.path || '.'
      if (result.total === 0) this.log(`no active decision governs ${name}`)
      else this.log(`${result.total} decision${result.total === 1 ? '' : 's'} govern${result.total === 1 ? 's' : ''} ${name}:`)
      for (const line of governingLines(result.decisions)) this.log(line)
      if (result.index.stale) this.logStderr(`the index is ${result.index.commits_behind ?? 'some'} commits behind HEAD: run \`gitwhy analyze\``)
    }
    return result
  }
}
