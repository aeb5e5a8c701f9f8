import { statSync } from 'node:fs'
import path from 'node:path'
import { UserError, nearest } from '../errors.js'
import { symbolIds, type IndexedFile } from './index-layout.js'
import type { IndexReader } from './index-reader.js'

/**
 * The one resolver every command and tool goes through: a user's text as an indexed file, a
 * directory (with or without the trailing slash), a line range (`PATH:START-END`) or a symbol
 * (`Class.method`, a suffix of a qualified name, `path:Name`).
 */

export type PathTarget = { kind: 'file'; path: string } | { kind: 'directory'; path: string }

export type Target =
  | PathTarget
  | { kind: 'symbol'; id: string; qualified_name: string; symbol_kind: string; path: string; start_line: number; end_line: number }

export interface SymbolHit {
  id: string
  qualified_name: string
  kind: string
  path: string
  start_line: number
  end_line: number
}

/**
 * An indexed file, or a directory: one holding indexed files, or one on disk in the work tree
 * (`.`, `src`, `src/`; a directory's path ends in `/`, the root's is ''). Null when it is neither.
 */
export function resolvePath(reader: IndexReader, input: string): PathTarget | null {
  const rel = reader.relativePath(input)
  if (reader.file(rel)) return { kind: 'file', path: rel }
  const prefix = rel === '' ? '' : rel.replace(/\/+$/, '') + '/'
  if (prefix === '' || isDirectory(path.join(reader.repo, rel))) return { kind: 'directory', path: prefix }
  // `FILE:NAME` or `FILE#NAME` of an indexed file names a symbol: not worth reading every file's
  // record to look for a directory of that name gone from the work tree (~70 ms on vuejs/core)
  const cut = Math.max(rel.lastIndexOf(':'), rel.lastIndexOf('#'))
  if (cut > 0 && !rel.slice(cut).includes('/') && reader.file(rel.slice(0, cut))) return null
  if (reader.files().some((f) => f.path.startsWith(prefix))) return { kind: 'directory', path: prefix }
  return null
}

function isDirectory(abs: string): boolean {
  try {
    return statSync(abs).isDirectory()
  } catch {
    return false
  }
}

