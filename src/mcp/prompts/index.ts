import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'

const user = (text: string): GetPromptResult => ({ messages: [{ role: 'user', content: { type: 'text', text } }] })

/** The three recipes from the WhyGraph seed, each wiring the tools and resources together. */
export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'pre_edit_brief',
    {
      title: 'Brief before editing',
      description: 'What to know before changing a file or symbol: why it is this way, recent activity, constraints not to break.',
      argsSchema: {
        path: z.string().describe('file to be edited, relative to the repo root'),
        symbol: z.string().optional().describe('the function/class to be edited (qualified name), if any'),
      },
    },
    ({ path, symbol }) =>
      user(
        [
          `I am about to edit ${symbol ? `${symbol} in ${path}` : path}. Before I change anything, brief me from the repository history using the gitwhy tools:`,
          `1. Call evidence_for with ${symbol ? `path "${path}" and qualified_name "${symbol}"` : `path "${path}"`} (limit 20).`,
          `2. Call area_history with path "${path}" (limit 15) to see how the file evolved and who worked on it.`,
          '3. For the 2-3 most relevant commits or PRs, read gitwhy://commit/{sha} or gitwhy://pr/{number} for the full message and what else they touched.',
          'Then write a short brief: why the code is the way it is (cite SHAs and PR numbers), bug fixes and reverts it encodes that my edit must not undo, files that usually change together with it, and who to ask. Say plainly where the history does not explain something, and mention if the index is stale.',
        ].join('\n'),
      ),
  )
  server.registerPrompt(
    'why_was_this_written',
    {
      title: 'Why was this written',
      description: 'Explain why some lines or a symbol exist, with citations to commits, PRs and issues.',
      argsSchema: {
        path: z.string().describe('file path, relative to the repo root'),
        line_start: z.string().optional().describe('first line (1-based)'),
        line_end: z.string().optional().describe('last line'),
        qualified_name: z.string().optional().describe('symbol instead of lines'),
      },
    },
    ({ path, line_start, line_end, qualified_name }) => {
      const target = qualified_name ? `qualified_name "${qualified_name}" in path "${path}"` : `path "${path}"${line_start ? `, line_start ${line_start}` : ''}${line_end ? `, line_end ${line_end}` : ''}`
      return user(
        [
          `Why was this code written? Call evidence_for with ${target}.`,
          'The blame items own the lines today; the history items changed them earlier. Read the oldest blame commit and the commit that introduced the range (gitwhy://commit/{sha}), and any PR (gitwhy://pr/{number}) or issue (gitwhy://issue/{number}) they cite.',
          'Answer in a few sentences: the original reason, how it changed since, and the evidence (SHA, PR, issue) for each claim. Do not guess beyond the evidence; say what is unexplained.',
        ].join('\n'),
      )
    },
  )
  server.registerPrompt(
    'triage_commit',
    {
      title: 'Triage a commit',
      description: 'Assess one commit: what it changed, why, its PR and issues, and which code still depends on it.',
      argsSchema: { sha: z.string().describe('commit SHA (at least 4 hex digits)') },
    },
    ({ sha }) =>
      user(
        [
          `Triage commit ${sha}. Read gitwhy://commit/${sha}: its message, PRs, issues, files and the symbols it changed and still owns.`,
          'For its PR, read gitwhy://pr/{number}. For the two or three most important symbols it changed, call evidence_for with their qualified_name to see what changed them before and after.',
          'Report: what the commit did and why (cite), what risk it carries (reverts, fixes of it later, code that still owns its lines), and what to look at if it is suspected of a regression.',
        ].join('\n'),
      ),
  )
}
