/**
 * An update re-resolves only the files that changed when no change touched what other files'
 * resolution reads (resolutionFace): the result must be exactly the code graph a whole build
 * gives, in the same order. Each edit below keeps the faces; the last ones change them.
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildCodeGraph, resolutionFace } from '../../src/codegraph/resolve.js'
import { isModuleConfigFile } from '../../src/codegraph/modules.js'
import { createSymbolExtractor, installedLanguageRegistry, type SymbolExtractor } from '../../src/parse/index.js'
import type { IndexedFile } from '../../src/services/index-layout.js'

const FILES: Record<string, string> = {
  'package.json': '{ "name": "app" }\n',
  'src/util.ts': 'export function helper(): number {\n  return 1\n}\n\nexport default function main(): number {\n  return helper()\n}\n',
  'src/lib/impl.ts': 'export function deep(): number {\n  return 2\n}\n',
  'src/lib/index.ts': "export * from './impl'\n",
  'src/shapes.ts': [
    'export interface Runner {\n  run(): void\n}',
    'export class Base {\n  inherited(): number {\n    return 1\n  }\n  step(): number {\n    return 0\n  }\n}',
    'export class Svc extends Base implements Runner {\n  run(): void {\n    this.step()\n    this.inherited()\n  }\n  step(): number {\n    return 2\n  }\n}',
    'export function build(): Svc {\n  return new Svc()\n}',
  ].join('\n\n') + '\n',
  'src/use.ts': [
    "import { helper } from './util'",
    "import main from './util'",
    "import { deep } from './lib'",
    "import { build, Svc } from './shapes'",
    '',
    'export function useAll(): number {',
    '  const s = new Svc()',
    '  s.run()',
    '  return helper() + deep()',
    '}',
    '',
    'export function second(): number {',
    '  return main()',
    '}',
    '',
    'build()',
  ].join('\n') + '\n',
  'src/lonely.ts': 'export function lonely(): number {\n  return 8\n}\n',
  'src/z.ts': 'export function callsLonely(): number {\n  return lonely()\n}\n',
  'pkg/__init__.py': '',
  'pkg/helpers.py': 'def assist(x):\n    return x + 1\n',
  'pkg/main.py': 'from .helpers import assist\n\n\nclass Job:\n    def go(self):\n        return self.prepare() + assist(1)\n\n    def prepare(self):\n        return 0\n',
}

let extractor: SymbolExtractor
const registry = installedLanguageRegistry()

function indexed(sources: Record<string, string>): IndexedFile[] {
  return Object.entries(sources)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, text]) => {
      const language = extractor.languageOf(path)
      const x = language ? extractor.extractFile(path, text) : null
      const f: IndexedFile = { path, blob: createHash('sha1').update(text).digest('hex'), lines: text.split('\n').length - 1, language, symbols: x?.symbols ?? [] }
      if (x?.references.length) f.references = x.references
      if (x?.bindings.length) f.bindings = x.bindings
      if (x?.imports.length) f.imports = x.imports
      if (x?.exports.length) f.exports = x.exports
      if (x?.entries.length) f.entries = x.entries
      if (isModuleConfigFile(path)) f.config = text
      return f
    })
}

/** The changed files, when their faces are unchanged (what the update checks), else null. */
function dirtyIfSameFaces(before: IndexedFile[], after: IndexedFile[]): Set<string> | null {
  const old = new Map(before.map((f) => [f.path, f]))
  const dirty = new Set<string>()
  for (const f of after) {
    const o = old.get(f.path)!
    if (o.blob === f.blob) continue
    if (resolutionFace(o) !== resolutionFace(f)) return null
    dirty.add(f.path)
  }
  return dirty
}

beforeAll(async () => {
  extractor = await createSymbolExtractor({ registry, languages: ['typescript', 'python'] })
})
afterAll(() => extractor?.close())

const edit = (path: string, change: (text: string) => string) => ({ ...FILES, [path]: change(FILES[path]) })

describe('code graph: re-resolving only the changed files', () => {
  const sameFace: Array<[string, Record<string, string>]> = [
    ['a call added in a body', edit('src/use.ts', (t) => t.replace('  return main()', '  deep()\n  return main()'))],
    ['a local of a name and type the file states already', edit('src/use.ts', (t) => t.replace('  return main()', '  const s = new Svc()\n  s.step()\n  return main()'))],
    ['a call removed', edit('src/shapes.ts', (t) => t.replace('    this.inherited()\n', ''))],
    ['lines shifted before every call', edit('src/use.ts', (t) => t.replace('export function useAll', '\n\n\nexport function useAll'))],
    ['module-level calls appear in a file that had none', edit('src/z.ts', (t) => `${t}\ncallsLonely()\n`)],
    ['module-level calls go away', edit('src/use.ts', (t) => t.replace('build()\n', ''))],
    ['a Python self call and two files at once', { ...edit('pkg/main.py', (t) => t.replace('return 0', 'return self.go()')), 'src/z.ts': FILES['src/z.ts'].replace('lonely()', 'lonely() + helper()') }],
  ]
  for (const [name, sources] of sameFace) {
    test(`${name}: the same graph as a whole build`, () => {
      const before = indexed(FILES)
      const after = indexed(sources)
      const dirty = dirtyIfSameFaces(before, after)
      expect(dirty, 'the faces stay the same').not.toBeNull()
      expect(dirty!.size).toBeGreaterThan(0)
      const whole = buildCodeGraph(after, registry)
      const reused = buildCodeGraph(after, registry, { previous: buildCodeGraph(before, registry), dirty: dirty! })
      expect(reused).toEqual(whole)
      expect(JSON.stringify(reused)).toBe(JSON.stringify(whole))
    })
  }

  test('a change other files read changes the face (and the update resolves every file again)', () => {
    const before = indexed(FILES)
    for (const sources of [
      edit('src/util.ts', (t) => t.replace('function helper', 'function helper2')), // a renamed export
      edit('src/shapes.ts', (t) => t.replace('extends Base ', '')), // heritage
      edit('src/lib/index.ts', () => "export { deep } from './impl'\n"), // a re-export
      edit('package.json', () => '{ "name": "app2" }\n'), // module configuration
      edit('src/z.ts', (t) => t.replace('callsLonely()', 'callsLonely(s: Svc)')), // a type stated for a name (other files' untyped `s`)
    ]) expect(dirtyIfSameFaces(before, indexed(sources))).toBeNull()
  })
})