/** A path or directory wins over a symbol of the same name; a path-like input that is neither says which paths are near. */
export function resolveTarget(reader: IndexReader, input: string): Target {
  if (!input.trim()) throw new UserError('nothing to look at', 'pass a file path, a directory or a symbol name', 'bad_option')
  const found = resolvePath(reader, input)
  if (found) return found
  // `src/x.ts` is a path; `x.ts` may be a path or `Class.method` (ReactiveEffect.run,
  // Command.ExecuteC): a symbol of that name wins, else it is reported as the missing file
  // a symbol's id (`src/a.ts#Name`, what an ambiguous name's remedy offers) is a symbol too
  const pathLike = !/[:#][^/]+$/.test(input) && (input.includes('/') || /\.[a-z0-9]+$/i.test(input))
  if (pathLike && input.includes('/')) reader.requireFile(reader.relativePath(input))
  let s: SymbolHit
  try {
    s = findSymbol(reader, input)
  } catch (error) {
    if (pathLike && error instanceof UserError && error.code === 'unknown_symbol') reader.requireFile(reader.relativePath(input))
    throw error
  }
  return { kind: 'symbol', id: s.id, qualified_name: s.qualified_name, symbol_kind: s.kind, path: s.path, start_line: s.start_line, end_line: s.end_line }
}

/** A UserError for a command that takes a file or a symbol but was given a directory. */
export function directoryRefused(target: PathTarget, what: string): UserError {
  return new UserError(
    `${target.path.replace(/\/$/, '') || '.'} is a directory; ${what} takes a file or a symbol`,
    'pass a file path or a symbol name; for a directory use `gitwhy ownership DIR`, `gitwhy hotspots --path DIR` or `gitwhy history DIR`',
    'is_directory',
  )
}

const RANGE = /^(\d+)(?:-(\d+))?$/
export const RANGE_FORMS = 'PATH, PATH:LINE or PATH:START-END (whole numbers, 1 ≤ START ≤ END)'

/**
 * `PATH[:START[-END]]` split into the path and the lines. Text after the last `:` that is not a
 * range is a bad range, unless the whole text names an existing file (`a:b`) or the tail holds a
 * `/` (a directory named `x:y`).
 */
export function splitRange(reader: IndexReader, input: string): { path: string; start?: number; end?: number } {
  const colon = input.lastIndexOf(':')
  if (colon < 0 || reader.file(reader.relativePath(input))) return { path: input }
  const tail = input.slice(colon + 1)
  const m = RANGE.exec(tail)
  if (m) return { path: input.slice(0, colon), start: Number(m[1]), end: m[2] === undefined ? Number(m[1]) : Number(m[2]) }
  if (tail.includes('/') || isFileOnDisk(path.resolve(reader.repo, input))) return { path: input }
  throw new UserError(`bad line range ":${tail}" in ${input}`, `use ${RANGE_FORMS}, or PATH:NAME for a symbol of that file (MCP: qualified_name)`, 'bad_range')
}

function isFileOnDisk(abs: string): boolean {
  try {
    return statSync(abs).isFile()
  } catch {
    return false
  }
}

/**
 * A symbol's id (`PATH#NAME`, what search hits and `why` hand on to evidence) looked up in its
 * file alone, not among every symbol of the index (~3 ms a time on vuejs/core).
 */
function symbolById(reader: IndexReader, id: string): SymbolHit | null {
  for (let at = id.indexOf('#'); at > 0; at = id.indexOf('#', at + 1)) {
    const f = reader.file(id.slice(0, at))
    if (!f) continue
    const i = symbolIds(f).indexOf(id)
    if (i < 0) continue
    const s = f.symbols[i]
    return { id, qualified_name: s.qualifiedName, kind: s.kind, path: f.path, start_line: s.startLine, end_line: s.endLine }
  }
  return null
}

/** Resolve a symbol name; several matches or none give a UserError listing the choices. */
export function findSymbol(reader: IndexReader, query: string): SymbolHit {
  const byId = symbolById(reader, query)
  if (byId) return byId
  let pathFilter: string | null = null
  let name = query
  const colon = query.lastIndexOf(':')
  if (colon > 0) {
    pathFilter = reader.relativePath(query.slice(0, colon))
    name = query.slice(colon + 1)
  }
  const all: SymbolHit[] = []
  // PATH:NAME reads one file of the per-file cache; a bare name searches them all
  const scope = pathFilter !== null ? [reader.file(pathFilter)].filter((f): f is IndexedFile => f !== undefined) : reader.files()
  for (const f of scope) {
    const ids = symbolIds(f)
    f.symbols.forEach((s, i) => all.push({ id: ids[i], qualified_name: s.qualifiedName, kind: s.kind, path: f.path, start_line: s.startLine, end_line: s.endLine }))
  }
  let hits = all.filter((h) => h.qualified_name === name || h.id === name)
  if (hits.length === 0) hits = all.filter((h) => h.qualified_name.endsWith(`.${name}`))
  if (hits.length === 1) return hits[0]
  if (hits.length === 0) {
    const suggestions = nearest(name, new Set(all.map((s) => s.qualified_name)))
    throw new UserError(
      `no symbol named ${name} in the index${pathFilter !== null ? ` (in ${pathFilter})` : ''}`,
      suggestions.length ? `did you mean: ${suggestions.join(', ')}?` : 'run `gitwhy cypher "MATCH (s:Symbol) RETURN s.qualified_name LIMIT 20"` to see symbol names',
      'unknown_symbol',
    )
  }
  hits.sort((a, b) => a.path.localeCompare(b.path) || a.start_line - b.start_line)
  // PATH:NAME picks one unless a file defines the name twice: then only the symbol's id does
  const twice = new Set(hits.map((h) => `${h.path}:${h.qualified_name}`)).size < hits.length
  const choices = hits.slice(0, 10).map((h) => `${twice ? h.id : `${h.path}:${h.qualified_name}`} (${h.kind}, lines ${h.start_line}-${h.end_line})`)
  throw new UserError(
    `${query} matches ${hits.length} symbols: ${choices.join('; ')}${hits.length > 10 ? '; …' : ''}`,
    twice ? `pick one by its id, e.g. --symbol ${hits[hits.length - 1].id}` : `pick one with --symbol PATH:NAME, e.g. --symbol ${hits[0].path}:${hits[0].qualified_name}`,
    'ambiguous_symbol',
  )
}
