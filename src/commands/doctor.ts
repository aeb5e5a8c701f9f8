import { BaseCommand } from '../base-command.js'
import { doctor, type DoctorResult } from '../services/doctor.js'

const MARK = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' } as const

export default class Doctor extends BaseCommand {
  static summary = 'Check that agents can get answers: Node, the index, the database, the MCP server and client registrations.'
  static description = 'Each check prints ok, warn or FAIL, and a fix for anything that is not ok. Exits 1 when a check fails.'
  static examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --json']

  async run(): Promise<DoctorResult> {
    const { flags } = await this.parse(Doctor)
    const result = await doctor({ repo: flags.repo })
    if (!this.jsonEnabled()) {
      for (const c of result.checks) {
        this.log(`${MARK[c.status]}  ${c.id.padEnd(12)} ${c.message}`)
        if (c.fix) this.log(`      ${''.padEnd(12)} fix: ${c.fix}`)
      }
      this.log(result.ok ? 'all checks passed' : 'some checks failed')
    }
    if (!result.ok) process.exitCode = 1
    return result
  }
}
