/**
 * Scenario repositories for the oracle tests. Each builder returns a repository whose history
 * exercises one family of git behaviour. Source lines are kept unique within a file (closing braces
 * carry a comment naming what they close) so that no hunk can slide: there `git log -L` (which diffs
 * without the indent heuristic) and `git blame` (with it) agree, and the -L comparison is exact.
 * The `ambiguous` scenario is the exception, on purpose.
 */
import { createRepo, TestRepo } from './repo.js'

export interface Scenario {
  name: string
  repo: TestRepo
  /** Things this scenario is about, for failure messages. */
  notes: string
  /** Remove the repository and anything else the builder created. */
  cleanup(): void
}

export type ScenarioBuilder = () => Scenario

const L = (...lines: string[]): string => lines.map((l) => `${l}\n`).join('')

/** A TypeScript class whose methods each return a distinct body; every line is unique. */
export function tsClass(name: string, methods: Record<string, string[]>, exported = true): string {
  const out = [`${exported ? 'export ' : ''}class ${name} {`]
  for (const [m, body] of Object.entries(methods)) {
    out.push(`  ${m}(input: number): number {`)
    for (const b of body) out.push(`    ${b}`)
    out.push(`  } // ${name}.${m}`)
  }
  out.push(`} // class ${name}`)
  return L(...out)
}

export function tsFunction(name: string, body: string[]): string {
  return L(`export function ${name}(value: number): number {`, ...body.map((b) => `  ${b}`), `} // function ${name}`)
}

export function pyClass(name: string, methods: Record<string, string[]>): string {
  const out = [`class ${name}:`]
  for (const [m, body] of Object.entries(methods)) {
    out.push(`    def ${m}(self, value):`)
    for (const b of body) out.push(`        ${b}`)
  }
  return L(...out)
}

export function pyFunction(name: string, body: string[]): string {
  return L(`def ${name}(value):`, ...body.map((b) => `    ${b}`))
}

// ---------------------------------------------------------------------------------------------

export function linearScenario(): Scenario {
  const repo = createRepo()
  repo.write('README.md', L('# Linear', 'A project with a straight history.'))
  repo.write('src/greeter.ts', tsClass('Greeter', {
    greet: ['const greeting = input + 1', 'return greeting'],
    farewell: ['const bye = input - 1', 'return bye'],
  }))
  repo.write('src/calc.py', pyClass('Calc', {
    add: ['total = value + 1', 'return total'],
    sub: ['diff = value - 1', 'return diff'],
  }) + pyFunction('helper', ['scaled = value * 2', 'return scaled']))
  repo.commit('Initial commit')

  repo.write('src/greeter.ts', tsClass('Greeter', {
    greet: ['const greeting = input + 2', 'return greeting'],
    farewell: ['const bye = input - 1', 'return bye'],
  }))
  repo.commit('Greet by two')

  repo.write('src/greeter.ts', tsClass('Greeter', {
    greet: ['const greeting = input + 2', 'return greeting'],
    wave: ['const hand = input * 3', 'const arm = hand + 1', 'return arm'],
    farewell: ['const bye = input - 1', 'return bye'],
  }))
  repo.commit('Add wave', { author: { name: 'Bob Builder', email: 'bob@example.test' } })

  repo.write('src/calc.py', pyClass('Calc', {
    add: ['total = value + 1', 'log_add(total)', 'return total'],
    sub: ['diff = value - 1', 'return diff'],
    mul: ['product = value * value', 'return product'],
  }) + pyFunction('helper', ['scaled = value * 2', 'return scaled']))
  repo.commit('Add mul and logging')

  repo.write('src/greeter.ts', tsClass('Greeter', {
    greet: ['const greeting = input + 2', 'return greeting'],
    wave: ['const hand = input * 4', 'return hand'],
    farewell: ['const bye = input - 1', 'return bye'],
  }))
  repo.commit('Simplify wave (delete a line, modify another)')

  repo.write('src/calc.py', pyClass('Calc', {
    add: ['total = value + 1', 'log_add(total)', 'return total'],
    mul: ['product = value * value', 'return product'],
  }) + pyFunction('helper', ['scaled = value * 3', 'clamped = min(scaled, 99)', 'return clamped']))
  repo.commit('Drop sub, clamp helper')

  // A last line without a trailing newline.
  repo.write('notes.txt', 'first note\nsecond note\nthird note without newline')
  repo.commit('Add notes')
  repo.write('notes.txt', 'first note\nsecond note changed\nthird note without newline')
  repo.commit('Edit notes')
  repo.write('README.md', L('# Linear', 'A project with a straight history.', 'Now with notes.'))
  repo.commit('Docs')
  return { name: 'linear', repo, notes: 'linear edits: modify, insert, delete, no trailing newline', cleanup: () => repo.cleanup() }
}

