/**
 * The background recorder's entry point (what `gitwhy trajectory start` spawns, detached, its
 * stderr in recorder.log): the recorder without oclif, whose modules would cost a process that runs
 * for hours ~40 MB. `node dist/trajectory/daemon.js REPO DEBOUNCE_MS IDLE_GAP_MS`; the arguments
 * come from startRecorder, which has checked them. Stops on SIGTERM or SIGINT, snapshotting what is
 * pending first.
 */
import { isUserError } from '../errors.js'
import { printable } from '../render.js'
import { Recorder } from './recorder.js'

const [repo, debounce, idleGap] = process.argv.slice(2)
const say = (line: string) => process.stderr.write(`${new Date().toISOString()} ${printable(line)}\n`)
const recorder = new Recorder(repo, {
  debounceMs: Number(debounce),
  idleGapMs: Number(idleGap),
  onSnapshot: (r) => {
    const t = recorder.lastTiming
    say(`snapshot ${r.id.slice(0, 10)}: ${r.files.length} files, committed ${t ? Math.round(t.committed - t.quietEnd) : '?'} ms after the quiet period: ${r.summary}`)
  },
  onError: (error) => say(`error: ${error instanceof Error ? error.message : String(error)}`),
})

try {
  await recorder.start()
  say(`recording ${repo} (pid ${process.pid}, debounce ${debounce} ms)`)
} catch (error) {
  say(isUserError(error) ? `${error.message} (${error.remedy})` : `could not start: ${(error as Error)?.stack ?? String(error)}`)
  process.exit(1)
}
const stop = async () => {
  process.off('SIGTERM', stop)
  process.off('SIGINT', stop)
  await recorder.stop()
  say('stopped')
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
