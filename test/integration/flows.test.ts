/**
 * Execution flows (issue 11) on a repository built to show each kind of entry point: an
 * express-style app (named handlers, an inline handler, a handler through a namespace), a
 * cobra-style Go CLI (RunE: a function, Run: inline, func main) and a Flask app (route decorators,
 * `if __name__ == "__main__"`); a test file registering a route is no entry. Then an update that
 * changes an unchanged file's flows must leave every flow equal to a fresh `--force` build, and
 * `context` / `impact` name the flows.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { context, impact } from '../../src/services/codegraph.js'
import { flows } from '../../src/services/flows.js'
import { codeGraphEdges as edges } from '../helpers/compare.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const FILES: Record<string, string> = {
  'package.json': '{ "name": "shop", "dependencies": { "express": "4" } }\n',
  'web/app.ts': [
    "import express from 'express'",
    "import { listUsers, createUser, listAll } from './users'",
    "import * as admin from './admin'",
    '',
    'const app = express()',
    "app.get('/users', listUsers)",
    "app.post('/users', auth, createUser)",
    "app.get('/users/all', listAll)",
    "app.delete('/users/:id', admin.removeUser)",
    "app.get('/health', (req, res) => {",
    '  res.send(ping())',
    '})',
    '',
    'function auth(req, res, next) {',
    '  next()',
    '}',
    '',
    'export function ping(): string {',
    "  return 'ok'",
    '}',
    '',
  ].join('\n'),
  'web/users.ts': [
    "import { query } from './db'",
    '',
    'export function listUsers(req, res) {',
    "  res.json(query('select'))",
    '}',
    '',
    'export function listAll(req, res) {',
    '  return listUsers(req, res)',
    '}',
    '',
    'export function createUser(req, res) {',
    '  validate(req.body)',
    "  query('insert')",
    '}',
    '',
    'function validate(body) {',
    '  return check(body)',
    '}',
    '',
    'function check(b) {',
    '  return !!b',
    '}',
    '',
  ].join('\n'),
  'web/admin.ts': "import { query } from './db'\n\nexport function removeUser(req, res) {\n  query('delete')\n}\n",
  'web/db.ts': 'export function query(sql: string) {\n  return format(sql)\n}\n\nfunction format(s: string) {\n  return s.trim()\n}\n',
  // an exported function nothing calls: an entry; one calling a single helper is too small a flow
  'web/report.ts': "import { query } from './db'\n\nexport function nightly() {\n  return summarize(query('all'))\n}\n\nfunction summarize(x) {\n  return x\n}\n\nexport function tiny() {\n  return summarize(1)\n}\n",
  'web/app.test.ts': "import { query } from './db'\n\napp.get('/t', testHandler)\n\nfunction testHandler() {\n  query('t')\n}\n",
  'go.mod': 'module example.com/tool\n\ngo 1.21\n',
  'cmd/tool/main.go': 'package main\n\nimport "example.com/tool/cli"\n\nfunc main() {\n\tcli.Execute()\n}\n',
  'cli/root.go': [
    'package cli',
    '',
    'import "github.com/spf13/cobra"',
    '',
    'var rootCmd = &cobra.Command{Use: "tool", Short: "a tool"}',
    '',
    'var serveCmd = &cobra.Command{',
    '\tUse:  "serve",',
    '\tRunE: runServe,',
    '}',
    '',
    'var versionCmd = &cobra.Command{',
    '\tUse: "version",',
    '\tRun: func(cmd *cobra.Command, args []string) {',
    '\t\tprintVersion()',
    '\t},',
    '}',
    '',
    'func Execute() error {',
    '\trootCmd.AddCommand(serveCmd, versionCmd)',
    '\treturn rootCmd.Execute()',
    '}',
    '',
    'func runServe(cmd *cobra.Command, args []string) error {',
    '\treturn listen(port())',
    '}',
    '',
    'func listen(p int) error {',
    '\treturn nil',
    '}',
    '',
    'func port() int {',
    '\treturn 8080',
    '}',
    '',
    'func printVersion() {}',
    '',
  ].join('\n'),
  'api/__init__.py': '',
  'api/store.py': 'def load():\n    return _read()\n\n\ndef save(x):\n    _write(x)\n\n\ndef _read():\n    return []\n\n\ndef _write(x):\n    pass\n',
  'api/app.py': [
    'from flask import Flask',
    'from .store import load, save',
    '',
    'app = Flask(__name__)',
    '',
    '',
    '@app.route("/items")',
    'def items():',
    '    return render(load())',
    '',
    '',
    '@app.post("/items")',
    'def add_item():',
    '    save(1)',
    '    return render([])',
    '',
    '',
    'def render(rows):',
    '    return str(rows)',
    '',
    '',
    'if __name__ == "__main__":',
    '    items()',
    '',
  ].join('\n'),
}

/** The flows as `label: symbol@step ...` (steps sorted by step, then id). */
async function flowLines(dir: string): Promise<string[]> {
  const all = await edges(dir)
  const steps = all.steps.map((s) => JSON.parse(s) as { symbol: string; process: string; step: number })
  return all.processes
    .map((p) => JSON.parse(p) as { id: string; label: string; kind: string })
    .map((p) => `${p.kind} ${p.label}: ${steps.filter((s) => s.process === p.id).sort((a, b) => a.step - b.step || (a.symbol < b.symbol ? -1 : 1)).map((s) => `${s.symbol}@${s.step}`).join(' ')}`)
    .sort()
}