export function mergesScenario(): Scenario {
  const repo = createRepo()
  const v1 = {
    start: ['const started = input + 10', 'return started'],
    stop: ['const stopped = input - 10', 'return stopped'],
    status: ['const code = input % 7', 'return code'],
  }
  repo.write('src/service.ts', tsClass('Service', v1))
  repo.write('src/config.py', pyFunction('load_config', ['path = value', 'data = read(path)', 'return data']) +
    pyFunction('save_config', ['target = value', 'write(target)', 'return True']))
  repo.write('docs/guide.md', L('# Guide', 'Step one.', 'Step two.', 'Step three.'))
  repo.commit('Initial service')

  // Clean merge: feature changes start and adds restart; main changes stop.
  repo.branch('feature').checkout('feature')
  repo.write('src/service.ts', tsClass('Service', {
    start: ['const started = input + 11', 'return started'],
    restart: ['const again = input + 100', 'return again'],
    stop: v1.stop,
    status: v1.status,
  }))
  repo.commit('feature: tune start, add restart')
  repo.write('docs/guide.md', L('# Guide', 'Step one.', 'Step two (feature).', 'Step three.'))
  repo.commit('feature: guide')
  repo.checkout('main')
  repo.write('src/service.ts', tsClass('Service', {
    start: v1.start,
    stop: ['const stopped = input - 12', 'return stopped'],
    status: v1.status,
  }))
  repo.commit('main: tune stop')
  repo.merge('feature', { message: 'Merge feature (clean)' })

  // Same line changed on both sides, resolved by hand.
  repo.branch('conflict').checkout('conflict')
  repo.write('src/config.py', pyFunction('load_config', ['path = value', 'data = read_json(path)', 'return data']) +
    pyFunction('save_config', ['target = value', 'write(target)', 'return True']))
  repo.commit('conflict: read json')
  repo.checkout('main')
  repo.write('src/config.py', pyFunction('load_config', ['path = value', 'data = read_yaml(path)', 'return data']) +
    pyFunction('save_config', ['target = value', 'write(target)', 'return True']))
  repo.commit('main: read yaml')
  repo.mergeResolving('conflict', {
    'src/config.py': pyFunction('load_config', ['path = value', 'data = read_any(path)', 'return data']) +
      pyFunction('save_config', ['target = value', 'write(target)', 'return True']),
  }, { message: 'Merge conflict: read any format' })

  // Evil merge: the merge commit adds a line of its own to a file neither side touched there.
  repo.branch('evil').checkout('evil')
  repo.write('docs/guide.md', L('# Guide', 'Step one.', 'Step two (feature).', 'Step three.', 'Step four (evil branch).'))
  repo.commit('evil: step four')
  repo.checkout('main')
  repo.write('src/config.py', pyFunction('load_config', ['path = value', 'data = read_any(path)', 'return data']) +
    pyFunction('save_config', ['target = value', 'write(target)', 'flush()', 'return True']))
  repo.commit('main: flush on save')
  repo.mergeResolving('evil', {
    'src/service.ts': tsClass('Service', {
      start: ['const started = input + 11', 'return started'],
      restart: ['const again = input + 100', 'return again'],
      stop: ['const stopped = input - 12', 'return stopped'],
      status: ['const code = input % 7', 'audit(code)', 'return code'],
    }),
  }, { message: 'Merge evil (adds audit line)' })

  // One side's change dropped: -s ours.
  repo.branch('dropped').checkout('dropped')
  repo.write('src/service.ts', tsClass('Service', {
    start: ['const started = input + 99', 'return started'],
    restart: ['const again = input + 100', 'return again'],
    stop: ['const stopped = input - 12', 'return stopped'],
    status: ['const code = input % 7', 'audit(code)', 'return code'],
  }))
  repo.commit('dropped: start at 99 (will be discarded)')
  repo.write('docs/dropped.md', L('This file only exists on the dropped branch.'))
  repo.commit('dropped: extra doc')
  repo.checkout('main')
  repo.write('docs/guide.md', L('# Guide', 'Step one.', 'Step two (feature).', 'Step three.', 'Step four (evil branch).', 'Step five (main).'))
  repo.commit('main: step five')
  repo.merge('dropped', { strategy: 'ours', message: 'Merge dropped with -s ours' })

  // A fast-forward merge of a short branch.
  repo.branch('ff').checkout('ff')
  repo.write('src/config.py', pyFunction('load_config', ['path = value', 'data = read_any(path)', 'return data']) +
    pyFunction('save_config', ['target = value', 'write_atomic(target)', 'flush()', 'return True']))
  repo.commit('ff: atomic writes')
  repo.checkout('main')
  repo.merge('ff', { noFF: false })

  // Two parallel branches merged in sequence, both touching service.ts in different methods.
  repo.branch('left').branch('right')
  repo.checkout('left')
  repo.write('src/service.ts', tsClass('Service', {
    start: ['const started = input + 11', 'return started'],
    restart: ['const again = input + 101', 'return again'],
    stop: ['const stopped = input - 12', 'return stopped'],
    status: ['const code = input % 7', 'audit(code)', 'return code'],
  }))
  repo.commit('left: restart 101')
  repo.checkout('right')
  repo.write('src/service.ts', tsClass('Service', {
    start: ['const started = input + 11', 'return started'],
    restart: ['const again = input + 100', 'return again'],
    stop: ['const stopped = input - 12', 'return stopped'],
    status: ['const code = input % 8', 'audit(code)', 'return code'],
  }))
  repo.commit('right: status mod 8')
  repo.checkout('main')
  repo.merge('left', { message: 'Merge left' })
  repo.merge('right', { message: 'Merge right' })
  return { name: 'merges', repo, notes: 'clean merge, conflict resolved, evil merge, -s ours, fast-forward, parallel branches', cleanup: () => repo.cleanup() }
}

