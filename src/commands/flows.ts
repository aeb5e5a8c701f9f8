import { Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { FLOW_KINDS, flows, flowsLines, type FlowsResult } from '../services/flows.js'

export default class Flows extends BaseCommand {
  static summary = 'The execution flows of the code: from each entry point (route, CLI command, main, exported function nothing calls), what its calls reach.'
  static description =
    'Entry points come from tree-sitter queries (queries/<lang>/entries.scm: express/hono/koa routes, Flask/FastAPI decorators, Go http handlers, cobra commands, commander and click commands, mains) and from exported functions nothing outside the tests calls; each flow follows CALLS of confidence 0.6 or more (no ambiguous calls, no methods found by their name alone), up to 8 calls deep and 40 symbols. Biggest flows first; --entry shows the flows starting at a symbol (or in a file) with every step. `gitwhy context X` names the flows X is a step of.'
  static examples = ['<%= config.bin %> flows', '<%= config.bin %> flows --kind route', '<%= config.bin %> flows --entry runServe', '<%= config.bin %> flows --entry src/server.ts --json']
  static flags = {
    entry: Flags.string({ description: 'show the flows starting at this symbol (Class.method, path:Name) or in this file, with their steps' }),
    kind: Flags.string({ description: `only flows of this kind: ${FLOW_KINDS.join(', ')}` }),
    limit: Flags.integer({ description: 'maximum flows shown (0 = no cap)', default: 50 }),
  }

  async run(): Promise<FlowsResult> {
    const { flags } = await this.parse(Flows)
    const r = await flows({ repo: flags.repo, entry: flags.entry, kind: flags.kind, limit: flags.limit })
    if (!this.jsonEnabled()) {
      for (const line of flowsLines(r)) this.log(line)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
