/**
 * What `gitwhy hook claude` reads out of a Claude Code PreToolUse event: the search pattern, its
 * syntax and flags, the paths and globs it is limited to. The events under
 * test/fixtures/hook-events/ have the shape Claude Code sends (see the hooks reference,
 * "PreToolUse input"); the cwd is /home/dev/trpc. Nothing here touches the file system.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { HOOK_BUDGET_MS, HOOK_DEADLINE_MS, breToEre, hookDeadlineMs, longestLiteral, queryFor, searchFromEvent, shellTokens, type SearchIntent } from '../../src/hook/claude.js'
import { globToRegExp, looksLikeGlob, toRegExp } from '../../src/services/augment.js'

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'hook-events')
const CWD = '/home/dev/trpc'
const event = (name: string) => readFileSync(join(FIXTURES, `${name}.json`), 'utf8')

type Expected = Partial<SearchIntent> | null
const intent = (over: Partial<SearchIntent>): Expected => ({ mode: 'regex', ignoreCase: false, fixed: false, word: false, cwd: CWD, paths: [], globs: [], ...over })

/** Every fixture and what the hook must read from it (null: stay silent). */
const EXPECTED: Record<string, Expected> = {
  'grep-basic': intent({ tool: 'Grep', pattern: 'createRouter' }),
  'grep-path-glob-i': intent({ tool: 'Grep', pattern: 'auth.*token', ignoreCase: true, paths: ['/home/dev/trpc/packages/server/src'], globs: ['*.{ts,tsx}'] }),
  'grep-relative-path-type': intent({ tool: 'Grep', pattern: '\\binitTRPC\\b', paths: ['packages/server'], globs: ['*.ts', '*.tsx', '*.cts', '*.mts'] }),
  'grep-short': null,
  'grep-syntax-only': null,
  'glob-anchored': intent({ tool: 'Glob', pattern: 'src/**/router*.ts', mode: 'glob' }),
  'glob-with-path': intent({ tool: 'Glob', pattern: '**/*Link*.ts', mode: 'glob', paths: ['/home/dev/trpc/packages/client'] }),
  'glob-broad': null,
  'bash-rg': intent({ tool: 'Bash', pattern: 'httpBatchLink', paths: ['packages'] }),
  'bash-rg-flags': intent({ tool: 'Bash', pattern: 'create(Router|Caller)', ignoreCase: true, paths: ['packages/server'], globs: ['*.ts'] }),
  'bash-grep-recursive': intent({ tool: 'Bash', pattern: 'useQuery', paths: ['src/'], globs: ['*.ts'] }),
  // basic regex: `\|` is alternation
  'bash-grep-bre': intent({ tool: 'Bash', pattern: 'splitLink|loggerLink', word: true, paths: ['packages/client/src'] }),
  'bash-cd-rg': intent({ tool: 'Bash', pattern: 'createTRPCClient', cwd: '/home/dev/trpc/packages/client' }),
  'bash-git-grep': intent({ tool: 'Bash', pattern: 'getQueryKey(', fixed: true, globs: ['*.ts'] }),
  'bash-rg-files': intent({ tool: 'Bash', pattern: '*router*', mode: 'glob', paths: ['packages'] }),
  // grep filtering another command's output searches no file
  'bash-pipe-grep': null,
  // -v: the search is for lines *without* the pattern
  'bash-grep-invert': null,
  'bash-not-search': null,
  read: null,
  malformed: null,
}

describe('PreToolUse events → search pattern', () => {
  test('every fixture has an expectation and every expectation a fixture', () => {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort()
    expect(files).toEqual(Object.keys(EXPECTED).sort())
  })

  test.each(Object.entries(EXPECTED))('%s', (name, expected) => {
    const got = searchFromEvent(event(name))
    if (expected === null) expect(got).toBeNull()
    else expect(got).toEqual(expected)
  })

  test('the malformed fixture really is broken JSON', () => {
    expect(() => JSON.parse(event('malformed'))).toThrow()
  })

  test('other inputs that must stay silent: not an object, no tool_input, a non-string pattern, an unknown tool', () => {
    for (const raw of ['', 'null', '[]', '"Grep"', '{"tool_name":"Grep"}', '{"tool_name":"Grep","tool_input":{"pattern":42}}', '{"tool_name":"Edit","tool_input":{"file_path":"/a","old_string":"createRouter"}}']) {
      expect(searchFromEvent(raw), raw).toBeNull()
    }
  })
})

