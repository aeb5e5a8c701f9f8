import { readdirSync, readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSymbolExtractor, loadLanguageRegistry, MAX_PARSE_CHARS } from '../../src/parse/index.js'
import type { ExtractedSymbol, SymbolExtractor } from '../../src/parse/index.js'
import { expectGolden, FIXTURES, fixtureOf } from './golden.js'
import type { FileExtraction } from '../../src/parse/types.js'

/**
 * One line per symbol: kind, qualified name, lines, exported, parent, signature; then one per
 * reference (call / extends / implements, the name, its receiver, where it is and from which
 * symbol) and one per import (module, bindings, re-export) and renamed export.
 */
function renderGolden({ symbols, references, imports, exports }: FileExtraction): string {
  const from = (i: number) => (i < 0 ? '<module>' : symbols[i].qualifiedName)
  const refs = references.map((r) => `${r.kind} ${r.receiver === null ? '' : `${r.receiver}.`}${r.name} L${r.line} from=${from(r.from)}`)
  const imps = imports.map((i) => `${i.reexport ? 're-export' : 'import'} ${i.source} L${i.line} {${i.bindings.map((b) => (b.local === b.imported ? b.local : `${b.imported} as ${b.local}`)).join(', ')}}`)
  const exps = exports.map((e) => `export ${e.local} as ${e.exported}`)
  return renderSymbols(symbols) + [...refs, ...imps, ...exps].map((l) => `${l}\n`).join('')
}

function renderSymbols(symbols: ExtractedSymbol[]): string {
  return symbols
    .map((s) => {
      const parent = s.parentIndex === null ? '-' : symbols[s.parentIndex].qualifiedName
      const exported = s.exported ? 'exported' : '-'
      return `${s.kind} ${s.qualifiedName} L${s.startLine}-${s.endLine} ${exported} parent=${parent} | ${s.signature}`
    })
    .join('\n')
    .concat('\n')
}

const registry = loadLanguageRegistry()
const languages = [...registry.languages.keys()].sort()

let extractor: SymbolExtractor

beforeAll(async () => {
  extractor = await createSymbolExtractor()
})

afterAll(() => {
  extractor.close()
})

describe('golden symbols', () => {
  it('every registry language has a fixture, and every fixture a registry language', () => {
    expect(readdirSync(FIXTURES).sort()).toEqual(languages)
  })

  for (const lang of languages) {
    it(lang, () => {
      const path = fixtureOf(lang)
      expect(extractor.languageOf(path)).toBe(lang)
      const extraction = extractor.extractFile(path, readFileSync(path, 'utf8'))
      const symbols = extraction.symbols
      expect(extractor.extract(path, readFileSync(path, 'utf8'))).toEqual(symbols)
      for (const [i, s] of symbols.entries()) {
        if (s.parentIndex !== null) expect(s.parentIndex).toBeLessThan(i)
        expect(s.signature.length).toBeLessThanOrEqual(200)
      }
      expectGolden(`${lang}.txt`, renderGolden(extraction), `symbols of ${basename(path)}`)
    })
  }
})

