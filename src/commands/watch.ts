import { Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { UserError } from '../errors.js'
import { checkRecorderFlags } from '../services/trajectory.js'
import { resolveRepo } from '../services/workspace.js'
import { DEFAULT_DEBOUNCE_MS, type SnapshotRecord } from '../trajectory/journal.js'
import { Recorder } from '../trajectory/recorder.js'
import { snapshotLine } from '../views/trajectory.js'

export interface WatchResult {
  repo: string
  snapshots: Array<Pick<SnapshotRecord, 'id' | 'time' | 'session' | 'intent' | 'summary'>>
}

export default class Watch extends BaseCommand {
  static summary = 'Record the edit trajectory in the foreground: one snapshot per quiet period, until Ctrl-C.'
  static description = 'Watches the work tree (honouring .gitignore; never .git/, .gitwhy/, node_modules/, binaries or files over 1 MB) and after each quiet period commits one snapshot of what changed to the shadow repository under .gitwhy/trajectory/. One recorder per repository: `gitwhy trajectory start` runs this in the background.'
  static examples = ['<%= config.bin %> watch', '<%= config.bin %> watch --debounce 500', '<%= config.bin %> watch --duration 60000 --json']
  static flags = {
    debounce: Flags.integer({ description: 'quiet period in milliseconds before a snapshot (50–600000)', default: DEFAULT_DEBOUNCE_MS }),
    'idle-gap': Flags.integer({ description: 'minutes without a snapshot that start a new session (1–10080)', default: 30 }),
    duration: Flags.integer({ description: 'stop after this many milliseconds (default: at Ctrl-C / SIGTERM)' }),
  }

  async run(): Promise<WatchResult> {
    const { flags } = await this.parse(Watch)
    checkRecorderFlags({ debounceMs: flags.debounce, idleGapMinutes: flags['idle-gap'] })
    if (flags.duration !== undefined && (flags.duration < 1 || flags.duration > 86_400_000)) {
      throw new UserError(`--duration must be from 1 to 86400000 milliseconds, got ${flags.duration}`, 'leave it out to watch until Ctrl-C', 'bad_option')
    }
    const repo = await resolveRepo(flags.repo)
    const snapshots: WatchResult['snapshots'] = []
    const recorder = new Recorder(repo, {
      debounceMs: flags.debounce,
      idleGapMs: flags['idle-gap'] * 60_000,
      onSnapshot: (r) => {
        snapshots.push({ id: r.id, time: r.time, session: r.session, intent: r.intent, summary: r.summary })
        if (!this.jsonEnabled()) this.log(snapshotLine(r))
        const t = recorder.lastTiming
        if (t) this.logStderr(`snapshot ${r.id.slice(0, 10)}: ${r.files.length} files, committed ${Math.round(t.committed - t.quietEnd)} ms after the quiet period`)
      },
      onError: (error) => this.logStderr(`gitwhy watch: ${error instanceof Error ? error.message : String(error)}`),
    })
    await recorder.start()
    this.logStderr(`recording ${repo} (debounce ${flags.debounce} ms); Ctrl-C to stop`)
    await new Promise<void>((resolve) => {
      const done = () => {
        process.off('SIGINT', done)
        process.off('SIGTERM', done)
        if (timer) clearTimeout(timer)
        resolve()
      }
      const timer = flags.duration !== undefined ? setTimeout(done, flags.duration) : null
      process.on('SIGINT', done)
      process.on('SIGTERM', done)
    })
    await recorder.stop()
    return { repo, snapshots }
  }
}
