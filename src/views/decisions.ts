/** Text of the decision commands (their --json is the service's result). */
import { evidenceText, targetText, type Decision } from '../knowledge/decision-model.js'
import type { DecisionVerification, VerifyResult } from '../services/decision-verify.js'
import type { MineResult } from '../services/decisions.js'

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

export function decisionLine(d: Decision): string {
  return `${d.id}  ${d.status.padEnd(10)} ${d.kind.padEnd(10)} ${d.confidence.toFixed(2)}  ${clip(d.title, 90)}`
}

export function decisionLines(d: Decision): string[] {
  return [
    `${d.id} (${d.kind}, ${d.status}, ${d.source}, confidence ${d.confidence})`,
    `  title:      ${d.title}`,
    ...(d.statement !== d.title ? [`  statement:  ${d.statement}`] : []),
    ...(d.rationale ? [`  why:        ${d.rationale}`] : []),
    `  applies to: ${d.applies_to.length ? d.applies_to.map(targetText).join(', ') : '(the whole project)'}`,
    `  evidence:   ${d.evidence.length ? d.evidence.map(evidenceText).join(', ') : '(none)'}`,
    ...(d.check ? [`  check:      ${d.check.kind === 'regex' ? `${d.check.mode} /${d.check.pattern}/` : `forbid query ${clip(d.check.query, 80)}`}${d.check.paths ? ` in ${d.check.paths.join(', ')}` : ''}`] : []),
    ...(d.superseded_by ? [`  superseded by ${d.superseded_by}`] : []),
    `  decided ${d.decided_at.slice(0, 10)}, recorded ${d.created.slice(0, 10)}`,
  ]
}

export function verificationLines(v: DecisionVerification): string[] {
  return [
    `${v.id} ${v.status.toUpperCase()}${v.served ? '' : ' (not served: all its evidence is rejected, or it was rejected)'}  confidence ${v.confidence}  ${clip(v.title, 80)}`,
    ...v.evidence.map((e) => `  evidence ${e.evidence}: ${e.verdict}${e.similarity !== null ? ` (similarity ${e.similarity})` : ''} — ${e.note}`),
    ...v.targets.map((t) => `  target ${t.target}: ${t.exists ? 'ok' : 'MISSING'} — ${t.note}`),
    ...(v.stale ? [`  later commits own ${v.stale.later_lines} of ${v.stale.governed_lines} governed lines (${Math.round(v.stale.share * 100)}%, stale above ${Math.round(v.stale.threshold * 100)}%)${v.stale.commits.length ? `: ${v.stale.commits.slice(0, 5).map((c) => `${c.short} ${clip(c.subject, 50)} (${c.lines})`).join('; ')}` : ''}`] : []),
    ...(v.check ? [`  check (${v.check.kind}) over ${v.check.checked_files} files: ${v.check.error ? `error: ${v.check.error}` : v.check.violations.length === 0 ? 'no violation' : `${v.check.violations.length} violations`}`] : []),
    ...(v.check?.violations ?? []).map((x) => `    ${x.path}:${x.line}  ${clip(x.text, 100)}${x.commit ? `  (${x.commit.short} ${clip(x.commit.subject, 50)})` : ''}`),
  ]
}

export function verifyLines(r: VerifyResult): string[] {
  const s = r.summary
  if (s.total === 0) return ['no recorded decision to verify: add one with `gitwhy decision add`, or mine candidates with `gitwhy decisions mine`']
  return [
    ...r.decisions.flatMap(verificationLines),
    '',
    `${s.total} decisions: ${s.verified} with all evidence verified, ${s.stale} stale, ${s.not_served} not served, ${s.violations} constraint violations, ${s.missing_targets} governed targets missing`,
  ]
}

export function mineLines(r: MineResult): string[] {
  return [
    `${r.dry_run ? 'would propose' : 'proposed'} ${r.proposed} new candidates${r.accepted ? `, accepted ${r.accepted}` : ''} (adr ${r.found.adr}, commits ${r.found.commits}, manifests ${r.found.manifests}${r.found.readme ? `, readme ${r.found.readme}` : ''}); ${r.adr.files} ADR files (${r.adr.records} records), ${r.commits_scanned} commit messages read`,
    ...r.candidates.map((d) => `${d.id}  ${d.confidence.toFixed(2)} ${d.kind.padEnd(10)} ${clip(d.statement, 110)}  [${d.evidence.slice(0, 2).map(evidenceText).join(', ')}]`),
    ...(r.total > r.candidates.length ? [`… ${r.total - r.candidates.length} more: gitwhy decisions list --status proposed`] : []),
    ...(r.proposed > 0 && !r.dry_run ? ['accept with `gitwhy decisions accept ID…` (or --auto THRESHOLD); reject with `gitwhy decision reject ID`'] : []),
  ]
}
