import { BaseCommand } from '../../base-command.js'
import { recorderStatus, type RecorderStatus } from '../../services/trajectory.js'
import { resolveRepo } from '../../services/workspace.js'
import { statusLines } from '../../views/trajectory.js'

export default class TrajectoryStatus extends BaseCommand {
  static summary = 'Whether the trajectory recorder runs, the current intent, and how much is recorded.'
  static examples = ['<%= config.bin %> trajectory status', '<%= config.bin %> trajectory status --json']

  async run(): Promise<RecorderStatus> {
    const { flags } = await this.parse(TrajectoryStatus)
    const r = recorderStatus(await resolveRepo(flags.repo))
    if (!this.jsonEnabled()) for (const line of statusLines(r)) this.log(line)
    return r
  }
}
