/**
 * The code graph (issue 11) on a repository built to show each resolution case: an aliased
 * import, a barrel re-export, a default export, the same name in two files, `this` methods and
 * inherited ones, a TS `paths` alias, a workspace package, a Python relative import and `self`,
 * a Go package call, a Java static call, heritage and module-level calls. Then: an update that
 * changes what an unchanged file's calls resolve to must leave every edge equal to a fresh
 * `--force` build; `context` and `impact` answer from the edges and the history.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { context, impact, type ContextResult, type ImpactResult } from '../../src/services/codegraph.js'
import { IndexReader } from '../../src/services/index-reader.js'
import { connectStdio, structured } from '../mcp/client.js'
import { codeGraphEdges as edges } from '../helpers/compare.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const FILES: Record<string, string> = {
  'tsconfig.json': '{\n  // comments are allowed\n  "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["src/lib/*"] } },\n}\n',
  'src/util.ts': 'export function helper(): number {\n  return 1\n}\n\nexport default function main(): number {\n  return helper()\n}\n',
  'src/aliased.ts': "import { helper as h } from './util'\n\nexport function useAlias(): number {\n  return h()\n}\n",
  'src/lib/impl.ts': 'export function deep(): number {\n  return 2\n}\n',
  'src/lib/index.ts': "export * from './impl'\nexport { deep as renamedDeep } from './impl'\n",
  'src/barrel.ts': "import { deep, renamedDeep } from './lib'\n\nexport function viaBarrel(): number {\n  return deep() + renamedDeep()\n}\n",
  'src/defaulted.ts': "import run from './util.js'\n\nexport function viaDefault(): number {\n  return run()\n}\n",
  'src/x.ts': 'export function dup(): number {\n  return 3\n}\n\nexport function localDup(): number {\n  return dup()\n}\n',
  'src/y.ts': 'export function dup(): number {\n  return 4\n}\n',
  'src/pick.ts': "import { dup } from './y'\n\nexport function pickY(): number {\n  return dup()\n}\n",
  'src/aliasPath.ts': "import { deep } from '@lib/impl'\n\nexport function viaPaths(): number {\n  return deep()\n}\n",
  'src/shapes.ts': [
    'export interface Runner {',
    '  run(): void',
    '}',
    '',
    'export class Base {',
    '  inherited(): void {}',
    '}',
    '',
    'export class Svc extends Base implements Runner {',
    '  run(): void {',
    '    this.step()',
    '    this.inherited()',
    '  }',
    '  step(): void {}',
    '}',
    '',
    'export function build(): Svc {',
    '  return new Svc()',
    '}',
    '',
  ].join('\n'),
  'src/boot.ts': "import { build } from './shapes'\n\nbuild()\n",
  'packages/core/package.json': '{ "name": "@acme/core", "main": "dist/index.js" }\n',
  'packages/core/src/index.ts': 'export function coreFn(): number {\n  return 5\n}\n',
  'src/ws.ts': "import { coreFn } from '@acme/core'\n\nexport function viaWorkspace(): number {\n  return coreFn()\n}\n",
  'src/lonely1.ts': 'export function lonely(): number {\n  return 6\n}\n',
  'src/z.ts': 'export function callsLonely(): number {\n  return lonely()\n}\n',
  'pkg/__init__.py': '',
  'pkg/helpers.py': 'def assist(x):\n    return x + 1\n',
  'pkg/main.py': 'from .helpers import assist\n\n\nclass Job:\n    def go(self):\n        return self.prepare() + assist(1)\n\n    def prepare(self):\n        return 0\n',
  'go.mod': 'module example.com/m\n\ngo 1.21\n',
  'util/util.go': 'package util\n\nfunc Do() int {\n\treturn 1\n}\n',
  'cmd/main.go': 'package main\n\nimport "example.com/m/util"\n\nfunc main() {\n\tutil.Do()\n}\n',
  'java/com/acme/Util.java': 'package com.acme;\n\npublic class Util {\n  public static int twice(int x) {\n    return 2 * x;\n  }\n}\n',
  'java/com/acme/app/App.java': 'package com.acme.app;\n\nimport com.acme.Util;\n\npublic class App {\n  public int run() {\n    return Util.twice(2);\n  }\n}\n',
}

type Edge = { from: string; to: string; reason?: string; line?: number; confidence?: number }


const calls = (all: Record<string, string[]>) => all.calls.map((c) => JSON.parse(c) as Edge)
const callsFrom = (all: Record<string, string[]>, from: string) => calls(all).filter((c) => c.from === from).map((c) => `${c.to} ${c.reason}`)

/** Every edge of a fresh `--force` build of a clone of the repository. */
async function freshEdges(repo: TestRepo): Promise<Awaited<ReturnType<typeof edges>>> {
  const clone = repo.clone()
  try {
    await analyze({ repo: clone.dir, force: true })
    return await edges(clone.dir)
  } finally {
    clone.cleanup()
  }
}