describe('shell commands', () => {
  const bash = (command: string) => searchFromEvent(JSON.stringify({ tool_name: 'Bash', tool_input: { command }, cwd: CWD }))

  test('quotes, escapes, redirections and operators', () => {
    expect(shellTokens(`rg -n "a \\"b\\" c" 'd e' f\\ g 2>/dev/null | head -5 && echo ok; x>out`)).toEqual([
      { word: 'rg' }, { word: '-n' }, { word: 'a "b" c' }, { word: 'd e' }, { word: 'f g' },
      { op: '|' }, { word: 'head' }, { word: '-5' }, { op: '&&' }, { word: 'echo' }, { word: 'ok' }, { op: ';' }, { word: 'x' },
    ])
    expect(shellTokens('grep foo src 2>&1 # a comment')).toEqual([{ word: 'grep' }, { word: 'foo' }, { word: 'src' }])
  })

  test('flags with values, clusters, --flag=value and --', () => {
    expect(bash('rg -C3 -tpy --max-count=2 -uu userRepository')).toMatchObject({ pattern: 'userRepository', paths: [], globs: ['*.py', '*.pyi'] })
    expect(bash('rg -A 2 -B 2 --glob "!**/*.test.ts" saveUser src lib')).toMatchObject({ pattern: 'saveUser', paths: ['src', 'lib'], globs: ['!**/*.test.ts'] })
    expect(bash('rg -e foo -e barbaz .')).toMatchObject({ pattern: '(?:foo)|(?:barbaz)', paths: ['.'] })
    expect(bash('rg -- -dashPattern src')).toMatchObject({ pattern: '-dashPattern', paths: ['src'] })
    expect(bash('grep -Rin --exclude=*.min.js -e handleSubmit .')).toMatchObject({ pattern: 'handleSubmit', ignoreCase: true, globs: ['!*.min.js'], paths: ['.'] })
  })

  test('case: -i, and rg smart case only for an all-lowercase pattern', () => {
    expect(bash('rg -S parseconfig')).toMatchObject({ ignoreCase: true })
    expect(bash('rg -S parseConfig')).toMatchObject({ ignoreCase: false })
    expect(bash('grep -ri ParseConfig src')).toMatchObject({ ignoreCase: true })
  })

  test('grep syntaxes: basic (default), extended (-E, egrep), fixed (-F, fgrep), perl (-P)', () => {
    expect(bash("grep -rn 'get(User)\\+' src")).toMatchObject({ pattern: 'get\\(User\\)+' })
    expect(bash("grep -rnE 'get(User)+' src")).toMatchObject({ pattern: 'get(User)+' })
    expect(bash("egrep -r 'a|bcd' src")).toMatchObject({ pattern: 'a|bcd' })
    expect(bash("fgrep -r 'a.b(c' src")).toMatchObject({ pattern: 'a.b(c', fixed: true })
    expect(bash("grep -rP '\\bfoo\\d+' src")).toMatchObject({ pattern: '\\bfoo\\d+' })
    expect(breToEre('\\<word\\>')).toBe('\\bword\\b')
  })

  test('where the search runs: env prefixes, wrappers, cd, pipes', () => {
    expect(bash('LC_ALL=C time rg needle')).toMatchObject({ pattern: 'needle', cwd: CWD })
    expect(bash('cd packages && cd server && rg needle')).toMatchObject({ cwd: '/home/dev/trpc/packages/server' })
    expect(bash('cat files.txt | rg needle')).toBeNull() // rg reads the pipe
    expect(bash('cat files.txt | rg needle src')).toMatchObject({ paths: ['src'] })
    expect(bash('grep needle')).toBeNull() // grep without a path reads stdin
    expect(bash('grep -r needle')).toMatchObject({ paths: [] }) // recursive: the working directory
    expect(bash('echo start; rg -l needle src | xargs wc -l')).toMatchObject({ pattern: 'needle', paths: ['src'] })
    expect(bash('rg -f patterns.txt src')).toBeNull() // patterns from a file: unknown
    expect(bash('ls -la')).toBeNull()
  })
})

describe('pattern length after dropping syntax', () => {
  const lit = (pattern: string, mode: 'regex' | 'glob' = 'regex') => longestLiteral({ pattern, mode, fixed: false })
  test.each([
    ['createRouter', 12], ['\\bfoo\\b', 3], ['a.b', 1], ['ab', 2], ['auth.*token', 5], ['colou?r', 4], ['\\.then\\(', 6], ['[a-z]+Id', 2], ['(foo|bar)', 3], ['x{2,3}yz', 2],
  ])('regex %s → %i', (p, n) => expect(lit(p)).toBe(n))
  test.each([['**/*.ts', 2], ['src/**/router*.ts', 6], ['*.{ts,tsx}', 3], ['**/*Link*.ts', 4]])('glob %s → %i', (p, n) => expect(lit(p, 'glob')).toBe(n))
  test('a fixed string counts whole', () => expect(longestLiteral({ pattern: 'a.b', mode: 'regex', fixed: true })).toBe(3))
})

