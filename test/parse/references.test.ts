/**
 * The reference captures of the tags queries (`@reference.call`, `@reference.class`,
 * `@reference.implementation`, each with `@name`), which the code graph builds its CALLS, EXTENDS
 * and IMPLEMENTS edges from. For every language whose query has them, the references found in its
 * golden fixture are pinned in goldens/<lang>.refs.txt, one per line with the symbol they occur in.
 */
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { Language, Parser, Query } from 'web-tree-sitter'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSymbolExtractor, loadLanguageRegistry } from '../../src/parse/index.js'
import type { ExtractedSymbol, LanguageSpec, SymbolExtractor } from '../../src/parse/index.js'
import { expectGolden, fixtureOf } from './golden.js'

const registry = loadLanguageRegistry()
const withReferences = [...registry.languages.values()]
  .filter((spec) => readFileSync(spec.queryPath, 'utf8').includes('@reference.'))
  .sort((a, b) => a.id.localeCompare(b.id))

let extractor: SymbolExtractor

beforeAll(async () => {
  await Parser.init()
  extractor = await createSymbolExtractor({ languages: withReferences.map((s) => s.id) })
})

afterAll(() => {
  extractor.close()
})

/** The innermost symbol whose lines hold `line` (the caller of a call), or `<module>`. */
function enclosing(symbols: ExtractedSymbol[], line: number): string {
  let best: ExtractedSymbol | null = null
  for (const s of symbols) {
    if (s.startLine > line || s.endLine < line) continue
    if (!best || s.endLine - s.startLine <= best.endLine - best.startLine) best = s
  }
  return best ? best.qualifiedName : '<module>'
}

async function references(spec: LanguageSpec, source: string, symbols: ExtractedSymbol[]): Promise<string> {
  const language = await Language.load(spec.wasmPath)
  const parser = new Parser()
  parser.setLanguage(language)
  const query = new Query(language, readFileSync(spec.queryPath, 'utf8'))
  const tree = parser.parse(source)
  const lines: string[] = []
  try {
    for (const match of query.matches(tree!.rootNode)) {
      const ref = match.captures.find((c) => c.name.startsWith('reference.'))
      const name = match.captures.find((c) => c.name === 'name')
      if (!ref || !name) continue
      const line = name.node.startPosition.row + 1
      lines.push(`L${line} ${ref.name.slice('reference.'.length)} ${name.node.text} in ${enclosing(symbols, line)}`)
    }
  } finally {
    tree?.delete()
    query.delete()
    parser.delete()
  }
  return lines.join('\n').concat('\n')
}

/** The bindings the extractor places (`@binding.*`: a typed name, in the symbol it holds in). */
function bindings(path: string, source: string): string {
  const x = extractor.extractFile(path, source)
  return x.bindings.map((b) => `L${b.line} ${b.field ? 'field' : 'name'} ${b.name}: ${b.type} in ${b.from < 0 ? '<module>' : x.symbols[b.from].qualifiedName}`).join('\n').concat('\n')
}

describe('golden bindings', () => {
  for (const spec of withReferences.filter((s) => readFileSync(s.queryPath, 'utf8').includes('@binding.'))) {
    it(spec.id, () => {
      const path = fixtureOf(spec.id)
      expectGolden(`${spec.id}.bindings.txt`, bindings(path, readFileSync(path, 'utf8')), `bindings of ${basename(path)}`)
    })
  }
})

describe('golden references', () => {
  it('the languages with reference captures include the ones the code graph was promised', () => {
    const ids = withReferences.map((s) => s.id)
    for (const id of ['c', 'cpp', 'csharp', 'kotlin', 'php', 'ruby', 'swift']) expect(ids).toContain(id)
  })

  for (const spec of withReferences) {
    it(spec.id, async () => {
      const path = fixtureOf(spec.id)
      const source = readFileSync(path, 'utf8')
      const actual = await references(spec, source, extractor.extract(path, source))
      expectGolden(`${spec.id}.refs.txt`, actual, `references of ${basename(path)}`)
    })
  }
})
