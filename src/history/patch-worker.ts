/** The thread that deflates and writes a full build's patch store (PatchFile, src/history/path-index.ts). */
import { serveCalls } from '../runtime/worker-calls.js'
import { patchFileCalls } from './path-index.js'

serveCalls(patchFileCalls())
