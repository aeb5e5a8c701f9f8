/**
 * Call resolution beyond the first increment (codegraph.test.ts): receivers whose type a
 * declaration says, Rust `mod`/`use`, and tsconfig `extends`.
 *
 * Receivers whose type a declaration says (issue 11, "a constructor call, an annotated
 * parameter"): the tags queries' @binding.* captures give each variable, parameter, Go receiver
 * and field its type, and `x.m()` resolves to that type's method as receiver-type. Each case has a
 * decoy: a method of the same name on another type, so that the name alone would be ambiguous.
 * A receiver typed by something the repository does not define gets no edge at all.
 * Rust: module files and paths. tsconfig: `paths` and `baseUrl` inherited through `extends`, each
 * relative to the config that declares it; a decoy of the same name elsewhere in each case.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { codeGraphEdges as edges } from '../helpers/compare.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const FILES: Record<string, string> = {
  // TypeScript: two classes with a method `run`, so `x.run()` by name is ambiguous
  'ts/svc.ts': 'export class Svc {\n  run(): number {\n    return 1\n  }\n}\n\nexport class Other {\n  run(): number {\n    return 2\n  }\n}\n',
  'ts/use.ts': [
    "import { Svc } from './svc'",
    "import * as svcs from './svc'",
    '',
    'export function constructed(): number {',
    '  const s = new Svc()',
    '  return s.run()',
    '}',
    '',
    'export const annotated = (svc: Svc) => svc.run()',
    '',
    'export function qualified(o: svcs.Other): number {',
    '  return o.run()',
    '}',
    '',
    'export class Holder {',
    '  private other: svcs.Other',
    '  constructor(private svc: Svc) {',
    '    this.other = new svcs.Other()',
    '  }',
    '  go(): number {',
    '    return this.svc.run() + this.other.run()',
    '  }',
    '}',
    '',
    'export function builtin(m: Map<string, number>): number {',
    '  return m.size + (m.get("run") ?? 0)',
    '}',
    '',
    'export function shadowed(): number {',
    '  const run = new Map<string, Svc>()',
    '  return run.get("x")!.run()',
    '}',
    '',
  ].join('\n'),
  // an interface-typed receiver: the implementations (not an unrelated class's method of the same name)
  'ts/router.ts': 'export interface Router<T> {\n  add(p: T): void\n}\n\nexport class TrieRouter<T> implements Router<T> {\n  add(p: T): void {}\n}\n\nexport class LinearRouter implements Router<string> {\n  add(p: string): void {}\n}\n\nexport class Unrelated {\n  add(p: string): void {}\n}\n',
  'ts/app.ts': "import type { Router } from './router'\n\nexport class App {\n  constructor(private router: Router<string>) {}\n  route(): void {\n    this.router.add('/')\n  }\n}\n",
  // a guess by name never lands in a test file: production code does not call into tests
  'ts/fixtures.test.ts': 'export function onlyInTests(): number {\n  return 1\n}\n',
  'ts/lonely.ts': 'export function onlyHere(): number {\n  return 2\n}\n',
  'ts/guess.ts': 'export function guesses(): number {\n  return onlyInTests() + onlyHere()\n}\n',
  // an object literal's method inside a function is no candidate for `x.m()` on an unknown x
  'ts/proxy.ts': 'export function makeProxy(): object {\n  return new Proxy({}, {\n    peek(): number {\n      return 1\n    },\n  })\n}\n',
  'ts/peeker.ts': 'export function peeks(m: any): number {\n  return m.peek()\n}\n',
  // a getter's declared return type types the property: `c.req.header()` (hono's Context)
  'ts/ctx/request.ts': 'export class HonoRequest {\n  header(name: string): string {\n    return name\n  }\n}\n',
  'ts/ctx/response.ts': 'export class ResponseBuilder {\n  header(name: string): string {\n    return name\n  }\n}\n',
  'ts/ctx/context.ts': "import { HonoRequest } from './request'\nimport { ResponseBuilder } from './response'\n\nexport class Context {\n  get req(): HonoRequest {\n    return new HonoRequest()\n  }\n  res?: ResponseBuilder\n}\n",
  // `c` only inference types: `req` is a field of one class alone, `res` of two
  'ts/ctx/routes.ts': "export function routes(register: (h: (c: unknown) => string) => void): void {\n  register((c) => c.req.header('accept'))\n  register((c) => c.res.header('etag'))\n}\n",
  'ts/ctx/pending.ts': "import { HonoRequest } from './request'\n\nexport class Pending {\n  res?: HonoRequest\n}\n",
  // `this.method()` in a base class: its own (abstract) method, and each subclass's override
  'ts/processors.ts': "export abstract class Processor {\n  handle(): string {\n    return this.method()\n  }\n  abstract method(): string\n}\n\nexport class GetProcessor extends Processor {\n  method(): string {\n    return 'GET'\n  }\n}\n\nexport class PostProcessor extends Processor {\n  method(): string {\n    return 'POST'\n  }\n}\n",
  // JS private names: a `#` method through `this`, a `#` field's stated type
  'ts/priv.ts': "import { Svc } from './svc'\n\nexport class Vault {\n  #svc: Svc = new Svc()\n  open(): number {\n    return this.#unlock() + this.#svc.run()\n  }\n  #unlock(): number {\n    return 1\n  }\n}\n",
  'ts/ctx/cors.ts': "import type { Context } from './context'\n\nexport function cors(c: Context): string {\n  return c.req.header('origin')\n}\n",
  // a type a module neither defines nor imports is a global (the DOM's Response), not the
  // repository's one `Response` in a file it does not import: no guess on its methods
  'ts/client/types.ts': 'export interface Response {\n  ok: boolean\n}\n',
  'ts/body.ts': 'export class Body {\n  arrayBuffer(): number {\n    return 1\n  }\n}\n',
  'ts/ssg.ts': 'export function parse(response: Response): unknown {\n  return response.arrayBuffer()\n}\n',
  // guesses by name on an unknown receiver: one method of that name, or several
  'ts/only.ts': 'export class Only {\n  only(): number {\n    return 1\n  }\n}\n',
  'ts/unknown.ts': 'export function poke(x: any): number {\n  return x.only() + x.run()\n}\n',
  // a script (no import, no export): its bare names may be another script's globals
  'ts/script.js': 'function boot() {\n  return onlyHere()\n}\n',
  // `x.m()` with `x` untyped: the type the repository's files state for the name `x`, when three
  // or more do and (nearly) all agree; `send` is ambiguous by name (Conn and Socket)
  'ts/named/conn.ts': 'export class Conn {\n  send(): number {\n    return 1\n  }\n}\n\nexport class Socket {\n  send(): number {\n    return 2\n  }\n}\n',
  'ts/named/a.ts': "import { Conn, Socket } from './conn'\n\nexport const a = (conn: Conn, sock: Conn): number => conn.send() + sock.send()\n",
  'ts/named/b.ts': "import { Conn, Socket } from './conn'\n\nexport const b = (conn: Conn, sock: Socket): number => conn.send() + sock.send()\n",
  'ts/named/c.ts': "import { Conn } from './conn'\n\nexport function c(): number {\n  const conn = new Conn()\n  return conn.send()\n}\n",
  'ts/named/handlers.ts': [
    'export function handlers(on: (h: (x: never) => number) => void): void {',
    '  on((conn) => conn.send())',
    // `sock` is a Conn in one file, a Socket in another: no type for the name
    '  on((sock) => sock.send())',
    '}',
    '',
  ].join('\n'),
  // Python: a constructor call, an annotated parameter, a field set in __init__
  'py/svc.py': 'class Svc:\n    def run(self):\n        return 1\n\n\nclass Other:\n    def run(self):\n        return 2\n',
  'py/use.py': [
    'from .svc import Svc, Other',
    '',
    '',
    'def constructed():',
    '    s = Svc()',
    '    return s.run()',
    '',
    '',
    'def annotated(o: Other):',
    '    return o.run()',
    '',
    '',
    'class Holder:',
    '    def __init__(self):',
    '        self.svc = Svc()',
    '',
    '    def go(self):',
    '        return self.svc.run()',
    '',
  ].join('\n'),
  'py/__init__.py': '',
  // Go: a method's receiver, a parameter, a struct field; the methods in another file of the package
  'go.mod': 'module example.com/m\n\ngo 1.21\n',
  'cmd/command.go': 'package cmd\n\ntype Command struct {\n\tparent *Command\n}\n\ntype Flag struct{}\n',
  'cmd/methods.go': [
    'package cmd',
    '',
    'func (c *Command) Find() *Command {',
    '\treturn c',
    '}',
    '',
    'func (f *Flag) Find() int {',
    '\treturn 0',
    '}',
    '',
    'func (c *Command) Root() *Command {',
    '\tc.Find()',
    '\treturn c.parent.Find()',
    '}',
    '',
    'func lookup(f Flag) int {',
    '\treturn f.Find()',
    '}',
    '',
  ].join('\n'),
  // Java: a typed parameter, a `var` with a constructor, a field used without `this.`
  'java/a/Svc.java': 'package a;\n\npublic class Svc {\n  public int run() {\n    return 1;\n  }\n}\n',
  'java/a/Other.java': 'package a;\n\npublic class Other {\n  public int run() {\n    return 2;\n  }\n}\n',
  'java/a/Use.java': [
    'package a;',
    '',
    'public class Use {',
    '  private Svc svc;',
    '',
    '  public int param(Other o) {',
    '    return o.run();',
    '  }',
    '',
    '  public int local() {',
    '    var s = new Svc();',
    '    return s.run();',
    '  }',
    '',
    '  public int field() {',
    '    return svc.run();',
    '  }',
    '}',
    '',
  ].join('\n'),
  // Kotlin: a constructor property and a local assigned a constructor call
  'kt/Svc.kt': 'class Svc {\n    fun run(): Int = 1\n}\n\nclass Other {\n    fun run(): Int = 2\n}\n',
  'kt/Use.kt': 'class Use(private val other: Other) {\n    fun go(): Int {\n        val s = Svc()\n        return s.run() + other.run()\n    }\n}\n',
  // Rust: `mod` files (foo.rs, foo/mod.rs), `use crate::…`, `super::`, a module path call; decoys of the same names
  'rs/src/lib.rs': 'mod util;\npub mod net;\nmod other;\n\npub fn start() -> u32 {\n    util::helper() + net::client::connect()\n}\n',
  'rs/src/util.rs': 'pub struct Config {}\n\nimpl Config {\n    pub fn new() -> Config {\n        Config {}\n    }\n}\n\npub fn helper() -> u32 {\n    1\n}\n',
  'rs/src/other.rs': 'pub struct Other {}\n\nimpl Other {\n    pub fn new() -> Other {\n        Other {}\n    }\n}\n\npub fn helper() -> u32 {\n    2\n}\n\npub fn connect() -> u32 {\n    3\n}\n',
  'rs/src/net/mod.rs': 'pub mod client;\n',
  'rs/src/net/client.rs': [
    'use crate::util::{helper, Config};',
    'use super::super::util as u;',
    '',
    'pub fn connect() -> u32 {',
    '    let _c = Config::new();',
    '    helper() + u::helper() + crate::util::helper()',
    '}',
    '',
  ].join('\n'),
  // tsconfig `extends`: baseUrl (relative to the base config) + paths relative to it
  'web/tsconfig.base.json': '{\n  "compilerOptions": { "baseUrl": "./src", "paths": { "~/*": ["lib/*"] } }\n}\n',
  'web/app/tsconfig.json': '{ "extends": "../tsconfig.base.json", "compilerOptions": { "strict": true } }\n',
  'web/src/lib/fmt.ts': 'export function fmt(): string {\n  return "a"\n}\n',
  'web/app/fmt.ts': 'export function fmt(): string {\n  return "decoy"\n}\n',
  'web/app/main.ts': "import { fmt } from '~/fmt'\n\nexport function render(): string {\n  return fmt()\n}\n",
  // paths without a baseUrl: relative to the config that declares them (extends without .json)
  'web2/tsconfig.base.json': '{ "compilerOptions": { "paths": { "#lib/*": ["./shared/*"] } } }\n',
  'web2/pkg/tsconfig.json': '{ "extends": "../tsconfig.base" }\n',
  'web2/shared/x.ts': 'export function shared(): number {\n  return 1\n}\n',
  'web2/pkg/shared.ts': 'export function shared(): number {\n  return 2\n}\n',
  'web2/pkg/m.ts': "import { shared } from '#lib/x'\n\nexport function useShared(): number {\n  return shared()\n}\n",
}

type Edge = { from: string; to: string; reason: string; line: number; confidence: number }

describe('code graph: receivers typed by their declarations, Rust modules, tsconfig extends', () => {
  let repo: TestRepo
  let calls: Edge[]
  const from = (id: string) => calls.filter((c) => c.from === id).map((c) => `L${c.line} ${c.to} ${c.reason} ${c.confidence}`).sort()

  beforeAll(async () => {
    repo = createRepo()
    for (const [p, text] of Object.entries(FILES)) repo.write(p, text)
    repo.commit('receivers')
    await analyze({ repo: repo.dir })
    calls = (await edges(repo.dir)).calls.map((c) => JSON.parse(c) as Edge)
  })
  afterAll(() => repo?.cleanup())

  test('TypeScript: a `new` constructor call, an annotated parameter, a namespace-qualified type', () => {
    expect(from('ts/use.ts#constructed')).toEqual(['L5 ts/svc.ts#Svc import-resolved 0.9', 'L6 ts/svc.ts#Svc.run receiver-type 0.85'])
    expect(from('ts/use.ts#annotated')).toEqual(['L9 ts/svc.ts#Svc.run receiver-type 0.85'])
    expect(from('ts/use.ts#qualified')).toEqual(['L12 ts/svc.ts#Other.run receiver-type 0.85'])
  })
  test('TypeScript: fields through `this` (a constructor parameter property, an assigned `new`)', () => {
    expect(from('ts/use.ts#Holder.go')).toEqual(['L21 ts/svc.ts#Other.run receiver-type 0.85', 'L21 ts/svc.ts#Svc.run receiver-type 0.85'])
  })
  test('an interface-typed receiver (generic): each implementation of the method, with the lower dispatch confidence', () => {
    expect(from('ts/app.ts#App.route')).toEqual(['L6 ts/router.ts#LinearRouter.add receiver-type 0.6', 'L6 ts/router.ts#TrieRouter.add receiver-type 0.6'])
  })
  test('a name defined once, but in a test file, is no guess; elsewhere it is unique-name, below 0.5 in a module that does not import it', () => {
    expect(from('ts/guess.ts#guesses')).toEqual(['L2 ts/lonely.ts#onlyHere unique-name 0.3'])
    expect(from('ts/script.js#boot')).toEqual(['L2 ts/lonely.ts#onlyHere unique-name 0.6'])
  })
  test('TypeScript: a getter\'s return type types the property (`c.req.header()`)', () => {
    expect(from('ts/ctx/cors.ts#cors')).toEqual(['L4 ts/ctx/request.ts#HonoRequest.header receiver-type 0.85'])
  })
  test('TypeScript: `x.f.m()` with `x` untyped, where one class alone declares `f` with a stated type', () => {
    expect(from('ts/ctx/routes.ts#routes')).toEqual([
      'L2 ts/ctx/request.ts#HonoRequest.header receiver-type 0.7',
      // two classes declare `res`: the name alone decides, between the two `header`s
      'L3 ts/ctx/request.ts#HonoRequest.header ambiguous 0.13',
      'L3 ts/ctx/response.ts#ResponseBuilder.header ambiguous 0.13',
    ])
  })
  test('TypeScript: `x.m()` with `x` untyped, where the files that state a type for the name `x` agree on one', () => {
    expect(from('ts/named/handlers.ts#handlers')).toEqual([
      'L2 ts/named/conn.ts#Conn.send receiver-type 0.65',
      'L3 ts/named/conn.ts#Conn.send ambiguous 0.13',
      'L3 ts/named/conn.ts#Socket.send ambiguous 0.13',
    ])
  })
  test('`this.m()` in a base class: the method it declares, and each override below it with the dispatch confidence', () => {
    expect(from('ts/processors.ts#Processor.handle')).toEqual([
      'L3 ts/processors.ts#GetProcessor.method receiver-type 0.6',
      'L3 ts/processors.ts#PostProcessor.method receiver-type 0.6',
      'L3 ts/processors.ts#Processor.method receiver-type 0.85',
    ])
  })
  test('TypeScript: a private `#` method through `this`, and a `#` field\'s stated type', () => {
    expect(from('ts/priv.ts#Vault.open')).toEqual(['L6 ts/priv.ts#Vault.#unlock receiver-type 0.85', 'L6 ts/svc.ts#Svc.run receiver-type 0.85'])
  })
  test('TypeScript: a type the module neither defines nor imports is a global: no guess on its methods', () => {
    expect(from('ts/ssg.ts#parse')).toEqual([])
  })
  test('confidence means precision: guesses by name stay under the default 0.5, resolved calls reach it', () => {
    // measured against the TypeScript compiler (bench/codegraph-ts-oracle.mjs): a guess of the one
    // method of that name is right ~40 % of the time, of an unbound bare name ~30 %, of one of n ~20 % / n
    expect(from('ts/unknown.ts#poke')).toEqual(['L2 ts/only.ts#Only.only unique-name 0.4', 'L2 ts/svc.ts#Other.run ambiguous 0.13', 'L2 ts/svc.ts#Svc.run ambiguous 0.13'])
    const js = calls.filter((c) => /\.[jt]sx?$/.test(c.from.split('#')[0]) && !c.from.startsWith('ts/script.js'))
    const order = ['ambiguous', 'unique-name', 'receiver-type', 'import-resolved', 'same-scope']
    for (const c of js) {
      if (c.reason === 'ambiguous' || c.reason === 'unique-name') expect(c.confidence, JSON.stringify(c)).toBeLessThan(0.5)
      else expect(c.confidence, JSON.stringify(c)).toBeGreaterThanOrEqual(0.5)
    }
    const present = order.filter((r) => js.some((c) => c.reason === r))
    expect(present).toEqual(['ambiguous', 'unique-name', 'receiver-type', 'import-resolved'])
    const best = (reason: string) => Math.max(...js.filter((c) => c.reason === reason).map((c) => c.confidence))
    expect(present.map(best)).toEqual([...present.map(best)].sort((a, b) => a - b))
  })
  test('an object literal\'s method inside a function is no guess for an unknown receiver', () => {
    expect(from('ts/peeker.ts#peeks')).toEqual([])
  })
  test('a receiver of a type from outside the repository gets no edge, and a local shadows by scope', () => {
    expect(from('ts/use.ts#builtin')).toEqual([])
    // `run` is a Map here: its .get is not a repository method; the .run() on the result is unknown
    expect(from('ts/use.ts#shadowed').filter((e) => e.includes('#Svc.run receiver-type'))).toEqual([])
  })
  test('Python: a constructor call, an annotated parameter, a field set in __init__', () => {
    expect(from('py/use.py#constructed')).toEqual(['L5 py/svc.py#Svc import-resolved 0.9', 'L6 py/svc.py#Svc.run receiver-type 0.85'])
    expect(from('py/use.py#annotated')).toEqual(['L10 py/svc.py#Other.run receiver-type 0.85'])
    expect(from('py/use.py#Holder.go')).toEqual(['L18 py/svc.py#Svc.run receiver-type 0.85'])
  })
  test('Go: a method receiver, a struct field, a parameter; methods in another file of the package', () => {
    expect(from('cmd/methods.go#Command.Root')).toEqual(['L12 cmd/methods.go#Command.Find receiver-type 0.85', 'L13 cmd/methods.go#Command.Find receiver-type 0.85'])
    expect(from('cmd/methods.go#lookup')).toEqual(['L17 cmd/methods.go#Flag.Find receiver-type 0.85'])
  })
  test('Java: a typed parameter, `var` with a constructor, a field without `this.`', () => {
    expect(from('java/a/Use.java#Use.param')).toEqual(['L7 java/a/Other.java#Other.run receiver-type 0.85'])
    expect(from('java/a/Use.java#Use.local').filter((e) => e.includes('run'))).toEqual(['L12 java/a/Svc.java#Svc.run receiver-type 0.85'])
    expect(from('java/a/Use.java#Use.field')).toEqual(['L16 java/a/Svc.java#Svc.run receiver-type 0.85'])
  })
  test('Rust: `mod` and `use` (crate::, super::, a module path) resolve through the module files', async () => {
    expect(from('rs/src/lib.rs#start')).toEqual(['L6 rs/src/net/client.rs#connect import-resolved 0.9', 'L6 rs/src/util.rs#helper import-resolved 0.9'])
    expect(from('rs/src/net/client.rs#connect')).toEqual(['L5 rs/src/util.rs#Config.new import-resolved 0.9', 'L6 rs/src/util.rs#helper import-resolved 0.9'])
    expect(calls.filter((c) => c.from === 'rs/src/net/client.rs#connect' && c.line === 6)).toHaveLength(1)
    const imports = (await edges(repo.dir)).imports
    for (const [a, b] of [['rs/src/lib.rs', 'rs/src/util.rs'], ['rs/src/lib.rs', 'rs/src/net/mod.rs'], ['rs/src/net/mod.rs', 'rs/src/net/client.rs'], ['rs/src/net/client.rs', 'rs/src/util.rs']]) {
      expect(imports).toContain(JSON.stringify({ from: a, to: b }))
    }
  })
  test('tsconfig extends: the base config\'s baseUrl and paths, each relative to the config declaring it', () => {
    expect(from('web/app/main.ts#render')).toEqual(['L4 web/src/lib/fmt.ts#fmt import-resolved 0.9'])
    expect(from('web2/pkg/m.ts#useShared')).toEqual(['L4 web2/shared/x.ts#shared import-resolved 0.9'])
  })
  test('Kotlin: a constructor property and a local assigned a constructor call', () => {
    expect(from('kt/Use.kt#Use.go').filter((e) => e.includes('run'))).toEqual(['L4 kt/Svc.kt#Other.run receiver-type 0.6', 'L4 kt/Svc.kt#Svc.run receiver-type 0.6'])
  })
})
