/**
 * `gitwhy explore` on a fixture repository: the Ink app driven by keystrokes in a fake terminal
 * of a chosen size (frames asserted after each step), and the command through the real CLI
 * without a terminal. Colour is forced on for this file (FORCE_COLOR, before Ink loads), so the
 * NO_COLOR test can see colour codes appear and disappear.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createElement } from 'react'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { spawn, spawnSync } from 'node:child_process'
import { BIN, expectUserError } from '../cli/cli.js'
import { KEY, renderTerminal, type Terminal } from '../helpers/terminal.js'
import { width } from '../../src/tui/text.js'
import { fuzzyMatch, treeRows } from '../../src/tui/tree.js'
import { KEYS } from '../../src/tui/keys.js'
import type { IndexReader } from '../../src/services/index-reader.js'
import type { ExploreStart } from '../../src/tui/app.js'

process.env.FORCE_COLOR = '1'

const BOB = { name: 'Bob Builder', email: 'bob@example.test' }

const router = (n: number) =>
  `export class Router {\n  route(path: string): string {\n    return path + '${n}'\n  }\n\n  match(path: string): boolean {\n    return path.length > ${n}\n  }\n}\n\nexport function createRouter(): Router {\n  const r = new Router()\n  r.route('/')\n  return r\n}\n`
const server = (n: number) => `import { createRouter } from './router'\n\nexport function start(): number {\n  const router = createRouter()\n  router.route('/${n}')\n  return ${n}\n}\n`

/** router.ts and server.ts change together six times (each commit a PR fixing an issue); util.ts has a hostile subject. */
function fixture(): TestRepo {
  const repo = createRepo()
  repo.write('src/router.ts', router(0)).write('src/server.ts', server(0)).write('src/util.ts', 'export function pad(s: string): string {\n  return s\n}\n').write('README.md', '# demo\n')
  repo.commit('Initial commit')
  for (let i = 1; i <= 6; i++) {
    repo.write('src/router.ts', router(i)).write('src/server.ts', server(i))
    repo.commit(`feat(router): step ${i} (#${10 + i})\n\nWhy: the router needs step ${i}.\n\nFixes #${i}`)
  }
  repo.write('src/util.ts', 'export function pad(s: string): string {\n  return s.padStart(2)\n}\n')
  repo.commit('tweak \u001b[31mred\u001b[0m util', { author: BOB })
  return repo
}

let repo: TestRepo
let reader: IndexReader
let App: typeof import('../../src/tui/app.js').App
let ExploreSource: typeof import('../../src/tui/source.js').ExploreSource
let exploreStart: typeof import('../../src/services/explore.js').exploreStart
const open: Terminal[] = []

/** The explorer on a fresh source (its own cache) in a terminal of this size. */
async function explore(size = { columns: 120, rows: 30 }, options: { color?: boolean; start?: ExploreStart | null } = {}): Promise<Terminal> {
  const source = new ExploreSource(reader)
  const t = await renderTerminal(createElement(App, { source, repoName: 'demo', color: options.color ?? false, start: options.start ?? null }), size)
  open.push(t)
  await t.waitFor('fresh')
  return t
}

/** The explorer opened at src/router.ts, its evidence shown. */
async function atRouter(): Promise<Terminal> {
  const t = await explore(undefined, { start: { path: 'src/router.ts', symbol: null } })
  await t.waitFor('Evidence · router.ts')
  return t
}

const lines = (frame: string) => frame.split('\n')
const rowOf = (frame: string, text: string) => lines(frame).find((l) => l.includes(text)) ?? ''

beforeAll(async () => {
  repo = fixture()
  const { analyze } = await import('../../src/services/analyze.js')
  await analyze({ repo: repo.dir })
  ;({ App } = await import('../../src/tui/app.js'))
  ;({ ExploreSource } = await import('../../src/tui/source.js'))
  ;({ exploreStart } = await import('../../src/services/explore.js'))
  const { IndexReader } = await import('../../src/services/index-reader.js')
  reader = IndexReader.openRoot(repo.dir)
  reader.pathsFromRoot = true
})

