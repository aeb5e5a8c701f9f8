import { BaseCommand } from '../../base-command.js'
import { printable } from '../../render.js'
import { uninstallHooks, type HooksChangeResult } from '../../services/hooks.js'

/** One line per hook on stdout; a refusal also goes to stderr, where a person looks for problems. */
export function logHookChanges(cmd: { log: (m: string) => void }, result: HooksChangeResult): void {
  cmd.log(`hooks directory: ${result.hooks_dir}`)
  for (const h of result.hooks) {
    cmd.log(`  ${h.name.padEnd(14)} ${h.status.padEnd(9)} ${h.path}`)
    if (h.message && h.status !== 'refused') cmd.log(`  ${''.padEnd(14)} ${h.message}`)
    if (h.status === 'refused') process.stderr.write(`warning: ${printable(`${h.name} not installed: ${h.message}`)}\n`)
  }
}

export default class HooksUninstall extends BaseCommand {
  static summary = 'Remove what `gitwhy hooks install` added: its blocks, and the hook files it created.'
  static description = 'The rest of every hook file is restored byte for byte; a file gitwhy created is deleted unless something else was added to it.'
  static examples = ['<%= config.bin %> hooks uninstall', '<%= config.bin %> hooks uninstall --json']

  async run(): Promise<HooksChangeResult> {
    const { flags } = await this.parse(HooksUninstall)
    const result = await uninstallHooks({ repo: flags.repo })
    if (!this.jsonEnabled()) logHookChanges(this, result)
    return result
  }
}
