import path from 'node:path'
import { Args } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { UserError } from '../errors.js'
import { symbolIds } from '../services/index-layout.js'
import { IndexReader } from '../services/index-reader.js'
import { resolveTarget, splitRange } from '../services/resolve.js'

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
      const start = args.target === undefined ? null : where(reader, args.target)
      if (!process.stdin.isTTY || !process.stdout.isTTY || this.jsonEnabled()) {
        throw new UserError(
          'gitwhy explore needs a terminal (stdin and stdout must be a TTY): it is interactive',
          `run it in a terminal; without one, the same answers come from ${EQUIVALENTS.map((c) => `\`${c}\``).join(', ')} (each takes --json)`,
          'not_a_terminal',
        )
      }
      // relative paths from here on are the repository's
      reader.pathsFromRoot = true
      const color = !process.env.NO_COLOR
      const { runExplorer } = await import('../tui/run.js')
      opened = true
      await runExplorer(reader, { repoName: path.basename(reader.repo), color, start })
    } finally {
      if (!opened) await reader.close()
    }
  }
}

/** `PATH`, `PATH:LINE` (the innermost symbol around the line) or a symbol, as the file and symbol to open at. */
function where(reader: IndexReader, input: string): { path: string; symbol: string | null } {
  const { path: given, start } = splitRange(reader, input)
  const t = resolveTarget(reader, given)
  if (t.kind === 'directory') throw new UserError(`${t.path.replace(/\/$/, '') || '.'} is a directory`, 'pass a file (optionally :LINE) or a symbol', 'is_directory')
  if (t.kind === 'symbol') return { path: t.path, symbol: t.id }
  if (start === undefined) return { path: t.path, symbol: null }
  const file = reader.requireFile(t.path)
  if (start > file.lines) throw new UserError(`${t.path} has only ${file.lines} lines`, `pass a line within 1-${file.lines}`, 'bad_range')
  const ids = symbolIds(file)
  // the innermost: of the symbols around the line, the one that starts last
  let best = -1
  file.symbols.forEach((s, i) => {
    if (s.startLine <= start && s.endLine >= start && (best < 0 || s.startLine > file.symbols[best].startLine || (s.startLine === file.symbols[best].startLine && s.endLine < file.symbols[best].endLine))) best = i
  })
  return { path: t.path, symbol: best < 0 ? null : ids[best] }
}