export function renamesScenario(): Scenario {
  const repo = createRepo()
  repo.write('lib/util.ts', tsFunction('clamp', ['const low = Math.max(value, 0)', 'const high = Math.min(low, 10)', 'return high']) +
    tsFunction('double', ['const twice = value * 2', 'return twice']) +
    tsFunction('square', ['const sq = value * value', 'return sq']))
  repo.write('lib/format.py', pyFunction('fmt_int', ['text = str(value)', 'padded = text.rjust(4)', 'return padded']) +
    pyFunction('fmt_float', ['text = f"{value:.2f}"', 'trimmed = text.strip()', 'return trimmed']))
  repo.write('old/legacy.txt', L('legacy line one', 'legacy line two', 'legacy line three', 'legacy line four'))
  repo.write('keep.md', L('# Keep', 'This file never moves.'))
  repo.commit('Initial layout')

  repo.write('lib/util.ts', tsFunction('clamp', ['const low = Math.max(value, 0)', 'const high = Math.min(low, 20)', 'return high']) +
    tsFunction('double', ['const twice = value * 2', 'return twice']) +
    tsFunction('square', ['const sq = value * value', 'return sq']))
  repo.commit('Clamp to 20')

  // Pure rename across directories.
  repo.move('lib/util.ts', 'src/core/util.ts')
  repo.commit('Move util to src/core')

  repo.write('src/core/util.ts', tsFunction('clamp', ['const low = Math.max(value, 0)', 'const high = Math.min(low, 20)', 'return high']) +
    tsFunction('double', ['const twice = value * 2', 'return twice']) +
    tsFunction('square', ['const sq = value ** 2', 'return sq']))
  repo.commit('Square with exponent')

  // Rename + edit in the same commit (similarity stays well above 50%).
  repo.move('src/core/util.ts', 'src/core/numbers.ts')
  repo.write('src/core/numbers.ts', tsFunction('clamp', ['const low = Math.max(value, 0)', 'const high = Math.min(low, 20)', 'return high']) +
    tsFunction('double', ['const twice = value * 2', 'return twice']) +
    tsFunction('square', ['const sq = value ** 2', 'return sq']) +
    tsFunction('halve', ['const half = value / 2', 'return half']))
  repo.commit('Rename util to numbers and add halve')

  // Rename on a side branch, merged back; main edits the file meanwhile (different region).
  repo.branch('move-format').checkout('move-format')
  repo.move('lib/format.py', 'src/text/format.py')
  repo.commit('Move format into src/text')
  repo.write('src/text/format.py', pyFunction('fmt_int', ['text = str(value)', 'padded = text.rjust(6)', 'return padded']) +
    pyFunction('fmt_float', ['text = f"{value:.2f}"', 'trimmed = text.strip()', 'return trimmed']))
  repo.commit('Pad to 6 on the branch')
  repo.checkout('main')
  repo.write('lib/format.py', pyFunction('fmt_int', ['text = str(value)', 'padded = text.rjust(4)', 'return padded']) +
    pyFunction('fmt_float', ['text = f"{value:.3f}"', 'trimmed = text.strip()', 'return trimmed']))
  repo.commit('Three decimals on main')
  repo.merge('move-format', { message: 'Merge move-format' })

  // Whole-directory move.
  repo.move('old', 'archive/old')
  repo.commit('Archive the old directory')
  repo.write('archive/old/legacy.txt', L('legacy line one', 'legacy line two (archived)', 'legacy line three', 'legacy line four'))
  repo.commit('Touch archived legacy')

  repo.write('src/core/numbers.ts', tsFunction('clamp', ['const low = Math.max(value, 1)', 'const high = Math.min(low, 20)', 'return high']) +
    tsFunction('double', ['const twice = value * 2', 'return twice']) +
    tsFunction('square', ['const sq = value ** 2', 'return sq']) +
    tsFunction('halve', ['const half = value / 2', 'return half']))
  repo.commit('Clamp from 1')
  return { name: 'renames', repo, notes: 'pure move across dirs, rename+edit, rename on a side branch, directory move', cleanup: () => repo.cleanup() }
}

export function revertsScenario(): Scenario {
  const repo = createRepo()
  const base = pyClass('Store', {
    get: ['item = self.items[value]', 'return item'],
    put: ['self.items[value] = True', 'return value'],
  })
  repo.write('store.py', base)
  repo.write('data/table.txt', L('row alpha', 'row beta', 'row gamma'))
  repo.write('transient.ts', tsFunction('transient', ['const t = value + 5', 'return t']))
  repo.commit('Initial store')

  repo.write('store.py', pyClass('Store', {
    get: ['item = self.items.get(value)', 'return item'],
    put: ['self.items[value] = True', 'return value'],
  }))
  const bad = repo.commit('Use dict.get')
  repo.write('data/table.txt', L('row alpha', 'row beta', 'row gamma', 'row delta'))
  repo.commit('Add delta row')
  const revert1 = repo.revert(bad)
  repo.write('store.py', pyClass('Store', {
    get: ['item = self.items[value]', 'return item'],
    put: ['self.items[value] = True', 'self.count += 1', 'return value'],
  }))
  repo.commit('Count puts')
  repo.revert(revert1)

  // Deleted, then re-added with different content, then edited.
  repo.remove('transient.ts')
  repo.commit('Remove transient')
  repo.write('data/table.txt', L('row alpha', 'row beta (edited)', 'row gamma', 'row delta'))
  repo.commit('Edit beta row')
  repo.write('transient.ts', tsFunction('transient', ['const t = value + 6', 'const u = t * 2', 'return u']))
  repo.commit('Bring transient back')
  repo.write('transient.ts', tsFunction('transient', ['const t = value + 6', 'const u = t * 3', 'return u']))
  repo.commit('Triple transient')

  // Deleted and re-added with identical content.
  const tableNow = L('row alpha', 'row beta (edited)', 'row gamma', 'row delta')
  repo.remove('data/table.txt')
  repo.commit('Drop table')
  repo.write('data/table.txt', tableNow)
  repo.commit('Restore table')
  return { name: 'reverts', repo, notes: 'revert, revert of a revert, delete + re-add (different and identical content)', cleanup: () => repo.cleanup() }
}

