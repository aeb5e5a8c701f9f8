import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { DECISION_KINDS, type DecisionKind } from '../../knowledge/decision-model.js'
import { addDecision, EVIDENCE_FORMS, type DecisionAnswer } from '../../services/decisions.js'
import { decisionLines } from '../../views/decisions.js'

export default class DecisionAdd extends BaseCommand {
  static summary = 'Record a decision, constraint or convention by hand, with the code it governs and its evidence.'
  static description =
    `Written to .gitwhy-decisions.jsonl at the repository root (review and commit it), never only to the index: analyze --force keeps it. Targets go through the one resolver (a path, dir/, a symbol, path:Symbol, community:ID); evidence is ${EVIDENCE_FORMS}, each checked against the index (a document range is read at the indexed HEAD and its text kept as the snippet verification looks for). A check (--forbid, --require, --forbid-query) makes the rule mechanically checkable: \`gitwhy decisions verify\` lists its violations at HEAD.`
  static examples = [
    '<%= config.bin %> decision add "All SQL goes through db/query.ts" --why "one place to parameterise and log" --applies-to src/db/ --evidence a1b2c3d --evidence "PR #42"',
    '<%= config.bin %> decision add "No direct fetch in components" --kind constraint --applies-to src/components/ --forbid "\\\\bfetch\\\\("',
  ]
  static args = { statement: Args.string({ description: 'what was decided', required: true }) }
  static flags = {
    why: Flags.string({ description: 'the rationale' }),
    title: Flags.string({ description: 'one line (default: the statement\'s first line)' }),
    kind: Flags.string({ description: 'what it is', options: [...DECISION_KINDS], default: 'decision' }),
    'applies-to': Flags.string({ description: 'governed code: PATH, DIR/, SYMBOL, PATH:SYMBOL or community:ID (repeatable)', multiple: true, helpValue: 'TARGET' }),
    evidence: Flags.string({ description: 'SHA, PR #N, #N (issue) or PATH:START-END of a document (repeatable)', multiple: true, helpValue: 'REF' }),
    forbid: Flags.string({ description: 'regex no governed line may match (a forbidden import, a banned call)', helpValue: 'REGEX' }),
    require: Flags.string({ description: 'regex every governed file must match (a required wrapper)', helpValue: 'REGEX' }),
    'forbid-query': Flags.string({ description: 'tree-sitter query whose captures are forbidden in the governed files', helpValue: 'QUERY' }),
    'check-path': Flags.string({ description: 'path prefix the check covers instead of the governed code (repeatable)', multiple: true, helpValue: 'PREFIX' }),
    confidence: Flags.string({ description: 'how sure you are, 0-1', default: '1' }),
  }

  async run(): Promise<DecisionAnswer> {
    const { args, flags } = await this.parse(DecisionAdd)
    const result = await addDecision({
      repo: flags.repo,
      statement: args.statement,
      why: flags.why,
      title: flags.title,
      kind: flags.kind as DecisionKind,
      appliesTo: flags['applies-to'],
      evidence: flags.evidence,
      forbid: flags.forbid,
      require: flags.require,
      forbidQuery: flags['forbid-query'],
      checkPaths: flags['check-path'],
      confidence: Number(flags.confidence),
    })
    if (!this.jsonEnabled()) {
      this.log(`recorded ${result.decision.id} in ${result.file} (review and commit it)`)
      for (const line of decisionLines(result.decision)) this.log(line)
    }
    return result
  }
}
