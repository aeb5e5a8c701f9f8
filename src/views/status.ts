import { commitsBehind } from '../render.js'
import { status, type StatusResult } from '../services/status.js'
import { viewText, type View } from './view.js'

export interface StatusInput {
  args: Record<string, unknown>
  flags: { repo?: string }
}

export const statusView: View<StatusInput, StatusResult> = {
  answer: ({ flags }) => status({ repo: flags.repo }),
  text(s) {
    if (!s.index) return viewText([`${s.repo}: not indexed yet — run \`gitwhy analyze\``])
    const i = s.index
    const fresh = i.stale ? (i.commits_behind === null ? 'stale (history rewritten: run gitwhy analyze)' : `stale: ${commitsBehind(i.commits_behind)}`) : 'fresh'
    return viewText([
      `${s.repo}`,
      `  indexed ${i.head.slice(0, 7)}, HEAD ${s.head?.slice(0, 7) ?? '(none)'} — ${fresh}`,
      `  ${Object.entries(s.counts).map(([k, v]) => `${v} ${k.replace(/_/g, ' ')}`).join(' · ')}`,
      `  built ${i.built_at}, ${(i.size_bytes / 1048576).toFixed(1)} MB${i.spare_bytes > 0 ? ` (and ${(i.spare_bytes / 1048576).toFixed(1)} MB of spare graph for the next update)` : ''}${i.shallow ? ', shallow clone' : ''}${i.max_commits ? `, newest ${i.max_commits} commits only` : ''}`,
      enrichmentLine(s.enrichment),
      `  feedback: ${s.feedback.up} up, ${s.feedback.down} down on ${s.feedback.voted_answers} of ${s.feedback.recorded_answers} recorded answers`,
    ])
  },
}

/** One line on `gitwhy enrich`: what the forge cache holds, since when, and whether the index has it. */
export function enrichmentLine(e: StatusResult['enrichment']): string {
  if (!e) return '  enrichment: none (`gitwhy enrich` fetches PR and issue titles and descriptions from GitHub)'
  const n = (x: number, one: string) => `${x.toLocaleString('en-US')} ${one}${x === 1 ? '' : 's'}`
  const when = e.enriched_at ? `, last complete ${e.enriched_at}` : ''
  const state = !e.complete ? '; a run is under way: `gitwhy enrich` goes on' : ''
  const index = e.in_index ? `; in the index: ${n(e.index_pull_requests, 'PR row')}, ${n(e.index_issues, 'issue row')}` : '; not yet in the index: run `gitwhy analyze`'
  return `  enrichment: ${n(e.pull_requests, 'PR')} · ${n(e.issues, 'issue')} · ${n(e.review_comments, 'review comment')} from ${e.repo}${when}${state}${index}`
}