describe('code graph', () => {
  let repo: TestRepo
  let graph: Record<string, string[]>

  beforeAll(async () => {
    repo = createRepo()
    for (const [p, text] of Object.entries(FILES)) repo.write(p, text)
    repo.commit('initial code')
    await analyze({ repo: repo.dir })
    graph = await edges(repo.dir)
  })
  afterAll(() => repo?.cleanup())

  test('an aliased import resolves to the exported name', () => {
    expect(callsFrom(graph, 'src/aliased.ts#useAlias')).toEqual(['src/util.ts#helper import-resolved'])
  })
  test('a barrel: `export *` and a renamed re-export lead to the defining file', () => {
    expect(callsFrom(graph, 'src/barrel.ts#viaBarrel')).toEqual(['src/lib/impl.ts#deep import-resolved'])
    expect(calls(graph).filter((c) => c.from === 'src/barrel.ts#viaBarrel').map((c) => c.line)).toEqual([4])
  })
  test('a default export, imported under another name with a NodeNext .js suffix', () => {
    expect(callsFrom(graph, 'src/defaulted.ts#viaDefault')).toEqual(['src/util.ts#main import-resolved'])
  })
  test('two functions of the same name: the file-local one, and the imported one', () => {
    expect(callsFrom(graph, 'src/x.ts#localDup')).toEqual(['src/x.ts#dup same-scope'])
    expect(callsFrom(graph, 'src/pick.ts#pickY')).toEqual(['src/y.ts#dup import-resolved'])
  })
  test('a TS paths alias and a workspace package by its package.json name', () => {
    expect(callsFrom(graph, 'src/aliasPath.ts#viaPaths')).toEqual(['src/lib/impl.ts#deep import-resolved'])
    expect(callsFrom(graph, 'src/ws.ts#viaWorkspace')).toEqual(['packages/core/src/index.ts#coreFn import-resolved'])
  })
  test('this: the own class first, then the class it extends; heritage edges', () => {
    expect(callsFrom(graph, 'src/shapes.ts#Svc.run').sort()).toEqual(['src/shapes.ts#Base.inherited receiver-type', 'src/shapes.ts#Svc.step receiver-type'])
    expect(graph.extends).toEqual([JSON.stringify({ from: 'src/shapes.ts#Svc', to: 'src/shapes.ts#Base' })])
    expect(graph.implements).toEqual([JSON.stringify({ from: 'src/shapes.ts#Svc', to: 'src/shapes.ts#Runner' })])
    expect(callsFrom(graph, 'src/shapes.ts#build')).toEqual(['src/shapes.ts#Svc same-scope'])
  })
  test('a name defined once in the repository, not imported: unique-name, under 0.5 in a module (it names a local or a global there)', () => {
    expect(calls(graph).filter((c) => c.from === 'src/z.ts#callsLonely')).toEqual([{ from: 'src/z.ts#callsLonely', to: 'src/lonely1.ts#lonely', reason: 'unique-name', line: 2, confidence: 0.3 }])
  })
  test('module-level calls come from the file\'s <module> symbol', () => {
    expect(callsFrom(graph, 'src/boot.ts#<module>')).toEqual(['src/shapes.ts#build import-resolved'])
    expect(graph.modules).toContain(JSON.stringify({ path: 'src/boot.ts', id: 'src/boot.ts#<module>' }))
  })
  test('Python: a relative import and a self method', () => {
    expect(callsFrom(graph, 'pkg/main.py#Job.go').sort()).toEqual(['pkg/helpers.py#assist import-resolved', 'pkg/main.py#Job.prepare receiver-type'])
  })
  test('Go: a package call through the module path in go.mod', () => {
    expect(callsFrom(graph, 'cmd/main.go#main')).toEqual(['util/util.go#Do import-resolved'])
  })
  test('Java: a static call on an imported class', () => {
    expect(callsFrom(graph, 'java/com/acme/app/App.java#App.run')).toEqual(['java/com/acme/Util.java#Util.twice import-resolved'])
  })
  test('IMPORTS: file to file, through every resolver', () => {
    for (const pair of [
      ['src/aliased.ts', 'src/util.ts'],
      ['src/barrel.ts', 'src/lib/index.ts'],
      ['src/lib/index.ts', 'src/lib/impl.ts'],
      ['src/aliasPath.ts', 'src/lib/impl.ts'],
      ['src/ws.ts', 'packages/core/src/index.ts'],
      ['pkg/main.py', 'pkg/helpers.py'],
      ['cmd/main.go', 'util/util.go'],
      ['java/com/acme/app/App.java', 'java/com/acme/Util.java'],
    ]) expect(graph.imports, pair.join(' → ')).toContain(JSON.stringify({ from: pair[0], to: pair[1] }))
  })

  test('context: callers, callees, heritage and the history line', async () => {
    const r = await context({ repo: repo.dir, target: 'src/shapes.ts:Svc' })
    expect(r.callers.map((c) => c.id)).toEqual(['src/shapes.ts#build'])
    expect(r.extends.map((s) => s.id)).toEqual(['src/shapes.ts#Base'])
    expect(r.implements.map((s) => s.id)).toEqual(['src/shapes.ts#Runner'])
    expect(r.importers).toEqual(['src/boot.ts'])
    expect(r.history.revisions).toBe(1)
    expect(r.history.owners.map((o) => o.email)).toEqual(['ada@example.test'])
    const helper = await context({ repo: repo.dir, target: 'src/util.ts:helper' })
    expect(helper.callers.map((c) => `${c.id} ${c.lines.join(',')}`).sort()).toEqual(['src/aliased.ts#useAlias 4', 'src/util.ts#main 6'])
  })

  test('incremental: a changed export re-resolves the unchanged importers; every edge equals a fresh build', async () => {
    // util.ts now re-exports helper from a new file; x.ts loses dup, so pick.ts is untouched but
    // aliased.ts's call must follow the re-export, and a new caller arrives
    repo.write('src/util.ts', "export { helper } from './helpers2'\n\nexport default function main(): number {\n  return 7\n}\n")
    repo.write('src/helpers2.ts', 'export function helper(): number {\n  return 1\n}\n')
    repo.write('src/y.ts', 'export function dup(): number {\n  return 4\n}\n\nexport function more(): number {\n  return dup()\n}\n')
    repo.write('src/shapes.ts', FILES['src/shapes.ts'].replace('    this.inherited()\n', ''))
    // a second definition elsewhere makes an untouched file's call ambiguous between untouched targets
    repo.write('src/lonely2.ts', 'export function lonely(): number {\n  return 8\n}\n')
    repo.commit('move helper')
    const summary = await analyze({ repo: repo.dir })
    expect(summary.mode).toBe('incremental')
    const updated = await edges(repo.dir)
    expect(updated).toEqual(await freshEdges(repo))
    expect(callsFrom(updated, 'src/aliased.ts#useAlias')).toEqual(['src/helpers2.ts#helper import-resolved'])
    expect(callsFrom(updated, 'src/shapes.ts#Svc.run')).toEqual(['src/shapes.ts#Svc.step receiver-type'])
    expect(callsFrom(updated, 'src/z.ts#callsLonely').sort()).toEqual(['src/lonely1.ts#lonely ambiguous', 'src/lonely2.ts#lonely ambiguous'])
    expect(summary.counts.calls).toBe(updated.calls.length)
  })

  test('incremental: a commit of tsconfig.json alone (no grammar parses it) resolves again; equals a fresh build', async () => {
    const before = callsFrom(await edges(repo.dir), 'src/aliasPath.ts#viaPaths')
    expect(before).toEqual(['src/lib/impl.ts#deep import-resolved'])
    // `@lib/*` now points nowhere: viaPaths's import resolves to no file
    repo.write('tsconfig.json', FILES['tsconfig.json'].replace('"src/lib/*"', '"nowhere/*"'))
    repo.commit('tsconfig: @lib points nowhere')
    expect((await analyze({ repo: repo.dir })).mode).toBe('incremental')
    const updated = await edges(repo.dir)
    expect(updated).toEqual(await freshEdges(repo))
    expect(callsFrom(updated, 'src/aliasPath.ts#viaPaths')).not.toEqual(before)
  })
})