describe('patterns and globs as the index sees them', () => {
  test('regex: rg syntax that JS lacks is adapted, an invalid one is a literal', () => {
    expect(toRegExp('(?i)router').test('ROUTER')).toBe(true)
    expect(toRegExp('(?P<n>ab)c').test('abc')).toBe(true)
    expect(toRegExp('foo(').test('a foo( b')).toBe(true)
    expect(toRegExp('a.b', { fixed: true }).test('axb')).toBe(false)
    expect(toRegExp('load', { word: true }).test('loader')).toBe(false)
  })

  test('globs: ** spans directories, * does not, a glob without / matches the name at any depth', () => {
    const g = (glob: string, p: string) => globToRegExp(glob).test(p)
    expect(g('src/**/router*.ts', 'src/router.ts')).toBe(true)
    expect(g('src/**/router*.ts', 'src/a/b/routerLike.ts')).toBe(true)
    expect(g('src/**/router*.ts', 'lib/src/router.ts')).toBe(false)
    expect(g('src/*.ts', 'src/a/b.ts')).toBe(false)
    expect(g('*.{ts,tsx}', 'deep/in/x.tsx')).toBe(true)
    expect(g('file?.[jt]s', 'a/file1.js')).toBe(true)
    expect(g('[!a]*.md', 'b.md')).toBe(true)
  })

  test('the CLI reads a pattern as a glob only when it looks like one', () => {
    for (const p of ['src/**/router*.ts', '**/*.ts', '*router*', 'src/*.ts', '*.{ts,tsx}']) expect(looksLikeGlob(p), p).toBe(true)
    for (const p of ['createRouter', 'auth.*token', 'router.ts', 'a{2,3}', 'src/.*router', '(foo|bar)']) expect(looksLikeGlob(p), p).toBe(false)
  })

  test('paths and globs become repository-relative; a search outside the repository has no query', () => {
    const base: SearchIntent = { tool: 'Glob', pattern: '**/*Link*.ts', mode: 'glob', ignoreCase: false, fixed: false, word: false, cwd: CWD, paths: ['/home/dev/trpc/packages/client'], globs: [] }
    expect(queryFor(base, CWD)).toMatchObject({ pattern: 'packages/client/**/*Link*.ts', within: ['packages/client'] })
    expect(queryFor({ ...base, paths: [], cwd: '/home/dev/trpc/packages' }, CWD)).toMatchObject({ pattern: 'packages/**/*Link*.ts', within: ['packages'] })
    expect(queryFor({ ...base, pattern: '*Link*.ts', paths: [] }, CWD)).toMatchObject({ pattern: '*Link*.ts', within: [''] })
    const grep: SearchIntent = { ...base, tool: 'Grep', mode: 'regex', pattern: 'x', paths: ['packages/server'], globs: ['*.ts', '!src/**/*.test.ts'] }
    expect(queryFor(grep, CWD)).toMatchObject({ within: ['packages/server'], globs: ['*.ts', '!packages/server/src/**/*.test.ts'] })
    expect(queryFor({ ...grep, paths: ['/etc'] }, CWD)).toBeNull()
  })
})

describe('the hook deadline adapts to the observed start-up cost', () => {
  test('a quick start gets the work budget; a slow start (a loaded machine) a budget scaled by it, capped at 1 s; GITWHY_HOOK_DEADLINE_MS fixes it', () => {
    const saved = process.env.GITWHY_HOOK_DEADLINE_MS
    delete process.env.GITWHY_HOOK_DEADLINE_MS
    try {
      expect(hookDeadlineMs(40)).toBe(40 + HOOK_BUDGET_MS)
      expect(hookDeadlineMs(60)).toBe(HOOK_DEADLINE_MS)
      // node took 300 ms to reach the hook: 5× slower than nominal, so 5× the work budget
      expect(hookDeadlineMs(300)).toBe(300 + 5 * HOOK_BUDGET_MS)
      expect(hookDeadlineMs(700)).toBe(1000)
      process.env.GITWHY_HOOK_DEADLINE_MS = '2500'
      expect(hookDeadlineMs(300)).toBe(2500)
    } finally {
      if (saved === undefined) delete process.env.GITWHY_HOOK_DEADLINE_MS
      else process.env.GITWHY_HOOK_DEADLINE_MS = saved
    }
  })
})
