import { Args } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { snapshotDetail, type SnapshotDetail } from '../../services/trajectory.js'
import { detailLines } from '../../views/trajectory.js'

export default class TrajectoryShow extends BaseCommand {
  static summary = 'One trajectory snapshot: its record and its diff against the snapshot before.'
  static examples = ['<%= config.bin %> trajectory show 3f2a9c1b']
  static args = { id: Args.string({ description: 'snapshot id (4 hex characters or more)', required: true }) }

  async run(): Promise<SnapshotDetail> {
    const { args, flags } = await this.parse(TrajectoryShow)
    const r = await snapshotDetail(flags.repo, args.id)
    if (!this.jsonEnabled()) for (const line of detailLines(r)) this.log(line)
    return r
  }
}
