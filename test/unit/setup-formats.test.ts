/**
 * The config-file editors behind `gitwhy setup`, on literal inputs: the JSONC engine (tolerant
 * parse, in-place set / append / remove that leave every other byte alone, remove undoing add
 * exactly), the TOML table editor, and the launcher's hook command quoting.
 */
import { describe, expect, test } from 'vitest'
import { JsonShapeError, JsoncSyntaxError, appendValue, nodeAt, parseJsonc, removeValue, replaceValue, setValue, toValue } from '../../src/setup/jsonc.js'
import { hookCommandLine, isGitwhyHookCommand, shellQuote, splitHookCommand } from '../../src/setup/launcher.js'
import { TomlFormError, TomlSyntaxError, findTable, parseTomlString, parseTomlStringArray, readTable, removeTable, renderTable, scanToml, setTable, tomlString } from '../../src/setup/toml-table.js'

const ENTRY = { command: '/usr/bin/node', args: ['/opt/gitwhy/bin/run.js', 'mcp'] }

describe('JSONC parsing', () => {
  test('comments, trailing commas and a BOM are accepted; the value is what JSON.parse would give without them', () => {
    const doc = parseJsonc('\uFEFF{\n  // a comment\n  "a": [1, 2,], /* block */\n  "b": { "c": null, },\n}\n')
    expect(doc.hasComments).toBe(true)
    expect(toValue(doc.root!)).toEqual({ a: [1, 2], b: { c: null } })
  })

  test('plain JSON has no comments; an empty or comment-only text has no root', () => {
    expect(parseJsonc('{"a": "x"}').hasComments).toBe(false)
    expect(parseJsonc('').root).toBeNull()
    expect(parseJsonc('  // nothing\n').root).toBeNull()
  })

  test('syntax errors carry a line and column', () => {
    const cases: Array<[string, number, number]> = [
      ['{\n  "a": 1\n  "b": 2\n}', 3, 3],
      ['{\n  "a": tru\n}', 2, 8],
      ['{"a": "unterminated}', 1, 7],
      ['{"a": 1} trailing', 1, 10],
      ['{ /* never closed', 1, 3],
      ["{'single': 1}", 1, 2],
    ]
    for (const [text, line, column] of cases) {
      let err: unknown
      try {
        parseJsonc(text)
      } catch (e) {
        err = e
      }
      expect(err, text).toBeInstanceOf(JsoncSyntaxError)
      expect([(err as JsoncSyntaxError).line, (err as JsoncSyntaxError).column], text).toEqual([line, column])
    }
  })

  test('a duplicate key: the last one wins (as JSON.parse); "__proto__" is an ordinary key', () => {
    const doc = parseJsonc('{"a": 1, "a": 2, "__proto__": {"x": 1}}')
    const v = toValue(doc.root!) as Record<string, unknown>
    expect(v.a).toBe(2)
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype)
    expect(Object.keys(v)).toEqual(['a', '__proto__'])
    expect(toValue(nodeAt(doc.root, ['a'])!)).toBe(2)
  })
})