describe('execution flows', () => {
  let repo: TestRepo

  beforeAll(async () => {
    repo = createRepo()
    for (const [p, text] of Object.entries(FILES)) repo.write(p, text)
    repo.commit('shop, tool and api')
    await analyze({ repo: repo.dir })
  })
  afterAll(() => repo?.cleanup())

  test('routes, commands, mains and exported functions, walked along CALLS; contained flows dropped', async () => {
    expect(await flowLines(repo.dir)).toEqual([
      // cobra: RunE names a function; Run inline makes the file's <module> the entry
      'command command serve → runServe: cli/root.go#runServe@1 cli/root.go#listen@2 cli/root.go#port@2',
      'command command version → cli/root.go: cli/root.go#<module>@1 cli/root.go#printVersion@2',
      'exported nightly (web/report.ts): web/report.ts#nightly@1 web/db.ts#query@2 web/report.ts#summarize@2 web/db.ts#format@3',
      'main main (cmd/tool/main.go): cmd/tool/main.go#main@1 cli/root.go#Execute@2',
      // the script block calls items(): the main holds the route's flow, and both stay
      'main main → api/app.py: api/app.py#<module>@1 api/app.py#items@2 api/app.py#render@3 api/store.py#load@3 api/store.py#_read@4',
      'route /items → items: api/app.py#items@1 api/app.py#render@2 api/store.py#load@2 api/store.py#_read@3',
      'route DELETE /users/:id → removeUser: web/admin.ts#removeUser@1 web/db.ts#query@2 web/db.ts#format@3',
      'route GET /health → web/app.ts: web/app.ts#<module>@1 web/app.ts#ping@2',
      // GET /users → listUsers is inside this one: dropped
      'route GET /users/all → listAll: web/users.ts#listAll@1 web/users.ts#listUsers@2 web/db.ts#query@3 web/db.ts#format@4',
      'route POST /items → add_item: api/app.py#add_item@1 api/app.py#render@2 api/store.py#save@2 api/store.py#_write@3',
      'route POST /users → createUser: web/users.ts#createUser@1 web/db.ts#query@2 web/users.ts#validate@2 web/db.ts#format@3 web/users.ts#check@3',
    ])
  })

  test('context and impact name the flows; the flows listing and one flow by its entry', async () => {
    const q = await context({ repo: repo.dir, target: 'web/db.ts:query' })
    expect(q.flows.map((f) => `${f.label} @${f.step}`)).toEqual([
      'DELETE /users/:id → removeUser @2',
      'POST /users → createUser @2',
      'nightly (web/report.ts) @2',
      'GET /users/all → listAll @3',
    ])
    const up = await impact({ repo: repo.dir, target: 'web/db.ts:format' })
    expect(up.flows.map((f) => f.label).sort()).toEqual(['DELETE /users/:id → removeUser', 'GET /users/all → listAll', 'POST /users → createUser', 'nightly (web/report.ts)'])
    const all = await flows({ repo: repo.dir })
    expect(all.flows.map((f) => f.label)).toContain('command serve → runServe')
    expect(all.total).toBe(11)
    const one = await flows({ repo: repo.dir, entry: 'runServe' })
    expect(one.flows).toHaveLength(1)
    expect(one.flows[0].members?.map((s) => `${s.qualified_name}@${s.step}`)).toEqual(['runServe@1', 'listen@2', 'port@2'])
  })

  test('incremental: flows of unchanged files follow a changed callee and a removed route; equal to a fresh build', async () => {
    repo.write('web/db.ts', 'export function query(sql: string) {\n  return format(log(sql))\n}\n\nfunction log(s: string) {\n  return s\n}\n\nfunction format(s: string) {\n  return s.trim()\n}\n')
    repo.write('web/app.ts', FILES['web/app.ts'].replace("app.post('/users', auth, createUser)\n", ''))
    repo.commit('log queries, no more POST /users')
    const summary = await analyze({ repo: repo.dir })
    expect(summary.mode).toBe('incremental')
    const updated = await flowLines(repo.dir)
    const clone = repo.clone()
    try {
      await analyze({ repo: clone.dir, force: true })
      expect(updated).toEqual(await flowLines(clone.dir))
    } finally {
      clone.cleanup()
    }
    // createUser is no route now, but an exported function nothing calls
    expect(updated).toContain('exported createUser (web/users.ts): web/users.ts#createUser@1 web/db.ts#query@2 web/users.ts#validate@2 web/db.ts#format@3 web/db.ts#log@3 web/users.ts#check@3')
    expect(updated).toContain('route GET /users/all → listAll: web/users.ts#listAll@1 web/users.ts#listUsers@2 web/db.ts#query@3 web/db.ts#format@4 web/db.ts#log@4')
  })

  test('incremental: an edit that moves calls but keeps them (the stored flows are kept) equals a fresh build, and so does one that adds a call', async () => {
    const before = await flowLines(repo.dir)
    // lines above every call of db.ts: the calls move, none comes or goes
    repo.write('web/db.ts', '// the query helpers\n\nexport function query(sql: string) {\n  const text = sql\n  return format(log(text))\n}\n\nfunction log(s: string) {\n  return s\n}\n\nfunction format(s: string) {\n  return s.trim()\n}\n')
    repo.commit('db: a comment and a local')
    expect((await analyze({ repo: repo.dir })).mode).toBe('incremental')
    const kept = await flowLines(repo.dir)
    expect(kept).toEqual(before)
    // now log() calls format(): a call more, the flows are built again
    repo.write('web/db.ts', '// the query helpers\n\nexport function query(sql: string) {\n  const text = sql\n  return format(log(text))\n}\n\nfunction log(s: string) {\n  return format(s)\n}\n\nfunction format(s: string) {\n  return s.trim()\n}\n')
    repo.commit('db: log formats')
    expect((await analyze({ repo: repo.dir })).mode).toBe('incremental')
    const changed = await flowLines(repo.dir)
    const clone = repo.clone()
    try {
      await analyze({ repo: clone.dir, force: true })
      expect(changed).toEqual(await flowLines(clone.dir))
      clone.git('checkout', '-q', 'HEAD~1')
      await analyze({ repo: clone.dir, force: true })
      expect(kept).toEqual(await flowLines(clone.dir))
    } finally {
      clone.cleanup()
    }
  })
})
