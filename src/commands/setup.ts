import path from 'node:path'
import os from 'node:os'
import { Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { CLIENT_IDS, clientName, failures, resolveClientNames, setup, type ClientResult, type FileResult, type SetupPreview, type SetupResult } from '../services/setup.js'
import { resolveRepo } from '../services/workspace.js'

const DRY_VERBS: Record<string, string> = { added: 'would add', updated: 'would update', removed: 'would remove' }

export default class Setup extends BaseCommand {
  static summary = 'Register the gitwhy MCP server (and the Claude Code hook) with the AI coding clients on this machine.'
  static description = `Writes an entry that starts \`gitwhy mcp\` (absolute node + bin/run.js paths) into the config of every client found: Claude Code, Cursor, VS Code, Codex, OpenCode, Windsurf, Gemini CLI. User level by default; --project writes the project-level files into the repository instead. Every edited file is backed up next to itself first (<file>.gitwhy-backup-<UTC time>); a file that cannot be parsed is left untouched and that client is reported as failed (exit 1). Running it twice changes nothing the second time.`
  static examples = [
    '<%= config.bin %> setup',
    '<%= config.bin %> setup --dry-run',
    '<%= config.bin %> setup --client cursor --client codex',
    '<%= config.bin %> setup --project',
    '<%= config.bin %> setup --remove',
  ]
  static flags = {
    'dry-run': Flags.boolean({ default: false, description: 'print, per client, the file and the exact change; write nothing' }),
    remove: Flags.boolean({ default: false, description: 'remove the gitwhy entries (server and hook) instead of adding them' }),
    project: Flags.boolean({ default: false, description: 'use the project-level config files in the repository (see --repo) instead of the user-level ones' }),
    client: Flags.string({ description: `only these clients, set up even when not detected (${CLIENT_IDS.join(', ')})`, multiple: true, delimiter: ',', helpValue: 'NAME' }),
    hook: Flags.boolean({ description: 'also register the Claude Code PreToolUse hook (`gitwhy hook claude`)', default: true, allowNo: true }),
  }

  async run(): Promise<SetupResult> {
    const { flags } = await this.parse(Setup)
    const clients = flags.client ? resolveClientNames(flags.client) : undefined
    const repoRoot = flags.project ? await resolveRepo(flags.repo) : undefined
    const { result, previews } = setup({
      action: flags.remove ? 'remove' : 'register',
      dryRun: flags['dry-run'] === true,
      scope: flags.project ? 'project' : 'user',
      repoRoot,
      clients,
      hook: flags.hook,
    })
    if (!this.jsonEnabled()) this.report(result, previews, repoRoot)
    const failed = failures(result)
    if (failed.length > 0) {
      const names = [...new Set(failed.map((f) => clientName(f.client)))].join(', ')
      this.logStderr(`error: ${failed.length} config file${failed.length > 1 ? 's' : ''} could not be ${result.action === 'register' ? 'updated' : 'cleaned'} (${names}); the other clients were handled`)
      this.logStderr(`  fix: follow the fix given for each above, then run \`gitwhy setup${flags.remove ? ' --remove' : ''}\` again`)
      process.exitCode = 1
    }
    return result
  }

  private report(result: SetupResult, previews: SetupPreview[], repoRoot: string | undefined): void {
    const l = result.launcher
    const where = result.scope === 'project' ? `in ${repoRoot} (project level)` : 'for your user'
    const what = result.action === 'register' ? `Registering the gitwhy MCP server ${where}` : `Removing the gitwhy entries ${where}`
    this.log(`${result.dry_run ? 'Dry run (nothing is written). ' : ''}${what}:`)
    this.log(`  launcher: ${[l.command, ...l.args].join(' ')}`)
    for (const c of result.clients) {
      for (const line of this.lines(clientName(c.client), c, result.dry_run, c)) this.log(line)
      if (c.hook) for (const line of this.lines('  hook', c.hook, result.dry_run, c)) this.log(line)
      if (c.skills?.length) {
        const counts = new Map<string, number>()
        for (const s of c.skills) counts.set(s.status, (counts.get(s.status) ?? 0) + 1)
        const what = [...counts].map(([status, n]) => `${n} ${result.dry_run ? (DRY_VERBS[status] ?? status) : status}`).join(', ')
        this.log(`    skills      ${what}  ${tilde(path.dirname(path.dirname(c.skills[0].file!)))}`)
        for (const s of c.skills.filter((s) => s.status === 'failed')) this.logStderr(`    ${s.message}`)
      }
    }
    if (result.dry_run) {
      for (const p of previews) {
        this.log('')
        this.log(`${p.name}${p.kind === 'hook' ? ' hook' : ''}: would ${p.change} ${tilde(p.file)}:`)
        for (const line of p.snippet.split('\n')) this.log(`    ${line}`)
      }
    } else if (result.clients.some((c) => isChange(c.status) || (c.hook && isChange(c.hook.status)))) {
      this.log('Restart the clients (or reload their MCP servers) to pick up the change.')
    }
    if (result.clients.every((c) => c.status === 'skipped')) {
      this.log(`No client was set up. Name one with --client (${CLIENT_IDS.join(', ')}) to create its config.`)
    }
  }

  private lines(label: string, r: FileResult, dryRun: boolean, c: ClientResult): string[] {
    const status = dryRun ? (DRY_VERBS[r.status] ?? r.status) : r.status
    const file = r.file ? tilde(r.file) : ''
    let note = r.message ?? ''
    if (r.status === 'skipped' && note === 'not installed') note = `not installed (${c.file ? tilde(c.file) : ''}; name it with --client to create it)`
    if (r.status === 'failed') {
      const [msg, fix] = note.split(' — fix: ')
      return [`  ${label.padEnd(13)} ${status.padEnd(13)} ${file}`, `${' '.repeat(30)}${msg}`, `${' '.repeat(30)}fix: ${fix ?? ''}`]
    }
    return [`  ${label.padEnd(13)} ${status.padEnd(13)} ${r.status === 'skipped' ? '' : file}${note ? `${r.status === 'skipped' ? '' : '  '}${note.startsWith('backup: ') ? `(backup: ${tilde(note.slice(8))})` : note}` : ''}`]
  }
}

function isChange(status: string): boolean {
  return status === 'added' || status === 'updated' || status === 'removed'
}

function tilde(file: string): string {
  const home = os.homedir()
  return home && (file === home || file.startsWith(home + '/')) ? '~' + file.slice(home.length) : file
}
