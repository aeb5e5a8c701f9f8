/**
 * A naive locator for the symbols in the scenario fixtures (their formatting is regular by
 * construction; names may be any Unicode letters). It is the expectation for `evidence({ symbol })`'s
 * target range.
 */
export interface FixtureSymbol { path: string; qualifiedName: string; startLine: number; endLine: number }

export function fixtureSymbols(path: string, content: string): FixtureSymbol[] {
  const lines = content.replace(/\r\n/g, '\n').split('\n')
  if (path.endsWith('.ts')) return tsSymbols(path, lines)
  if (path.endsWith('.py')) return pySymbols(path, lines)
  return []
}

function closing(lines: string[], from: number, indent: string): number {
  for (let i = from + 1; i < lines.length; i++) if (lines[i].startsWith(`${indent}}`)) return i
  return -1
}

function tsSymbols(path: string, lines: string[]): FixtureSymbol[] {
  const out: FixtureSymbol[] = []
  let cls: string | null = null
  lines.forEach((line, i) => {
    let m = /^(?:export )?class ([\p{L}\p{N}_]+)/u.exec(line)
    if (m) {
      cls = m[1]
      out.push({ path, qualifiedName: m[1], startLine: i + 1, endLine: closing(lines, i, '') + 1 })
      return
    }
    m = /^(?:export )?function ([\p{L}\p{N}_]+)/u.exec(line)
    if (m) {
      cls = null
      out.push({ path, qualifiedName: m[1], startLine: i + 1, endLine: closing(lines, i, '') + 1 })
      return
    }
    m = /^ {2}([\p{L}\p{N}_]+)\(.*\{\s*$/u.exec(line)
    if (m && cls) out.push({ path, qualifiedName: `${cls}.${m[1]}`, startLine: i + 1, endLine: closing(lines, i, '  ') + 1 })
  })
  return out.filter((s) => s.endLine > 0)
}

function pySymbols(path: string, lines: string[]): FixtureSymbol[] {
  const out: FixtureSymbol[] = []
  const indentOf = (s: string): number => s.length - s.trimStart().length
  const end = (i: number): number => {
    const own = indentOf(lines[i])
    let last = i
    for (let j = i + 1; j < lines.length; j++) {
      if (lines[j].trim() === '') continue
      if (indentOf(lines[j]) <= own) break
      last = j
    }
    return last + 1
  }
  let cls: string | null = null
  lines.forEach((line, i) => {
    let m = /^class ([\p{L}\p{N}_]+)/u.exec(line)
    if (m) {
      cls = m[1]
      out.push({ path, qualifiedName: m[1], startLine: i + 1, endLine: end(i) })
      return
    }
    m = /^def ([\p{L}\p{N}_]+)/u.exec(line)
    if (m) {
      cls = null
      out.push({ path, qualifiedName: m[1], startLine: i + 1, endLine: end(i) })
      return
    }
    m = /^ {4}def ([\p{L}\p{N}_]+)/u.exec(line)
    if (m && cls) out.push({ path, qualifiedName: `${cls}.${m[1]}`, startLine: i + 1, endLine: end(i) })
  })
  return out
}
