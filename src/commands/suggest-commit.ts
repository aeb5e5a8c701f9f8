import { Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { suggestCommit, suggestCommitLines, type SuggestCommitResult } from '../services/suggest-commit.js'

export default class SuggestCommit extends BaseCommand {
  static summary = 'A conventional-commit message for the staged change, from the change and from how earlier commits to the same code were labelled.'
  static description =
    'The type comes from the change (only tests: test; only docs: docs; only CI files: ci; only dependency manifests and lockfiles: chore(deps) or build(deps); new exported symbols or source files: feat; otherwise fix or refactor by its shape) and from the history of the changed files and symbols (their commits\' conventional prefixes, and the index\'s categories): the output says which decided. The scope comes from the changed symbols\' community, else the folder. The changed symbols are mapped as detect-changes maps them, new ones by parsing the staged files. The message goes to stdout (pipe it to `git commit -F -`), what decided it to stderr. An LLM writes the words when one is configured; otherwise, or when it declines, the message is extractive.'
  static examples = ['<%= config.bin %> suggest-commit', '<%= config.bin %> suggest-commit | git commit -F -', '<%= config.bin %> suggest-commit --worktree --json']
  static flags = {
    staged: Flags.boolean({ description: 'the staged changes (the default)' }),
    worktree: Flags.boolean({ description: 'every uncommitted change instead, untracked files too' }),
  }

  async run(): Promise<SuggestCommitResult> {
    const { flags } = await this.parse(SuggestCommit)
    const r = await suggestCommit({ repo: flags.repo, staged: flags.staged, worktree: flags.worktree })
    if (!this.jsonEnabled()) {
      const { message, notes } = suggestCommitLines(r)
      for (const line of message) this.log(line)
      for (const note of notes) this.logStderr(note)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
