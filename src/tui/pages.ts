import type { CommunitiesResult, CommunityResult, HotspotsResult, OwnershipResult, RelatedResult } from '../services/analytics.js'
import type { ContextResult } from '../services/codegraph.js'
import type { SymbolEntry } from '../services/explore.js'
import type { CommitDetail } from '../services/lookup.js'
import type { RiskResult } from '../services/risk.js'
import type { SearchResult } from '../services/search.js'
import type { EvidenceResult, FilePatch } from '../services/types.js'
import { KEYS } from './keys.js'
import type { ExploreTarget, Load } from './source.js'
import { fuzzyMatch } from './tree.js'
import { bar, cell, clip, day, percent } from './text.js'

/**
 * The full-screen views of the explorer (a commit, the side views, search, help) as lines of
 * styled segments, built from the services' answers. A row that can be opened carries a `go`:
 * where enter takes it.
 */

export type Tone = 'accent' | 'dim' | 'add' | 'del' | 'high' | 'medium' | 'low' | 'title'

export interface Seg {
  text: string
  tone?: Tone
  bold?: boolean
}

export type Line = Seg[]

/** Where enter on a row goes. */
export type Go = { kind: 'target'; path: string; symbol: string | null } | { kind: 'commit'; sha: string } | { kind: 'community'; id: string }

export interface Page {
  title: string
  lines: Line[]
  /** The rows enter opens (line numbers into `lines`, in order). */
  picks: Array<{ line: number; go: Go }>
  /** Still loading (a spinner in the title). */
  loading?: boolean
}

const seg = (text: string, tone?: Tone, bold?: boolean): Seg => ({ text, tone, bold })
const plain = (text: string): Line => [seg(text)]
const heading = (text: string): Line => [seg(text, 'title', true)]

export const levelTone = (level: string): Tone => (level === 'HIGH' ? 'high' : level === 'MEDIUM' ? 'medium' : 'low')

export const targetName = (t: ExploreTarget): string => (t.symbol ? `${t.symbol.qualified_name} (${t.path}:${t.symbol.start_line}-${t.symbol.end_line})` : t.path)

/** A page for a load that has not answered (yet): the spinner, or the error with its remedy. */
function pending<T>(title: string, load: Load<T>, build: (value: T) => Omit<Page, 'title'>): Page {
  if (load.state === 'loading') return { title, lines: [[seg('loading…', 'dim')]], picks: [], loading: true }
  if (load.state === 'error') return { title, lines: [[seg(`error: ${clip(load.message, 400)}`, 'del')], ...(load.remedy ? [[seg(`fix: ${clip(load.remedy, 400)}`, 'dim')]] : [])], picks: [] }
  return { title, ...build(load.value) }
}

export function commitPage(load: Load<CommitDetail>, evidence: Load<EvidenceResult> | null, target: ExploreTarget | null, width: number): Page {
  return pending('Commit', load, (d) => {
    const c = d.commit
    const lines: Line[] = [
      [seg('commit ', 'dim'), seg(c.sha, 'accent'), seg(`  ${c.category}${c.reverts ? ` (reverts ${c.reverts.slice(0, 7)})` : ''}`, 'dim')],
      [seg('Author  ', 'dim'), seg(clip(`${c.author} <${c.email}>`, width - 30)), seg(`  ${c.date.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC')}`, 'dim')],
    ]
    for (const p of d.pull_requests) lines.push([seg('PR      ', 'dim'), seg(`#${p.number} `, 'accent'), seg(clip(p.title, width - 20)), ...(p.url ? [seg(`  ${clip(p.url, 120)}`, 'dim')] : [])])
    for (const i of d.issues) lines.push([seg('Issue   ', 'dim'), seg(`${i.closes ? 'closes ' : ''}#${i.number} `, 'accent'), seg(clip(i.title, width - 24)), ...(i.url ? [seg(`  ${clip(i.url, 120)}`, 'dim')] : [])])
    lines.push([seg('Changes ', 'dim'), seg(`+${c.additions}`, 'add'), seg(' '), seg(`-${c.deletions}`, 'del'), seg(` in ${d.files.length} files · owns ${d.owns.lines} lines of ${d.owns.symbols} symbols at the indexed HEAD`, 'dim')])
    lines.push([])
    lines.push([seg(`    ${clip(c.subject, width - 6)}`, undefined, true)])
    for (const l of d.commit.body.replace(/\s+$/, '').split('\n')) lines.push(plain(`    ${clip(l, width - 6)}`))
    lines.push([], heading(`Files (${d.files.length})`))
    for (const f of d.files.slice(0, 40)) lines.push([seg(`  ${f.change.padEnd(2)}`, 'dim'), seg(clip(f.old_path ? `${f.old_path} → ${f.path}` : f.path, width - 24)), seg(`  +${f.additions}`, 'add'), seg(` -${f.deletions}`, 'del')])
    if (d.files.length > 40) lines.push([seg(`  … ${d.files.length - 40} more`, 'dim')])
    if (target) {
      lines.push([], heading(`Hunks for ${targetName(target)} (from the index)`))
      if (evidence?.state === 'ok') {
        const patch = evidence.value.evidence.find((e) => e.commit.sha === c.sha)?.patch
        if (!patch || patch.length === 0) lines.push([seg('  this commit changed no line of it that is still traced (it owns lines through a rename or a merge)', 'dim')])
        else lines.push(...hunkLines(patch, width))
      } else lines.push([seg('  loading…', 'dim')])
    }
    return { lines, picks: [] }
  })
}

