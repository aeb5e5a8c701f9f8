/** Text of the trajectory answers, shared by the CLI commands and the MCP tools. */
import type { PruneResult, RecorderStatus, SessionSummary, SnapshotDetail, Timeline, TrajectoryItem } from '../services/trajectory.js'
import type { SnapshotRecord } from '../trajectory/journal.js'

const short = (id: string) => id.slice(0, 10)
const when = (iso: string) => iso.replace('T', ' ').slice(0, 19)

/** One snapshot on one line: `a1b2c3d4e5  2026-11-26 17:02:11  [intent] summary  (reverts …)`. */
export function snapshotLine(r: Pick<SnapshotRecord, 'id' | 'time' | 'intent' | 'summary' | 'reverts'> & { kind?: SnapshotRecord['kind']; reverted_by?: string[]; landed_in?: string | null }): string {
  const mark = r.kind === 'consolidate' ? '[CONSOLIDATE] ' : r.kind === 'baseline' ? '[baseline] ' : ''
  const intent = r.intent ? `  intent: "${r.intent}"` : ''
  const notes = [r.reverts.length > 0 ? `reverts ${r.reverts.map(short).join(', ')}` : '', (r.reverted_by ?? []).length > 0 ? `undone by ${r.reverted_by!.map(short).join(', ')}` : '', r.landed_in ? `landed in ${r.landed_in.slice(0, 7)}` : ''].filter(Boolean)
  return `${short(r.id)}  ${when(r.time)}  ${mark}${r.summary}${intent}${notes.length > 0 ? `  (${notes.join('; ')})` : ''}`
}

export function statusLines(s: RecorderStatus): string[] {
  const lines = [s.running ? `recorder running (pid ${s.pid}, debounce ${s.debounce_ms} ms, idle gap ${Math.round((s.idle_gap_ms ?? 0) / 60000)} min) since ${when(s.started_at ?? '')}` : 'recorder not running (start it: gitwhy trajectory start)']
  lines.push(`intent: ${s.intent ? `"${s.intent.text}" (set ${when(s.intent.set_at)})` : 'none (set one: gitwhy intent "…")'}`)
  lines.push(`${s.snapshots} snapshots in ${s.sessions} sessions, shadow repository ${Math.round(s.shadow_bytes / 1024)} KB`)
  if (s.last_snapshot) lines.push(`last: ${short(s.last_snapshot.id)}  ${when(s.last_snapshot.time)}  ${s.last_snapshot.summary}`)
  return lines
}

export function timelineLines(t: Timeline): string[] {
  const head = `${t.total} snapshots${t.target ? ` touching ${t.target}` : ''}${t.since_consolidate ? ` since checkpoint ${short(t.since_consolidate)}` : ''} (uncommitted trajectory, newest first)`
  const lines = [head, ...t.snapshots.map(snapshotLine)]
  if (t.snapshots.length < t.total) lines.push(`… ${t.total - t.snapshots.length} more (raise --limit)`)
  return lines
}

export function summaryLines(s: SessionSummary): string[] {
  const lines = [`session ${s.session}: ${s.snapshots} snapshots, ${when(s.first)} → ${when(s.last)}`]
  lines.push(`intents: ${s.intents.length > 0 ? s.intents.map((i) => `"${i}"`).join(', ') : 'none'}`)
  lines.push(`net: ${s.net.files} files, +${s.net.added} -${s.net.removed}`)
  if (s.files.length > 0) lines.push('files:', ...s.files.slice(0, 20).map((f) => `  ${f.path}  ${f.snapshots}× (+${f.added} -${f.removed})`))
  if (s.symbols.length > 0) lines.push('symbols:', ...s.symbols.slice(0, 20).map((x) => `  ${x.id}  ${x.snapshots}×`))
  if (s.reverts.length > 0) lines.push('tried, then undone:', ...s.reverts.map((r) => `  ${short(r.snapshot)} undid ${r.undid.map(short).join(', ')}: ${r.summary}`))
  if (s.checkpoints.length > 0) lines.push('checkpoints:', ...s.checkpoints.map((c) => `  ${short(c.id)}  ${c.summary}`))
  return lines
}

export function detailLines(d: SnapshotDetail): string[] {
  return [snapshotLine(d.snapshot), `session ${d.snapshot.session}`, ...d.diff.split('\n'), ...(d.truncated ? ['… (diff cut; see the shadow repository for the whole)'] : [])]
}

export function pruneLines(p: PruneResult): string[] {
  return [p.dropped === 0 ? `nothing to prune: ${p.before} snapshots kept` : `squashed ${p.dropped} of ${p.before} snapshots (${p.after} kept); shadow repository ${Math.round(p.bytes_before / 1024)} KB → ${Math.round(p.bytes_after / 1024)} KB`]
}

/** The uncommitted trajectory an answer appends after the committed evidence. */
export function trajectoryAppendix(items: TrajectoryItem[]): string[] {
  if (items.length === 0) return []
  return ['uncommitted trajectory (recorded edits no indexed commit holds, newest first):', ...items.map((r) => `  ${snapshotLine(r)}`)]
}
