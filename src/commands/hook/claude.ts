import { Command } from '@oclif/core'
import { HOOK_BUDGET_MS, HOOK_DEADLINE_MS, runClaudeHook } from '../../hook/claude.js'

/**
 * Listed here for `--help`; `bin/run.js` runs the hook without loading oclif (its start-up alone
 * would use the hook's time budget), so this path is taken only through `bin/dev.js`.
 */
export default class HookClaude extends Command {
  static summary = 'Claude Code PreToolUse hook: the history of what a Grep, Glob or rg/grep search matches, as additionalContext.'
  static description = [
    'Reads a PreToolUse event (JSON) on stdin. For Grep, Glob and Bash commands running rg or grep in a repository with a gitwhy index, prints',
    '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"…"}} with who changed the matches last, when, in which PR, why and how often.',
    `Otherwise, and on any error or past its deadline, it prints nothing and exits 0: it never blocks the tool call. The deadline is ${HOOK_DEADLINE_MS} ms after process start on a quiet machine and grows with the observed start-up cost on a loaded one (at most 1 s); GITWHY_HOOK_DEADLINE_MS fixes it. GITWHY_HOOK_DEBUG=1 says on stderr why there was no answer.`,
    'Install: add {"matcher":"Grep|Glob|Bash","hooks":[{"type":"command","command":"node /abs/path/bin/run.js hook claude"}]} under hooks.PreToolUse in ~/.claude/settings.json.',
  ].join('\n')
  static examples = ['echo \'{"tool_name":"Grep","tool_input":{"pattern":"createRouter"},"cwd":"/src/trpc"}\' | <%= config.bin %> hook claude']

  async run(): Promise<void> {
    // oclif has already spent any budget counted from process start: count from here
    const fixed = Number(process.env.GITWHY_HOOK_DEADLINE_MS)
    await runClaudeHook(performance.now() + (fixed > 0 ? fixed : HOOK_BUDGET_MS))
  }
}
