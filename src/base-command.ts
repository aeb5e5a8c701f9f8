import { Command, Flags } from '@oclif/core'
import { isUserError, type UserError } from './errors.js'
import { printable, printableLines } from './render.js'

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
      process.stderr.write(`error: ${printable(error.message)}\n  fix: see \`gitwhy ${this.id} --help\`\n`)
      return this.exit(1)
    }
    if (json) process.stdout.write(JSON.stringify({ error: { code: 'bug', message: error.message } }) + '\n')
    process.stderr.write(`gitwhy bug: ${printableLines(error.stack ?? error.message)}\nPlease report it with the command you ran.\n`)
    return this.exit(2)
  }
}

/** A user-fixable error: the JSON error document on stdout with --json, what happened and the fix on stderr. */
export function reportUserError(error: UserError, json: boolean): void {
  if (json) process.stdout.write(JSON.stringify({ error: { code: error.code, message: error.message, remedy: error.remedy } }) + '\n')
  process.stderr.write(`error: ${printable(error.message)}\n  fix: ${printable(error.remedy)}\n`)
}