// one explorer at a time, as in a terminal
afterEach(() => {
  for (const t of open.splice(0)) t.unmount()
})

afterAll(async () => {
  await reader?.close()
  repo?.cleanup()
})

describe('explore: key sequences', () => {
  test('the first frame: the tree with heat, revisions and owner, and the status bar', async () => {
    const t = await explore()
    const f = await t.waitFor('router.ts')
    expect(f).toMatch(/Files 4\/4/)
    expect(f).toMatch(/▾ src\//)
    // the cursor starts on the first file
    expect(rowOf(f, '   router.ts')).toMatch(/›\s+router.ts\s+▄\s+7 Ada Test/)
    expect(rowOf(f, '   util.ts')).toMatch(/\b2 Ada Test/)
    // the status bar: the repository, the indexed HEAD, fresh, the keys
    expect(lines(f).at(-1)).toContain(`demo @ ${repo.head().slice(0, 7)} · fresh`)
    expect(lines(f).at(-1)).toContain('? help')
  })

  test('open a file, pick a symbol, open a commit: symbols with risk, the evidence timeline, the commit and its hunks', async () => {
    const t = await explore()
    await t.waitFor('router.ts')
    const dbg = (l: string) => console.log(l, t.stdout.frames.length, JSON.stringify(lines(t.frame()).slice(1, 5).map((x) => x.slice(0, 30))))
    dbg('start')
    await t.press('j'); dbg('j')
    await t.press('k'); dbg('k')
    await t.press(KEY.enter); dbg('enter')
    let f = await t.waitFor(/route\s+meth\s+(LOW|MEDIUM|HIGH)/)
    // nested as in the code: route and match inside Router
    expect(f).toMatch(/[│║] Router\s+class/)
    expect(f).toMatch(/[│║] {3}route\s+meth/)
    expect(f).toMatch(/[│║] {3}match\s+meth/)
    expect(f).toContain('createRouter')
    f = await t.waitFor('Evidence · router.ts:1-15 · 7 commits, 2 in blame')
    // newest first, the PR before the subject, a blame bar
    expect(rowOf(f, 'step 6')).toMatch(/#16 feat\(router\): step 6/)
    expect(f.indexOf('step 6')).toBeLessThan(f.indexOf('step 5'))
    expect(rowOf(f, 'step 6')).toMatch(/[█▏▎▍▌▋▊▉]/)

    await t.press('j', 'j')
    f = await t.waitFor('Evidence · route:2-4 · 7 commits')
    expect(f).toMatch(/[│║]› {2}route\s+meth/)

    await t.press(KEY.tab, KEY.enter)
    f = await t.waitFor('Hunks for Router.route')
    expect(f).toContain('feat(router): step 6 (#16)')
    expect(f).toContain('Why: the router needs step 6.')
    expect(f).toMatch(/PR\s+#16/)
    expect(f).toMatch(/Issue\s+closes #6/)
    expect(f).toContain("-    return path + '5'")
    expect(f).toContain("+    return path + '6'")

    // back, and the same commit again comes from the cache at once
    await t.press(KEY.esc)
    f = await t.waitFor((x) => !x.includes('Hunks for'))
    expect(f).toContain('Evidence · route:2-4')
  })

  test('co-change: the partner is listed with its examples and enter jumps to it', async () => {
    const t = await atRouter()
    await t.press('c')
    let f = await t.waitFor('src/server.ts')
    expect(f).toContain('Co-change · src/router.ts')
    expect(rowOf(f, 'src/server.ts')).toMatch(/›\s+7\s+100%\s+100%/)
    expect(f).toContain('feat(router): step 6')
    await t.press(KEY.enter)
    f = await t.waitFor('Symbols · src/server.ts')
    expect(f).toContain('start')
    expect(f).not.toContain('Co-change ·')
    expect(rowOf(f, '   server.ts')).toMatch(/›/)
  })

  test('keys that arrive in one read (typed ahead, a slow link) are handled one by one', async () => {
    const t = await atRouter()
    await t.press('jj') // one chunk: two keys
    await t.waitFor('Evidence · route:2-4')
    await t.press('\t\r')
    await t.waitFor('Hunks for Router.route')
  })

  test('search: names at once, the search service below, enter jumps to the symbol', async () => {
    const t = await explore()
    await t.press('/', ...'createR')
    let f = await t.waitFor(/Search service \(bm25\): \d+ hits/)
    expect(f).toMatch(/Names \(1\)/)
    expect(rowOf(f, 'createRouter')).toMatch(/›\s+function\s+createRouter\s+src\/router.ts:11/)
    await t.press(KEY.enter)
    f = await t.waitFor('Evidence · createRouter:11-15')
    expect(rowOf(f, 'createRouter')).toContain('›')
  })

  test('the file filter narrows the tree fuzzily; esc clears it', async () => {
    const t = await explore()
    await t.press('f', ...'srvr')
    let f = await t.waitFor('filter: srvr')
    expect(f).toContain('server.ts')
    expect(f).not.toContain('router.ts')
    // the matched characters in bold (no colour needed)
    expect(t.stdout.frames.at(-1)).toContain('\u001b[1ms\u001b[22me\u001b[1mrv\u001b[22me\u001b[1mr\u001b[22m.ts')
    expect(f).toMatch(/Files 1\/4/)
    // the cursor on the first match: enter keeps the filter, enter again opens the file
    await t.press(KEY.enter, KEY.enter)
    f = await t.waitFor('Evidence · server.ts:1-7')
    expect(f).toContain('filter: srvr')
    await t.press(KEY.tab, KEY.tab, KEY.esc)
    f = await t.waitFor(/Files 4\/4/)
    expect(f).toContain('router.ts')
  })

  test('side views: risk with reasons, ownership with the bus factor, hotspots, communities, code graph', async () => {
    const t = await atRouter()
    await t.press('r')
    let f = await t.waitFor('People to ask')
    expect(f).toMatch(/Level\s+(LOW|MEDIUM|HIGH)/)
    expect(f).toContain('Ada Tester')
    await t.press('r', 'o')
    f = await t.waitFor('bus factor')
    expect(f).toMatch(/15 lines at the indexed HEAD · bus factor 1/)
    await t.press('o', 'H')
    f = await t.waitFor('score recent')
    expect(f).toContain('src/router.ts')
    await t.press(KEY.esc, 'C')
    f = await t.waitFor(/›c1 .*src\/router.ts: Router/)
    await t.press(KEY.enter)
    f = await t.waitFor('Members (enter jumps)')
    expect(f).toMatch(/owners: Ada Tester 100%/)
    const member = /›\s+\d+ rev\s+(\S+)/.exec(f)![1]
    await t.press(KEY.enter)
    f = await t.waitFor((x) => !x.includes('Members'))
    expect(f).toMatch(new RegExp(`Evidence · ${member.split('.').at(-1)}:`))
    await t.press('g')
    f = await t.waitFor('Callers (')
    expect(f).toContain(`Code graph · ${member}`)
    await t.press(KEY.esc, 'k', 'k', 'k', 'k', 'k', 'g')
    f = await t.waitFor('Code graph · src/router.ts')
    f = await t.waitFor('Callers (')
    // server.ts's start calls createRouter: a caller of the file's symbols
    expect(f).toMatch(/start\s+src\/server.ts:3/)
  })

  test('help lists every key; q quits', async () => {
    const t = await explore({ columns: 140, rows: 30 })
    await t.press('?')
    const f = await t.waitFor('Keys')
    for (const [keys, what] of KEYS) {
      expect(f).toContain(keys)
      expect(f).toContain(what)
    }
    await t.press('q')
    await expect(Promise.race([t.exited.then(() => 'exited'), new Promise((r) => setTimeout(() => r('still running'), 3000))])).resolves.toBe('exited')
  })

  test('PATH:LINE opens at the innermost symbol around the line', () => {
    const id = (s: string) => exploreStart(reader, s)
    expect(id('src/router.ts:3')).toEqual({ path: 'src/router.ts', symbol: 'src/router.ts#Router.route' })
    expect(id('src/router.ts:12')).toEqual({ path: 'src/router.ts', symbol: 'src/router.ts#createRouter' })
    expect(id('src/router.ts:10')).toEqual({ path: 'src/router.ts', symbol: null })
    expect(id('src/router.ts')).toEqual({ path: 'src/router.ts', symbol: null })
    expect(id('Router.match')).toEqual({ path: 'src/router.ts', symbol: 'src/router.ts#Router.match' })
    expect(() => id('src/router.ts:99')).toThrow(/only 15 lines/)
    expect(() => id('src')).toThrow(/is a directory/)
  })
})

describe('explore: the terminal', () => {
  const widest = (frame: string) => Math.max(...lines(frame).map(width))

  test('80×24: three panes and the status bar fit, one line short of the screen', async () => {
    const t = await explore({ columns: 80, rows: 24 }, { start: { path: 'src/router.ts', symbol: 'src/router.ts#Router.route' } })
    const f = await t.waitFor('Evidence · route:2-4')
    expect(lines(f)).toHaveLength(23)
    expect(widest(f)).toBeLessThanOrEqual(80)
    for (const pane of ['Files', 'Symbols', 'Evidence']) expect(f).toContain(pane)
  })

  test('a narrow terminal shows one pane at a time, tab switches it', async () => {
    const t = await explore({ columns: 44, rows: 14 }, { start: { path: 'src/router.ts', symbol: null } })
    let f = await t.waitFor('Symbols · src/router.ts')
    expect(f).not.toContain('Files ')
    expect(lines(f)).toHaveLength(13)
    expect(widest(f)).toBeLessThanOrEqual(44)
    await t.press(KEY.tab)
    f = await t.waitFor('Evidence · router.ts')
    expect(widest(f)).toBeLessThanOrEqual(44)
    await t.press(KEY.tab)
    f = await t.waitFor('Files 4/4')
    expect(widest(f)).toBeLessThanOrEqual(44)
    // shift-tab goes back; arrows and hjkl move between panes too
    await t.press(KEY.shiftTab)
    await t.waitFor('Evidence · router.ts')
    await t.press('h')
    await t.waitFor('Symbols · src/router.ts')
    await t.press(KEY.left)
    await t.waitFor('Files 4/4')
    await t.press(KEY.right)
    await t.waitFor('Symbols · src/router.ts')
    // a commit longer than the screen scrolls: j by a line, PgDn by a page
    await t.press(KEY.tab, KEY.enter)
    let c = await t.waitFor('commit 1810975')
    expect(lines(c)).toHaveLength(13)
    const next = lines(c)[3] // under the border and the title: the second line of the commit
    await t.press('j')
    c = await t.waitFor((x) => lines(x)[2] === next)
    await t.press(KEY.pageDown)
    c = await t.waitFor('Files (2)')
    expect(c).not.toContain('commit 1810975')
    expect(widest(c)).toBeLessThanOrEqual(44)
  })

  test('a resize lays the screen out again', async () => {
    const t = await explore({ columns: 120, rows: 30 }, { start: { path: 'src/router.ts', symbol: null } })
    await t.waitFor('Evidence · router.ts')
    expect(lines(t.frame())).toHaveLength(29)
    t.stdout.resize(70, 18)
    const f = await t.waitFor((x) => lines(x).length === 17)
    expect(widest(f)).toBeLessThanOrEqual(70)
    expect(f).toContain('Evidence')
  })

  test('NO_COLOR: no colour codes at all; with colour, there are', async () => {
    const colourCode = /\u001b\[(3[0-79]|9[0-7]|38;|4[0-79]|10[0-7])(;\d+)*m/
    const coloured = await explore(undefined, { color: true, start: { path: 'src/router.ts', symbol: null } })
    await coloured.waitFor('Evidence · router.ts')
    expect(coloured.stdout.frames.at(-1)).toMatch(colourCode)
    const plain = await explore(undefined, { color: false, start: { path: 'src/router.ts', symbol: null } })
    await plain.waitFor('Evidence · router.ts')
    await plain.press(KEY.tab, KEY.enter)
    await plain.waitFor('Hunks for src/router.ts')
    for (const frame of plain.stdout.frames) expect(frame).not.toMatch(colourCode)
  })

  test('commit text is shown with its control characters escaped', async () => {
    const t = await explore({ columns: 160, rows: 30 }, { start: { path: 'src/util.ts', symbol: null } })
    let f = await t.waitFor('Evidence · util.ts')
    expect(f).toContain('tweak \\x1b[31mred\\x1b[0m util')
    await t.press(KEY.tab, KEY.enter)
    f = await t.waitFor('Hunks for src/util.ts')
    expect(f).toContain('tweak \\x1b[31mred\\x1b[0m util')
    for (const frame of t.stdout.frames) expect(frame).not.toContain('\u001b[31mred')
  })
})

describe('explore: the command', () => {
  test('without a terminal: exit 1, one clear message naming the equivalent commands (--json: one error document)', async () => {
    const started = Date.now()
    const error = await expectUserError(['explore'], 'not_a_terminal', { cwd: repo.dir, env: repo.env() }, { plain: true })
    expect(error.message).toMatch(/needs a terminal/)
    for (const command of ['gitwhy evidence', 'gitwhy risk', 'gitwhy related', 'gitwhy hotspots', 'gitwhy search']) expect(error.remedy).toContain(command)
    expect(Date.now() - started).toBeLessThan(20_000)
    await expectUserError(['explore', 'src/router.ts:3'], 'not_a_terminal', { cwd: repo.dir, env: repo.env() })
  })

  test('a bad target or no index: the same errors as the other commands', async () => {
    await expectUserError(['explore', 'nope.ts'], 'unknown_path', { cwd: repo.dir, env: repo.env() })
    await expectUserError(['explore', 'src/router.ts:99'], 'bad_range', { cwd: repo.dir, env: repo.env() })
    const bare = createRepo()
    try {
      bare.write('a.ts', 'export const a = 1\n').commit('one')
      await expectUserError(['explore'], 'no_index', { cwd: bare.dir, env: bare.env() })
    } finally {
      bare.cleanup()
    }
  })
})

/** `gitwhy explore` in a real pseudo-terminal (util-linux `script`): its output until `q` is typed once `until` shows, and its exit code. */
async function inTerminal(env: Record<string, string>, until: RegExp): Promise<{ output: string; code: number | null }> {
  const child = spawn('script', ['-qfec', `${process.execPath} ${BIN} explore src/router.ts:3`, '/dev/null'], {
    cwd: repo.dir,
    // Ink draws only the last frame where CI is set (a CI runner that runs this test, too)
    env: { ...repo.env(), TERM: 'xterm-256color', CI: 'false', CONTINUOUS_INTEGRATION: 'false', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d))
  const deadline = Date.now() + 30_000
  while (!until.test(output.replace(/\u001b\[[0-9;?]*[a-zA-Z]/g, '')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  child.stdin.write('q')
  const code = await new Promise<number | null>((r) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), r(null)), 10_000)
    child.on('exit', (c) => (clearTimeout(timer), r(c)))
  })
  return { output, code }
}

describe.skipIf(spawnSync('script', ['--version']).status !== 0)('explore: the command in a real terminal', () => {
  test('raw mode, the frame at PATH:LINE, q exits 0; colour unless NO_COLOR', async () => {
    const colour = /\u001b\[(3[0-79]|9[0-7]|38;)(;\d+)*m/
    const coloured = await inTerminal({}, /Evidence · route:2-4 · 7 commits/)
    expect(coloured.code, coloured.output.slice(-2000)).toBe(0)
    expect(coloured.output).toMatch(colour)
    const plain = await inTerminal({ NO_COLOR: '1' }, /Evidence · route:2-4 · 7 commits/)
    expect(plain.code).toBe(0)
    expect(plain.output.replace(/\u001b\[[0-9;?]*[a-zA-Z]/g, '')).toContain('Symbols · src/router.ts')
    expect(plain.output).not.toMatch(colour)
  })
})

describe('explore: the tree and the fuzzy filter', () => {
  test('the file name wins over directories; directories come first', () => {
    const paths = ['src/router.ts', 'src/server.ts', 'lib/r/o/u/t/e.ts', 'README.md']
    expect(fuzzyMatch('rout', 'src/router.ts')!.score).toBeGreaterThan(fuzzyMatch('rout', 'lib/r/o/u/t/e.ts')!.score)
    expect(fuzzyMatch('xyz', 'src/router.ts')).toBeNull()
    expect(treeRows(paths, new Set(['src/'])).map((r) => r.key)).toEqual(['lib/', 'src/', 'src/router.ts', 'src/server.ts', 'README.md'])
    expect(treeRows(paths, new Set(), 'srvr').map((r) => r.key)).toEqual(['src/', 'src/server.ts'])
  })
})

describe('explore: the service behind the panes', () => {
  test('every indexed file with its activity and largest owner; the symbols of a file nested; their risks', async () => {
    const { exploreFiles, fileSymbols, symbolRisks } = await import('../../src/services/explore.js')
    const files = exploreFiles(reader)
    expect(files.map((f) => f.path)).toEqual(['README.md', 'src/router.ts', 'src/server.ts', 'src/util.ts'])
    expect(files[1]).toMatchObject({ lines: 15, symbols: 4, revisions: 7, owner: { name: 'Ada Tester', email: 'ada@example.test', share: 1 } })
    // Bob rewrote one of util.ts's three lines: Ada still owns the most
    expect(files[3].owner!.name).toBe('Ada Tester')
    expect(files[3].owner!.share).toBeCloseTo(2 / 3)
    expect(files[3].revisions).toBe(2)
    const symbols = fileSymbols(reader, 'src/router.ts')
    expect(symbols.map((x) => [x.qualified_name, x.depth, x.start_line, x.end_line])).toEqual([
      ['Router', 0, 1, 9],
      ['Router.route', 1, 2, 4],
      ['Router.match', 1, 6, 8],
      ['createRouter', 0, 11, 15],
    ])
    expect(fileSymbols(reader, 'nope.ts')).toEqual([])
    const risks = await symbolRisks(reader, 'src/router.ts')
    expect([...risks.keys()].sort()).toEqual(symbols.map((x) => x.id).sort())
    for (const r of risks.values()) {
      expect(['LOW', 'MEDIUM', 'HIGH']).toContain(r.level)
      expect(r.last_change).toMatch(/^2024-01-01/)
    }
    expect(risks.get('src/router.ts#Router.route')!.revisions).toBe(7)
  })
})

describe('explore: the index against the working HEAD', () => {
  test('the status bar follows a new commit (stale, N behind), and a new analyze (fresh, the new answers)', async () => {
    const t = await explore()
    repo.write('README.md', '# demo, later\n').commit('docs: a commit after the index')
    let f = await t.waitFor('stale: 1 behind', 15_000)
    expect(lines(f).at(-1)).toContain(`demo @ ${repo.git('rev-parse', '--short=7', 'HEAD~1').trim()} · stale: 1 behind`)
    expect(rowOf(f, '  README.md')).toMatch(/README.md\s+1 Ada/)

    // analyze swaps in a new index: the explorer reopens it and asks every answer again
    const { analyze } = await import('../../src/services/analyze.js')
    await analyze({ repo: repo.dir })
    f = await t.waitFor(`demo @ ${repo.head().slice(0, 7)} · fresh`, 15_000)
    f = await t.waitFor((x) => /README.md\s+2 Ada/.test(x))
  }, 60_000)
})
