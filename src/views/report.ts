import { isUserError, type UserError } from '../errors.js'
import { printable, printableLines } from '../render.js'

/** A user-fixable error: the JSON error document on stdout with --json, what happened and the fix on stderr. */
export function reportUserError(error: UserError, json: boolean): void {
  if (json) process.stdout.write(JSON.stringify({ error: { code: error.code, message: error.message, remedy: error.remedy } }) + '\n')
  process.stderr.write(`error: ${printable(error.message)}\n  fix: ${printable(error.remedy)}\n`)
}

/** Anything that is not a UserError is a bug: said so, with the stack, for the report (exit 2). */
export function reportBug(error: Error, json: boolean): void {
  if (json) process.stdout.write(JSON.stringify({ error: { code: 'bug', message: error.message } }) + '\n')
  process.stderr.write(`gitwhy bug: ${printableLines(error.stack ?? error.message)}\nPlease report it with the command you ran.\n`)
}

/** An error of a command run without oclif, reported as BaseCommand.catch reports it; the exit code (1: the user's to fix, 2: a bug). */
export function reportError(error: unknown, json: boolean): number {
  if (isUserError(error)) {
    reportUserError(error, json)
    return 1
  }
  reportBug(error instanceof Error ? error : new Error(String(error)), json)
  return 2
}
