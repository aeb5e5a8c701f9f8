import { Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { renderIndexNote } from '../render.js'
import { hotspots, type ActivityItem, type HotspotsResult } from '../services/analytics.js'

export function renderActivity(items: ActivityItem[]): string[] {
  return items.map((i) => `${i.score.toFixed(1).padStart(6)}  ${String(i.recent_revisions).padStart(4)} recent  ${String(i.revisions).padStart(5)} total  ${String(i.authors).padStart(3)} authors  ${i.qualified_name ? `${i.qualified_name}  (${i.path}:${i.start_line})` : i.path}`)
}

export default class Hotspots extends BaseCommand {
  static summary = 'Files and symbols ranked by recent activity × total activity.'
  static description = 'Source files (those a grammar parses) unless --all-files; test files and their symbols only with --include-tests. score = recent_revisions × ln(1 + revisions), as of the indexed HEAD; merges, bot and formatting-only commits are not counted. The recent window is 90 days unless .gitwhy/config.json says otherwise.'
  static examples = ['<%= config.bin %> hotspots', '<%= config.bin %> hotspots --path src/server --limit 10', '<%= config.bin %> hotspots --level symbol --json']
  static flags = {
    path: Flags.string({ description: 'only files (and their symbols) under this file or directory' }),
    limit: Flags.integer({ description: 'maximum items per level (0 = no cap)', default: 20 }),
    level: Flags.string({ description: 'file, symbol or both', options: ['file', 'symbol', 'both'], default: 'both' }),
    'all-files': Flags.boolean({ description: 'rank every file, not only source files (lockfiles, CI configs, manifests too)', default: false }),
    'include-tests': Flags.boolean({ description: 'rank test files and their symbols too', default: false }),
  }

  async run(): Promise<HotspotsResult> {
    const { flags } = await this.parse(Hotspots)
    const r = await hotspots({ repo: flags.repo, path: flags.path, limit: flags.limit, level: flags.level as 'file' | 'symbol' | 'both', allFiles: flags['all-files'], includeTests: flags['include-tests'] })
    if (!this.jsonEnabled()) {
      for (const [heading, items] of [['files', r.files], ['symbols', r.symbols]] as const) {
        if (!items.length) continue
        this.log(heading)
        for (const line of renderActivity(items)) this.log(`  ${line}`)
      }
      if (!r.files.length && !r.symbols.length) this.log('no activity in the indexed history')
      this.log(`as of ${r.as_of.slice(0, 10)}: ${r.formula}`)
      const note = renderIndexNote(r.index)
      if (note) this.logStderr(note)
    }
    return r
  }
}
