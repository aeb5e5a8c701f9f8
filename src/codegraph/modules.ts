import path from 'node:path'
import { parse as parseJsonc } from 'jsonc-parser'
import type { ImportResolver } from '../parse/registry.js'
import type { IndexedFile } from '../services/index-layout.js'

/**
 * Which indexed files an import specifier names: relative paths, index files, TS `paths` aliases
 * (the nearest tsconfig.json / jsconfig.json), workspace packages by their package.json name,
 * Python relative and package imports, Go packages by the module path in go.mod, Java classes and
 * packages by folder, Rust module paths (`crate::`, `self::`, `super::`, `mod foo;`). Candidates are checked against the files indexed at HEAD; nothing beyond
 * them is guessed (an npm package or the standard library resolves to nothing).
 */

/**
 * Whether the module resolver reads a file's content (kept in the per-file cache as `config`):
 * package.json, go.mod, and every tsconfig / jsconfig (`tsconfig.base.json` is read through `extends`).
 */
export function isModuleConfigFile(p: string): boolean {
  const name = path.posix.basename(p)
  return name === 'package.json' || name === 'go.mod' || /^(tsconfig|jsconfig)(\..+)?\.json$/.test(name)
}

/** How many configs an `extends` chain may follow (cycles end there too). */
const MAX_EXTENDS = 8

const JS_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']
/** NodeNext-style imports name the compiled file: `./a.js` means `./a.ts`. */
const COMPILED_TO_SOURCE: Record<string, string[]> = { '.js': ['.ts', '.tsx'], '.jsx': ['.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'] }

function jsCandidates(base: string): string[] {
  base = path.posix.normalize(base)
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

/**
 * The folder a Rust file's submodules live in: `src/a/mod.rs`, `src/lib.rs` → their folder;
 * `src/a.rs` → `src/a` (the 2018 layout).
 */
function rustModuleDir(file: string): string {
  const base = path.posix.basename(file)
  return base === 'mod.rs' || base === 'lib.rs' || base === 'main.rs' ? dirOf(file) : join(dirOf(file), base.slice(0, -'.rs'.length))
}

interface TsConfig {
  baseUrl: string | null
  paths: Array<[string, string[]]>
  /** Where `paths` targets are relative to without a baseUrl: the folder of the config that declares them. */
  pathsDir: string
}

interface Workspace {
  name: string
  dir: string
  entries: string[]
}

const dirOf = (p: string) => {
  const d = path.posix.dirname(p)
  return d === '.' ? '' : d
}
const join = (dir: string, rel: string) => path.posix.normalize(dir === '' ? rel : `${dir}/${rel}`)

function readJson(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined) return null
  const value = parseJsonc(text, [], { allowTrailingComma: true }) as unknown
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null
}

