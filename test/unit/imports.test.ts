import { describe, expect, it } from 'vitest'
import { ModuleResolver } from '../../src/codegraph/modules.js'
import { createSymbolExtractor } from '../../src/parse/index.js'
import type { IndexedFile } from '../../src/services/index-layout.js'

const extractor = await createSymbolExtractor()
const sources = (path: string, text: string) => extractor.extractFile(path, text).imports.map((i) => i.source)

describe('imports from the queries (queries/<lang>/imports.scm)', () => {
  it('TypeScript: import/export from, side-effect imports, require and dynamic import; comments and strings are not imports', () => {
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
      '// the word import in a comment: import nothing from here',
      "const s = 'from \"./not-an-import\"'",
    ].join('\n')
    expect(sources('m.ts', source).sort()).toEqual(['../lib/b', './a.js', './cjs', './lazy.js', './re-export', './side-effect.css', './types', 'node:fs'].sort())
    const x = extractor.extractFile('m.ts', "import d, { a as b } from './x'\nimport * as ns from './y'\nexport { q as r } from './z'\nexport default d\n")
    expect(x.imports).toEqual([
      { source: './x', line: 1, bindings: [{ local: 'b', imported: 'a' }, { local: 'd', imported: 'default' }], reexport: false },
      { source: './y', line: 2, bindings: [{ local: 'ns', imported: '*' }], reexport: false },
      { source: './z', line: 3, bindings: [{ local: 'r', imported: 'q' }], reexport: true },
    ])
    expect(x.exports).toEqual([{ local: 'd', exported: 'default' }])
  })

  it('Python: relative and absolute module imports, in functions too, not in strings', () => {
    const source = ['from . import sibling', 'from ..pkg.mod import thing', 'import os.path', 'from mypkg.util import helper as h', 'def f():', '    import local_in_function', 'x = "from fake import y"'].join('\n')
    expect(sources('m.py', source)).toEqual(['.', '..pkg.mod', 'os.path', 'mypkg.util', 'local_in_function'])
  })
})

const file = (path: string, config?: string): IndexedFile => ({ path, blob: '', lines: 1, language: null, symbols: [], ...(config ? { config } : {}) })

describe('resolving imports against the indexed files', () => {
  const resolver = new ModuleResolver(
    ['src/a.ts', 'src/lib/b.tsx', 'src/lib/index.ts', 'src/types.d.ts', 'src/util/index.js', 'pkg/__init__.py', 'pkg/mod.py', 'pkg/sub/deep.py', 'src/mypkg/util.py', 'go/util/u.go', 'go/util/u_test.go', 'j/com/a/B.java'].map((p) => file(p))
      .concat([file('tsconfig.json', '{ "compilerOptions": { "paths": { "~/*": ["src/*"] } } }'), file('go/go.mod', 'module example.com/m\n'), file('packages/p/package.json', '{"name": "@s/p", "main": "./dist/index.js"}'), file('packages/p/src/index.ts')]),
  )
  it('JavaScript/TypeScript: NodeNext .js → .ts, extensions, index files, paths aliases, workspace packages; npm packages stay unresolved', () => {
    expect(resolver.resolve('js', 'src/main.ts', './a.js')).toEqual(['src/a.ts'])
    expect(resolver.resolve('js', 'src/main.ts', './lib/b')).toEqual(['src/lib/b.tsx'])
    expect(resolver.resolve('js', 'src/main.ts', './lib')).toEqual(['src/lib/index.ts'])
    expect(resolver.resolve('js', 'src/lib/b.tsx', '../util')).toEqual(['src/util/index.js'])
    expect(resolver.resolve('js', 'src/main.ts', '~/lib/b')).toEqual(['src/lib/b.tsx'])
    expect(resolver.resolve('js', 'src/main.ts', '@s/p')).toEqual(['packages/p/src/index.ts'])
    expect(resolver.resolve('js', 'src/main.ts', './missing')).toEqual([])
    expect(resolver.resolve('js', 'src/a.ts', './a')).toEqual([])
    expect(resolver.resolve('js', 'src/a.ts', 'react')).toEqual([])
  })
  it('Python: dots climb from the importing file; absolute modules from the root or a top-level source folder', () => {
    expect(resolver.resolve('python', 'pkg/sub/deep.py', '..mod')).toEqual(['pkg/mod.py'])
    expect(resolver.resolve('python', 'pkg/sub/deep.py', '..')).toEqual(['pkg/__init__.py'])
    expect(resolver.resolve('python', 'tools/run.py', 'pkg.sub.deep')).toEqual(['pkg/sub/deep.py'])
    expect(resolver.resolve('python', 'src/mypkg/app.py', 'mypkg.util')).toEqual(['src/mypkg/util.py'])
    expect(resolver.resolve('python', 'pkg/mod.py', 'os.path')).toEqual([])
  })
  it('Go: a package by the module path (its non-test files); Java: a class, a static member, by folder', () => {
    expect(resolver.resolve('go', 'go/main.go', 'example.com/m/util')).toEqual(['go/util/u.go'])
    expect(resolver.resolve('go', 'go/main.go', 'fmt')).toEqual([])
    expect(resolver.resolve('java', 'j/com/x/A.java', 'com.a.B')).toEqual(['j/com/a/B.java'])
    expect(resolver.resolve('java', 'j/com/x/A.java', 'com.a.B.twice')).toEqual(['j/com/a/B.java'])
    expect(resolver.resolve('java', 'j/com/x/A.java', 'java.util.List')).toEqual([])
  })
})
