import { z } from 'zod'

/** Output shapes shared by the tools (they mirror src/services/types.ts). */

export const indexInfo = z
  .object({
    head: z.string(),
    stale: z.boolean(),
    commits_behind: z.number().nullable().describe('commits in the working HEAD missing from the index; null: history rewritten'),
  })
  .describe('the indexed HEAD and its freshness')

export const commitRef = z.object({
  sha: z.string(),
  short: z.string(),
  author: z.string(),
  email: z.string(),
  date: z.string(),
  subject: z.string(),
  category: z.string(),
})

const pullRequestRef = z.object({ number: z.number(), title: z.string(), url: z.string().nullable() })
const issueRef = z.object({ number: z.number(), title: z.string(), url: z.string().nullable(), closes: z.boolean() })

export const evidenceItem = z.object({
  commit: commitRef,
  source: z.enum(['blame', 'history', 'area']),
  lines: z.number().optional().describe('blame: lines of the range it owns'),
  path_at_commit: z.string().optional(),
  pull_requests: z.array(pullRequestRef),
  issues: z.array(issueRef),
})

export { pullRequestRef, issueRef }

/** Optional on every tool: which indexed repository to ask. */
export const repoArg = z.string().optional().describe('registered repo name or path (list_repos); default: the current one')

export const limitArg = (fallback: number) => z.number().int().min(0).max(1000).default(fallback).describe(`max items (0 = all; default ${fallback})`)
