/**
 * Histories as real repositories have them: commit objects git accepts but its own commands would
 * never write (an absurd time zone, dates before 1970 or past year 9999, an author line without an
 * email, messages in Latin-1 with and without an `encoding` header), and source files that are not
 * UTF-8. One odd commit or file must never fail an index, and what it says must survive.
 */
import { rmSync } from 'node:fs'
import { afterEach, describe, expect, test } from 'vitest'
import { UserError } from '../../src/errors.js'
import { analyze } from '../../src/services/analyze.js'
import { evidence } from '../../src/services/evidence.js'
import { history } from '../../src/services/history.js'
import { risk } from '../../src/services/risk.js'
import { cypher } from '../../src/services/cypher.js'
import { blameSet, followSet } from '../helpers/oracle.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

let repo: TestRepo | null = null
afterEach(() => {
  repo?.cleanup()
  repo = null
})

const EPOCH_0 = '1970-01-01T00:00:00.000Z'

/** A raw commit object with its `author` / `committer` line set to `ident` (bytes as latin1). */
function withIdent(raw: Buffer, field: 'author' | 'committer', ident: string): Buffer {
  const text = raw.toString('latin1')
  return Buffer.from(text.replace(new RegExp(`^${field} .*$`, 'm'), `${field} ${ident}`), 'latin1')
}

/** A raw commit object with extra header lines and a new message (bytes as latin1). */
function withMessage(raw: Buffer, message: string, extraHeader = ''): Buffer {
  const text = raw.toString('latin1')
  const end = text.indexOf('\n\n')
  return Buffer.from(text.slice(0, end + 1) + extraHeader + '\n' + message + '\n', 'latin1')
}

interface Odd { label: string; edit: (raw: Buffer) => Buffer; date: string; author?: string; email?: string; subject?: string }

const ODD: Odd[] = [
  // psf/requests 5e6ecdad: `%aI` prints "+518:00", which no date parser reads
  { label: 'offset +51800', edit: (r) => withIdent(withIdent(r, 'author', 'Tz Person <tz@example.test> 1300000000 +51800'), 'committer', 'Tz Person <tz@example.test> 1300000000 +51800'), date: '2011-03-13T07:06:40.000Z' },
  { label: 'offset -9999', edit: (r) => withIdent(r, 'author', 'Neg Tz <neg@example.test> 1300000100 -9999'), date: '2011-03-13T07:08:20.000Z' },
  { label: 'before 1970', edit: (r) => withIdent(r, 'author', 'Old Timer <old@example.test> -100000 +0000'), date: EPOCH_0 },
  { label: 'past year 9999', edit: (r) => withIdent(r, 'author', 'Far Future <far@example.test> 99999999999999 +0000'), date: EPOCH_0 },
  { label: 'past 2^64', edit: (r) => withIdent(r, 'author', 'Overflow <of@example.test> 18446744073709551617 +0000'), date: EPOCH_0 },
  { label: 'garbled date', edit: (r) => withIdent(r, 'author', 'Garbled <g@example.test> yesterday'), date: EPOCH_0 },
  { label: 'no email', edit: (r) => withIdent(r, 'author', 'No Mail <> 1300000200 +0000'), date: '2011-03-13T07:10:00.000Z', author: 'No Mail', email: '' },
  { label: 'no author line git can read', edit: (r) => withIdent(r, 'author', 'Just A Name 1300000300 +0000'), date: EPOCH_0, author: '', email: '' },
  {
    label: 'Latin-1 without an encoding header',
    edit: (r) => withMessage(withIdent(r, 'author', 'Jos\xe9 <jose@example.test> 1300000400 +0100'), 'Caf\xe9 cr\xe8me \x93quoted\x94'),
    date: '2011-03-13T07:13:20.000Z',
    author: 'José',
    subject: 'Café crème “quoted”',
  },
  {
    label: 'Latin-1 with encoding ISO-8859-1',
    edit: (r) => withMessage(withIdent(r, 'author', 'Fran\xe7ois <fr@example.test> 1300000500 +0100'), 'Tr\xe8s bien', 'encoding ISO-8859-1\n'),
    date: '2011-03-13T07:15:00.000Z',
    author: 'François',
    subject: 'Très bien',
  },
]

