import path from 'node:path'
import type { ImportResolver, ImportRule } from './registry.js'

/**
 * Which files a file imports, where the language makes that cheap: relative imports in
 * JavaScript and TypeScript, relative and in-repository module imports in Python. The import
 * statements are found with the registry's patterns (data, per language); resolution checks
 * candidate paths against the files indexed at HEAD and never guesses beyond them.
 */

/** The import specifiers of one file, in order of first appearance, without duplicates. */
export function importSpecifiers(rule: ImportRule, source: string): string[] {
  const out = new Set<string>()
  for (const pattern of rule.patterns) {
    pattern.lastIndex = 0
    for (const m of source.matchAll(pattern)) if (m[1]) out.add(m[1])
  }
  const keep = rule.resolver === 'js' ? (s: string) => s.startsWith('./') || s.startsWith('../') || s === '.' || s === '..' : () => true
  return [...out].filter(keep)
}

const JS_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']
/** NodeNext-style imports name the compiled file: `./a.js` means `./a.ts`. */
const COMPILED_TO_SOURCE: Record<string, string[]> = { '.js': ['.ts', '.tsx'], '.jsx': ['.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'] }

function jsCandidates(from: string, spec: string): string[] {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec))
  const ext = path.posix.extname(base)
  const stem = ext ? base.slice(0, -ext.length) : base
  return [
    base,
    ...(COMPILED_TO_SOURCE[ext] ?? []).map((e) => stem + e),
    ...JS_EXTENSIONS.map((e) => base + e),
    ...JS_EXTENSIONS.map((e) => `${base}/index${e}`),
  ]
}

function pythonCandidates(from: string, spec: string): string[] {
  const dots = /^\.*/.exec(spec)![0].length
  const modules = spec.slice(dots).split('.').filter(Boolean)
  const module = (dir: string) => {
    const p = path.posix.join(dir, ...modules)
    return modules.length === 0 ? [path.posix.join(dir, '__init__.py')] : [`${p}.py`, path.posix.join(p, '__init__.py')]
  }
  if (dots > 0) {
    let dir = path.posix.dirname(from)
    for (let i = 1; i < dots; i++) dir = path.posix.dirname(dir)
    return module(dir)
  }
  // an absolute module path: from the repository root or a top-level source folder
  const top = from.split('/')[0]
  return [...module('.'), ...(top !== from ? module(top) : []), ...module('src')].map((p) => path.posix.normalize(p))
}

const CANDIDATES: Record<ImportResolver, (from: string, spec: string) => string[]> = { js: jsCandidates, python: pythonCandidates }

/** The indexed file an import specifier names, or null (a package, or a file not indexed). */
export function resolveImport(resolver: ImportResolver, from: string, spec: string, known: ReadonlySet<string>): string | null {
  for (const candidate of CANDIDATES[resolver](from, spec)) {
    if (candidate !== from && known.has(candidate)) return candidate
  }
  return null
}
