import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ErrorCode, McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js'
import { isUserError } from '../../errors.js'
import { formatSchema } from '../../graph/schema.js'
import type { IndexReader } from '../../services/index-reader.js'
import { communities, community } from '../../services/analytics.js'
import { commitDetail, issueDetail, pullRequestDetail, repoOverview } from '../../services/lookup.js'
import { compactDocument } from '../compact.js'
import { failureText, type ServerContext } from '../context.js'

/** Resources answer for the default repository (tools take `repo` for the others). */
export function registerResources(server: McpServer, ctx: ServerContext): void {
  const json = (uri: URL, fn: (reader: IndexReader) => Promise<object>) => readJson(ctx, uri, fn)
  server.registerResource(
    'commit',
    new ResourceTemplate('gitwhy://commit/{sha}', { list: undefined }),
    { title: 'A commit', description: 'One commit: message, PRs, issues, files touched, symbols it changed and still owns. sha may be abbreviated.', mimeType: 'application/json' },
    (uri, { sha }) => json(uri, (reader) => commitDetail(reader, String(sha))),
  )
  server.registerResource(
    'pull_request',
    new ResourceTemplate('gitwhy://pr/{number}', { list: undefined }),
    { title: 'A pull request', description: 'One PR found in the history: its commits, the files it touched, the issues it closed.', mimeType: 'application/json' },
    (uri, { number }) => json(uri, (reader) => pullRequestDetail(reader, Number(number))),
  )
  server.registerResource(
    'issue',
    new ResourceTemplate('gitwhy://issue/{number}', { list: undefined }),
    { title: 'An issue', description: 'One issue referenced in the history: the commits mentioning or closing it, the PRs closing it.', mimeType: 'application/json' },
    (uri, { number }) => json(uri, (reader) => issueDetail(reader, Number(number))),
  )
  server.registerResource(
    'repo_overview',
    'gitwhy://repo/overview',
    { title: 'Repository overview', description: 'Counts, date range, languages, freshness and top contributors of the indexed repository.', mimeType: 'application/json' },
    (uri) => json(uri, (reader) => repoOverview(reader)),
  )
  server.registerResource(
    'communities',
    'gitwhy://communities',
    { title: 'Communities', description: 'The areas of the codebase (symbols that change together and belong together), largest first, with activity.', mimeType: 'application/json' },
    (uri) => json(uri, (reader) => communities({ reader, limit: 0 })),
  )
  server.registerResource(
    'community',
    new ResourceTemplate('gitwhy://community/{name}', { list: undefined }),
    { title: 'A community', description: 'One area by id (c1) or label: its members, owners and activity.', mimeType: 'application/json' },
    (uri, { name }) => json(uri, (reader) => community({ reader, name: decodeURIComponent(String(name)) })),
  )
  server.registerResource(
    'schema',
    'gitwhy://schema',
    { title: 'Graph schema', description: 'Node and relationship tables of the index, for the cypher tool.', mimeType: 'text/plain' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: formatSchema() }] }),
  )
}

async function readJson(ctx: ServerContext, uri: URL, fn: (reader: IndexReader) => Promise<object>): Promise<ReadResourceResult> {
  try {
    const data = await ctx.pool.use(undefined, fn)
    // compact JSON, with the fields no program needs left out (compact.ts)
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(compactDocument(data)) }] }
  } catch (error) {
    // resource reads have no isError result: a failure is a protocol error that says how to fix it
    throw new McpError(isUserError(error) ? ErrorCode.InvalidParams : ErrorCode.InternalError, failureText(error))
  }
}
