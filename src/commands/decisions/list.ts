import { Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { DECISION_KINDS, DECISION_SOURCES } from '../../knowledge/decision-model.js'
import { LIST_STATUSES, listDecisions, type DecisionList } from '../../services/decisions.js'
import { decisionLine } from '../../views/decisions.js'

export default class DecisionsList extends BaseCommand {
  static summary = 'List the recorded decisions (or the mined candidates with --status proposed).'
  static description = 'Reads .gitwhy-decisions.jsonl and .gitwhy/decisions-proposed.jsonl; needs no index. Statuses are as recorded: `gitwhy decisions verify` says which active ones are stale.'
  static examples = ['<%= config.bin %> decisions list', '<%= config.bin %> decisions list --status proposed --limit 30', '<%= config.bin %> decisions list --status all --kind constraint --json']
  static flags = {
    status: Flags.string({ description: 'statuses to list (repeatable; default active and superseded)', options: [...LIST_STATUSES], multiple: true }),
    kind: Flags.string({ description: 'only this kind', options: [...DECISION_KINDS] }),
    source: Flags.string({ description: 'only this source', options: [...DECISION_SOURCES] }),
    limit: Flags.integer({ description: 'maximum listed (0 = no cap)', default: 0, min: 0 }),
  }

  async run(): Promise<DecisionList> {
    const { flags } = await this.parse(DecisionsList)
    const result = await listDecisions({ repo: flags.repo, status: flags.status, kind: flags.kind, source: flags.source, limit: flags.limit })
    if (!this.jsonEnabled()) {
      if (result.total === 0) this.log('no decision recorded: add one with `gitwhy decision add`, or mine candidates with `gitwhy decisions mine`')
      for (const d of result.decisions) this.log(decisionLine(d))
      if (result.total > result.decisions.length) this.log(`… ${result.total - result.decisions.length} more (--limit 0 lists all)`)
      if (result.proposed > 0 && !(flags.status ?? []).includes('proposed')) this.logStderr(`${result.proposed} mined candidates wait: gitwhy decisions list --status proposed`)
      for (const p of result.problems) this.logStderr(`skipped line ${p.line} of ${p.file}: ${p.message}`)
    }
    return result
  }
}
