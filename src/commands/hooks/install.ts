import { BaseCommand } from '../../base-command.js'
import { installHooks, type HooksChangeResult } from '../../services/hooks.js'
import { logHookChanges } from './uninstall.js'

export default class HooksInstall extends BaseCommand {
  static summary = 'Add git hooks that refresh the index in the background after commits, merges, rewrites and branch checkouts.'
  static description =
    'Adds a delimited block to post-commit, post-merge, post-rewrite and post-checkout in the hooks directory git uses (core.hooksPath and worktrees included; husky scripts too). ' +
    'An existing hook is appended to, never overwritten; a hook that is not a shell script is refused. The block starts `gitwhy hooks run` detached, which updates an existing index one analyze at a time and logs to .gitwhy/hooks.log. ' +
    'Running it again changes nothing (an outdated block is replaced); `gitwhy hooks uninstall` takes it all back.'
  static examples = ['<%= config.bin %> hooks install', '<%= config.bin %> hooks install --repo ../other --json']

  async run(): Promise<HooksChangeResult> {
    const { flags } = await this.parse(HooksInstall)
    const { result, indexed } = await installHooks({ repo: flags.repo })
    if (!this.jsonEnabled()) {
      logHookChanges(this, result)
      if (!indexed) this.logStderr('note: there is no index yet: run `gitwhy analyze` once; from then on the hooks keep it fresh')
    }
    return result
  }
}