export function encodingsScenario(): Scenario {
  const repo = createRepo()
  const crlf = (...lines: string[]): string => lines.map((l) => `${l}\r\n`).join('')
  repo.write('win/crlf.ts', crlf('export function crlfOne(value: number): number {', '  const a = value + 1', '  return a', '} // function crlfOne'))
  const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1')
  repo.write('legacy/latin1.txt', latin1('caf\xe9 au lait\nna\xefve line\nplain ascii line\n'))
  repo.write('dir with space/ünï code.ts', tsFunction('unicodeName', ['const ü = value + 1', 'return ü']))
  repo.write('empty.txt', '')
  repo.write('mixed/no-newline.py', 'def tail(value):\n    return value')
  repo.commit('Initial encodings')

  repo.write('win/crlf.ts', crlf('export function crlfOne(value: number): number {', '  const a = value + 2', '  const b = a * 2', '  return b', '} // function crlfOne'))
  repo.commit('CRLF edit')
  repo.write('legacy/latin1.txt', latin1('caf\xe9 au lait\nna\xefve line \xbbquoted\xab\nplain ascii line\nend \xa7 section\n'))
  repo.commit('Latin-1 edit')
  repo.write('dir with space/ünï code.ts', tsFunction('unicodeName', ['const ü = value + 1', 'const ß = ü * 2', 'return ß']))
  repo.commit('Unicode path edit')
  repo.move('dir with space/ünï code.ts', 'dir with space/ñew näme.ts')
  repo.commit('Rename unicode path')
  repo.write('mixed/no-newline.py', 'def tail(value):\n    doubled = value * 2\n    return doubled')
  repo.commit('No newline edit')
  return { name: 'encodings', repo, notes: 'CRLF, latin-1 bytes, spaces and unicode in paths, empty file, no trailing newline', cleanup: () => repo.cleanup() }
}

/**
 * An octopus merge (three side branches at once, each editing its own part of a shared file and a
 * file of its own, one of them Latin-1 Python), an empty commit, and a second octopus naming a
 * branch already merged.
 */
export function octopusScenario(): Scenario {
  const repo = createRepo()
  const shared = (a: string, b: string, c: string): string => L('# shared', `a = ${a}`, '# gap 1', '# gap 2', '# gap 3', `b = ${b}`, '# gap 4', '# gap 5', '# gap 6', `c = ${c}`, '# end')
  repo.write('shared.py', shared('0', '0', '0')).write('main.py', pyFunction('main', ['return 0'])).commit('Base')
  repo.branch('a').branch('b').branch('c')
  repo.checkout('a').write('shared.py', shared('1', '0', '0')).write('a.py', pyFunction('alpha', ['return 1'])).commit('A: alpha')
  repo.checkout('b').write('shared.py', shared('0', '2', '0')).write('b.py', Buffer.from(`def caf\xe9(value):\n    return value\n`, 'latin1')).commit('B: caf\xe9 in Latin-1')
  repo.checkout('c').write('shared.py', shared('0', '0', '3')).commit('C: third')
  repo.write('c.py', pyFunction('gamma', ['return 3'])).commit('C: gamma')
  repo.checkout('main').write('main.py', pyFunction('main', ['value = 1', 'return value'])).commit('Main: edit')
  repo.commit('Empty commit', { allowEmpty: true })
  repo.git('merge', '-q', '--no-ff', '-m', 'Octopus a b c', 'a', 'b', 'c')
  repo.branch('d')
  repo.checkout('a').write('a.py', pyFunction('alpha', ['value = 10', 'return value'])).commit('A: later')
  repo.checkout('d').write('d.py', pyFunction('delta', ['return 4'])).commit('D: delta')
  repo.checkout('main').write('shared.py', shared('1', '2', '4')).commit('Main: c = 4')
  // b is already merged: git leaves it out, so this octopus has three parents
  repo.git('merge', '-q', '--no-ff', '-m', 'Octopus again', 'a', 'b', 'd')
  return { name: 'octopus', repo, notes: 'octopus merges (one with an already-merged branch), an empty commit, Latin-1 Python', cleanup: () => repo.cleanup() }
}

/**
 * Natural code with repeated lines (`}` and blank lines) where inserted blocks can slide; git blame
 * and gitwhy use the indent heuristic, git log -L does not. Blame is compared; -L only where the
 * history is heuristic-insensitive.
 */
export function ambiguousScenario(): Scenario {
  const repo = createRepo()
  repo.write('src/shapes.ts', L(
    'export class Shapes {',
    '  area(): number {',
    '    return 1',
    '  }',
    '}',
  ))
  repo.commit('Shapes with area')
  repo.write('src/shapes.ts', L(
    'export class Shapes {',
    '  area(): number {',
    '    return 1',
    '  }',
    '',
    '  perimeter(): number {',
    '    return 2',
    '  }',
    '}',
  ))
  repo.commit('Add perimeter')
  repo.write('src/shapes.ts', L(
    'export class Shapes {',
    '  area(): number {',
    '    return 1',
    '  }',
    '',
    '  volume(): number {',
    '    return 3',
    '  }',
    '',
    '  perimeter(): number {',
    '    return 2',
    '  }',
    '}',
  ))
  repo.commit('Add volume between')
  repo.write('src/list.py', L('def first(items):', '    if items:', '        return items[0]', '    return None', ''))
  repo.commit('first()')
  repo.write('src/list.py', L('def first(items):', '    if items:', '        return items[0]', '    return None', '', '', 'def last(items):', '    if items:', '        return items[-1]', '    return None', ''))
  repo.commit('last()')
  // Found by brute force: here the diff with and without the indent heuristic differ, so git log -L
  // attributes line 1 to the root commit while git blame gives it to 'Insert block above'.
  repo.write('src/slide.txt', L('g() {', 'g() {', 'g() {', 'f() {', ''))
  repo.commit('slide: base')
  repo.write('src/slide.txt', L('g() {', '', '}', '', 'g() {', 'g() {', 'g() {', 'f() {', ''))
  repo.commit('slide: insert block above')
  return { name: 'ambiguous', repo, notes: 'slidable hunks (indent heuristic matters)', cleanup: () => repo.cleanup() }
}

