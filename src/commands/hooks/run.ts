import { Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { adoptHookGitEnv, runHookAnalyze, type HookRunResult } from '../../services/hooks.js'

/** What the installed hooks start in the background; not for people (hence hidden). */
export default class HooksRun extends BaseCommand {
  static hidden = true
  static summary = 'Refresh the index for a git hook (started in the background by the installed hooks).'
  static flags = {
    hook: Flags.string({ description: 'the hook that fired (for the log)', default: 'manual' }),
  }

  async run(): Promise<HookRunResult> {
    // A background job must outlive the terminal and the Ctrl-C meant for git. sh ignores both
    // signals for `&` jobs (and nohup would ignore SIGHUP), but node resets them to the default.
    process.on('SIGHUP', () => {})
    process.on('SIGINT', () => {})
    const { flags } = await this.parse(HooksRun)
    adoptHookGitEnv(process.env, process.cwd())
    // The hook runs in the work tree it fired in; a GITWHY_REPO from the user's shell is not it.
    return runHookAnalyze({ repo: flags.repo ?? process.cwd(), hook: flags.hook })
  }
}
