import { BaseCommand } from '../../base-command.js'
import { hooksStatus, type HooksStatusResult } from '../../services/hooks.js'

const WORDS = { installed: 'installed', outdated: 'outdated (run `gitwhy hooks install` to update)', not_installed: 'not installed', foreign: 'foreign (a hook without the gitwhy block)' }

export default class HooksStatus extends BaseCommand {
  static summary = 'Show which gitwhy hooks are installed, and whether a background analyze is running or pending.'
  static examples = ['<%= config.bin %> hooks status', '<%= config.bin %> hooks status --json']

  async run(): Promise<HooksStatusResult> {
    const { flags } = await this.parse(HooksStatus)
    const s = await hooksStatus({ repo: flags.repo })
    if (!this.jsonEnabled()) {
      this.log(`hooks directory: ${s.hooks_dir}`)
      for (const h of s.hooks) this.log(`  ${h.name.padEnd(14)} ${WORDS[h.status]}`)
      const b = s.background
      this.log(`background analyze: ${b.running ? `running (pid ${b.pid})` : 'not running'}${b.pending ? ', another one pending' : ''}`)
      if (b.log) this.log(`log: ${b.log}`)
      if (!s.indexed) this.logStderr('note: there is no index yet: the hooks refresh an existing index; run `gitwhy analyze` once')
    }
    return s
  }
}
