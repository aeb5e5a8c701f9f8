import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { DEFAULT_MIN_CONFIDENCE, impact, impactLines, MAX_IMPACT_DEPTH, type ImpactResult } from '../services/codegraph.js'

export default class Impact extends BaseCommand {
  static summary = 'What breaks if this changes: the blast radius by depth, the tests and communities it reaches, and the hidden coupling only history knows.'
  static description =
    'Walks the code graph from a symbol (or every symbol of a file): up (its callers and subclasses: what breaks), down (what it calls and extends), or both, to --depth steps (1: will break, 2: likely affected, 3+: may be affected), keeping calls of at least --min-confidence. Adds the files connected by imports, the test files reached, the communities touched, a risk summary that weighs the structure and the history, and the hidden coupling: files that usually change with it although no call or import path connects them.'
  static examples = ['<%= config.bin %> impact Router.route', '<%= config.bin %> impact src/utils/url.ts --direction both --depth 2 --json']
  static args = { target: Args.string({ description: 'symbol (Class.method, path:Name) or file', required: true }) }
  static flags = {
    direction: Flags.string({ description: 'up: what calls it; down: what it calls; both', options: ['up', 'down', 'both'], default: 'up' }),
    depth: Flags.integer({ description: `steps to follow, 1..${MAX_IMPACT_DEPTH}`, default: 3 }),
    'min-confidence': Flags.string({ description: `lowest call confidence followed, 0..1 (default ${DEFAULT_MIN_CONFIDENCE})` }),
    limit: Flags.integer({ description: 'maximum symbols per depth (0 = no cap)', default: 50 }),
  }

  async run(): Promise<ImpactResult> {
    const { args, flags } = await this.parse(Impact)
    const r = await impact({
      repo: flags.repo,
      target: args.target,
      direction: flags.direction as ImpactResult['direction'],
      depth: flags.depth,
      minConfidence: flags['min-confidence'] === undefined ? undefined : Number(flags['min-confidence']),
      limit: flags.limit,
    })
    if (!this.jsonEnabled()) {
      for (const line of impactLines(r)) this.log(line)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