/** A commit's hunks, added lines and removed lines in their colours. */
export function hunkLines(patch: FilePatch[], width: number): Line[] {
  const out: Line[] = []
  for (const f of patch) {
    for (const h of f.hunks) {
      out.push([seg(`  ${clip(f.path, width - 30)} `, 'dim'), seg(h.header, 'accent')])
      for (const l of h.lines) out.push([seg(`  ${clip(l, width - 4)}`, l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : undefined)])
    }
  }
  return out
}

export function riskPage(t: ExploreTarget, load: Load<RiskResult>, width: number): Page {
  return pending(`Risk · ${targetName(t)}`, load, (r) => {
    const f = r.features
    const lines: Line[] = [
      [seg('Level   ', 'dim'), seg(r.level, levelTone(r.level), true), seg(`  score ${r.score.toFixed(2)}`, 'dim')],
      [],
      heading('Reasons'),
      ...(r.reasons.length ? r.reasons.map((x) => plain(`  • ${clip(x, width - 6)}`)) : [[seg('  no factor adds to the risk', 'dim')]]),
      [],
      heading('People to ask'),
      ...(r.ask.length ? r.ask.map((c) => [seg(`  ${cell(c.name, 24)}`), seg(`${percent(c.share).padStart(4)} of the lines`), seg(c.last_active ? `  last commit ${day(c.last_active)}` : '', 'dim')]) : [[seg('  nobody owns a line (bots own none)', 'dim')]]),
      [],
      heading('Factors'),
      plain(`  ${f.revisions} revisions, ${f.recent_revisions} in the last ${f.recent_days} days · hotspot percentile ${percent(f.hotspot_percentile)}`),
      plain(`  bus factor ${f.bus_factor} · largest owner ${percent(f.dominant_share)}${f.ghost ? ' (inactive: a ghost)' : ''} · changes with ${f.cochange_breadth} partners`),
    ]
    return { lines, picks: [] }
  })
}

export function ownershipPage(t: ExploreTarget, load: Load<OwnershipResult>, width: number): Page {
  return pending(`Ownership · ${targetName(t)}`, load, (o) => {
    const lines: Line[] = [[seg(`${o.lines} lines at the indexed HEAD · bus factor `, 'dim'), seg(String(o.bus_factor), o.bus_factor <= 1 ? 'high' : undefined, true), seg(' (the fewest authors owning more than half)', 'dim')], []]
    const nameW = Math.max(12, Math.min(28, width - 50))
    for (const x of o.owners) lines.push([seg(`  ${bar(x.share, 10)} `, 'accent'), seg(`${percent(x.share).padStart(4)} ${String(x.lines).padStart(6)} lines  `), seg(cell(x.name, nameW)), seg(x.last_active ? `  last commit ${day(x.last_active)}` : '', 'dim')])
    if (o.owners.length === 0) lines.push([seg('  nobody owns a line (bots own none)', 'dim')])
    return { lines, picks: [] }
  })
}

export function cochangePage(t: ExploreTarget, load: Load<RelatedResult>, width: number): Page {
  return pending(`Co-change · ${targetName(t)}`, load, (r) => {
    const lines: Line[] = [[seg('shared  of its changes  of the partner\'s  partner (enter jumps)', 'dim')]]
    const picks: Page['picks'] = []
    for (const x of r.related) {
      picks.push({ line: lines.length, go: { kind: 'target', path: x.path, symbol: x.qualified_name ? x.key : null } })
      lines.push([seg(`${String(x.shared).padStart(6)}  ${percent(x.confidence).padStart(13)}  ${percent(x.reverse_confidence).padStart(17)}  `), seg(clip(x.qualified_name ? `${x.qualified_name} (${x.path})` : x.path, width - 48), 'accent')])
      for (const c of x.examples.slice(0, 2)) lines.push([seg(`        ${c.short} ${day(c.date)} `, 'dim'), seg(clip(c.subject, width - 30), 'dim')])
    }
    if (r.related.length === 0) lines.push([seg('no co-change above the thresholds', 'dim')])
    return { lines, picks }
  })
}

