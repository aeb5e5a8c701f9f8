import { BaseCommand } from '../../base-command.js'
import { deadReason, listRegistered, type RegisteredRepo } from '../../services/registry.js'

export interface ReposResult {
  repos: Array<RegisteredRepo & { problem: string | null }>
}

export default class Repos extends BaseCommand {
  static summary = 'List the repositories gitwhy has indexed on this machine (the registry MCP tools choose from).'
  static description = 'A repository whose directory or index has gone is shown with the reason; `gitwhy repos prune` removes those entries (analyze also drops them).'
  static examples = ['<%= config.bin %> repos', '<%= config.bin %> repos --json']

  async run(): Promise<ReposResult> {
    await this.parse(Repos)
    const repos = listRegistered().map((r) => ({ ...r, problem: deadReason(r) }))
    if (!this.jsonEnabled()) {
      if (repos.length === 0) this.log('no repository is indexed yet: run `gitwhy analyze` in one')
      for (const r of repos) this.log(`${r.name}  ${r.path}  ${r.problem ? `(${r.problem})` : `${r.head.slice(0, 7)}, indexed ${r.indexed_at.slice(0, 16).replace('T', ' ')}`}`)
      const dead = repos.filter((r) => r.problem).length
      if (dead) this.logStderr(`${dead} ${dead === 1 ? 'entry' : 'entries'} can no longer be served: \`gitwhy repos prune\` removes them`)
    }
    return { repos }
  }
}
