import { BaseCommand } from '../../base-command.js'
import { stopRecorder, type RecorderStatus } from '../../services/trajectory.js'

export default class TrajectoryStop extends BaseCommand {
  static summary = 'Stop the background trajectory recorder (it snapshots what is pending first).'
  static examples = ['<%= config.bin %> trajectory stop']

  async run(): Promise<RecorderStatus & { stopped: boolean }> {
    const { flags } = await this.parse(TrajectoryStop)
    const r = await stopRecorder(flags.repo)
    if (!this.jsonEnabled()) this.log(r.stopped ? `recorder stopped; ${r.snapshots} snapshots recorded` : 'no recorder was running')
    return r
  }
}
