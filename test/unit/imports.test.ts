import { describe, expect, it } from 'vitest'
import { importSpecifiers, resolveImport } from '../../src/parse/imports.js'
import { loadLanguageRegistry } from '../../src/parse/registry.js'

const registry = loadLanguageRegistry()
const rule = (id: string) => registry.get(id)!.imports!

describe('import specifiers (registry patterns)', () => {
  it('TypeScript: import/export from, side-effect imports, require and dynamic import; relative only', () => {
    const source = [
      "import { a } from './a.js'",
      'import {',
      '  b,',
      '  c,',
      "} from '../lib/b'",
      "import type { T } from './types'",
      "export * from './re-export'",
      "import './side-effect.css'",
      "const x = require('./cjs')",
      "const y = await import('./lazy.js')",
      "import fs from 'node:fs'",
      "import { z } from 'zod'",
      "// the word import in a comment: import nothing from here",
      "const s = 'from \"./not-an-import\"'",
    ].join('\n')
    expect(importSpecifiers(rule('typescript'), source)).toEqual(['./a.js', '../lib/b', './types', './re-export', './side-effect.css', './cjs', './lazy.js'])
  })

  it('Python: relative and absolute module imports', () => {
    const source = ['from . import sibling', 'from ..pkg.mod import thing', 'import os.path', 'from mypkg.util import helper', '    import local_in_function', 'x = "from fake import y"'].join('\n')
    expect(importSpecifiers(rule('python'), source)).toEqual(['.', '..pkg.mod', 'mypkg.util', 'os.path', 'local_in_function'])
  })
})

describe('resolving imports against the indexed files', () => {
  const known = new Set(['src/a.ts', 'src/lib/b.tsx', 'src/lib/index.ts', 'src/types.d.ts', 'src/util/index.js', 'pkg/__init__.py', 'pkg/mod.py', 'pkg/sub/deep.py', 'src/mypkg/util.py'])
  it('JavaScript/TypeScript: NodeNext .js → .ts, extensions, index files; packages and unknown files stay unresolved', () => {
    expect(resolveImport('js', 'src/main.ts', './a.js', known)).toBe('src/a.ts')
    expect(resolveImport('js', 'src/main.ts', './lib/b', known)).toBe('src/lib/b.tsx')
    expect(resolveImport('js', 'src/main.ts', './lib', known)).toBe('src/lib/index.ts')
    expect(resolveImport('js', 'src/lib/b.tsx', '../util', known)).toBe('src/util/index.js')
    expect(resolveImport('js', 'src/main.ts', './missing', known)).toBeNull()
    expect(resolveImport('js', 'src/a.ts', './a', known)).toBeNull()
  })
  it('Python: dots climb from the importing file; absolute modules from the root or a top-level source folder', () => {
    expect(resolveImport('python', 'pkg/sub/deep.py', '..mod', known)).toBe('pkg/mod.py')
    expect(resolveImport('python', 'pkg/sub/deep.py', '..', known)).toBe('pkg/__init__.py')
    expect(resolveImport('python', 'tools/run.py', 'pkg.sub.deep', known)).toBe('pkg/sub/deep.py')
    expect(resolveImport('python', 'src/mypkg/app.py', 'mypkg.util', known)).toBe('src/mypkg/util.py')
    expect(resolveImport('python', 'pkg/mod.py', 'os.path', known)).toBeNull()
  })
})
