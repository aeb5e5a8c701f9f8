import v8 from 'node:v8'
import vm from 'node:vm'

let gc: (() => void) | null | undefined

/**
 * A full garbage collection now. Node offers one only behind `--expose-gc`, which the flag turns
 * on at run time as well. For the few places that hand a phase's memory to native code: V8 collects
 * when JavaScript allocates, and while Kuzu loads and indexes for seconds, JavaScript allocates
 * nothing, so the garbage of the phases before (about 0.9 GB on git/git) stays resident beside
 * Kuzu's own peak. Costs ~60 ms there; a no-op where the flag is refused.
 */
export function collectGarbage(): void {
  if (gc === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc')
      gc = vm.runInNewContext('gc') as () => void
    } catch {
      gc = null
    }
  }
  gc?.()
}
