import { existsSync } from 'node:fs'
import path from 'node:path'
import { Args } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { UserError } from '../errors.js'
import { IndexReader } from '../services/index-reader.js'
import { exploreStart } from '../services/explore.js'

/** The commands that answer what the explorer shows, for a terminal-less caller. */
const EQUIVALENTS = ['gitwhy hotspots', 'gitwhy evidence PATH[:START-END]', 'gitwhy history PATH', 'gitwhy risk PATH|SYMBOL', 'gitwhy ownership PATH|SYMBOL', 'gitwhy related PATH|SYMBOL', 'gitwhy communities', 'gitwhy context SYMBOL', 'gitwhy search TEXT']

export default class Explore extends BaseCommand {
  static summary = 'Walk the code and its history in the terminal: files, symbols, evidence, commits, risk, owners, co-change, search.'
  static description =
    'An interactive explorer (Ink) over the index, reading through the same services as the other commands: the file tree with heat, revisions and owner; the symbols of a file with risk and last change; the evidence timeline (blame and line history) of a file or symbol; a commit with its message, PR, issues and hunks; side views for risk, ownership, co-change, hotspots, communities and the code graph. Needs a terminal; `?` lists the keys.'
  static examples = ['<%= config.bin %> explore', '<%= config.bin %> explore src/server.ts', '<%= config.bin %> explore src/server.ts:120', '<%= config.bin %> explore Router.route']
  static args = { target: Args.string({ description: 'where to open: PATH, PATH:LINE (the symbol around the line) or a symbol' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Explore)
    const reader = await IndexReader.open(flags.repo)
    let opened = false
    try {
      const start = args.target === undefined ? null : exploreStart(reader, args.target)
      const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true
      if (!terminal || this.jsonEnabled()) {
        throw new UserError(
          terminal ? 'gitwhy explore is interactive: it has no --json output' : 'gitwhy explore needs a terminal (stdin and stdout must be a TTY): it is interactive',
          `${terminal ? 'drop --json to explore' : 'run it in a terminal'}; without one, the same answers come from ${EQUIVALENTS.map((c) => `\`${c}\``).join(', ')} (each takes --json)`,
          'not_a_terminal',
        )
      }
      // relative paths from here on are the repository's
      reader.pathsFromRoot = true
      const color = !process.env.NO_COLOR
      // the bundle (scripts/bundle.mjs) loads Ink and React in a fifth of the time; the modules when it is not built
      const bundled = new URL('../bundle/explore.mjs', import.meta.url)
      const { runExplorer } = (await import(existsSync(bundled) ? bundled.href : new URL('../tui/run.js', import.meta.url).href)) as typeof import('../tui/run.js')
      opened = true
      await runExplorer(reader, { repoName: path.basename(reader.repo), color, start })
    } finally {
      if (!opened) await reader.close()
    }
  }
}
