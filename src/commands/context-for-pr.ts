import { Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { askLine, contextForPr, type ContextForPrResult } from '../services/context-for-pr.js'
import { changeDecisionLines } from '../services/decisions.js'

export default class ContextForPr extends BaseCommand {
  static summary = 'Before review or merge: risk, owners to ask, symbols touched, co-changed files missing from the change, and the PRs that last touched the same code.'
  static description = 'The changed files come from `git diff BASE...HEAD` (default base: origin/HEAD, else main, else master), or from --files.'
  static examples = ['<%= config.bin %> context-for-pr', '<%= config.bin %> context-for-pr --base main --head feature/x', '<%= config.bin %> context-for-pr --files src/a.ts src/b.ts --json']
  static flags = {
    base: Flags.string({ description: 'the branch the change goes into (default: origin/HEAD, main or master)' }),
    head: Flags.string({ description: 'the change (default: HEAD)' }),
    files: Flags.string({ description: 'the changed files, instead of a git diff', multiple: true }),
    limit: Flags.integer({ description: 'maximum missing co-changed files and callers (0 = no cap)', default: 10 }),
    'symbol-limit': Flags.integer({ description: 'maximum symbols listed per file, riskiest first (0 = no cap)', default: 10 }),
  }

  async run(): Promise<ContextForPrResult> {
    const { flags } = await this.parse(ContextForPr)
    const r = await contextForPr({ repo: flags.repo, base: flags.base, head: flags.head, files: flags.files, limit: flags.limit, symbolLimit: flags['symbol-limit'] })
    if (!this.jsonEnabled()) {
      const s = r.summary
      this.log(`${r.base ? `${r.base}...${r.head}` : 'given files'}: ${s.files} files (${s.high} HIGH, ${s.medium} MEDIUM, ${s.low} LOW, ${s.new_files} new)`)
      for (const f of r.files) {
        this.log(`${f.risk ? f.risk.level.padEnd(6) : 'new   '} ${f.path}${f.old_path ? ` (from ${f.old_path})` : ''}`)
        for (const reason of f.risk?.reasons ?? []) this.log(`         - ${reason}`)
        if (f.symbols.length) this.log(`         symbols: ${f.symbols.map((x) => `${x.qualified_name}${x.level === 'LOW' ? '' : ` [${x.level}]`}`).join(', ')}${f.more_symbols ? ` (+${f.more_symbols} more)` : ''}`)
        if (f.last_prs.length) this.log(`         last PRs: ${f.last_prs.map((p) => `#${p.number}${p.title ? ` ${p.title}` : ''}`).join('; ')}`)
      }
      if (r.missing_co_changes.length) {
        this.log('usually change with these files but are not in the change:')
        for (const m of r.missing_co_changes) this.log(`  ${m.path}  (with ${m.usually_with}: ${m.shared} shared commits, ${(m.confidence * 100).toFixed(0)} % of its changes)`)
      }
      if (r.owners_to_ask.length) this.log(askLine(r))
      for (const line of changeDecisionLines(r.decisions)) this.log(line)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
