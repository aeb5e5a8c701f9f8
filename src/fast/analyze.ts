import { parseArgs } from 'node:util'
import { stderrProgress } from '../progress.js'
import { analyzeLines, printable } from '../render.js'
import { analyzeIfCurrent } from '../services/analyze-settings.js'

/**
 * `gitwhy analyze` when the index is already current, answered before oclif loads (its start-up
 * is most of a no-op's time). Takes only the flags a no-op can be asked with; anything else
 * (another flag, --help, a repeated or unknown argument, a colorized --json on a terminal), any
 * error and any index that is not plainly current returns false, and bin/run.js hands the same
 * argv to oclif, whose `analyze` runs the whole service. Prints what the oclif command prints.
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
  const summary = await analyzeIfCurrent({ repo: positionals[0] ?? values.repo, embeddings: values.embeddings === true ? true : values['no-embeddings'] === true ? false : undefined, onWarning: (m) => progress.note(printable(`warning: ${m}`)) })
  progress.end()
  if (!summary) return false
  const text = json ? JSON.stringify(summary, null, 2) : analyzeLines(summary).map(printable).join('\n')
  process.stdout.write(`${text}\n`)
  return true
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, strict: true, allowPositionals: true, options: { json: { type: 'boolean' }, quiet: { type: 'boolean', short: 'q' }, repo: { type: 'string' }, embeddings: { type: 'boolean' }, 'no-embeddings': { type: 'boolean' } } })
}