/** A full repository of 8 commits; shallowScenario clones it with --depth 3. */
export function shallowScenario(): Scenario {
  const origin = createRepo()
  origin.write('app/main.py', pyFunction('main', ['args = value', 'run(args)', 'return 0']) + pyFunction('run', ['step = value', 'return step']))
  origin.write('app/util.ts', tsFunction('utilOne', ['const u = value + 1', 'return u']))
  origin.write('README.md', L('# Shallow', 'origin readme line'))
  origin.commit('c1: initial')
  origin.write('app/main.py', pyFunction('main', ['args = value', 'run(args)', 'cleanup()', 'return 0']) + pyFunction('run', ['step = value', 'return step']))
  origin.commit('c2: cleanup')
  origin.write('app/util.ts', tsFunction('utilOne', ['const u = value + 2', 'return u']))
  origin.commit('c3: util +2')
  origin.write('README.md', L('# Shallow', 'origin readme line', 'more readme'))
  origin.commit('c4: readme')
  origin.write('app/main.py', pyFunction('main', ['args = parse(value)', 'run(args)', 'cleanup()', 'return 0']) + pyFunction('run', ['step = value', 'return step']))
  origin.commit('c5: parse args')
  origin.write('app/util.ts', tsFunction('utilOne', ['const u = value + 2', 'const w = u * 2', 'return w']))
  origin.commit('c6: util double')
  origin.write('app/main.py', pyFunction('main', ['args = parse(value)', 'run(args)', 'cleanup()', 'return 0']) + pyFunction('run', ['step = value + 1', 'return step']))
  origin.commit('c7: run +1')
  origin.write('README.md', L('# Shallow', 'origin readme line (edited)', 'more readme'))
  origin.commit('c8: readme edit')
  const repo = origin.clone({ depth: 3 })
  return { name: 'shallow', repo, notes: 'git clone --depth 3 file://', cleanup: () => origin.cleanup() }
}

/** Not under vendor/: gitwhy skips vendored paths by design, which is not what this scenario is about. */
export function submoduleScenario(): Scenario {
  const lib = createRepo()
  lib.write('lib.py', pyFunction('library_fn', ['return value']))
  lib.commit('lib: initial')
  const repo = createRepo()
  repo.write('app.ts', tsFunction('appMain', ['const a = value + 1', 'return a']))
  repo.commit('app: initial')
  repo.git('-c', 'protocol.file.allow=always', 'submodule', '-q', 'add', lib.dir, 'deps/lib')
  repo.commit('Add submodule deps/lib')
  repo.write('app.ts', tsFunction('appMain', ['const a = value + 2', 'return a']))
  repo.commit('app: +2')
  lib.write('lib.py', pyFunction('library_fn', ['doubled = value * 2', 'return doubled']))
  lib.commit('lib: double')
  repo.git('-C', 'deps/lib', '-c', 'protocol.file.allow=always', 'pull', '-q', 'origin', 'main')
  repo.git('add', 'deps/lib')
  repo.commit('Bump submodule')
  repo.write('deps/notes.md', L('Dependencies live here.'))
  repo.commit('Notes beside the submodule')
  return { name: 'submodule', repo, notes: 'gitlink at deps/lib (must be skipped), files beside it', cleanup: () => { repo.cleanup(); lib.cleanup() } }
}

export const SCENARIOS: Record<string, ScenarioBuilder> = {
  linear: linearScenario,
  merges: mergesScenario,
  renames: renamesScenario,
  reverts: revertsScenario,
  encodings: encodingsScenario,
  ambiguous: ambiguousScenario,
  shallow: shallowScenario,
  submodule: submoduleScenario,
}

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A seeded random walk: ~40 commits of random inserts/deletes/modifications in three files, three
 * topic branches merged back (conflicts resolved by taking the branch's side), one rename (with an
 * edit in the same commit). Every line ever written is unique, so no hunk is ambiguous.
 */