describe('odd commit objects', () => {
  test('every odd commit is indexed; evidence and history show it with a sane date, its name and message', async () => {
    repo = createRepo()
    const lines = ['base']
    repo.write('log.txt', lines.join('\n') + '\n').commit('base')
    const shas: string[] = []
    for (const odd of ODD) {
      lines.push(odd.label)
      repo.write('log.txt', lines.join('\n') + '\n').commit(odd.label)
      shas.push(repo.rewriteHead(odd.edit))
    }
    // one more ordinary commit on top: children of odd commits are read as usual
    repo.write('tail.txt', 'tail\n').commit('tail')

    await analyze({ repo: repo.dir })

    for (const [k, odd] of ODD.entries()) {
      const line = k + 2
      const ev = await evidence({ repo: repo.dir, path: 'log.txt', lineStart: line, lineEnd: line, limit: 0 })
      const blame = ev.evidence.filter((e) => e.source === 'blame')
      expect(Object.fromEntries(blame.map((e) => [e.commit.sha, e.lines])), odd.label).toEqual(Object.fromEntries(blameSet(repo, 'log.txt', line, line)))
      expect(blame.map((e) => e.commit.sha), odd.label).toEqual([shas[k]])
      const c = blame[0].commit
      expect(c.date, odd.label).toBe(odd.date)
      if (odd.author !== undefined) expect(c.author, odd.label).toBe(odd.author)
      if (odd.email !== undefined) expect(c.email, odd.label).toBe(odd.email)
      expect(c.subject, odd.label).toBe(odd.subject ?? odd.label)
    }

    const h = await history({ repo: repo.dir, path: 'log.txt', limit: 0 })
    expect(new Set(h.evidence.map((e) => e.commit.sha))).toEqual(followSet(repo, 'log.txt'))
    const dates = new Map(h.evidence.map((e) => [e.commit.sha, e.commit.date]))
    for (const [k, odd] of ODD.entries()) expect(dates.get(shas[k]), odd.label).toBe(odd.date)

    // the graph holds the same instants (the committer date of the +51800 commit too)
    const { rows } = await cypher({ repo: repo.dir, statement: 'MATCH (c:Commit {sha: $sha}) RETURN c.author_date AS a, c.committer_date AS c', params: { sha: shas[0] } })
    expect(rows).toEqual([{ a: '2011-03-13T07:06:40.000Z', c: '2011-03-13T07:06:40.000Z' }])
  })
})

/** 1-based line of the first line of `bytes` (read as latin1) that contains `needle`. */
function lineOf(bytes: Buffer, needle: string): number {
  return bytes.toString('latin1').split('\n').findIndex((l) => l.includes(needle)) + 1
}

describe('source files that are not UTF-8', () => {
  test('Latin-1 (Python, Java, C), a UTF-8 BOM and CRLF keep their names and git blame\'s lines; UTF-16 is skipped as binary, as git treats it', async () => {
    repo = createRepo()
    const py = Buffer.from("# -*- coding: latin-1 -*-\n\ndef caf\xe9():\n    return 'cr\xe8me br\xfbl\xe9e'\n\n\nclass G\xe2teau:\n    def mang\xe9(self):\n        pass\n\n\ndef after():\n    return 1\n", 'latin1')
    const c = Buffer.from('/* \xe9t\xe9 */\nstatic const char *s = "cr\xe8me";\n\nint compute(void) {\n  return 1;\n}\n', 'latin1')
    const bom = Buffer.from('\xef\xbb\xbfdef first():\r\n    return 1\r\n\r\n\r\ndef second():\r\n    return 2\r\n', 'latin1')
    const java = Buffer.from('// \xe9t\xe9\npublic class Caf\xe9 {\n  String s = "cr\xe8me";\n\n  void mang\xe9() {}\n}\n', 'latin1')
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('def wide():\n    pass\n', 'utf16le')])
    repo.write('latin.py', py).write('latin.c', c).write('Cafe.java', java).write('bom.py', bom).write('wide.py', utf16).commit('odd encodings')
    repo.write('latin.py', Buffer.concat([py, Buffer.from('\n\ndef d\xe9j\xe0():\n    pass\n', 'latin1')])).commit('more Latin-1')

    const result = await analyze({ repo: repo.dir })
    expect(result.skipped.binary).toBe(1)

    const { rows } = await cypher({ repo: repo.dir, statement: 'MATCH (s:Symbol) RETURN s.path AS path, s.qualified_name AS name, s.start_line AS line ORDER BY path, line' })
    const latin = Buffer.concat([py, Buffer.from('\n\ndef d\xe9j\xe0():\n    pass\n', 'latin1')])
    expect(rows).toEqual([
      { path: 'Cafe.java', name: 'Café', line: lineOf(java, 'class Caf') },
      { path: 'Cafe.java', name: 'Café.mangé', line: lineOf(java, 'void mang') },
      { path: 'bom.py', name: 'first', line: 1 },
      { path: 'bom.py', name: 'second', line: lineOf(bom, 'def second') },
      { path: 'latin.c', name: 'compute', line: lineOf(c, 'int compute') },
      { path: 'latin.py', name: 'café', line: lineOf(latin, 'def caf') },
      { path: 'latin.py', name: 'Gâteau', line: lineOf(latin, 'class G') },
      { path: 'latin.py', name: 'Gâteau.mangé', line: lineOf(latin, 'def mang') },
      { path: 'latin.py', name: 'after', line: lineOf(latin, 'def after') },
      { path: 'latin.py', name: 'déjà', line: lineOf(latin, 'def d') },
    ])

    // symbol ranges and blame agree with git, byte for byte
    for (const name of ['café', 'Gâteau.mangé', 'déjà', 'after']) {
      const ev = await evidence({ repo: repo.dir, symbol: name, limit: 0 })
      const { line_start, line_end } = ev.target
      expect(Object.fromEntries(ev.evidence.filter((e) => e.source === 'blame').map((e) => [e.commit.sha, e.lines])), name).toEqual(Object.fromEntries(blameSet(repo, 'latin.py', line_start, line_end)))
    }
    const files = await cypher({ repo: repo.dir, statement: 'MATCH (f:File) WHERE f.present RETURN f.path AS path, f.lines AS lines ORDER BY path' })
    expect(files.rows).toEqual([
      { path: 'Cafe.java', lines: 6 },
      { path: 'bom.py', lines: 6 },
      { path: 'latin.c', lines: 6 },
      { path: 'latin.py', lines: latin.toString('latin1').split('\n').length - 1 },
    ])
  })
})

