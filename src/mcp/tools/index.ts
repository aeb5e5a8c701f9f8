import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { ServerContext } from '../context.js'
import { registerAreaHistoryTool } from './area-history.js'
import { registerCatchupTool } from './catchup.js'
import { registerCypherTool } from './cypher.js'
import { registerEvidenceForTool } from './evidence-for.js'
import { registerListReposTool } from './list-repos.js'
import { registerPickaxeTool } from './pickaxe.js'
import { registerPingTool } from './ping.js'
import { registerContextForPrTool } from './context-for-pr.js'
import { registerContextTool } from './context.js'
import { registerImpactTool } from './impact.js'
import { registerHotspotsTool } from './hotspots.js'
import { registerOwnershipTool } from './ownership.js'
import { registerRelatedTool } from './related.js'
import { registerRiskTool } from './risk.js'

export function registerTools(server: McpServer, ctx: ServerContext): void {
  registerEvidenceForTool(server, ctx)
  registerAreaHistoryTool(server, ctx)
  registerCatchupTool(server, ctx)
  registerCypherTool(server, ctx)
  registerListReposTool(server, ctx)
  registerPingTool(server, ctx)
  registerRiskTool(server, ctx)
  registerRelatedTool(server, ctx)
  registerHotspotsTool(server, ctx)
  registerOwnershipTool(server, ctx)
  registerContextForPrTool(server, ctx)
  registerPickaxeTool(server, ctx)
  registerContextTool(server, ctx)
  registerImpactTool(server, ctx)
}
