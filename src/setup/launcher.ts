/**
 * How a client starts gitwhy. For the user's own configs: the absolute path of the node binary
 * running this gitwhy and the absolute path of this package's `bin/run.js`; no PATH lookup is
 * involved, so the command works from GUI clients that do not inherit the shell's PATH (nvm, fnm,
 * volta installs). For project configs, which are committed and shared: the portable `gitwhy`
 * found on each teammate's PATH, since this machine's paths mean nothing on theirs.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PROJECT_ROOT } from '../parse/registry.js'

/** This package's CLI entry point, absolute. */
export const RUN_JS = path.join(PROJECT_ROOT, 'bin', 'run.js')

/** This package's version, from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version
}

export interface Launcher {
  command: string
  args: string[]
}

/** Where a launcher is written: this user's configs, or a repository's shared ones. */
export type LauncherScope = 'user' | 'project'

/** The command a shared (project) config runs: `gitwhy` on the PATH. */
export const PORTABLE_COMMAND = 'gitwhy'

/** `gitwhy mcp`: an absolute node + script pair for the user, the portable `gitwhy mcp` for a project. */
export function launcher(scope: LauncherScope = 'user'): Launcher {
  return scope === 'project' ? { command: PORTABLE_COMMAND, args: ['mcp'] } : { command: process.execPath, args: [RUN_JS, 'mcp'] }
}

/**
 * One shell word for a hook command line. Claude Code runs hook commands through a shell (bash,
 * Git Bash on Windows), so the paths are double-quoted with `"`, `$` and backquotes escaped, and
 * backslashes too except on Windows, where they are path separators and never precede those.
 */
export function shellQuote(word: string, platform: NodeJS.Platform = process.platform): string {
  const specials = platform === 'win32' ? /["$`]/g : /["$`\\]/g
  return `"${word.replace(specials, (c) => `\\${c}`)}"`
}

/** The command line of the Claude Code hook: `"<node>" "<run.js>" hook claude` (project: `gitwhy hook claude`). */
export function hookCommandLine(platform: NodeJS.Platform = process.platform, scope: LauncherScope = 'user'): string {
  if (scope === 'project') return `${PORTABLE_COMMAND} hook claude`
  return [process.execPath, RUN_JS].map((w) => shellQuote(w, platform)).join(' ') + ' hook claude'
}

/** A hook command that runs gitwhy's Claude hook, whichever install it points at. */
export function isGitwhyHookCommand(command: string): boolean {
  return /(?:\bgitwhy|[\\/]bin[\\/]run\.js)["']?\s+hook\s+claude\s*$/.test(command)
}

/** The words of a hook command line as hookCommandLine writes it (for registrations()). */
export function splitHookCommand(command: string, platform: NodeJS.Platform = process.platform): string[] {
  const words: string[] = []
  const unescape = platform === 'win32' ? /\\(["$`])/g : /\\(["$`\\])/g
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g
  for (let m = re.exec(command); m; m = re.exec(command)) words.push(m[1] !== undefined ? m[1].replace(unescape, '$1') : (m[2] ?? m[3]))
  return words
}
