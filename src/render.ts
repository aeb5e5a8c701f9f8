import type { AnalyzeSummary } from './services/analyze.js'
import type { EvidenceItem, IndexInfo } from './services/types.js'

/**
 * Characters that would act on a terminal or forge structure in a line of text: C0 and C1
 * controls (ESC sequences, BEL, CR, newlines), DEL, line/paragraph separators and the Unicode
 * bidirectional overrides and isolates that reorder what a reader sees.
 */
const UNPRINTABLE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/**
 * One line of text safe to print or hand to a model: every character of UNPRINTABLE shown as a
 * visible escape (`\x1b`, `\n`, `\u202e`). Text outputs go through it at their chokepoints
 * (BaseCommand.log and logStderr, the error handlers, the MCP answer); JSON output stays exact.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    const code = c.charCodeAt(0)
    return NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
  })
}

/**
 * A line of code with its tabs as the spaces up to the next tab stop (every 8 columns, as a
 * terminal shows `git log -L`): printable() would show them as `\t`, which makes Go and Makefile
 * hunks hard to read.
 */
export function expandTabs(line: string, stop = 8): string {
  if (!line.includes('\t')) return line
  let out = ''
  for (const c of line) out += c === '\t' ? ' '.repeat(stop - (out.length % stop)) : c
  return out
}

/** `3 commits behind HEAD`, `1 commit behind HEAD`. */
export const commitsBehind = (n: number): string => `${n} commit${n === 1 ? '' : 's'} behind HEAD`

/** Several lines (a stack trace) made printable one by one, keeping the line breaks. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n')
}

/** Human-readable lines for evidence items (the --json output is the items themselves). */
export function renderEvidence(items: EvidenceItem[], total: number, moreHint = 'use --limit 0 for all'): string[] {
  const lines: string[] = []
  for (const e of items) {
    const files = (e as { files?: string[] }).files ?? []
    const tag =
      e.source === 'blame'
        ? `blame ${e.lines}L`
        : e.source === 'area'
          ? (e.path_at_commit ?? 'area')
          : e.source === 'pickaxe'
            ? files.length === 0 ? 'message' : `${files[0]}${files.length > 1 ? ` +${files.length - 1}` : ''}`
            : 'history'
    // a squash merge's subject already is the PR title
    const prs = e.pull_requests.map((p) => `PR #${p.number}${p.title && !e.commit.subject.startsWith(p.title) ? ` ${p.title}` : ''}`)
    const issues = e.issues.map((i) => `${i.closes ? 'closes ' : ''}#${i.number}`)
    const refs = [...prs, ...issues]
    const ignored = e.ignored ? ' (ignored rev)' : ''
    lines.push(`${e.commit.short}  ${e.commit.date.slice(0, 10)}  ${e.commit.author.padEnd(18).slice(0, 18)}  ${tag.padEnd(10)}  ${e.commit.subject}${ignored}${refs.length ? `  [${refs.join('; ')}]` : ''}`)
    if (e.commit.why) lines.push(`      ${e.commit.why}`)
    // what the PR's description says (forge enrichment), where the commit's body says nothing
    else for (const p of e.pull_requests) if (p.why) lines.push(`      PR #${p.number}: ${p.why}`)
    for (const f of e.patch ?? []) {
      for (const h of f.hunks) lines.push(`      ${f.path} ${h.header}`, ...h.lines.map((l) => `      ${expandTabs(l)}`))
    }
  }
  if (total > items.length) lines.push(`… ${total - items.length} more (${moreHint})`)
  return lines
}

export function renderIndexNote(index: IndexInfo): string | null {
  if (!index.stale) return null
  return index.commits_behind === null
    ? `note: the index (${index.head.slice(0, 7)}) is not an ancestor of HEAD; run \`gitwhy analyze\``
    : `note: the index is ${commitsBehind(index.commits_behind)}; run \`gitwhy analyze\``
}

/** What `gitwhy analyze` prints without --json. */
export function analyzeLines(summary: AnalyzeSummary): string[] {
  if (summary.mode === 'noop') return [`index is up to date at ${summary.head.slice(0, 7)} (nothing to do)`]
  const c = summary.counts
  const skipped = Object.entries(summary.skipped).filter(([, n]) => n > 0)
  return [
    `indexed ${summary.repo} at ${summary.head.slice(0, 7)} (${summary.mode}${summary.mode === 'incremental' ? `, ${summary.new_commits} new commits` : ''})`,
    `  ${c.commits} commits · ${c.files} files · ${c.symbols} symbols · ${c.authors} authors · ${c.pull_requests} PRs · ${c.issues} issues`,
    ...(skipped.length ? [`  skipped: ${skipped.map(([k, n]) => `${n} ${k}`).join(', ')}`] : []),
    `  search: ${c.docs ?? 0} documents · ${summary.embeddings.model ? `${summary.embeddings.embedded} embedded now by ${summary.embeddings.model}, the others reuse a vector` : 'full-text only (`gitwhy analyze --embeddings` adds meaning search)'}`,
    `  time: ${Object.entries(summary.timings).map(([k, v]) => `${k.replace(/_ms$/, '')} ${v} ms`).join(' · ')}`,
  ]
}
