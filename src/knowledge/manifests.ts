/**
 * Dependencies declared in package manifests (package.json, go.mod, requirements*.txt,
 * pyproject.toml, Cargo.toml), each with the line that declares it, and whether an import names
 * it. Pure: (path, text) in, dependencies out.
 */

export interface ManifestDependency {
  name: string
  version: string
  /** 1-based line of the declaration. */
  line: number
  /** A development-only dependency (devDependencies, dev-dependencies, a dev group). */
  dev: boolean
  ecosystem: 'npm' | 'go' | 'python' | 'cargo'
}

export function isManifestPath(p: string): boolean {
  const base = p.split('/').pop()!
  return base === 'package.json' || base === 'go.mod' || base === 'Cargo.toml' || base === 'pyproject.toml' || /^requirements[\w.-]*\.txt$/.test(base)
}

export function manifestDependencies(p: string, text: string): ManifestDependency[] {
  const base = p.split('/').pop()!
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  if (base === 'package.json') return npm(lines)
  if (base === 'go.mod') return goMod(lines)
  if (base === 'Cargo.toml') return toml(lines, 'cargo', (s) => /^(dependencies|dev-dependencies|build-dependencies|workspace\.dependencies)$/.test(s) ? (s === 'dev-dependencies' ? 'dev' : 'main') : null)
  if (base === 'pyproject.toml') return pyproject(lines)
  if (/^requirements/.test(base)) return requirements(lines, /dev|test|lint|doc/.test(base))
  return []
}

function npm(lines: string[]): ManifestDependency[] {
  const out: ManifestDependency[] = []
  let section: 'main' | 'dev' | null = null
  let depth = 0
  lines.forEach((line, i) => {
    const open = /^\s*"(dependencies|devDependencies|peerDependencies|optionalDependencies)"\s*:\s*\{/.exec(line)
    if (depth === 1 && open) {
      section = open[1] === 'devDependencies' ? 'dev' : 'main'
    } else if (section && depth === 2) {
      const m = /^\s*"([^"]+)"\s*:\s*"([^"]*)"/.exec(line)
      if (m) out.push({ name: m[1], version: m[2], line: i + 1, dev: section === 'dev', ecosystem: 'npm' })
    }
    for (const c of line.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
      if (c === '{') depth++
      else if (c === '}') {
        depth--
        if (depth < 2) section = null
      }
    }
  })
  return out
}

function goMod(lines: string[]): ManifestDependency[] {
  const out: ManifestDependency[] = []
  let block = false
  lines.forEach((line, i) => {
    const t = line.trim()
    if (/^require\s*\($/.test(t)) return void (block = true)
    if (block && t === ')') return void (block = false)
    const m = block ? /^(\S+)\s+(v\S+)(.*)$/.exec(t) : /^require\s+(\S+)\s+(v\S+)(.*)$/.exec(t)
    if (m && !/\/\/\s*indirect/.test(m[3])) out.push({ name: m[1], version: m[2], line: i + 1, dev: false, ecosystem: 'go' })
  })
  return out
}

function toml(lines: string[], ecosystem: 'cargo' | 'python', sectionKind: (section: string) => 'main' | 'dev' | null): ManifestDependency[] {
  const out: ManifestDependency[] = []
  let kind: 'main' | 'dev' | null = null
  lines.forEach((line, i) => {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line)
    if (header) return void (kind = sectionKind(header[1].trim()))
    if (!kind) return
    const m = /^\s*([A-Za-z0-9_.-]+)\s*=\s*(.*)$/.exec(line)
    if (!m || m[1] === 'python') return
    const version = /^"([^"]*)"/.exec(m[2])?.[1] ?? /version\s*=\s*"([^"]*)"/.exec(m[2])?.[1] ?? ''
    out.push({ name: m[1], version, line: i + 1, dev: kind === 'dev', ecosystem })
  })
  return out
}

function pyproject(lines: string[]): ManifestDependency[] {
  const out = toml(lines, 'python', (s) => (/^tool\.poetry\.(dependencies)$/.test(s) ? 'main' : /^tool\.poetry\.(dev-dependencies|group\.\w+\.dependencies)$/.test(s) ? 'dev' : null))
  // PEP 621: dependencies = ["x>=1", ...] under [project]; optional groups under [project.optional-dependencies]
  let section = ''
  let list: 'main' | 'dev' | null = null
  lines.forEach((line, i) => {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line)
    if (header) {
      section = header[1].trim()
      list = null
      return
    }
    const start = /^\s*([\w-]+)\s*=\s*\[(.*)$/.exec(line)
    if (start && (section === 'project' && start[1] === 'dependencies' || section === 'project.optional-dependencies')) {
      list = section === 'project' ? 'main' : 'dev'
      line = start[2]
    }
    if (!list) return
    for (const m of line.matchAll(/"([A-Za-z0-9][A-Za-z0-9_.-]*)(\[[^\]]*\])?\s*([^";]*)[^"]*"/g)) out.push({ name: m[1], version: m[3].trim(), line: i + 1, dev: list === 'dev', ecosystem: 'python' })
    if (line.includes(']') && !/\[[^\]]*\]/.test(line.replace(/"[^"]*"/g, ''))) list = null
  })
  return out
}

function requirements(lines: string[], dev: boolean): ManifestDependency[] {
  const out: ManifestDependency[] = []
  lines.forEach((line, i) => {
    const m = /^\s*([A-Za-z0-9][A-Za-z0-9_.-]*)(\[[^\]]*\])?\s*([<>=!~].*)?$/.exec(line.replace(/#.*$/, ''))
    if (m && !line.trim().startsWith('-')) out.push({ name: m[1], version: (m[3] ?? '').trim(), line: i + 1, dev, ecosystem: 'python' })
  })
  return out
}

/** Whether an import's module names the dependency (a subpath counts; Python and Rust spell names with `_`). */
export function importsDependency(dep: ManifestDependency, source: string): boolean {
  if (dep.ecosystem === 'npm') return source === dep.name || source.startsWith(`${dep.name}/`) || source === `node:${dep.name}`
  if (dep.ecosystem === 'go') return source === dep.name || source.startsWith(`${dep.name}/`)
  const module = dep.name.toLowerCase().replace(/-/g, '_')
  const top = source.replace(/^::/, '').split(/::|\./)[0].toLowerCase()
  return top === module || (dep.ecosystem === 'python' && top === module.replace(/^python_/, '').replace(/^py/, ''))
}
