/**
 * The background recorder's entry point (what `gitwhy trajectory start` spawns, detached, its
 * stderr in recorder.log): the recorder without oclif, whose modules would cost a process that runs
 * for hours ~40 MB. `node dist/trajectory/daemon.js REPO DEBOUNCE_MS IDLE_GAP_MS`; the arguments
 * come from startRecorder, which has checked them. Stops on SIGTERM or SIGINT, snapshotting what is
 * pending first.
 *
 * Tree-sitter's wasm memory grows with the biggest snapshot parsed (a checkout of 168 files: ~130
 * MB) and wasm never gives it back. So after a snapshot that left the process over 100 MB and well
 * above what it held once started, the recorder hands over to a fresh process of its own and exits:
 * the new one takes the lock and catches up with anything written in between, as after a restart.
 */
import { spawn } from 'node:child_process'
import { isUserError } from '../errors.js'
import { printable } from '../render.js'
import { Recorder } from './recorder.js'

const [repo, debounce, idleGap] = process.argv.slice(2)
const say = (line: string) => process.stderr.write(`${new Date().toISOString()} ${printable(line)}\n`)
/** GITWHY_RECORDER_RECYCLE_MB (a test) sets the bound and drops the growth condition. */
const RECYCLE_MB = Number(process.env.GITWHY_RECORDER_RECYCLE_MB) || 0
const RECYCLE_RSS = (RECYCLE_MB || 100) * 1024 * 1024
/** Over what the process held once started: a repository whose baseline alone needs more does not recycle after every snapshot. */
const RECYCLE_GROWTH = RECYCLE_MB ? 0 : 25 * 1024 * 1024
let startedRss = Infinity
let recycling = false
const recorder = new Recorder(repo, {
  debounceMs: Number(debounce),
  idleGapMs: Number(idleGap),
  onSnapshot: (r) => {
    const t = recorder.lastTiming
    say(`snapshot ${r.id.slice(0, 10)}: ${r.files.length} files, committed ${t ? Math.round(t.committed - t.quietEnd) : '?'} ms after the quiet period: ${r.summary}`)
    const rss = process.memoryUsage().rss
    // after this snapshot's turn has ended: stopping waits for the recorder's turns
    if (!recycling && rss > RECYCLE_RSS && rss > startedRss + RECYCLE_GROWTH) setTimeout(() => void recycle(rss), 0)
  },
  onError: (error) => say(`error: ${error instanceof Error ? error.message : String(error)}`),
})

try {
  await recorder.start()
  startedRss = process.memoryUsage().rss
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

/** Hands over to a fresh recorder process (same flags, same log) and exits. */
async function recycle(rss: number): Promise<void> {
  recycling = true
  process.off('SIGTERM', stop)
  process.off('SIGINT', stop)
  await recorder.stop()
  say(`handing over to a fresh process: ${Math.round(rss / 1048576)} MB after a big snapshot`)
  spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { cwd: process.cwd(), detached: true, stdio: ['ignore', 'ignore', 'inherit'], env: process.env }).unref()
  process.exit(0)
}
