import { Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { contextForPr, detectChangesLines, type ContextForPrResult } from '../services/context-for-pr.js'

export default class DetectChanges extends BaseCommand {
  static summary = 'Your change mapped to the code graph: the symbols it changes, their callers outside the change, the tests and communities touched, risk, and co-changed files it misses.'
  static description =
    'The changed lines come from git: by default every uncommitted change (staged or not, untracked files too) against the indexed HEAD; --staged only the staging area; --base REF the commits of HEAD since it branched from REF. A symbol is changed when a hunk overlaps its lines at the indexed HEAD (a pure insertion only strictly inside them). The same answer as context-for-pr, seen from the code graph.'
  static examples = ['<%= config.bin %> detect-changes', '<%= config.bin %> detect-changes --staged --json', '<%= config.bin %> detect-changes --base main']
  static flags = {
    staged: Flags.boolean({ description: 'only staged changes' }),
    worktree: Flags.boolean({ description: 'every uncommitted change, untracked files too (the default)' }),
    base: Flags.string({ description: 'the commits of HEAD since it branched from this ref' }),
    limit: Flags.integer({ description: 'maximum callers and missing co-changed files (0 = no cap)', default: 20 }),
    'symbol-limit': Flags.integer({ description: 'maximum symbols listed per file (0 = no cap)', default: 10 }),
  }

  async run(): Promise<ContextForPrResult> {
    const { flags } = await this.parse(DetectChanges)
    const r = await contextForPr({ repo: flags.repo, base: flags.base, staged: flags.staged, worktree: flags.worktree || (!flags.staged && !flags.base), limit: flags.limit, symbolLimit: flags['symbol-limit'] })
    if (!this.jsonEnabled()) {
      for (const line of detectChangesLines(r)) this.log(line)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