describe('JSONC editing', () => {
  test('a new file is the nested value, 2-space indented, with a trailing newline', () => {
    expect(setValue('', ['mcpServers', 'gitwhy'], ENTRY)).toBe(
      '{\n  "mcpServers": {\n    "gitwhy": {\n      "command": "/usr/bin/node",\n      "args": [\n        "/opt/gitwhy/bin/run.js",\n        "mcp"\n      ]\n    }\n  }\n}\n',
    )
  })

  test('adding a server keeps the other keys, their order, their formatting and the comments', () => {
    const before = '{\n  // servers\n  "theme": "dark",\n  "mcpServers": {\n    "other": { "command": "npx", "args": ["x"] } // keep me\n  },\n  "last": true\n}\n'
    const after = setValue(before, ['mcpServers', 'gitwhy'], { command: 'n' })
    expect(after).toBe('{\n  // servers\n  "theme": "dark",\n  "mcpServers": {\n    "other": { "command": "npx", "args": ["x"] }, // keep me\n    "gitwhy": {\n      "command": "n"\n    }\n  },\n  "last": true\n}\n')
    expect(removeValue(after, ['mcpServers', 'gitwhy'])).toBe(before)
  })

  test('a blank file becomes the new object; a file holding only comments keeps them above it', () => {
    expect(setValue('  \n', ['a'], 1)).toBe('{\n  "a": 1\n}\n')
    expect(setValue('// settings\n', ['a'], 1)).toBe('// settings\n{\n  "a": 1\n}\n')
  })

  test('the container is created after the last top-level key when missing', () => {
    const before = '{\n  "numStartups": 3\n}\n'
    const after = setValue(before, ['mcpServers', 'gitwhy'], { command: 'n' })
    expect(after).toBe('{\n  "numStartups": 3,\n  "mcpServers": {\n    "gitwhy": {\n      "command": "n"\n    }\n  }\n}\n')
    expect(removeValue(after, ['mcpServers', 'gitwhy'])).toBe('{\n  "numStartups": 3,\n  "mcpServers": {}\n}\n')
  })

  test('indentation follows the file (4 spaces, tabs) and so do CRLF line endings', () => {
    expect(setValue('{\n    "a": {\n        "x": 1\n    }\n}', ['a', 'y'], 2)).toBe('{\n    "a": {\n        "x": 1,\n        "y": 2\n    }\n}')
    expect(setValue('{\n\t"a": {}\n}', ['a', 'y'], [1])).toBe('{\n\t"a": {\n\t\t"y": [\n\t\t\t1\n\t\t]\n\t}\n}')
    const crlf = '{\r\n  "a": 1\r\n}\r\n'
    const after = setValue(crlf, ['b'], { c: 1 })
    expect(after).toBe('{\r\n  "a": 1,\r\n  "b": {\r\n    "c": 1\r\n  }\r\n}\r\n')
    expect(removeValue(after, ['b'])).toBe(crlf)
  })

  test('a one-line object gets a compact entry; an empty object gets a multi-line one', () => {
    const one = '{"mcpServers": {"a": {"command": "x"}}}'
    const after = setValue(one, ['mcpServers', 'gitwhy'], { command: 'n' })
    expect(after).toBe('{"mcpServers": {"a": {"command": "x"}, "gitwhy": {"command":"n"}}}')
    expect(removeValue(after, ['mcpServers', 'gitwhy'])).toBe(one)
    const empty = '{\n  "mcpServers": {}\n}\n'
    const filled = setValue(empty, ['mcpServers', 'gitwhy'], { command: 'n' })
    expect(filled).toBe('{\n  "mcpServers": {\n    "gitwhy": {\n      "command": "n"\n    }\n  }\n}\n')
    expect(removeValue(filled, ['mcpServers', 'gitwhy'])).toBe(empty)
  })

  test('a file with trailing commas keeps that style, and remove gives the original back', () => {
    const before = '{\n  "servers": {\n    "github": { "url": "u" }, // trailing\n  },\n}\n'
    const after = setValue(before, ['servers', 'gitwhy'], { command: 'n' })
    expect(after).toBe('{\n  "servers": {\n    "github": { "url": "u" }, // trailing\n    "gitwhy": {\n      "command": "n"\n    },\n  },\n}\n')
    expect(parseJsonc(after).root).not.toBeNull()
    expect(removeValue(after, ['servers', 'gitwhy'])).toBe(before)
  })

  test('removing an entry in the middle takes its lines and its comma only', () => {
    const text = '{\n  "a": 1,\n  "gitwhy": {\n    "x": 1\n  },\n  "b": 2\n}\n'
    expect(removeValue(text, ['gitwhy'])).toBe('{\n  "a": 1,\n  "b": 2\n}\n')
    expect(removeValue('{"gitwhy": 1, "b": 2}', ['gitwhy'])).toBe('{"b": 2}')
    expect(removeValue('{"a": 1}', ['missing'])).toBe('{"a": 1}')
  })

  test('setting an existing key replaces its value in place', () => {
    const text = '{\n  "s": {\n    "gitwhy": { "command": "old", "env": { "A": "1" } } // mine\n  }\n}\n'
    expect(setValue(text, ['s', 'gitwhy', 'command'], 'new')).toBe('{\n  "s": {\n    "gitwhy": { "command": "new", "env": { "A": "1" } } // mine\n  }\n}\n')
  })

  test('arrays: append to an existing list, create a missing one, replace and remove an element', () => {
    const before = '{\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Edit" }\n    ]\n  }\n}\n'
    const after = appendValue(before, ['hooks', 'PreToolUse'], { matcher: 'Grep' })
    expect(after).toBe('{\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Edit" },\n      {\n        "matcher": "Grep"\n      }\n    ]\n  }\n}\n')
    expect(removeValue(after, ['hooks', 'PreToolUse', 1])).toBe(before)
    expect(replaceValue(after, ['hooks', 'PreToolUse', 0], { matcher: 'Write' })).toContain('      {\n        "matcher": "Write"\n      },\n')
    expect(appendValue('{"model": "x"}', ['hooks', 'PreToolUse'], 1)).toBe('{"model": "x", "hooks": {"PreToolUse":[1]}}')
    expect(removeValue('{\n  "l": [\n    1\n  ]\n}', ['l', 0])).toBe('{\n  "l": []\n}')
  })

  test('a value of the wrong type on the way is a JsonShapeError naming the path', () => {
    expect(() => setValue('{"mcpServers": "oops"}', ['mcpServers', 'gitwhy'], 1)).toThrow(JsonShapeError)
    expect(() => setValue('{"mcpServers": "oops"}', ['mcpServers', 'gitwhy'], 1)).toThrow('mcpServers is a string, expected an object')
    expect(() => setValue('[1, 2]', ['mcpServers'], 1)).toThrow('the top level is an array, expected an object')
    expect(() => appendValue('{"hooks": {"PreToolUse": {}}}', ['hooks', 'PreToolUse'], 1)).toThrow('hooks.PreToolUse is an object, expected an array')
    expect(() => appendValue('{"hooks": []}', ['hooks', 'PreToolUse'], 1)).toThrow('hooks is an array, expected an object')
  })

  test('remove undoes add byte for byte on a range of real-looking files', () => {
    const files = [
      '{}',
      '{}\n',
      '{\n}\n',
      '{"a":1}',
      '{\n  "a": 1\n}',
      '{\n  "mcpServers": {\n    "x": {"command": "y"}\n  }\n}\n',
      '{\n  "mcpServers": {\n    "x": {"command": "y"} /* c */\n  }, // after\n  "z": []\n}\n',
      '\uFEFF{\r\n\t"mcpServers": {\r\n\t\t"x": {}\r\n\t}\r\n}',
      '{\n  "mcpServers": {\n    // only a comment\n  }\n}\n',
    ]
    for (const f of files) {
      const added = setValue(f, ['mcpServers', 'gitwhy'], ENTRY)
      expect(toValue(nodeAt(parseJsonc(added).root, ['mcpServers', 'gitwhy'])!), f).toEqual(ENTRY)
      const removed = removeValue(added, ['mcpServers', 'gitwhy'])
      if (f.includes('"mcpServers"')) expect(removed, JSON.stringify(f)).toBe(f)
      else expect(toValue(parseJsonc(removed).root!), f).toEqual({ ...(toValue(parseJsonc(f).root!) as object), mcpServers: {} })
    }
  })
})

