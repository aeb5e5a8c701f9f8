import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { UserError } from '../../errors.js'
import type { ServerContext } from '../context.js'
import { registerAreaHistoryTool } from './area-history.js'
import { registerBriefTool } from './brief.js'
import { registerCatchupTool } from './catchup.js'
import { registerCypherTool } from './cypher.js'
import { registerDecisionsForTool } from './decisions-for.js'
import { registerEvidenceForTool } from './evidence-for.js'
import { registerListReposTool } from './list-repos.js'
import { registerPickaxeTool } from './pickaxe.js'
import { registerPingTool } from './ping.js'
import { registerContextTool } from './context.js'
import { registerImpactTool } from './impact.js'
import { registerDetectChangesTool } from './detect-changes.js'
import { registerRenameTool } from './rename.js'
import { registerQueryTool } from './query.js'
import { registerSearchTool } from './search.js'
import { registerHotspotsTool } from './hotspots.js'
import { registerOwnershipTool } from './ownership.js'
import { registerRelatedTool } from './related.js'
import { registerRiskTool } from './risk.js'
import { registerWhyTool } from './why.js'
import { registerTrajectoryTool } from './trajectory.js'
import { registerGlobalTrajectoryTool } from './global-trajectory.js'
import { registerSnapshotTool } from './snapshot.js'
import { registerSetIntentTool } from './set-intent.js'
import { registerSessionSummaryTool } from './session-summary.js'
import { registerConsolidateTool } from './consolidate.js'
import { registerTrajectoryRecorderTool } from './trajectory-recorder.js'
import { registerSuggestCommitTool } from './suggest-commit.js'
import { registerFeedbackTool } from './feedback.js'

type Registrar = (server: McpServer, ctx: ServerContext) => void

/**
 * Tools come in groups, so that the default set's tools/list stays within its 20,000-character
 * budget (every agent session pays for it in context) without starving descriptions. ping and
 * list_repos are always served.
 */
export const TOOL_GROUPS: Record<string, Registrar[]> = {
  history: [registerWhyTool, registerEvidenceForTool, registerAreaHistoryTool, registerCatchupTool],
  // detect_changes answers a branch or PR too (scope base, or files): what context_for_pr answered
  graph: [registerContextTool, registerImpactTool, registerDetectChangesTool],
  // more characters than the default's budget has room for: opt-in (see README, MCP)
  code: [registerQueryTool, registerSearchTool, registerRenameTool],
  // raw access (ad-hoc Cypher, git log -S/-G/--grep over the index): moved out of the default to make room for why
  explore: [registerCypherTool, registerPickaxeTool],
  analytics: [registerRiskTool, registerRelatedTool, registerHotspotsTool, registerOwnershipTool],
  // why (default) carries the governing decisions already; decisions_for alone would take the default past its budget
  decisions: [registerDecisionsForTool],
  // the edit trajectory (uncommitted snapshots, intents, checkpoints) and its recorder: opt-in, over the default's budget
  trajectory: [registerTrajectoryRecorderTool, registerSetIntentTool, registerTrajectoryTool, registerGlobalTrajectoryTool, registerSnapshotTool, registerSessionSummaryTool, registerConsolidateTool],
  // a message for the staged change (detect_changes' mapping and the history's labels): opt-in, over the default's budget
  commit: [registerSuggestCommitTool],
  // votes on why answers (answer_id) that re-rank later answers: opt-in, over the default's budget
  feedback: [registerFeedbackTool],
  // the rationale card (the pre_edit_brief prompt carries it whatever the groups): the default set has no room left
  brief: [registerBriefTool],
}

/** context and impact carry the risk line and the co-change (hidden coupling) the analytics group answers alone. */
export const DEFAULT_TOOL_GROUPS = ['history', 'graph'] as const

/** `--tools history,graph` (or `all`) as group names; an unknown name is a user error. */
export function parseToolGroups(text: string): string[] {
  const names = text.split(',').map((s) => s.trim()).filter(Boolean)
  if (names.includes('all')) return Object.keys(TOOL_GROUPS)
  const unknown = names.filter((n) => !(n in TOOL_GROUPS))
  if (unknown.length > 0 || names.length === 0) {
    throw new UserError(`unknown tool group ${unknown.join(', ') || '(none given)'}`, `pass --tools with some of ${Object.keys(TOOL_GROUPS).join(', ')}, or all (default ${DEFAULT_TOOL_GROUPS.join(',')})`, 'bad_option')
  }
  return names
}

export function registerTools(server: McpServer, ctx: ServerContext, groups: readonly string[] = DEFAULT_TOOL_GROUPS): void {
  registerListReposTool(server, ctx)
  registerPingTool(server, ctx)
  for (const [name, registrars] of Object.entries(TOOL_GROUPS)) if (groups.includes(name)) for (const register of registrars) register(server, ctx)
}
