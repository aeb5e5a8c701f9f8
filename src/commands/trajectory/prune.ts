import { Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { UserError } from '../../errors.js'
import { prune, type PruneResult } from '../../services/trajectory.js'
import { pruneLines } from '../../views/trajectory.js'

export default class TrajectoryPrune extends BaseCommand {
  static summary = "Squash old snapshots, keeping each session's first and last state, intent changes and checkpoints."
  static examples = ['<%= config.bin %> trajectory prune', '<%= config.bin %> trajectory prune --max-age 7 --max-size 50']
  static flags = {
    'max-age': Flags.integer({ description: 'squash snapshots older than this many days (default 30)' }),
    'max-size': Flags.integer({ description: 'when the shadow repository is over this many MB, squash every snapshot not kept' }),
  }

  async run(): Promise<PruneResult> {
    const { flags } = await this.parse(TrajectoryPrune)
    const age = flags['max-age']
    const size = flags['max-size']
    if (age !== undefined && (age < 0 || age > 36_500)) throw new UserError(`--max-age must be from 0 to 36500 days, got ${age}`, 'pass e.g. --max-age 30', 'bad_option')
    if (size !== undefined && (size < 1 || size > 1_000_000)) throw new UserError(`--max-size must be from 1 to 1000000 MB, got ${size}`, 'pass e.g. --max-size 100', 'bad_option')
    const r = await prune(flags.repo, { maxAgeMs: age === undefined ? undefined : age * 86_400_000, maxBytes: size === undefined ? undefined : size * 1024 * 1024 })
    if (!this.jsonEnabled()) for (const line of pruneLines(r)) this.log(line)
    return r
  }
}