export function randomScenario(seed = 20240601, commits = 40): Scenario {
  const repo = createRepo()
  const rand = rng(seed)
  const pick = (n: number): number => Math.floor(rand() * n)
  let next = 0
  const fresh = (): string => `v${++next} = ${pick(1000)}`
  const paths = ['walk/alpha.py', 'walk/beta.py', 'walk/gamma.py']
  const content = new Map<string, string[]>()
  for (const p of paths) {
    const lines = Array.from({ length: 8 + pick(8) }, fresh)
    content.set(p, lines)
    repo.write(p, L(...lines))
  }
  repo.commit('random: initial')

  const readLines = (p: string): string[] => repo.git('show', `HEAD:${p}`).split('\n').slice(0, -1)
  const mutate = (p: string): void => {
    const lines = readLines(p)
    const ops = 1 + pick(3)
    for (let i = 0; i < ops; i++) {
      const op = pick(3)
      if (op === 0 || lines.length < 4) {
        const at = pick(lines.length + 1)
        lines.splice(at, 0, ...Array.from({ length: 1 + pick(3) }, fresh))
      } else if (op === 1) {
        const at = pick(lines.length)
        lines.splice(at, Math.min(1 + pick(2), lines.length - 3))
      } else {
        lines[pick(lines.length)] = fresh()
      }
    }
    repo.write(p, L(...lines))
  }

  let made = 1
  let renamed = false
  const branchAt = new Set([8, 18, 28])
  while (made < commits) {
    if (branchAt.has(made)) {
      const name = `topic-${made}`
      repo.branch(name).checkout(name)
      const steps = 2 + pick(3)
      for (let i = 0; i < steps; i++) {
        mutate(paths[pick(paths.length)])
        repo.commit(`${name}: step ${i + 1}`)
        made++
      }
      repo.checkout('main')
      const mainSteps = 1 + pick(3)
      for (let i = 0; i < mainSteps; i++) {
        mutate(paths[pick(paths.length)])
        repo.commit(`main: step beside ${name} ${i + 1}`)
        made++
      }
      const r = repo.gitMay([0, 1], 'merge', '-q', '--no-commit', '--no-ff', name)
      if (r.status !== 0) {
        const conflicted = repo.git('diff', '--name-only', '--diff-filter=U').split('\n').filter(Boolean)
        const files: Record<string, string> = {}
        for (const f of conflicted) files[f] = repo.git('show', `${name}:${f}`)
        for (const [f, c] of Object.entries(files)) repo.write(f, c)
      }
      repo.commit(`Merge ${name}`)
      made++
      continue
    }
    if (!renamed && made >= 22) {
      repo.move(paths[1], 'moved/beta_renamed.py')
      paths[1] = 'moved/beta_renamed.py'
      const lines = readLinesWorktree(repo, paths[1])
      lines[pick(lines.length)] = fresh()
      repo.write(paths[1], L(...lines))
      repo.commit('random: rename beta with an edit')
      renamed = true
      made++
      continue
    }
    mutate(paths[pick(paths.length)])
    if (rand() < 0.3) mutate(paths[pick(paths.length)])
    repo.commit(`random: commit ${made}`)
    made++
  }
  return { name: `random(seed=${seed})`, repo, notes: 'seeded random walk', cleanup: () => repo.cleanup() }
}

function readLinesWorktree(repo: TestRepo, p: string): string[] {
  return repo.git('show', `:${p}`).split('\n').slice(0, -1)
}

/**
 * Formatting sweeps on the blame ignore list (`.git-blame-ignore-revs`, named by
 * blame.ignoreRevsFile so plain `git blame` honours it too): a seeded random walk over three
 * files with a rename and merged topic branches, and sweeps that reformat lines (spacing, case,
 * semicolons, quotes, a line split in two or two joined, lines added or dropped), one of them
 * renaming a file, two back to back, one on a topic branch. Lines carry a non-ASCII character
 * now and then (git's fingerprints hash those bytes as signed chars).
 */
