import { Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { startRecorder, type RecorderStatus } from '../../services/trajectory.js'
import { statusLines } from '../../views/trajectory.js'

export default class TrajectoryStart extends BaseCommand {
  static summary = 'Start the background trajectory recorder for the repository (one per repository).'
  static examples = ['<%= config.bin %> trajectory start', '<%= config.bin %> trajectory start --debounce 1000 --idle-gap 60']
  static flags = {
    debounce: Flags.integer({ description: 'quiet period in milliseconds before a snapshot (50–600000; default 2000)' }),
    'idle-gap': Flags.integer({ description: 'minutes without a snapshot that start a new session (1–10080; default 30)' }),
  }

  async run(): Promise<RecorderStatus & { started: boolean }> {
    const { flags } = await this.parse(TrajectoryStart)
    const r = await startRecorder(flags.repo, { debounceMs: flags.debounce, idleGapMinutes: flags['idle-gap'] })
    if (!this.jsonEnabled()) {
      if (!r.started) this.log('already running')
      for (const line of statusLines(r)) this.log(line)
    }
    return r
  }
}
