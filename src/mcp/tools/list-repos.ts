import { existsSync } from 'node:fs'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { listRegistered, liveRegistered } from '../../services/registry.js'
import { indexInfo } from '../schemas.js'
import { toolError, type ServerContext } from '../context.js'
import { answerText, indexLine } from '../text.js'

export function registerListReposTool(server: McpServer, ctx: ServerContext): void {
  server.registerTool(
    'list_repos',
    {
      title: 'Indexed repositories',
      description: 'The repositories gitwhy has indexed on this machine, with their freshness; pass a name as `repo` to the other tools. Call it when a question is about another project.',
      inputSchema: {},
      outputSchema: {
        default_repo: z.string().nullable().describe('the repo used when a call names none'),
        repos: z.array(
          z.object({
            name: z.string(),
            path: z.string(),
            default: z.boolean(),
            index: indexInfo.nullable().describe('null when the index cannot be read'),
            problem: z.string().nullable(),
          }),
        ),
        unavailable: z.number().describe('registered repositories whose directory or index has gone (not listed; `gitwhy repos prune` removes them)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      try {
        const defaultRepo = await ctx.pool.root(undefined).catch(() => null)
        const registered = liveRegistered()
        const unavailable = listRegistered().length - registered.length
        const entries = registered.map((r) => ({ name: r.name, path: r.path }))
        if (defaultRepo && !entries.some((e) => e.path === defaultRepo)) entries.unshift({ name: defaultRepo.split('/').pop() ?? defaultRepo, path: defaultRepo })
        const repos = []
        for (const e of entries) {
          let index = null
          let problem: string | null = null
          if (!existsSync(e.path)) problem = 'the directory no longer exists'
          else {
            try {
              index = await ctx.pool.use(e.path, (reader) => reader.indexInfo())
            } catch (error) {
              problem = (error as Error).message
            }
          }
          repos.push({ ...e, default: e.path === defaultRepo, index, problem })
        }
        const lines = repos.length
          ? repos.map((r) => `${r.default ? '* ' : '  '}${r.name}  ${r.path}  ${r.index ? indexLine(r.index) : `(${r.problem})`}`)
          : ['no repository is indexed yet: run `gitwhy analyze` in one']
        if (unavailable) lines.push(`(${unavailable} registered ${unavailable === 1 ? 'repository has' : 'repositories have'} no index any more: \`gitwhy repos prune\` removes them)`)
        return { content: [{ type: 'text', text: answerText(lines) }], structuredContent: { default_repo: defaultRepo, repos, unavailable } }
      } catch (error) {
        return toolError(error)
      }
    },
  )
}