describe('a repository missing objects', () => {
  test('analyze fails as a user error naming the object (git log -p stops there too), not as a bug', async () => {
    repo = createRepo()
    repo.write('a.txt', 'one\n').commit('one')
    const blob = repo.git('rev-parse', 'HEAD:a.txt').trim()
    repo.write('a.txt', 'one\ntwo\n').commit('two')
    rmSync(repo.path(`.git/objects/${blob.slice(0, 2)}/${blob.slice(2)}`))
    const failure = await analyze({ repo: repo.dir }).then(() => null, (e: unknown) => e)
    expect(failure).toBeInstanceOf(UserError)
    expect((failure as UserError).code).toBe('repo_damaged')
    expect((failure as UserError).message).toContain(blob)
  })
})

describe('paths named like the properties of every JavaScript object', () => {
  test('constructor, toString, hasOwnProperty and __proto__ are files like any other: indexed, updated, answered as git answers', async () => {
    const r = (repo = createRepo())
    const NAMES = ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'src/constructor.ts', 'valueOf/index.ts']
    for (const name of NAMES) r.write(name, name.endsWith('.ts') ? 'export function constructor(): number {\n  return 1\n}\n' : `${name}\n`)
    r.commit('odd names')
    for (const name of NAMES) r.write(name, name.endsWith('.ts') ? 'export function constructor(): number {\n  return 2\n}\n' : `${name} again\n`)
    r.commit('odd names again')
    expect((await analyze({ repo: r.dir })).mode).toBe('full')
    for (const name of NAMES) r.write(name, name.endsWith('.ts') ? 'export function constructor(): number {\n  return 3\n}\n' : `${name} a third time\n`)
    r.commit('and again')
    expect((await analyze({ repo: r.dir })).mode).toBe('incremental')
    for (const name of NAMES) {
      const h = await history({ repo: r.dir, path: name, limit: 0 })
      expect(new Set(h.evidence.map((e) => e.commit.sha)), name).toEqual(followSet(r, name))
      expect(h.evidence.length, name).toBe(3)
      const ev = await evidence({ repo: r.dir, path: name, lineStart: 1, lineEnd: 1, limit: 0 })
      const blame = ev.evidence.filter((e) => e.source === 'blame')
      expect(Object.fromEntries(blame.map((e) => [e.commit.sha, e.lines])), name).toEqual(Object.fromEntries(blameSet(r, name, 1, 1)))
    }
    // the analytics of the update equal a fresh build's (ownership and activity are keyed by path)
    const fresh = r.clone()
    await analyze({ repo: fresh.dir, force: true })
    for (const name of NAMES) {
      const [updated, rebuilt] = await Promise.all([risk({ repo: r.dir, target: name }), risk({ repo: fresh.dir, target: name })])
      expect({ ...updated, index: null }, name).toEqual({ ...rebuilt, index: null })
      expect(updated.contributors.map((c) => c.email), name).toEqual(['ada@example.test'])
    }
  })
})
