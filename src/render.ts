import type { EvidenceItem, IndexInfo } from './services/types.js'

/** Human-readable lines for evidence items (the --json output is the items themselves). */
export function renderEvidence(items: EvidenceItem[], total: number, moreHint = 'use --limit 0 for all'): string[] {
  const lines: string[] = []
  for (const e of items) {
    const tag = e.source === 'blame' ? `blame ${e.lines}L` : e.source === 'area' ? (e.path_at_commit ?? 'area') : 'history'
    // a squash merge's subject already is the PR title
    const prs = e.pull_requests.map((p) => `PR #${p.number}${p.title && !e.commit.subject.startsWith(p.title) ? ` ${p.title}` : ''}`)
    const issues = e.issues.map((i) => `${i.closes ? 'closes ' : ''}#${i.number}`)
    const refs = [...prs, ...issues]
    lines.push(`${e.commit.short}  ${e.commit.date.slice(0, 10)}  ${e.commit.author.padEnd(18).slice(0, 18)}  ${tag.padEnd(10)}  ${e.commit.subject}${refs.length ? `  [${refs.join('; ')}]` : ''}`)
  }
  if (total > items.length) lines.push(`… ${total - items.length} more (${moreHint})`)
  return lines
}

export function renderIndexNote(index: IndexInfo): string | null {
  if (!index.stale) return null
  return index.commits_behind === null
    ? `note: the index (${index.head.slice(0, 7)}) is not an ancestor of HEAD; run \`gitwhy analyze\``
    : `note: the index is ${index.commits_behind} commits behind HEAD; run \`gitwhy analyze\``
}