export function hotspotsPage(load: Load<HotspotsResult>, width: number): Page {
  return pending('Hotspots', load, (h) => {
    const lines: Line[] = [[seg(clip(`as of ${day(h.as_of)}: ${h.formula}`, width - 4), 'dim')]]
    const picks: Page['picks'] = []
    for (const [name, items] of [['Files', h.files], ['Symbols', h.symbols]] as const) {
      if (!items.length) continue
      lines.push([], [seg(`${name}`, 'title', true), seg('   score recent  total authors', 'dim')])
      for (const i of items) {
        picks.push({ line: lines.length, go: { kind: 'target', path: i.path, symbol: i.qualified_name ? i.key : null } })
        lines.push([seg(`${i.score.toFixed(1).padStart(8)} ${String(i.recent_revisions).padStart(6)} ${String(i.revisions).padStart(6)} ${String(i.authors).padStart(7)}  `), seg(clip(i.qualified_name ? `${i.qualified_name} (${i.path}:${i.start_line})` : i.path, width - 40), 'accent')])
      }
    }
    if (!h.files.length && !h.symbols.length) lines.push([seg('no activity in the indexed history', 'dim')])
    return { lines, picks }
  })
}

export function communitiesPage(load: Load<CommunitiesResult>, width: number): Page {
  return pending('Communities', load, (r) => {
    const lines: Line[] = [[seg('id     size  cohesion  recent / revisions  label (enter opens)', 'dim')]]
    const picks: Page['picks'] = []
    for (const c of r.communities) {
      picks.push({ line: lines.length, go: { kind: 'community', id: c.id } })
      lines.push([seg(`${cell(c.id, 6)} ${String(c.size).padStart(4)}  ${c.cohesion.toFixed(2).padStart(8)}  ${`${c.recent_revisions} / ${c.revisions}`.padStart(18)}  `), seg(clip(c.label, width - 48), 'accent')])
    }
    if (r.total === 0) lines.push([seg('no communities: too little co-change history', 'dim')])
    return { lines, picks }
  })
}

export function communityPage(id: string, load: Load<CommunityResult>, width: number): Page {
  return pending(`Community ${id}`, load, (r) => {
    const c = r.community
    const lines: Line[] = [
      [seg(clip(`${c.label}: ${c.size} symbols, cohesion ${c.cohesion.toFixed(2)}, ${c.recent_revisions} recent / ${c.revisions} revisions`, width - 4))],
      [seg('owners: ', 'dim'), seg(clip(r.owners.map((o) => `${o.name} ${percent(o.share)}`).join(', ') || '(none)', width - 12))],
      [],
      heading('Members (enter jumps)'),
    ]
    const picks: Page['picks'] = []
    for (const m of r.members) {
      picks.push({ line: lines.length, go: { kind: 'target', path: m.path, symbol: m.id } })
      lines.push([seg(`${String(m.revisions).padStart(5)} rev  `, 'dim'), seg(clip(`${m.qualified_name}`, Math.max(10, width - 50)), 'accent'), seg(clip(`  ${m.kind} ${m.path}:${m.start_line}`, 40), 'dim')])
    }
    return { lines, picks }
  })
}

export function graphPage(t: ExploreTarget, load: Load<ContextResult>, width: number): Page {
  return pending(`Code graph · ${targetName(t)}`, load, (r) => {
    const lines: Line[] = []
    const picks: Page['picks'] = []
    if (r.definition) lines.push([seg(clip(r.definition.signature, width - 4), 'dim')])
    lines.push([seg(`last change ${day(r.history.last_change) || '—'} · ${r.history.revisions} revisions · risk `, 'dim'), seg(r.history.risk, levelTone(r.history.risk)), seg(r.community ? ` · community ${clip(`${r.community.id} ${r.community.label}`, width - 60)}` : '', 'dim')])
    for (const [name, list] of [['Callers', r.callers], ['Callees', r.callees]] as const) {
      lines.push([], heading(`${name} (${list.length}${r.truncated[name.toLowerCase()] ? ` + ${r.truncated[name.toLowerCase()]}` : ''})`))
      for (const x of list) {
        picks.push({ line: lines.length, go: { kind: 'target', path: x.path, symbol: x.id } })
        const nameW = Math.max(12, Math.min(48, Math.floor(width / 2) - 4))
        lines.push([seg(`  ${cell(x.qualified_name, nameW)}`, 'accent'), seg(clip(`  ${x.path}:${x.start_line}  ${x.reason} ${x.confidence.toFixed(2)}`, width - nameW - 4), 'dim')])
      }
      if (list.length === 0) lines.push([seg('  none', 'dim')])
    }
    for (const [name, list] of [['Imports', r.imports], ['Imported by', r.importers]] as const) {
      if (!list.length) continue
      lines.push([], heading(`${name} (${list.length})`))
      for (const p of list) {
        picks.push({ line: lines.length, go: { kind: 'target', path: p, symbol: null } })
        lines.push([seg(`  ${clip(p, width - 6)}`, 'accent')])
      }
    }
    return { lines, picks }
  })
}

