import { lstatSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { ModuleResolver } from '../codegraph/modules.js'
import { UserError } from '../errors.js'
import { git, gitBuffer } from '../git/run.js'
import { readBlobs } from '../git/tree.js'
import { CALL_EDGES, HERITAGE_EDGES } from '../codegraph/adjacency.js'
import { installedLanguageRegistry } from '../parse/registry.js'
import { DEFAULT_MIN_CONFIDENCE } from './codegraph.js'
import { IndexReader, withReader } from './index-reader.js'
import { resolveTarget, type Target } from './resolve.js'
import type { IndexInfo } from './types.js'

/**
 * `rename` (issue 11): a plan of edits that renames a symbol at its definition and at every
 * reference the code graph resolves to it (calls, imports and re-exports of it, classes that
 * extend or implement it), plus the plain-text hits of the name the graph does not explain, listed
 * apart for a person to review. Positions are those of the indexed HEAD's content; `apply` writes
 * only the graph's edits, only when every file on disk still has the indexed content, and never
 * outside the repository.
 */

export type EditSource = 'definition' | 'call' | 'import' | 'extends' | 'implements'

export interface RenameEdit {
  path: string
  /** 1-based. */
  line: number
  /** 1-based, in UTF-16 code units (as LSP counts). */
  column: number
  old: string
  new: string
  source: EditSource
}

export interface ReviewHit {
  path: string
  line: number
  column: number
  /** The line, trimmed (at most 200 characters). */
  text: string
  /** text: the name appears where the graph puts no reference to this symbol; low-confidence: a call the graph resolved here with a confidence below the threshold. */
  why: 'text' | 'low-confidence'
}

export interface RenameResult {
  target: Extract<Target, { kind: 'symbol' }>
  index: IndexInfo
  old_name: string
  new_name: string
  min_confidence: number
  edits: RenameEdit[]
  review: ReviewHit[]
  /** Items beyond the limit (review hits only: edits are never cut). */
  truncated: { review: number }
  summary: { files: number; edits: number; review: number }
  /** True when the edits were written (`--apply`). */
  applied: boolean
}

const IDENT = /^[\p{L}_$][\p{L}\p{N}_$]*$/u
const wordRe = (name: string) => new RegExp(`(?<![\\p{L}\\p{N}_$])${name.replace(/\$/g, '\\$')}(?![\\p{L}\\p{N}_$])`, 'gu')

const wordCache = new Map<string, RegExp>()
/** 0-based columns of the name as a whole word on a line. */
function columnsOf(line: string, name: string): number[] {
  if (!line.includes(name)) return []
  let re = wordCache.get(name)
  if (!re) {
    if (wordCache.size > 100) wordCache.clear()
    wordCache.set(name, (re = wordRe(name)))
  }
  return [...line.matchAll(re)].map((m) => m.index)
}

/** Whether a column of a line lies inside a quoted string ('…', "…", `…`, backslash escapes), as far as the line alone tells. */
function inString(line: string, col: number): boolean {
  let quote: string | null = null
  for (let i = 0; i < col; i++) {
    const ch = line[i]
    if (quote !== null && ch === '\\') i++
    else if (quote !== null && ch === quote) quote = null
    else if (quote === null && (ch === '"' || ch === "'" || ch === '`')) quote = ch
  }
  return quote !== null
}

export async function rename(options: { repo?: string; reader?: IndexReader; target: string; newName: string; apply?: boolean; limit?: number; minConfidence?: number }): Promise<RenameResult> {
  return withReader(options, async (reader) => {
    const target = resolveTarget(reader, options.target)
    if (target.kind !== 'symbol') throw new UserError(`${target.path || '.'} is a ${target.kind}; rename takes a symbol`, 'pass a symbol name (Class.method, path:Name)', 'not_a_symbol')
    const min = options.minConfidence ?? DEFAULT_MIN_CONFIDENCE
    const limit = options.limit ?? 50
    const oldName = target.qualified_name.split('.').pop()!
    const newName = options.newName
    if (!IDENT.test(newName)) throw new UserError(`${JSON.stringify(newName)} is not an identifier`, 'pass a name of letters, digits, _ or $ that does not start with a digit', 'bad_name')
    if (newName === oldName) throw new UserError(`${oldName} is already called ${newName}`, 'pass a different new name', 'bad_name')
    if (!IDENT.test(oldName)) throw new UserError(`${target.qualified_name} has no plain identifier to rename`, 'rename a named function, class or method', 'not_a_symbol')
    const index = await reader.indexInfo()

    // where the graph says the name refers to this symbol: (path, line) → source
    const sites = new Map<string, { path: string; line: number; source: EditSource; searchTo?: number; searchFrom?: number }>()
    const lowConfidence = new Set<string>()
    const site = (p: string, line: number, source: EditSource, searchTo?: number, searchFrom?: number) => {
      const key = `${p}\0${line}`
      if (!sites.has(key)) sites.set(key, { path: p, line, source, searchTo, searchFrom })
    }
    site(target.path, target.start_line, 'definition', target.end_line)
    const code = await reader.codeGraph()
    const calls = code.linked([target.id], 'up', 0, CALL_EDGES)
    const subtypes = code.linked([target.id], 'up', 0, HERITAGE_EDGES)
    for (const c of calls) {
      if (Number(c.confidence) >= min) site(c.path, Number(c.line), 'call')
      else lowConfidence.add(`${c.path}\0${Number(c.line)}`)
    }
    // the heritage clause is in the head of the subtype's definition
    for (const s of subtypes) site(s.path, Number(s.start_line), s.relation === 'EXTENDS' ? 'extends' : 'implements', Number(s.start_line) + 5)
    // an import's line is its module's: the name may sit on a line above it (TS `import {\n  a,\n} from '.'`) or below (Python)
    for (const s of importSites(reader, target.path, oldName)) site(s.path, s.line, 'import', s.line + 50, s.line - 50)

    // read the indexed content of every file that has the word or a site
    const grep = await gitBuffer(reader.repo, ['grep', '-l', '-z', '-w', '-F', '-e', oldName, index.head, '--'], { okCodes: [1] })
    const prefix = `${index.head}:`
    const paths = new Set([...sites.values()].map((s) => s.path))
    for (const p of grep.stdout.toString('utf8').split('\0')) if (p.startsWith(prefix) && reader.file(p.slice(prefix.length))) paths.add(p.slice(prefix.length))
    const content = new Map<string, string[]>()
    const byBlob = new Map<string, string[]>()
    for (const p of paths) byBlob.set(reader.file(p)!.blob, [...(byBlob.get(reader.file(p)!.blob) ?? []), p])
    await readBlobs(reader.repo, [...byBlob.keys()], (blob, buf) => {
      for (const p of byBlob.get(blob) ?? []) content.set(p, buf.toString('utf8').split('\n'))
    })

    const edits: RenameEdit[] = []
    const claimed = new Set<string>()
    for (const s of sites.values()) {
      const lines = content.get(s.path)
      if (!lines) continue
      // the name on the site's line, or (a definition's head, a multi-line import) on the nearest line around it that has it
      for (const l of nearestFirst(s.line, Math.max(1, s.searchFrom ?? s.line), Math.min(s.searchTo ?? s.line, lines.length))) {
        // a module path or a message naming it is text, not the reference
        const cols = columnsOf(lines[l - 1], oldName).filter((c) => !inString(lines[l - 1], c))
        if (cols.length === 0) continue
        const key = `${s.path}\0${l}`
        if (!claimed.has(key)) for (const c of cols) edits.push({ path: s.path, line: l, column: c + 1, old: oldName, new: newName, source: s.source })
        claimed.add(key)
        break
      }
    }
    const review: ReviewHit[] = []
    for (const [p, lines] of content) {
      lines.forEach((text, i) => {
        const edited = claimed.has(`${p}\0${i + 1}`)
        for (const c of columnsOf(text, oldName)) if (!edited || inString(text, c)) review.push({ path: p, line: i + 1, column: c + 1, text: text.trim().slice(0, 200), why: lowConfidence.has(`${p}\0${i + 1}`) ? 'low-confidence' : 'text' })
      })
    }
    const order = (a: { path: string; line: number; column: number }, b: { path: string; line: number; column: number }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.column - b.column)
    edits.sort(order)
    review.sort((a, b) => (a.why === b.why ? order(a, b) : a.why === 'low-confidence' ? -1 : 1))
    const shown = limit === 0 ? review : review.slice(0, limit)
    if (options.apply) await applyEdits(reader, index.head, edits)
    return {
      target,
      index,
      old_name: oldName,
      new_name: newName,
      min_confidence: min,
      edits,
      review: shown,
      truncated: { review: review.length - shown.length },
      summary: { files: new Set(edits.map((e) => e.path)).size, edits: edits.length, review: review.length },
      applied: options.apply === true,
    }
  })
}

/** Lines from..to, `line` first, then by distance from it (below before above at equal distance). */
export function nearestFirst(line: number, from: number, to: number): number[] {
  const out: number[] = []
  for (let d = 0; line + d <= to || line - d >= from; d++) {
    if (line + d <= to && line + d >= from) out.push(line + d)
    if (d > 0 && line - d >= from && line - d <= to) out.push(line - d)
  }
  return out
}

/** One module resolver per open index (an MCP server answers many renames from one). */
const resolvers = new WeakMap<IndexReader, ModuleResolver>()

/**
 * Import (and re-export) statements that bind the symbol by its name: those of the files whose
 * import resolves to the defining file, or to a file that re-exports it under the same name
 * (a barrel), followed to a fixed point.
 */
function importSites(reader: IndexReader, defPath: string, name: string): Array<{ path: string; line: number }> {
  const files = reader.files()
  const candidates = files.filter((f) => f.imports?.some((r) => r.bindings.length === 0 || r.bindings.some((b) => b.imported === name)))
  if (candidates.length === 0) return []
  const registry = installedLanguageRegistry()
  let modules = resolvers.get(reader)
  if (!modules) resolvers.set(reader, (modules = new ModuleResolver(files)))
  const exporters = new Set([defPath])
  const out = new Map<string, { path: string; line: number }>()
  for (let grew = true; grew; ) {
    grew = false
    for (const f of candidates) {
      const resolver = f.language ? registry.get(f.language)?.imports?.resolver : undefined
      if (!resolver) continue
      for (const r of f.imports ?? []) {
        const named = r.bindings.filter((b) => b.imported === name)
        if (named.length === 0 && !(r.reexport && r.bindings.length === 0)) continue
        if (!modules.resolve(resolver, f.path, r.source).some((t) => exporters.has(t))) continue
        if (named.length) out.set(`${f.path}\0${r.line}`, { path: f.path, line: r.line })
        // a barrel passes the name on: `export * from`, or `export { name } from` unaliased
        if (r.reexport && (r.bindings.length === 0 || named.some((b) => b.local === name)) && !exporters.has(f.path)) {
          exporters.add(f.path)
          grew = true
        }
      }
    }
  }
  return [...out.values()]
}

/** Write the edits, after checking every file on disk is the indexed blob and inside the repository. */
async function applyEdits(reader: IndexReader, head: string, edits: RenameEdit[]): Promise<void> {
  const root = realpathSync(reader.repo)
  const paths = [...new Set(edits.map((e) => e.path))]
  for (const p of paths) {
    const abs = path.join(reader.repo, p)
    let real: string
    try {
      real = realpathSync(abs)
    } catch {
      throw new UserError(`${p} is gone from the work tree since the index was built`, 'run `gitwhy analyze`, then rename again', 'stale_index')
    }
    if (lstatSync(abs).isSymbolicLink() || !real.startsWith(root + path.sep)) throw new UserError(`${p} is a symbolic link or lies outside ${reader.repo}`, 'rename it by hand; rename writes only regular files inside the repository', 'outside_repo')
  }
  const hashes = paths.length ? (await git(reader.repo, ['hash-object', '--', ...paths])).trim().split('\n') : []
  const stale = paths.filter((p, i) => hashes[i] !== reader.file(p)?.blob)
  if (stale.length) throw new UserError(`the index is stale: ${stale.slice(0, 5).join(', ')}${stale.length > 5 ? ` and ${stale.length - 5} more` : ''} changed since it was built at ${head.slice(0, 12)}`, 'commit or stash the change, run `gitwhy analyze`, then rename again', 'stale_index')
  for (const p of paths) {
    const abs = path.join(reader.repo, p)
    const raw = readFileSync(abs)
    const lines = raw.toString('utf8').split('\n')
    if (!Buffer.from(lines.join('\n'), 'utf8').equals(raw)) throw new UserError(`${p} is not UTF-8 text`, 'rename it by hand', 'not_text')
    // right to left on a line, so earlier columns stay valid
    for (const e of edits.filter((x) => x.path === p).sort((a, b) => a.line - b.line || b.column - a.column)) {
      const text = lines[e.line - 1]
      if (text.slice(e.column - 1, e.column - 1 + e.old.length) !== e.old) throw new Error(`rename: ${p}:${e.line}:${e.column} does not hold ${e.old}`)
      lines[e.line - 1] = text.slice(0, e.column - 1) + e.new + text.slice(e.column - 1 + e.old.length)
    }
    writeFileSync(abs, lines.join('\n'))
  }
}

/** The text answer of `rename`. */
export function renameLines(r: RenameResult): string[] {
  const t = r.target
  const out = [
    `${r.applied ? 'renamed' : 'plan: rename'} ${t.qualified_name} (${t.path}:${t.start_line}) → ${r.new_name}: ${r.summary.edits} edit${r.summary.edits === 1 ? '' : 's'} in ${r.summary.files} file${r.summary.files === 1 ? '' : 's'}, ${r.summary.review} text hit${r.summary.review === 1 ? '' : 's'} to review`,
  ]
  for (const e of r.edits) out.push(`  ${e.path}:${e.line}:${e.column} ${e.source}`)
  if (r.review.length) {
    out.push('review these (the graph does not say they refer to it; not edited):')
    for (const h of r.review) out.push(`  ${h.path}:${h.line}:${h.column}${h.why === 'low-confidence' ? ' (low-confidence call)' : ''}  ${h.text}`)
    if (r.truncated.review) out.push(`  … ${r.truncated.review} more`)
  }
  out.push(r.applied ? 'written; run `gitwhy analyze` to index the change' : 'dry run: nothing written (pass --apply to write the edits)')
  return out
}