describe('extractor', () => {
  it('maps paths to languages by extension', () => {
    expect(extractor.languageOf('src/a.ts')).toBe('typescript')
    expect(extractor.languageOf('src/a.d.ts')).toBe('typescript')
    expect(extractor.languageOf('src/a.mts')).toBe('typescript')
    expect(extractor.languageOf('src/App.tsx')).toBe('tsx')
    expect(extractor.languageOf('lib/x.cjs')).toBe('javascript')
    expect(extractor.languageOf('lib/X.JSX')).toBe('javascript')
    expect(extractor.languageOf('pkg/stubs.pyi')).toBe('python')
    expect(extractor.languageOf('README.md')).toBeNull()
    expect(extractor.languageOf('Makefile')).toBeNull()
  })

  it('returns [] for unknown languages, garbage and oversized files instead of throwing', () => {
    expect(extractor.extract('notes.txt', 'function f() {}')).toEqual([])
    expect(() => extractor.extract('bad.ts', '}{ class ((( \u0000 \uffff')).not.toThrow()
    const big = 'function f() {}\n'.repeat(Math.ceil(MAX_PARSE_CHARS / 16) + 1)
    expect(extractor.extract('big.js', big)).toEqual([])
  })

  it('still finds the intact definitions of a file with syntax errors', () => {
    const symbols = extractor.extract('broken.py', 'def ok():\n    pass\n\ndef broken(:\n')
    expect(symbols.map((s) => s.qualifiedName)).toContain('ok')
  })

  it('recovers a TypeScript file whose generic call signatures the grammar misreads (hono src/context.ts)', () => {
    // `Response & TypedResponse<…>` then `<T extends …>(` on the next line: tree-sitter-wasms'
    // grammar takes the `<` for type arguments and fails the whole file
    const source = [
      'interface BodyRespond {',
      '  <T extends Data, U extends ContentfulStatusCode>(',
      '    data: T,',
      '    status?: U,',
      "  ): Response & TypedResponse<T, U, 'body'>",
      '  <T extends Data, U extends ContentfulStatusCode>(',
      '    data: T,',
      '    init?: ResponseOrInit<U>',
      "  ): Response & TypedResponse<T, U, 'body'>",
      '  <T extends null, U extends StatusCode>(',
      '    data: T,',
      '    init?: ResponseOrInit<U>',
      "  ): Response & TypedResponse<null, U, 'body'>",
      '}',
      'interface CreateHandlers {',
      '  <I extends Input = {}>(handler1: H<I>): [H<I>]',
      '  <',
      '    I extends Input = {},',
      '    I2 extends Input = I',
      '  >(handler1: H<I>, handler2: H<I2>): [H<I>, H<I2>]',
      '}',
      'interface Get<E extends Env> {',
      "  <Key extends keyof E['Variables']>(key: Key): E['Variables'][Key]",
      '  <Key extends keyof ContextVariableMap>(key: Key): ContextVariableMap[Key]',
      '}',
      'export class Context<E extends Env = any> {',
      '  header(name: string): string { return this.#headers.get(name) }',
      '  json = (object: unknown) => this.newResponse(JSON.stringify(object))',
      '  newResponse(body: string): Response { return new Response(body) }',
      '}',
      '',
    ].join('\n')
    for (const path of ['context.ts', 'context.tsx']) {
      const symbols = extractor.extract(path, source)
      expect(symbols.map((s) => `${s.kind} ${s.qualifiedName} L${s.startLine}`)).toEqual(expect.arrayContaining(['class Context L26', 'method Context.header L27', 'method Context.newResponse L29']))
      // positions and signatures come from the file as written, not the rewrite
      expect(symbols.find((s) => s.name === 'BodyRespond')?.signature).toBe('interface BodyRespond')
    }
    // a TSX file whose `<` lines are JSX is left as the grammar reads it
    const jsx = 'export function App() {\n  return (\n    <Layout>\n      <Item />\n    </Layout>\n  )\n}\n'
    expect(extractor.extract('app.tsx', jsx).map((s) => s.name)).toEqual(['App'])
  })

  it('counts lines and slices signatures correctly after non-ASCII text', () => {
    const source = "const s = 'größe 😀'\n\nexport function späť(a: string): void {\n  return\n}\n"
    expect(extractor.extract('u.ts', source)).toEqual([
      {
        name: 'späť',
        qualifiedName: 'späť',
        kind: 'function',
        startLine: 3,
        endLine: 5,
        signature: 'function späť(a: string): void',
        exported: true,
        parentIndex: null,
      },
    ])
  })

  it('truncates long signatures to 200 characters', () => {
    const params = Array.from({ length: 80 }, (_, i) => `p${i}: number`).join(', ')
    const [symbol] = extractor.extract('long.ts', `function f(${params}) {}\n`)
    expect(symbol.signature.length).toBe(200)
    expect(symbol.signature.startsWith('function f(p0: number, p1: number')).toBe(true)
  })
})