describe('impact', () => {
  let repo: TestRepo
  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/core.ts', 'export function core(n: number): number {\n  return n\n}\n')
    repo.write('src/mid.ts', "import { core } from './core'\n\nexport function mid(): number {\n  return core(1)\n}\n")
    repo.write('src/top.ts', "import { mid } from './mid'\n\nexport function top(): number {\n  return mid()\n}\n")
    repo.write('test/top.test.ts', "import { top } from '../src/top'\n\ntop()\n")
    repo.write('src/settings.ts', 'export const LIMIT = 1\n')
    repo.commit('code')
    // core.ts and settings.ts change together, with no import between them
    for (let i = 2; i < 8; i++) {
      repo.write('src/core.ts', `export function core(n: number): number {\n  return n * ${i}\n}\n`)
      repo.write('src/settings.ts', `export const LIMIT = ${i}\n`)
      repo.commit(`tune ${i}`)
    }
    await analyze({ repo: repo.dir })
  })
  afterAll(() => repo?.cleanup())

  test('by depth up the callers, the tests that reach it, and the hidden coupling', async () => {
    const r = await impact({ repo: repo.dir, target: 'core' })
    expect(r.by_depth.map((d) => [d.depth, d.label, d.symbols.map((s) => s.id)])).toEqual([
      [1, 'will break', ['src/mid.ts#mid']],
      [2, 'likely affected', ['src/top.ts#top']],
      [3, 'may be affected', ['test/top.test.ts#<module>']],
    ])
    expect(r.by_depth[1].symbols[0].confidence).toBeCloseTo(0.81)
    expect(r.tests).toEqual(['test/top.test.ts'])
    expect(r.hidden_coupling.map((h) => h.path)).toEqual(['src/settings.ts'])
    expect(r.history.revisions).toBe(7)
    const one = await impact({ repo: repo.dir, target: 'core', depth: 1 })
    expect(one.tests).toEqual([])
    expect(one.summary.level).not.toBe('LOW')
    // a file with no symbols: nothing to walk, but history still knows its partner
    const settings = await impact({ repo: repo.dir, target: 'src/settings.ts', direction: 'both' })
    expect(settings.by_depth).toEqual([])
    expect(settings.hidden_coupling.map((h) => h.path)).toEqual(['src/core.ts'])
    expect((await context({ repo: repo.dir, target: 'src/settings.ts' })).callers).toEqual([])
    const down = await impact({ repo: repo.dir, target: 'top', direction: 'down' })
    expect(down.by_depth.map((d) => d.symbols.map((s) => s.id))).toEqual([['src/mid.ts#mid'], ['src/core.ts#core']])
  })
})

