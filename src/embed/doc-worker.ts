/** The thread that makes a full build's search documents (src/embed/doc-maker.ts). */
import { serveCalls } from '../runtime/worker-calls.js'
import { runDocJob } from './doc-maker.js'

serveCalls(runDocJob)