const CODEX = `model = "o3"
approval_policy = "never"

[mcp_servers.context7]
command = "npx"
args = [
  "-y",
  "@upstash/context7-mcp", # pinned later
]

# profiles below
[profiles.fast]
model = "gpt-5"
notes = """
[mcp_servers.gitwhy]
this is a string, not a table
"""
`

describe('TOML tables', () => {
  test('the scanner finds headers and entries, and is not fooled by arrays or multi-line strings', () => {
    const layout = scanToml(CODEX)
    expect(layout.rootEntries.map((e) => e.key.join('.'))).toEqual(['model', 'approval_policy'])
    expect(layout.tables.map((t) => t.key.join('.'))).toEqual(['mcp_servers.context7', 'profiles.fast'])
    expect(layout.tables[0].entries.map((e) => e.key[0])).toEqual(['command', 'args'])
    expect(parseTomlStringArray(layout.tables[0].entries[1].value)).toEqual(['-y', '@upstash/context7-mcp'])
    expect(findTable(CODEX, ['mcp_servers', 'gitwhy']).table).toBeNull()
  })

  test('adding a table puts it after the last table of its family and leaves the rest alone', () => {
    const r = setTable(CODEX, ['mcp_servers', 'gitwhy'], ENTRY)
    expect(r.status).toBe('added')
    expect(r.text).toBe(CODEX.replace('# pinned later\n]\n', '# pinned later\n]\n\n[mcp_servers.gitwhy]\ncommand = "/usr/bin/node"\nargs = ["/opt/gitwhy/bin/run.js", "mcp"]\n'))
    expect(readTable(r.text, ['mcp_servers', 'gitwhy'], { command: '', args: [] })).toEqual(ENTRY)
    expect(setTable(r.text, ['mcp_servers', 'gitwhy'], ENTRY)).toEqual({ text: r.text, status: 'unchanged' })
    expect(removeTable(r.text, ['mcp_servers', 'gitwhy'])).toEqual({ text: CODEX, removed: true })
  })

  test('without a family the table goes at the end, after a blank line; remove restores the file', () => {
    for (const original of ['', 'model = "o3"\n', 'model = "o3"', 'model = "o3"\n\n', '[tui]\nnotifications = true\n']) {
      const r = setTable(original, ['mcp_servers', 'gitwhy'], ENTRY)
      expect(r.text.endsWith('[mcp_servers.gitwhy]\ncommand = "/usr/bin/node"\nargs = ["/opt/gitwhy/bin/run.js", "mcp"]\n')).toBe(true)
      expect(scanToml(r.text).tables.map((t) => t.key.join('.'))).toContain('mcp_servers.gitwhy')
      const back = removeTable(r.text, ['mcp_servers', 'gitwhy']).text
      // the blank line before the table goes with it; a file that ended without a line break gets one
      const expected = original === 'model = "o3"' || original === 'model = "o3"\n\n' ? 'model = "o3"\n' : original
      expect(back, JSON.stringify(original)).toBe(expected)
    }
  })

  test('updating rewrites only the keys that differ and keeps the keys the user added', () => {
    const text = 'x = 1\n\n[mcp_servers.gitwhy]\ncommand = "/old/node" # old\nstartup_timeout_sec = 30\nargs = ["/opt/gitwhy/bin/run.js", "mcp"]\n\n[mcp_servers.gitwhy.env]\nA = "1"\n'
    const r = setTable(text, ['mcp_servers', 'gitwhy'], ENTRY)
    expect(r.status).toBe('updated')
    expect(r.text).toBe(text.replace('command = "/old/node" # old\n', 'command = "/usr/bin/node"\n'))
    const missingArgs = setTable('[mcp_servers.gitwhy]\ncommand = "/usr/bin/node"', ['mcp_servers', 'gitwhy'], ENTRY)
    expect(missingArgs.text).toBe('[mcp_servers.gitwhy]\ncommand = "/usr/bin/node"\nargs = ["/opt/gitwhy/bin/run.js", "mcp"]\n')
  })

  test('literal and multi-line strings are read as their values (an equal entry is unchanged)', () => {
    const text = "[mcp_servers.gitwhy]\ncommand = '/usr/bin/node'\nargs = [\n  '/opt/gitwhy/bin/run.js',\n  \"mcp\",\n]\n"
    expect(setTable(text, ['mcp_servers', 'gitwhy'], ENTRY).status).toBe('unchanged')
    expect(parseTomlString('"""\nline\\n"""')).toBe('line\n')
    expect(parseTomlString("'C:\\path'")).toBe('C:\\path')
    expect(parseTomlString('"a\\u00e9\\"b"')).toBe('aé"b')
    expect(parseTomlString('42')).toBeNull()
    expect(parseTomlStringArray('["a", 1]')).toBeNull()
  })

  test('removal takes the sub-tables too and leaves comments that follow for the next table', () => {
    const text = 'a = 1\n\n[mcp_servers.gitwhy]\ncommand = "x"\n\n[mcp_servers.gitwhy.env]\nK = "v"\n\n# about b\n[b]\nc = 2\n'
    expect(removeTable(text, ['mcp_servers', 'gitwhy'])).toEqual({ text: 'a = 1\n\n# about b\n[b]\nc = 2\n', removed: true })
    expect(removeTable('a = 1\n', ['mcp_servers', 'gitwhy'])).toEqual({ text: 'a = 1\n', removed: false })
  })

  test('a BOM at the start is kept and not taken for a key', () => {
    const text = '\uFEFFmodel = "o3"\n'
    const r = setTable(text, ['mcp_servers', 'gitwhy'], ENTRY)
    expect(r.text.startsWith(text + '\n[mcp_servers.gitwhy]\n')).toBe(true)
    expect(removeTable(r.text, ['mcp_servers', 'gitwhy']).text).toBe(text)
  })

  test('CRLF files get CRLF lines', () => {
    const text = 'model = "o3"\r\n'
    const r = setTable(text, ['mcp_servers', 'gitwhy'], ENTRY)
    expect(r.text).toBe('model = "o3"\r\n\r\n[mcp_servers.gitwhy]\r\ncommand = "/usr/bin/node"\r\nargs = ["/opt/gitwhy/bin/run.js", "mcp"]\r\n')
    expect(removeTable(r.text, ['mcp_servers', 'gitwhy']).text).toBe(text)
  })

  test('text that is not TOML is refused with a line number', () => {
    const cases: Array<[string, number]> = [
      ['[mcp_servers\ncommand = "x"\n', 1],
      ['a = "unterminated\n', 1],
      ['a = 1\nthis is not toml\n', 2],
      ['a = [1, 2\n', 2],
      ['[x]\na = 1\n[x]\nb = 2\n', 3],
      ['a =\n', 1],
      ['s = """never closed\n', 1],
    ]
    for (const [text, line] of cases) {
      let err: unknown
      try {
        setTable(text, ['mcp_servers', 'gitwhy'], ENTRY)
      } catch (e) {
        err = e
      }
      expect(err, text).toBeInstanceOf(TomlSyntaxError)
      expect((err as TomlSyntaxError).line, text).toBe(line)
    }
  })

  test('a server defined by dotted keys or an inline table is left to the user', () => {
    for (const text of ['[mcp_servers]\ngitwhy.command = "x"\n', 'mcp_servers.gitwhy = { command = "x" }\n', 'mcp_servers = { other = { command = "y" } }\n', '[mcp_servers]\ngitwhy = { command = "x" }\n']) {
      expect(() => setTable(text, ['mcp_servers', 'gitwhy'], ENTRY), text).toThrow(TomlFormError)
      expect(() => removeTable(text, ['mcp_servers', 'gitwhy']), text).toThrow(TomlFormError)
    }
    expect(setTable('[mcp_servers]\nother.command = "x"\n', ['mcp_servers', 'gitwhy'], ENTRY).status).toBe('added')
  })

  test('strings are escaped for TOML (Windows paths, quotes, control characters)', () => {
    expect(tomlString('C:\\Program Files\\nodejs\\node.exe')).toBe('"C:\\\\Program Files\\\\nodejs\\\\node.exe"')
    expect(tomlString('a"b\tc\x7f')).toBe('"a\\"b\\tc\\u007f"')
    for (const s of ['C:\\x\\y', 'quote " here', 'tab\there', 'é ü 😀']) expect(parseTomlString(tomlString(s))).toBe(s)
    expect(renderTable(['mcp_servers', 'my server'], { command: 'x' })).toBe('[mcp_servers."my server"]\ncommand = "x"\n')
  })
})

