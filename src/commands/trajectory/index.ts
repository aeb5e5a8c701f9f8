import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { checkLimit } from '../../errors.js'
import { IndexReader } from '../../services/index-reader.js'
import { landedIn, timeline, type Timeline } from '../../services/trajectory.js'
import { timelineLines } from '../../views/trajectory.js'

export default class TrajectoryTimeline extends BaseCommand {
  static summary = 'The recorded edit trajectory (uncommitted snapshots), newest first, for a path or symbol or the whole repository.'
  static examples = ['<%= config.bin %> trajectory', '<%= config.bin %> trajectory src/auth.ts', '<%= config.bin %> trajectory src/auth.ts:login --since-consolidate --json']
  static args = { target: Args.string({ description: 'a file, a directory, path:Name or a qualified symbol name (default: everything)' }) }
  static flags = {
    'since-consolidate': Flags.boolean({ description: 'only the snapshots since the last [CONSOLIDATE] checkpoint' }),
    session: Flags.string({ description: 'only this session' }),
    limit: Flags.integer({ description: 'maximum snapshots (0 = no cap)', default: 50 }),
  }

  async run(): Promise<Timeline> {
    const { args, flags } = await this.parse(TrajectoryTimeline)
    checkLimit(flags.limit)
    // the index, when there is one, says which snapshots landed in a commit
    const reader = await IndexReader.open(flags.repo).catch(() => null)
    let t: Timeline
    try {
      t = await timeline(flags.repo, { target: args.target, sinceConsolidate: flags['since-consolidate'], session: flags.session, limit: flags.limit }, reader ? landedIn(reader) : undefined)
    } finally {
      await reader?.close()
    }
    if (!this.jsonEnabled()) for (const line of timelineLines(t)) this.log(line)
    return t
  }
}