/** Entry points a package.json names, as repository paths (a build output path also tries its sources). */
function packageEntries(dir: string, json: Record<string, unknown>): string[] {
  const out: string[] = []
  const exp = json.exports
  const dot = exp && typeof exp === 'object' ? (exp as Record<string, unknown>)['.'] : exp
  const fromExports = typeof dot === 'string' ? [dot] : dot && typeof dot === 'object' ? Object.values(dot as Record<string, unknown>).filter((v): v is string => typeof v === 'string') : []
  for (const field of [...fromExports, json.source, json.types, json.module, json.main]) {
    if (typeof field !== 'string') continue
    out.push(join(dir, field))
    out.push(join(dir, field.replace(/^(\.\/)?(dist|lib|build|out)\//, 'src/')).replace(/\.d\.ts$/, '.ts'))
  }
  out.push(join(dir, 'src/index'), join(dir, 'index'))
  return out
}

/** Module resolution over one set of indexed files. */
export class ModuleResolver {
  private readonly known: Set<string>
  private readonly byDir = new Map<string, string[]>()
  private readonly byBase = new Map<string, string[]>()
  private readonly tsconfigs = new Map<string, TsConfig>()
  private readonly configJson = new Map<string, Record<string, unknown>>()
  private readonly workspaces: Workspace[] = []
  private readonly goModules: Array<{ dir: string; module: string }> = []
  private readonly cache = new Map<string, string[]>()

  constructor(files: readonly IndexedFile[]) {
    this.known = new Set(files.map((f) => f.path))
    for (const f of files) {
      const dir = dirOf(f.path)
      const list = this.byDir.get(dir)
      if (list) list.push(f.path)
      else this.byDir.set(dir, [f.path])
      const base = path.posix.basename(f.path)
      const sameBase = this.byBase.get(base)
      if (sameBase) sameBase.push(f.path)
      else this.byBase.set(base, [f.path])
      if (f.config === undefined) continue
      const name = path.posix.basename(f.path)
      if (name === 'go.mod') {
        const m = /^module\s+(\S+)/m.exec(f.config)
        if (m) this.goModules.push({ dir, module: m[1].replace(/^"|"$/g, '') })
        continue
      }
      const json = readJson(f.config)
      if (!json) continue
      if (name === 'package.json') {
        if (typeof json.name === 'string' && !f.path.includes('node_modules/')) this.workspaces.push({ name: json.name, dir, entries: packageEntries(dir, json) })
      } else this.configJson.set(f.path, json)
    }
    // the nearest tsconfig.json (else jsconfig.json) of a folder applies to its files
    for (const p of this.configJson.keys()) {
      const name = path.posix.basename(p)
      if (name === 'tsconfig.json' || (name === 'jsconfig.json' && !this.configJson.has(join(dirOf(p), 'tsconfig.json')))) this.tsconfigs.set(dirOf(p), this.effectiveConfig(p, dirOf(p), 0))
    }
    this.workspaces.sort((a, b) => b.name.length - a.name.length)
    this.goModules.sort((a, b) => b.module.length - a.module.length)
  }

  /**
   * A config's `baseUrl` and `paths` with what it `extends` (repository files only; a package
   * such as `@tsconfig/node20` is not indexed): its own options win; `baseUrl` is relative to the
   * config that declares it (`${configDir}`: the config that applies, `leafDir`), `paths` to the
   * baseUrl or else to the config that declares them.
   */
  private effectiveConfig(p: string, leafDir: string, depth: number): TsConfig {
    const json = this.configJson.get(p)
    let config: TsConfig = { baseUrl: null, paths: [], pathsDir: leafDir }
    if (!json || depth > MAX_EXTENDS) return config
    const dir = dirOf(p)
    for (const parent of typeof json.extends === 'string' ? [json.extends] : Array.isArray(json.extends) ? json.extends : []) {
      if (typeof parent !== 'string' || !(parent.startsWith('./') || parent.startsWith('../'))) continue
      const file = join(dir, parent)
      const inherited = this.effectiveConfig(file.endsWith('.json') ? file : `${file}.json`, leafDir, depth + 1)
      config = { baseUrl: inherited.baseUrl ?? config.baseUrl, paths: inherited.paths.length ? inherited.paths : config.paths, pathsDir: inherited.paths.length ? inherited.pathsDir : config.pathsDir }
    }
    const options = (json.compilerOptions ?? {}) as Record<string, unknown>
    const relative = (value: string) => (value.includes('${configDir}') ? path.posix.normalize(value.replaceAll('${configDir}', leafDir || '.')) : join(dir, value))
    if (typeof options.baseUrl === 'string') config.baseUrl = relative(options.baseUrl)
    if (options.paths && typeof options.paths === 'object') {
      config.paths = Object.entries(options.paths as Record<string, unknown>).map(([k, v]) => [k, Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []] as [string, string[]])
      config.pathsDir = dir
    }
    return config
  }

  has(p: string): boolean {
    return this.known.has(p)
  }

  /** Files of the same folder (a Go or Java package). */
  siblings(p: string): string[] {
    return this.byDir.get(dirOf(p)) ?? []
  }

  /** The indexed files an import names ([] for a package outside the repository). */
  resolve(resolver: ImportResolver, from: string, spec: string): string[] {
    const key = `${resolver}\0${resolver === 'go' || resolver === 'java' ? '' : resolver === 'rust' ? from : dirOf(from)}\0${spec}`
    let hit = this.cache.get(key)
    if (!hit) {
      hit = this.compute(resolver, from, spec)
      this.cache.set(key, hit)
    }
    return hit.filter((p) => p !== from)
  }

  private first(candidates: string[]): string[] {
    const found = candidates.find((c) => this.known.has(c))
    return found ? [found] : []
  }

  private compute(resolver: ImportResolver, from: string, spec: string): string[] {
    if (resolver === 'python') return this.first(pythonCandidates(from, spec))
    if (resolver === 'go') return this.goPackage(spec)
    if (resolver === 'java') return this.javaClass(spec)
    if (resolver === 'rust') return this.rustModule(from, spec)
    if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') return this.first(jsCandidates(join(dirOf(from), spec)))
    return this.tsPaths(from, spec) ?? this.workspacePackage(spec)
  }

  /** The nearest tsconfig/jsconfig's `paths` (longest prefix first), then its `baseUrl`. */
  private tsPaths(from: string, spec: string): string[] | null {
    let dir = dirOf(from)
    for (;;) {
      const config = this.tsconfigs.get(dir)
      if (config) {
        const base = config.baseUrl ?? config.pathsDir
        const matches = config.paths
          .map(([pattern, targets]) => {
            const star = pattern.indexOf('*')
            if (star < 0) return pattern === spec ? { prefix: pattern.length, rest: '', targets } : null
            const [head, tail] = [pattern.slice(0, star), pattern.slice(star + 1)]
            return spec.startsWith(head) && spec.endsWith(tail) && spec.length >= head.length + tail.length ? { prefix: head.length, rest: spec.slice(head.length, spec.length - tail.length), targets } : null
          })
          .filter((m): m is NonNullable<typeof m> => m !== null)
          .sort((a, b) => b.prefix - a.prefix)
        for (const m of matches) {
          for (const target of m.targets) {
            const found = this.first(jsCandidates(join(base, target.replace('*', m.rest))))
            if (found.length) return found
          }
        }
        if (config.baseUrl) {
          const found = this.first(jsCandidates(join(config.baseUrl, spec)))
          if (found.length) return found
        }
        return null
      }
      if (dir === '') return null
      dir = dirOf(dir)
    }
  }

  private workspacePackage(spec: string): string[] {
    for (const w of this.workspaces) {
      if (spec === w.name) return this.first(w.entries.flatMap((e) => jsCandidates(e)))
      if (spec.startsWith(`${w.name}/`)) {
        const rest = spec.slice(w.name.length + 1)
        return this.first([...jsCandidates(join(w.dir, rest)), ...jsCandidates(join(w.dir, `src/${rest}`))])
      }
    }
    return []
  }

  /**
   * A Rust module path, from the file `from`: `crate::a::b` from the crate root (the nearest
   * folder above with a lib.rs or main.rs), `self::a` / a bare `a` from the current module,
   * `super::a` from its parent; each step is `x.rs` or `x/mod.rs`. An external crate (`std::io`,
   * `serde::Serialize`) is no file of the repository.
   */
  private rustModule(from: string, spec: string): string[] {
    const segments = spec.split('::').filter(Boolean)
    let dir: string
    let file: string | null = from
    if (segments[0] === 'crate') {
      let root = dirOf(from)
      while (!this.known.has(join(root, 'lib.rs')) && !this.known.has(join(root, 'main.rs'))) {
        if (root === '') return []
        root = dirOf(root)
      }
      dir = root
      file = this.known.has(join(root, 'lib.rs')) ? join(root, 'lib.rs') : join(root, 'main.rs')
      segments.shift()
    } else {
      dir = rustModuleDir(from)
      if (segments[0] === 'self') segments.shift()
    }
    while (segments[0] === 'super') {
      segments.shift()
      // the parent module's file: `src/a/b.rs` → `src/a.rs` or `src/a/mod.rs` (or the crate root)
      const parentDir = dirOf(dir)
      file = this.first([`${parentDir}.rs`, join(parentDir, 'mod.rs'), join(parentDir, 'lib.rs'), join(parentDir, 'main.rs')])[0] ?? null
      if (!file) return []
      dir = rustModuleDir(file)
    }
    for (const segment of segments) {
      file = this.first([join(dir, `${segment}.rs`), join(join(dir, segment), 'mod.rs')])[0] ?? null
      if (!file) return []
      dir = rustModuleDir(file)
    }
    return file ? [file] : []
  }

  private goPackage(spec: string): string[] {
    for (const m of this.goModules) {
      if (spec !== m.module && !spec.startsWith(`${m.module}/`)) continue
      const dir = join(m.dir, spec.slice(m.module.length + 1) || '.').replace(/^\.$/, '')
      return (this.byDir.get(dir) ?? []).filter((p) => p.endsWith('.go') && !p.endsWith('_test.go'))
    }
    return []
  }

  /** `a.b.C` → the file …/a/b/C.java; `a.b.C.m` (static) → C.java; `a.b` (`.*`) → the package's files. */
  private javaClass(spec: string): string[] {
    const parts = spec.split('.')
    for (const n of [parts.length, parts.length - 1]) {
      const suffix = `${parts.slice(0, n).join('/')}.java`
      const hits = (this.byBase.get(path.posix.basename(suffix)) ?? []).filter((p) => p === suffix || p.endsWith(`/${suffix}`))
      if (hits.length) return hits.slice(0, 1)
    }
    const pkg = parts.join('/')
    for (const [dir, list] of this.byDir) if (dir === pkg || dir.endsWith(`/${pkg}`)) return list.filter((p) => p.endsWith('.java'))
    return []
  }
}