describe('the hook command line', () => {
  test('paths are double-quoted with shell specials escaped, and split back to the same words', () => {
    expect(shellQuote('/home/me/my dir/node', 'linux')).toBe('"/home/me/my dir/node"')
    expect(shellQuote('/a/$HOME/"q"/`x`/b\\c', 'linux')).toBe('"/a/\\$HOME/\\"q\\"/\\`x\\`/b\\\\c"')
    expect(shellQuote('C:\\Program Files\\nodejs\\node.exe', 'win32')).toBe('"C:\\Program Files\\nodejs\\node.exe"')
    for (const platform of ['linux', 'win32'] as const) {
      const words = ['C:\\Program Files\\node.exe', '/opt/$x/"run".js']
      const line = words.map((w) => shellQuote(w, platform)).join(' ') + ' hook claude'
      expect(splitHookCommand(line, platform)).toEqual([...words, 'hook', 'claude'])
    }
  })

  test("gitwhy's hook is recognised whichever install it points at, and nothing else is", () => {
    expect(isGitwhyHookCommand(hookCommandLine('linux'))).toBe(true)
    expect(isGitwhyHookCommand('"/old/node" "/old/place/bin/run.js" hook claude')).toBe(true)
    expect(isGitwhyHookCommand('gitwhy hook claude')).toBe(true)
    expect(isGitwhyHookCommand('npx gitwhy hook claude')).toBe(true)
    expect(isGitwhyHookCommand('python3 ~/.claude/hooks/bash-validator.py')).toBe(false)
    expect(isGitwhyHookCommand('gitwhy hook claude --other')).toBe(false)
    expect(isGitwhyHookCommand('othertool hook claude')).toBe(false)
  })
})
