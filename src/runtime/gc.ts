import v8 from 'node:v8'
import vm from 'node:vm'

let gc: (() => void) | null | undefined

/**
 * A full garbage collection now. Node offers one only behind `--expose-gc`, which the flag turns
 * on at run time as well. For the few places that hand a phase's memory to native code: V8 collects
 * when JavaScript allocates, and while Kuzu loads and indexes for seconds, JavaScript allocates
 * nothing, so the garbage of the phases before (about 0.9 GB on git/git) stays resident beside
 * Kuzu's own peak. A no-op where the flag is refused.
 *
 * `compact`: every page's live objects are moved, not only the most fragmented pages' (V8's
 * default), so that V8 can give the pages back (within a few hundred ms, on its own threads). On
 * git/git, before the graph load, 72 MB that stayed live kept ~860 MB of pages committed. Only
 * where little is live: the moved objects need new pages while the old ones are still held (before
 * git/git's analytics, with the rows live, it raised the peak from 1.45 to 2.09 GB).
 */
export function collectGarbage(options: { compact?: boolean } = {}): void {
  if (gc === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc')
      gc = vm.runInNewContext('gc') as () => void
    } catch {
      gc = null
    }
  }
  if (!gc) return
  if (!options.compact) return gc()
  v8.setFlagsFromString('--compact-on-every-full-gc')
  try {
    gc()
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc')
  }
}

/**
 * How far V8 lets the heap grow past what its last full collection left live: 1.5× instead of V8's
 * own factor (up to 4× while collections are cheap). A build's phases make garbage that outlives
 * the young generation (each path's pending hunks, the rows), and V8 let it pile up: on
 * rails/rails (99,000 commits) the heap went from 451 MB live to 1.55 GB before its next full
 * collection, and the process peaked at 2.2 GB. Bounded, the collections come sooner (they are
 * incremental, mostly on V8's own threads); the build is no slower. Set at run time, for the
 * rest of the process, by a full build only: an update's heap is small, and the cap only added
 * collections to it (prettier's one-commit update 939 -> 999 ms).
 */
export function boundHeapGrowth(percent = 50): void {
  try {
    v8.setFlagsFromString(`--heap-growing-percent=${percent}`)
  } catch {
    // refused: V8's own growth, more memory, never wrong
  }
}
