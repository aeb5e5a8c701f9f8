import { rmSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { stderrProgress } from '../progress.js'
import { analyzeLines, printable } from '../render.js'
import { rerunWithMallocArenas } from '../runtime/reexec.js'
import { preferQuickTiers } from '../runtime/tiers.js'
import { analyzeIfCurrent, type ReadSettings } from '../services/analyze-settings.js'
import type { AnalyzeOptions } from '../services/analyze.js'
import type { GraphHeadStart } from '../services/graph-head-start.js'
import { traceFile, writeSpan } from '../trace.js'
import { reportError } from '../views/report.js'

/**
 * `gitwhy analyze` answered before oclif loads (its start-up is ~0.1 s of a hook's update after
 * each commit, and most of a no-op's time). Takes only the flags asked without options (the
 * repository, --json, --quiet, --embeddings); anything else (another flag, --help, a repeated or
 * unknown argument, a colorized --json on a terminal) and any error of the no-op check returns
 * false, and bin/run.js hands the same argv to oclif. An index that is not plainly current is
 * analyzed here by the same service with the same options. Prints what the oclif command prints,
 * and reports errors as it does (exit 1: the user's to fix; 2: a bug).
 */
export async function analyzeFast(argv: string[]): Promise<boolean> {
  if (new Set(argv).size !== argv.length || argv.includes('--')) return false
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch {
    return false
  }
  const { values, positionals } = parsed
  const json = values.json === true
  // both spellings of the embeddings flag at once: oclif's rule (the last one wins) decides
  if (positionals.length > 1 || (json && process.stdout.isTTY) || (values.embeddings && values['no-embeddings'])) return false
  const progress = stderrProgress(!values.quiet && !json)
  const options: AnalyzeOptions = { repo: positionals[0] ?? values.repo, embeddings: values.embeddings === true ? true : values['no-embeddings'] === true ? false : undefined, onWarning: (m) => progress.note(printable(`warning: ${m}`)) }
  const started = Date.now()
  const t0 = performance.now()
  let read: ReadSettings | undefined
  let summary = await analyzeIfCurrent(options, (s) => (read = s))
  // GITWHY_TRACE: the no-op's one span (a build writes its phases' from the service)
  const trace = summary ? traceFile(summary.repo) : null
  if (summary && trace) writeSpan(trace, { name: 'analyze', kind: 'analyze', start: new Date(started).toISOString(), duration_ms: Math.round((performance.now() - t0) * 1000) / 1000, sizes: { rows: 0 } })
  if (!summary) {
    let head: GraphHeadStart | null = null
    try {
      // an update's graph is copied and opened on its thread while the service loads
      const start = await import('../services/graph-head-start.js')
      head = read ? start.graphHeadStart(read.repo, read.settings) : null
      // no update to start: a build; with embeddings, run with fewer malloc arenas (runtime/reexec.ts)
      const rerun = head || !read?.settings.embeddings ? null : await rerunWithMallocArenas(['analyze', ...argv])
      if (rerun !== null) {
        progress.end()
        process.exitCode = rerun
        return true
      }
      // an update is expected: little work, and a process that exits once it is done
      if (head) preferQuickTiers()
      // bundled in a chunk of its own, loaded now: the service finds its grammars, workers and model from the project's root
      const { analyze } = await import('../services/analyze.js')
      summary = await analyze({ ...options, onProgress: progress.report, settings: read, headStart: head ?? undefined })
    } catch (error) {
      if (head && !head.adopted) await head.writer.close({ discard: true }).finally(() => rmSync(head!.dir, { recursive: true, force: true }))
      progress.end()
      process.exitCode = reportError(error, json)
      return true
    }
  }
  progress.end()
  const text = json ? JSON.stringify(summary, null, 2) : analyzeLines(summary).map(printable).join('\n')
  process.stdout.write(`${text}\n`)
  return true
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, strict: true, allowPositionals: true, options: { json: { type: 'boolean' }, quiet: { type: 'boolean', short: 'q' }, repo: { type: 'string' }, embeddings: { type: 'boolean' }, 'no-embeddings': { type: 'boolean' } } })
}