describe('a long-lived server keeps the code graph in memory', () => {
  let repo: TestRepo
  let home: string
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'gitwhy-graph-home-'))
    repo = createRepo()
    repo.write('src/core.ts', 'export function core(n: number): number {\n  return n\n}\n')
    repo.write('src/mid.ts', "import { core } from './core'\n\nexport function mid(): number {\n  return core(1)\n}\n")
    repo.commit('code')
    await analyze({ repo: repo.dir })
  })
  afterAll(() => {
    repo?.cleanup()
    rmSync(home, { recursive: true, force: true })
  })

  test('the same reader answers from one load; after a re-analyze the server answers from the new graph', async () => {
    const reader = await IndexReader.open(repo.dir)
    try {
      const first = reader.codeGraph()
      expect(reader.codeGraph()).toBe(first)
      expect((await context({ reader, target: 'core' })).callers.map((c) => c.id)).toEqual(['src/mid.ts#mid'])
    } finally {
      await reader.close()
    }
    const { client } = await connectStdio({ cwd: repo.dir, env: { ...repo.env(), GITWHY_HOME: home } })
    try {
      const callers = async () => structured<ContextResult>(await client.callTool({ name: 'context', arguments: { target: 'core' } })).callers.map((c) => c.id)
      const affected = async () => structured<ImpactResult>(await client.callTool({ name: 'impact', arguments: { target: 'core' } })).by_depth.flatMap((d) => d.symbols.map((s) => s.id))
      expect(await callers()).toEqual(['src/mid.ts#mid'])
      expect(await affected()).toEqual(['src/mid.ts#mid'])
      // a new caller of core, and one of mid: the graph the server holds is the old index's
      repo.write('src/extra.ts', "import { core } from './core'\nimport { mid } from './mid'\n\nexport function extra(): number {\n  return core(2) + mid()\n}\n")
      repo.commit('another caller')
      await analyze({ repo: repo.dir })
      expect(await callers()).toEqual(['src/extra.ts#extra', 'src/mid.ts#mid'])
      expect((await affected()).sort()).toEqual(['src/extra.ts#extra', 'src/mid.ts#mid'])
    } finally {
      await client.close()
    }
  })
})
