import { Flags } from '@oclif/core'
import { BaseCommand } from '../../base-command.js'
import { pruneRegistry, type PruneResult } from '../../services/registry.js'

export default class ReposPrune extends BaseCommand {
  static summary = 'Remove the registered repositories whose directory or index has gone.'
  static examples = ['<%= config.bin %> repos prune', '<%= config.bin %> repos prune --dry-run']
  static flags = {
    'dry-run': Flags.boolean({ description: 'only say which entries would be removed' }),
  }

  async run(): Promise<PruneResult & { dry_run: boolean }> {
    const { flags } = await this.parse(ReposPrune)
    const r = pruneRegistry({ dryRun: flags['dry-run'] })
    if (!this.jsonEnabled()) {
      if (r.removed.length === 0) this.log(`nothing to prune: all ${r.kept.length} registered repositories have an index`)
      for (const d of r.removed) this.log(`${flags['dry-run'] ? 'would remove' : 'removed'} ${d.name}  ${d.path}  (${d.reason})`)
    }
    return { ...r, dry_run: flags['dry-run'] }
  }
}
