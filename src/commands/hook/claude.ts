import { Command } from '@oclif/core'
import { HOOK_DEADLINE_MS, hookDeadlineMs, runClaudeHook } from '../../hook/claude.js'

/**
 * Listed here for `--help`; `bin/run.js` runs the hook without loading oclif (its start-up alone
 * would use the hook's time budget), so this path is taken only through `bin/dev.js`.
 */
export default class HookClaude extends Command {
  static summary = 'Claude Code PreToolUse hook: the history of what a Grep, Glob or rg/grep search matches, as additionalContext.'
  static description = [
    'Reads a PreToolUse event (JSON) on stdin. For Grep, Glob and Bash commands running rg or grep in a repository with a gitwhy index, prints',
    '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"…"}} with who changed the matches last, when, in which PR, why and how often.',
    `Otherwise, and on any error or past ${HOOK_DEADLINE_MS} ms after start (GITWHY_HOOK_DEADLINE_MS sets another budget), it prints nothing and exits 0: it never blocks the tool call.`,
    'Install: add {"matcher":"Grep|Glob|Bash","hooks":[{"type":"command","command":"node /abs/path/bin/run.js hook claude"}]} under hooks.PreToolUse in ~/.claude/settings.json.',
  ].join('\n')
  static examples = ['echo \'{"tool_name":"Grep","tool_input":{"pattern":"createRouter"},"cwd":"/src/trpc"}\' | <%= config.bin %> hook claude']

  async run(): Promise<void> {
    // oclif has already spent the budget counted from process start: count from here
    await runClaudeHook(performance.now() + hookDeadlineMs())
  }
}
