import { Flags } from '@oclif/core'
import { BaseCommand } from '../base-command.js'
import { MCP_FLAGS, runMcp } from '../mcp/main.js'

/**
 * Help and flag parsing for `gitwhy mcp` when it goes through oclif; bin/run.js normally starts
 * the server without oclif (src/mcp/main.ts) and both take the flags from MCP_FLAGS.
 */
export default class Mcp extends BaseCommand {
  static summary = 'Serve the index to AI agents over MCP (stdio by default, or Streamable HTTP on 127.0.0.1).'
  static description =
    'Tools, in groups (--tools; default history,graph): history = why, evidence_for, area_history, catchup; graph = context, impact, detect_changes; code = query, search, rename; explore = cypher, pickaxe; analytics = risk, related, hotspots, ownership; decisions = decisions_for; brief = rationale_brief; trajectory = the edit trajectory tools; ping and list_repos always. Resources: gitwhy://commit/{sha}, gitwhy://pr/{number}, gitwhy://issue/{number}, gitwhy://repo/overview, gitwhy://schema, gitwhy://communities, gitwhy://community/{name}. Prompts: pre_edit_brief, why_was_this_written, triage_commit. The server reads the index read-only and switches to a new index as soon as `gitwhy analyze` swaps it in.'
  static examples = ['<%= config.bin %> mcp', '<%= config.bin %> mcp --tools all', '<%= config.bin %> mcp --http --port 7410', 'GITWHY_MCP_TOKEN=s3cret <%= config.bin %> mcp --http --host 0.0.0.0', '<%= config.bin %> mcp --http --host 0.0.0.0 --token-file ~/.config/gitwhy/token']
  static enableJsonFlag = false
  static flags = {
    http: Flags.boolean({ description: MCP_FLAGS.http.description }),
    port: Flags.integer({ description: MCP_FLAGS.port.description, default: Number(MCP_FLAGS.port.default) }),
    host: Flags.string({ description: MCP_FLAGS.host.description, default: MCP_FLAGS.host.default }),
    'token-file': Flags.string({ description: MCP_FLAGS['token-file'].description }),
    token: Flags.string({ description: MCP_FLAGS.token.description }),
    'session-timeout': Flags.string({ description: MCP_FLAGS['session-timeout'].description, default: MCP_FLAGS['session-timeout'].default }),
    'max-sessions': Flags.integer({ description: MCP_FLAGS['max-sessions'].description, default: Number(MCP_FLAGS['max-sessions'].default) }),
    tools: Flags.string({ description: MCP_FLAGS.tools.description, default: MCP_FLAGS.tools.default }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Mcp)
    await runMcp({
      http: flags.http,
      port: flags.port,
      host: flags.host,
      token: flags.token,
      tokenFile: flags['token-file'],
      sessionTimeout: Number(flags['session-timeout']),
      maxSessions: flags['max-sessions'],
      repo: flags.repo,
      tools: flags.tools,
    })
  }
}
