import { Args } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { consolidate } from '../../services/trajectory.js'
import type { SnapshotRecord } from '../../trajectory/journal.js'
import { snapshotLine } from '../../views/trajectory.js'

export default class TrajectoryConsolidate extends BaseCommand {
  static summary = 'Write a [CONSOLIDATE] checkpoint with a summary of the work so far (timelines can start there).'
  static examples = ['<%= config.bin %> trajectory consolidate "implemented the login feature"']
  static args = { summary: Args.string({ description: 'what the work so far did', required: true }) }

  async run(): Promise<{ repo: string; checkpoint: SnapshotRecord }> {
    const { args, flags } = await this.parse(TrajectoryConsolidate)
    const r = await consolidate(flags.repo, args.summary)
    if (!this.jsonEnabled()) this.log(snapshotLine(r.checkpoint))
    return r
  }
}
