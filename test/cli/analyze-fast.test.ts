/**
 * `gitwhy analyze` with the flags a hook or a person types (none, --json, --quiet, --embeddings)
 * runs before oclif loads (bin/run.js → src/fast/analyze.ts): a no-op, an update and a build alike.
 * It must print exactly what the oclif command prints (timings aside), and hand every other flag
 * to oclif.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BUNDLED_MODEL_ID } from '../../src/embed/model.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { readMeta } from '../../src/services/workspace.js'
import { runCli, type CliOptions, type CliResult } from './cli.js'

const PROBE = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'oclif-probe.mjs')

describe('no-op analyze without oclif', () => {
  let repo: TestRepo
  let probeDir: string
  let opts: CliOptions

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/a.ts', 'export function a(): number {\n  return 1\n}\n').write('README.md', '# demo\n')
    repo.commit('Initial commit')
    probeDir = mkdtempSync(path.join(tmpdir(), 'gitwhy-probe-'))
    opts = { cwd: repo.dir, env: repo.env() }
    expect((await runCli(['analyze', '--json'], opts)).code).toBe(0)
  })
  afterAll(() => {
    repo?.cleanup()
    rmSync(probeDir, { recursive: true, force: true })
  })

  /** Run the CLI and tell which path answered it. */
  let runs = 0
  async function run(args: string[], cwd = repo.dir): Promise<CliResult & { path: string }> {
    const probe = path.join(probeDir, `${++runs}`)
    const result = await runCli(args, { cwd, env: { ...repo.env(), NODE_OPTIONS: `--import ${PROBE}`, GITWHY_TEST_PROBE: probe } })
    return { ...result, path: readFileSync(probe, 'utf8') }
  }

  test('--json, text and --quiet: the same output and exit code as the oclif command', async () => {
    // --max-file-bytes with its default value asks the same, but only oclif takes that flag
    for (const args of [['analyze', '--json'], ['analyze'], ['analyze', '-q'], ['analyze', '--quiet', '--json']]) {
      const fast = await run(args)
      const oclif = await run([...args, '--max-file-bytes', '1000000'])
      expect([fast.path, oclif.path], args.join(' ')).toEqual(['fast', 'oclif'])
      expect({ code: fast.code, stdout: fast.stdout, stderr: fast.stderr }, args.join(' ')).toEqual({ code: oclif.code, stdout: oclif.stdout, stderr: oclif.stderr })
      expect(fast.code).toBe(0)
    }
    expect(JSON.parse((await run(['analyze', '--json'])).stdout).mode).toBe('noop')
  })

  test('the repository by --repo or by path, from elsewhere', async () => {
    for (const args of [['analyze', '--repo', repo.dir, '--json'], ['analyze', repo.dir, '--json']]) {
      const fast = await run(args, tmpdir())
      expect(fast.path).toBe('fast')
      expect(JSON.parse(fast.stdout)).toMatchObject({ repo: repo.dir, mode: 'noop' })
    }
  })

  test('--embeddings (opt-in) is an option like the others: the no-op of an embedded index is answered fast, the same as oclif', async () => {
    const built = await run(['analyze', '--embeddings', '--json'])
    expect([built.path, JSON.parse(built.stdout).mode, JSON.parse(built.stdout).embeddings.model]).toEqual(['fast', 'full', BUNDLED_MODEL_ID])
    for (const args of [['analyze', '--embeddings', '--json'], ['analyze', '--embeddings']]) {
      const fast = await run(args)
      const oclif = await run([...args, '--max-file-bytes', '1000000'])
      expect([fast.path, oclif.path], args.join(' ')).toEqual(['fast', 'oclif'])
      expect({ code: fast.code, stdout: fast.stdout, stderr: fast.stderr }, args.join(' ')).toEqual({ code: oclif.code, stdout: oclif.stdout, stderr: oclif.stderr })
    }
    expect(JSON.parse((await run(['analyze', '--embeddings', '--json'])).stdout)).toMatchObject({ mode: 'noop', embeddings: { model: BUNDLED_MODEL_ID, embedded: 0 } })
    // left out, the flag means what the index was built with: still a no-op, still embedded
    const kept = await run(['analyze', '--json'])
    expect([kept.path, JSON.parse(kept.stdout).mode, JSON.parse(kept.stdout).embeddings]).toEqual(['fast', 'noop', { model: BUNDLED_MODEL_ID, embedded: 0 }])
    // --no-embeddings asks for the index without vectors: a rebuild, then plain no-ops without them
    const off = await run(['analyze', '--no-embeddings', '--json'])
    expect([off.path, JSON.parse(off.stdout).mode, JSON.parse(off.stdout).embeddings]).toEqual(['fast', 'full', { model: null, embedded: 0 }])
    const noop = await run(['analyze', '--json'])
    expect([noop.path, JSON.parse(noop.stdout).mode, JSON.parse(noop.stdout).embeddings]).toEqual(['fast', 'noop', { model: null, embedded: 0 }])
    // both spellings at once: oclif decides (the last one wins)
    const both = await run(['analyze', '--embeddings', '--no-embeddings', '--json'])
    expect([both.path, JSON.parse(both.stdout).mode]).toEqual(['oclif', 'noop'])
  })

  test('an update (new commits) is analyzed without oclif too: the same output and exit code as the oclif command', async () => {
    // a twin with the same commits (same SHAs): one updated on each path
    const twin = repo.clone()
    for (const dir of [repo.dir, twin.dir]) expect((await run(['analyze', '--no-embeddings', '--json'], dir)).code).toBe(0)
    const strip = (r: CliResult, dir: string) => r.stdout.replaceAll(dir, 'REPO').replace(/\d+ ms/g, 'N ms').replace(/"(\w+_ms|[a-z_]+)": \d+/g, (m, k: string) => (/_ms$|^(files|history|reverts|hunk_map|rows|code_graph|analytics|save|embeddings|graph_load|manifest|update\w*|flows)$/.test(k) ? `"${k}": N` : m))
    for (const [i, args] of [['analyze', '--json'], ['analyze'], ['analyze', '--quiet']].entries()) {
      for (const r of [repo, twin]) {
        r.write('src/a.ts', `export function a(): number {\n  return ${i + 2}\n}\n`)
        r.commit(`Change a ${i}`)
      }
      const fast = await run(args)
      const oclif = await run([...args, '--max-file-bytes', '1000000'], twin.dir)
      expect([fast.path, oclif.path], args.join(' ')).toEqual(['fast', 'oclif'])
      expect([fast.code, strip(fast, repo.dir)], args.join(' ')).toEqual([oclif.code, strip(oclif, twin.dir)])
      expect(fast.code).toBe(0)
      if (args.includes('--json')) expect(JSON.parse(fast.stdout).mode).toBe('incremental')
      else expect(fast.stdout).toContain('(incremental, 1 new commits)')
    }
    // an error of the analyze itself is reported as oclif reports it: exit 1, the JSON error document
    writeFileSync(path.join(repo.dir, '.gitwhy', 'analyze.lock'), JSON.stringify({ pid: process.pid }))
    repo.write('src/a.ts', 'export function a(): number {\n  return 9\n}\n')
    repo.commit('Change a while locked')
    try {
      const before = readMeta(repo.dir)!
      const locked = await run(['analyze', '--json'])
      expect([locked.path, locked.code, JSON.parse(locked.stdout).error?.code]).toEqual(['fast', 1, 'locked'])
      // the graph copy it started for the update (graph-head-start.ts) went with it
      const dirs = readdirSync(path.join(repo.dir, '.gitwhy')).filter((n) => n.startsWith('index-')).sort()
      expect(dirs).toEqual([before.indexDir, before.previousIndexDir].filter(Boolean).sort())
    } finally {
      rmSync(path.join(repo.dir, '.gitwhy', 'analyze.lock'), { force: true })
    }
  })

  test('anything else goes to oclif: a touched index file, --force, --help, a bad flag', async () => {
    repo.write('src/a.ts', 'export function a(): number {\n  return 20\n}\n')
    repo.commit('Change a')
    expect((await run(['analyze', '--json'])).path).toBe('fast')

    // a file of the index that is not the one hashed (its change time moved): the whole analyze hashes it again
    const meta = readMeta(repo.dir)!
    const graph = path.join(repo.dir, '.gitwhy', meta.indexDir, 'graph.kuzu')
    utimesSync(graph, new Date(), new Date())
    const rehashed = await run(['analyze', '--json'])
    expect([rehashed.path, JSON.parse(rehashed.stdout).mode]).toEqual(['fast', 'noop'])
    expect((await run(['analyze', '--json'])).path).toBe('fast')

    expect((await run(['analyze', '--force', '--json'])).path).toBe('oclif')
    expect((await run(['analyze', '--help'])).path).toBe('oclif')
    const bad = await run(['analyze', '--nope'])
    expect([bad.path, bad.code]).toEqual(['oclif', 1])
  })
})