/** Names first (files and symbols, fuzzy, at once), then the search service's hits for the words. */
export function searchPage(query: string, paths: readonly string[], symbols: Load<SymbolEntry[]>, hits: Load<SearchResult> | null, width: number): Page {
  const lines: Line[] = [[seg('/ ', 'accent', true), seg(clip(query, width - 8)), seg('▏', 'accent')], []]
  const picks: Page['picks'] = []
  if (query.trim() === '') {
    lines.push([seg('type a file or symbol name, or words of a commit message, a PR or an issue', 'dim')])
    return { title: 'Search', lines, picks }
  }
  const names: Array<{ score: number; text: string; kind: string; go: Go }> = []
  for (const p of paths) {
    const m = fuzzyMatch(query, p)
    if (m) names.push({ score: m.score, text: p, kind: 'file', go: { kind: 'target', path: p, symbol: null } })
  }
  if (symbols.state === 'ok') {
    for (const s of symbols.value) {
      const m = fuzzyMatch(query, s.qualified_name)
      if (m) names.push({ score: m.score + 0.5, text: `${s.qualified_name}  ${s.path}:${s.start_line}`, kind: s.kind, go: { kind: 'target', path: s.path, symbol: s.id } })
    }
  }
  names.sort((a, b) => b.score - a.score || a.text.length - b.text.length || (a.text < b.text ? -1 : 1))
  lines.push(heading(`Names (${names.length})`))
  for (const n of names.slice(0, 12)) {
    picks.push({ line: lines.length, go: n.go })
    lines.push([seg(`  ${n.kind.padEnd(10)}`, 'dim'), seg(clip(n.text, width - 16), 'accent')])
  }
  if (names.length === 0) lines.push([seg('  no file or symbol name matches', 'dim')])
  lines.push([])
  if (!hits || hits.state === 'loading') {
    lines.push([seg('Search service: …', 'dim')])
    return { title: 'Search', lines, picks, loading: hits !== null }
  }
  if (hits.state === 'error') {
    lines.push([seg(`Search service: ${clip(hits.message, width - 20)}`, 'dim')])
    return { title: 'Search', lines, picks }
  }
  const r = hits.value
  lines.push([seg(`Search service (${r.answered}${r.model ? `, ${clip(r.model, 40)}` : ''}): ${r.hits.length} hits`, 'title', true)])
  if (r.note) lines.push([seg(`  ${clip(r.note, width - 6)}`, 'dim')])
  for (const h of r.hits) {
    const go: Go | null = h.kind === 'symbol' ? { kind: 'target', path: h.path, symbol: h.ref } : h.kind === 'commit' ? { kind: 'commit', sha: h.ref } : null
    if (go) picks.push({ line: lines.length, go })
    const ref = h.kind === 'commit' ? h.ref.slice(0, 7) : h.kind === 'symbol' ? '' : `#${h.ref}`
    lines.push([seg(`  ${h.kind.padEnd(7)}`, 'dim'), seg(`${ref}${ref ? ' ' : ''}`, 'accent'), seg(clip(h.title + (h.path ? `  ${h.path}:${h.line}` : ''), width - 20), go ? undefined : 'dim')])
  }
  return { title: 'Search', lines, picks }
}

export function helpPage(width: number): Page {
  const keyW = Math.max(...KEYS.map(([k]) => k.length)) + 2
  return {
    title: 'Keys',
    lines: [
      ...KEYS.map(([k, what]): Line => [seg(`  ${k.padEnd(keyW)}`, 'accent', true), seg(clip(what, width - keyW - 6))]),
      [],
      [seg('  Panes: Files (heat, revisions, owner) · Symbols (risk, last change) · Evidence (blame share as a bar, then line history, newest first).', 'dim')],
      [seg('  Everything is read from the index through the same services as the CLI: `gitwhy evidence`, `risk`, `ownership`, `related`, `hotspots`, `communities`, `context`, `search`.', 'dim')],
    ],
    picks: [],
  }
}

/** Blame share of an evidence item's range as a bar (history items: none). */
export function blameBar(lines: number | undefined, rangeLines: number, size: number): string {
  return lines === undefined ? ' '.repeat(size) : bar(lines / Math.max(1, rangeLines), size)
}
