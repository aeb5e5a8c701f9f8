import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderEvidence, renderIndexNote } from '../render.js'
import { pickaxe, type PickaxeResult } from '../services/pickaxe.js'

export default class Pickaxe extends BaseCommand {
  static summary = 'The commits that added or removed a string (git log -S), changed lines matching a regex (-G), or whose message matches (--grep).'
  static description =
    'Searched in the index, not with git: with STRING, the non-merge commits whose diff changed how often STRING occurs (as `git log -S`); with --regex, those with an added or removed line matching (as `git log -G`, RE2 syntax); with --message, the commits whose message matches (as `git log -F --grep`, or `-E --grep` with --regex). PATH limits it as `git log … -- PATH` does. Newest first.'
  static examples = [
    '<%= config.bin %> pickaxe retryDelay',
    '<%= config.bin %> pickaxe "sleep\\(\\d+\\)" --regex src/',
    '<%= config.bin %> pickaxe "race condition" --message --json',
  ]
  static args = {
    string: Args.string({ description: 'what to look for', required: true }),
    path: Args.string({ description: 'a file or directory to limit the search to' }),
  }
  static flags = {
    regex: Flags.boolean({ char: 'G', description: 'STRING is a regular expression (RE2) matched against added and removed lines (git log -G)' }),
    message: Flags.boolean({ description: 'search commit messages instead of diffs (git log --grep)' }),
    'ignore-case': Flags.boolean({ char: 'i', description: 'ignore case' }),
    limit: Flags.integer({ description: 'maximum commits (0 = no cap)', default: 50 }),
  }

  async run(): Promise<PickaxeResult> {
    const { args, flags } = await this.parse(Pickaxe)
    const mode = flags.message ? 'message' : flags.regex ? 'regex' : 'string'
    const result = await pickaxe({ repo: flags.repo, pattern: args.string, path: args.path, mode, regex: flags.regex, ignoreCase: flags['ignore-case'], limit: flags.limit })
    if (!this.jsonEnabled()) {
      const what = mode === 'message' ? 'messages matching' : mode === 'regex' ? 'changed lines matching' : 'changing the count of'
      this.log(`commits ${what} ${JSON.stringify(args.string)}${result.query.path ? ` in ${result.query.path}` : ''}: ${result.total}`)
      for (const line of renderEvidence(result.commits, result.total)) this.log(`  ${line}`)
      if (result.truncated) this.log('  (history cut: older commits are not in the index)')
      const note = renderIndexNote(result.index)
      if (note) this.logStderr(note)
    }
    return result
  }
}
