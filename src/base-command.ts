import { Command, Flags } from '@oclif/core'
import { isUserError } from './errors.js'
import { printable, printableLines } from './render.js'
import { reportBug, reportUserError } from './views/report.js'
import type { View, ViewInput } from './views/view.js'

/**
 * Every command: `--repo` (default: the git root of the working directory, or GITWHY_REPO) and
 * `--json` (one JSON document on stdout). A UserError prints what happened and the remedy and
 * exits 1; anything else is a bug and exits 2.
 */
export abstract class BaseCommand extends Command {
  static enableJsonFlag = true
  static baseFlags = {
    repo: Flags.string({ description: 'repository to use (default: the git repository containing the working directory; env GITWHY_REPO)', helpValue: 'DIR' }),
  }

  /**
   * One line of text output. History, paths and names are untrusted (a commit subject can hold
   * terminal escapes or a newline that forges a line), so every control character is shown
   * escaped; a command with several lines logs them one by one.
   */
  log(message = ''): void {
    super.log(printable(message))
  }

  /** Run a read command's view: its answer, and unless --json its text (src/views/; the fast path runs the same). */
  protected async show<I extends ViewInput, R>(view: View<I, R>, input: I): Promise<R> {
    const result = await view.answer(input)
    if (!this.jsonEnabled()) {
      const { lines, notes } = view.text(result, input)
      for (const line of lines) this.log(line)
      for (const note of notes) this.logStderr(note)
    }
    return result
  }

  protected logStderr(message: string): void {
    process.stderr.write(printable(message) + '\n')
  }

  async catch(error: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<never> {
    const json = this.argv.includes('--json')
    if (isUserError(error)) {
      reportUserError(error, json)
      return this.exit(1)
    }
    // oclif's own parse errors (unknown flag, missing argument) are the user's to fix too
    if (error.oclif?.exit !== undefined && error.oclif.exit !== 2) throw error
    if (/Unexpected argument|Nonexistent flag|Missing (\d+ )?required|Expected --|Parsing --|expects a value|expects one of/.test(error.message ?? '')) {
      if (json) process.stdout.write(JSON.stringify({ error: { code: 'usage', message: error.message, remedy: `see gitwhy ${this.id} --help` } }) + '\n')
      // oclif's message has lines of its own ("Missing 1 required arg:\ntarget …"): kept as lines
      process.stderr.write(`error: ${printableLines(error.message).replace(/\n/g, '\n  ')}\n  fix: see \`gitwhy ${this.id} --help\`\n`)
      return this.exit(1)
    }
    reportBug(error, json)
    return this.exit(2)
  }
}
