import { z } from 'zod'

export const record = (fields: string) => z.record(z.string(), z.unknown()).describe(fields)

/**
 * Output shapes shared by the tools (they mirror src/services/types.ts). Nested records are
 * declared as objects described in one line rather than spelled out field by field: every
 * agent session pays for the tools/list payload in context, and the budget for all tools is
 * 20,000 characters. Tests pin the full shapes.
 */

export const indexInfo = record('{head, stale, commits_behind (null: history rewritten)}: the indexed HEAD')

export const commitRef = record('{sha, author, email, date, subject, category (absent: normal), why?, reverts?}')

/** One line for the whole item: three tools list evidence items, and each pays for the schema. */
export const evidenceItem = record(
  '{commit: {sha, author, email, date, subject, category (absent: normal), why?, reverts?}, source: blame|history|area|pickaxe, lines? (blame: lines owned), path_at_commit?, pull_requests?: [{number, title, url?, why?}], issues?: [{number, title?, url?, closes, why?}], patch?: [{path, hunks: [{header, lines}]}]} (absent: none)',
)

/** Optional on every tool: which indexed repository to ask. */
export const repoArg = z.string().optional().describe('indexed repo name or path (list_repos); default: current')

export const limitArg = (fallback: number) => z.number().int().min(0).max(1000).default(fallback).describe(`max items, 0 = all`)

/** The service limit for a page: the items before `offset` are fetched too, then skipped (0 stays "all"). */
export const pagedLimit = (args: { limit: number; offset?: number }) => (args.limit === 0 ? 0 : args.limit + (args.offset ?? 0))

/** Recorded edits no indexed commit holds, appended after the committed evidence (evidence_for, why). */
export const trajectoryItems = z.array(record('{id, time, session, intent, summary, reverts, reverted_by}')).optional().describe('uncommitted edits')