export function ignoreRevsScenario(seed = 7, commits = 36): Scenario {
  const repo = createRepo()
  const rand = rng(seed)
  const pick = (n: number): number => Math.floor(rand() * n)
  let next = 0
  const fresh = (): string => `let v${++next} = call("${['alpha', 'beta', 'gamma', 'délai', 'zeta'][pick(5)]}", ${pick(1000)})`
  const paths = ['src/one.js', 'src/two.js', 'src/three.js']
  for (const p of paths) repo.write(p, L(...Array.from({ length: 30 + pick(20) }, fresh)))
  repo.commit('initial')
  const read = (p: string): string[] => repo.git('show', `:${p}`).split('\n').slice(0, -1)
  const mutate = (p: string): void => {
    const lines = read(p)
    for (let i = 0, ops = 1 + pick(3); i < ops; i++) {
      const op = pick(3)
      if (op === 0 || lines.length < 4) lines.splice(pick(lines.length + 1), 0, ...Array.from({ length: 1 + pick(3) }, fresh))
      else if (op === 1) lines.splice(pick(lines.length), 1)
      else lines[pick(lines.length)] = fresh()
    }
    repo.write(p, L(...lines))
  }
  const reformat = (line: string): string[] => {
    switch (pick(8)) {
      case 0:
        return [line.replace(/ = /, '  =  ')]
      case 1:
        return [line.replace(/"/g, "'") + ';']
      case 2:
        return [line.toUpperCase()]
      case 3: {
        const at = line.indexOf('(')
        return [line.slice(0, at + 1), `  ${line.slice(at + 1)}`]
      }
      case 4:
        return [`  ${line}`]
      default:
        return [line]
    }
  }
  const sweeps: string[] = []
  const sweep = (label: string, files: string[], rename?: [string, string]): void => {
    if (rename) {
      repo.move(rename[0], rename[1])
      paths[paths.indexOf(rename[0])] = rename[1]
      files = files.map((f) => (f === rename[0] ? rename[1] : f))
    }
    for (const p of files) {
      const out: string[] = []
      const lines = read(p)
      for (let i = 0; i < lines.length; i++) {
        if (pick(12) === 0 && i + 1 < lines.length) {
          out.push(`${lines[i]} ${lines[++i]}`)
          continue
        }
        if (pick(15) === 0) out.push(`// ${label} note ${++next}`)
        if (pick(20) === 0) continue
        out.push(...reformat(lines[i]))
      }
      repo.write(p, L(...out))
    }
    sweeps.push(repo.commit(`style: ${label}`))
  }
  let made = 1
  while (made < commits) {
    if (made === 18) sweep('format all', [...paths])
    else if (made === 22) {
      sweep('format one, again', [paths[0]])
      sweep('format one, a third time', [paths[0], paths[2]])
    } else if (made === 26) sweep('format and move two', [paths[1]], [paths[1], 'lib/two.js'])
    else if (made === 12 || made === 28) {
      const name = `topic-${made}`
      repo.branch(name).checkout(name)
      mutate(paths[pick(3)])
      repo.commit(`${name}: change`)
      if (made === 12) sweep(`format on ${name}`, [paths[2]])
      mutate(paths[pick(3)])
      repo.commit(`${name}: change again`)
      repo.checkout('main')
      mutate(paths[pick(3)])
      repo.commit(`main beside ${name}`)
      const r = repo.gitMay([0, 1], 'merge', '-q', '--no-commit', '--no-ff', name)
      if (r.status !== 0) {
        const conflicted = repo.git('diff', '--name-only', '--diff-filter=U').split('\n').filter(Boolean)
        for (const f of conflicted) repo.write(f, repo.git('show', `${name}:${f}`))
      }
      repo.commit(`Merge ${name}`)
      made += 4
    } else {
      mutate(paths[pick(3)])
      repo.commit(`change ${made}`)
    }
    made++
  }
  repo.write('.git-blame-ignore-revs', `# formatting sweeps\n${sweeps.map((s) => `${s} # sweep`).join('\n')}\n`)
  repo.commit('list the formatting sweeps')
  repo.git('config', 'blame.ignoreRevsFile', '.git-blame-ignore-revs')
  return { name: `ignore-revs(seed=${seed})`, repo, notes: 'formatting sweeps on the blame ignore list', cleanup: () => repo.cleanup() }
}

/**
 * Merge-heavy history: a long-lived topic merged into main four times (and main merged back into
 * it twice), criss-cross merges (two merge bases), an octopus, an evil merge (lines neither parent
 * had, one in a file no side touched), a rename on main with the old path edited on a branch
 * (an inexact rename in the merge's second-parent diff), and merges whose two sides touch
 * different files of one directory (`git log -- DIR` shows them though the second-parent diff
 * shares no path with the first-parent one).
 */
export function mergeHeavyScenario(): Scenario {
  const repo = createRepo()
  const core = (close: number, topic: number) =>
    tsClass('Core', {
      open: ['const opened = input + 1', 'return opened'],
      close: [`const closed = input - ${close}`, 'return closed'],
      topicOnly: [`const scaled = input * ${topic}`, 'return scaled'],
    })
  const strings = (round: number) => pyFunction('pad', ['width = value', `fill = ${round}`, 'return width + fill']) + pyFunction('trim', ['return value'])
  const notes = (rounds: number) => L('# Notes', ...Array.from({ length: rounds }, (_, i) => `Topic round ${i + 1}.`))
  const cross = (a: number, b: number) => pyFunction('cross_a', [`a = ${a}`, 'return a + value']) + pyFunction('cross_b', [`b = ${b}`, 'return b + value'])
  const old = (first: string, last: string) => pyFunction('legacy_one', [`one = ${first}`, 'return one']) + pyFunction('legacy_two', ['two = 2', 'return two']) +
    pyFunction('legacy_three', ['three = 3', 'return three']) + pyFunction('legacy_four', [`four = ${last}`, 'return four'])
  repo.write('lib/core.ts', core(0, 1)).write('lib/util/strings.py', strings(0)).write('docs/notes.md', notes(0))
  repo.write('app/main.py', pyFunction('main', ['run = value', 'return run'])).write('lib/cross.py', cross(0, 0)).write('lib/old.py', old('1', '4'))
  repo.commit('Base')

  // the long-lived topic
  repo.branch('topic')
  let closeOnMain = 0
  let closeOnTopic = 0
  let topicOnMain = 1
  for (let round = 1; round <= 4; round++) {
    repo.checkout('topic').write('lib/core.ts', core(closeOnTopic, round + 1)).write('docs/notes.md', notes(round)).commit(`topic: round ${round}`)
    closeOnMain = round * 10
    repo.checkout('main').write('lib/core.ts', core(closeOnMain, topicOnMain)).write('lib/util/strings.py', strings(round)).commit(`main: close ${closeOnMain}`)
    repo.merge('topic', { message: `Merge topic round ${round}` })
    topicOnMain = round + 1
    if (round % 2 === 0) {
      repo.checkout('topic').merge('main', { message: `Merge main into topic after round ${round}` })
      closeOnTopic = closeOnMain
      repo.checkout('main')
    }
  }

  // criss-cross: x and y merge each other's first commits, then main merges both
  repo.branch('x').branch('y')
  const x1 = repo.checkout('x').write('lib/cross.py', cross(1, 0)).commit('x: a = 1')
  const y1 = repo.checkout('y').write('lib/cross.py', cross(0, 2)).commit('y: b = 2')
  repo.checkout('x').merge(y1, { message: 'Merge y1 into x' })
  repo.checkout('y').merge(x1, { message: 'Merge x1 into y' })
  repo.checkout('x').write('lib/cross.py', cross(3, 2)).commit('x: a = 3')
  repo.checkout('y').write('lib/cross.py', cross(1, 4)).write('app/main.py', pyFunction('main', ['run = value + 1', 'return run'])).commit('y: b = 4, run + 1')
  repo.checkout('main').merge('x', { message: 'Merge x' })
  repo.merge('y', { message: 'Merge y (criss-cross)' })

  // octopus over three directories
  repo.branch('o1').branch('o2').branch('o3')
  repo.checkout('o1').write('app/one.py', pyFunction('one', ['return 1'])).commit('o1: one')
  repo.checkout('o2').write('docs/two.md', L('# Two', 'Second doc.')).commit('o2: two')
  repo.checkout('o3').write('lib/util/three.py', pyFunction('three', ['return 3'])).write('lib/util/strings.py', strings(4) + pyFunction('center', ['return value'])).commit('o3: three, center')
  repo.checkout('main').git('merge', '-q', '--no-ff', '-m', 'Octopus o1 o2 o3', 'o1', 'o2', 'o3')

  // evil merge: a line neither parent had, in a file the branch touched and in one no side touched
  repo.branch('evil').checkout('evil').write('app/main.py', pyFunction('main', ['run = value + 1', 'log(run)', 'return run'])).commit('evil: log run')
  repo.checkout('main').write('docs/notes.md', notes(4) + 'Main note.\n').commit('main: note')
  repo.mergeResolving('evil', {
    'app/main.py': pyFunction('main', ['run = value + 1', 'log(run)', 'audit(run)', 'return run']),
    'lib/util/three.py': pyFunction('three', ['checked = 3', 'return checked']),
  }, { message: 'Merge evil (adds audit and checked)' })

  // a rename with an edit on main; the branch edits the old path
  repo.branch('ren')
  repo.checkout('main').move('lib/old.py', 'lib/renamed.py').write('lib/renamed.py', old('10', '4')).commit('main: rename old.py, one = 10')
  repo.checkout('ren').write('lib/old.py', old('1', '40')).commit('ren: four = 40')
  repo.checkout('main').merge('ren', { message: 'Merge ren (edits the renamed file)' })
  // the topic once more, after all that
  repo.checkout('topic').write('lib/core.ts', core(closeOnTopic, 9)).commit('topic: round 5')
  repo.checkout('main').merge('topic', { message: 'Merge topic round 5' })
  return {
    name: 'merge-heavy',
    repo,
    notes: 'long-lived topic merged 5 times with back-merges, criss-cross, octopus, evil merge, rename merged with edits',
    cleanup: () => repo.cleanup(),
  }
}

// ---------------------------------------------------------------------------------------------

/** The payment function of briefScenario at each step (`attempts`, the log line, the TODO). */
export function briefSource(o: { attempts?: number; log?: string | null; todo?: boolean; extra?: string } = {}): string {
  return L(
    '/** Retry a payment call against the flaky gateway. */',
    'export function chargeWithRetry(charge: () => boolean): boolean {',
    '  // the gateway must never see more than three attempts in a row',
    ...(o.todo ? ['  // TODO: read the attempt limit from the gateway config'] : []),
    `  for (let attempt = 0; attempt < ${o.attempts ?? 3}; attempt++) {`,
    '    if (charge()) return true',
    ...(o.log ? [`    log(${o.log})`] : []),
    ...(o.extra ? [`    ${o.extra}`] : []),
    '  } // for attempts',
    '  return false',
    '} // function chargeWithRetry',
    '',
    'function log(message: string): void {',
    '  console.log(message)',
    '} // function log',
  )
}

/**
 * For `gitwhy brief`: a function whose history has an origin commit (PR #12) whose body states a
 * constraint ("must … because …") and a trade-off ("instead of … at the cost of …"), a later
 * change that explains itself, a run of eight "wip" commits by one author within an hour, a change
 * that was reverted, and a TODO added last.
 */
export function briefScenario(): Scenario & { sha: Record<string, string>; wips: string[] } {
  const repo = createRepo()
  const day = 86_400
  const t0 = 1_704_067_200
  const bob = { name: 'Bob Builder', email: 'bob@example.test' }
  const grace = { name: 'Grace Hopper', email: 'grace@example.test' }
  const sha: Record<string, string> = {}
  repo.write('README.md', L('# Shop', 'Payments and carts.'))
  const cart = (n: number) => ['cartTotal', 'cartTax', 'cartShipping', 'cartDiscount'].map((f, i) => tsFunction(f, [`const ${f}Value = value * ${i + n}`, `return ${f}Value`])).join('\n')
  repo.write('src/cart.ts', cart(1))
  sha.init = repo.commit('Start the shop', { date: t0 })
  // the cart's functions change together: a community for `brief --all --community`
  for (let i = 2; i <= 7; i++) {
    repo.write('src/cart.ts', cart(i))
    repo.commit(`Tune the cart prices, round ${i}`, { date: t0 + i * 600 })
  }
  repo.write('src/payments.ts', briefSource())
  sha.origin = repo.commit(
    'Retry payment calls against the flaky gateway (#12)\n\nThe payment gateway drops about one call in fifty during peak hours. Retries must stay at three at most because the gateway bans clients that retry more often.\n\nWe retry in place instead of queueing the payment, at the cost of a slower checkout when the gateway is down.\n\nFixes #7',
    { date: t0 + day },
  )
  repo.write('src/payments.ts', briefSource({ log: '`payment attempt ${attempt} failed`' }))
  sha.log = repo.commit('Log every failed payment attempt\n\nSupport could not tell a declined card from a gateway outage.', { date: t0 + 3 * day, author: grace })
  const wips: string[] = []
  const subjects = ['wip', 'wip', 'fix typo', 'wip', 'wip', 'wip', 'wip', 'wip']
  subjects.forEach((subject, i) => {
    repo.write('src/payments.ts', briefSource({ log: `\`payment attempt \${attempt} failed (${i + 1})\`` }))
    wips.push(repo.commit(subject, { date: t0 + 5 * day + i * 300, author: bob }))
  })
  repo.write('src/payments.ts', briefSource({ attempts: 5, log: '`payment attempt ${attempt} failed (8)`' }))
  sha.raise = repo.commit('Raise the payment attempt limit to five\n\nCheckouts failed during the sale.', { date: t0 + 7 * day })
  sha.revert = repo.revert(sha.raise, { date: t0 + 8 * day })
  repo.write('src/payments.ts', briefSource({ todo: true, log: '`payment attempt ${attempt} failed (8)`' }))
  sha.todo = repo.commit('Note that the attempt limit belongs in the gateway config', { date: t0 + 9 * day, author: grace })
  return { name: 'brief', repo, notes: 'origin with a constraint, a wip run, a revert, a TODO', sha, wips, cleanup: () => repo.cleanup() }
}
