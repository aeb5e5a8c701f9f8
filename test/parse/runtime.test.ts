/**
 * One tree-sitter runtime per process (src/parse/runtime.ts), shared by the symbol extractor and
 * the decisions' query checks: each keeps working while the other loads grammars, and a grammar
 * is loaded once however many ask for it.
 */
import { describe, expect, it } from 'vitest'
import { QueryChecker } from '../../src/knowledge/query-check.js'
import { createSymbolExtractor, installedLanguageRegistry } from '../../src/parse/index.js'
import { loadGrammar } from '../../src/parse/runtime.js'

describe('tree-sitter runtime', () => {
  it('an extractor keeps working after a query check loads grammars in the same process', async () => {
    const extractor = await createSymbolExtractor({ languages: ['typescript', 'python'] })
    try {
      const before = extractor.extractFile('a.ts', 'export function first(a: number) {\n  return a\n}\n')
      const check = new QueryChecker('(call_expression function: (identifier) @call (#eq? @call "eval"))')
      expect(await check.check('b.ts', 'eval("1")\nok()\n')).toEqual([{ line: 1, text: 'eval("1")' }])
      const checkPy = new QueryChecker('(call function: (identifier) @call (#eq? @call "eval"))')
      expect(await checkPy.check('c.py', 'x = 1\neval(x)\n')).toEqual([{ line: 2, text: 'eval(x)' }])
      check.close()
      checkPy.close()
      const after = extractor.extractFile('d.ts', 'export class Later {\n  method() {}\n}\n')
      expect(before.symbols.map((s) => s.qualifiedName)).toEqual(['first'])
      expect(after.symbols.map((s) => s.qualifiedName)).toEqual(['Later', 'Later.method'])
      expect(extractor.extractFile('e.py', 'def py_fn():\n    pass\n').symbols.map((s) => s.name)).toEqual(['py_fn'])
    } finally {
      extractor.close()
    }
  })

  it('loads a grammar once per process', async () => {
    const path = installedLanguageRegistry().get('typescript')!.wasmPath
    const [a, b] = await Promise.all([loadGrammar(path), loadGrammar(path)])
    expect(a).toBe(b)
    const two = await createSymbolExtractor({ languages: ['typescript'] })
    two.close()
    expect(await loadGrammar(path)).toBe(a)
  })
})
