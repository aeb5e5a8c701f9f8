/**
 * `gitwhy setup`, end to end: the built CLI against a fake HOME (HOME, XDG_CONFIG_HOME, APPDATA,
 * CODEX_HOME … all pointing into a temp directory), with every client's config present and
 * holding other servers and keys, or absent. Pins the --json document, the files written, the
 * backups, idempotence, --remove restoring the files byte for byte, --dry-run writing nothing, a
 * file that cannot be parsed failing only its client (exit 1, file untouched), and --project
 * writing into a temp repository only.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { nodeAt, parseJsonc, toValue } from '../../src/setup/jsonc.js'
import { readTable } from '../../src/setup/toml-table.js'
import { registrations, type SetupEnv } from '../../src/services/setup.js'
import { createRepo } from '../helpers/repo.js'
import { BIN, ROOT, expectShape, expectUserError, runCli, runJson, t, type CliOptions } from './cli.js'

const CLIENT_IDS = ['claude-code', 'cursor', 'vscode', 'codex', 'opencode', 'windsurf', 'gemini'] as const
const STATUS = t.lit('added', 'updated', 'unchanged', 'removed', 'absent', 'skipped', 'failed')
const FILE_RESULT = t.obj({ file: t.or(t.str(), t.nul()), status: STATUS, message: t.str() }, ['message'])
/** The documented `gitwhy setup --json` document (README, docs/setup.md). */
const SETUP_DOC = t.obj({
  action: t.lit('register', 'remove'),
  dry_run: t.bool(),
  scope: t.lit('user', 'project'),
  clients: t.arr(t.obj({ client: t.lit(...CLIENT_IDS), found: t.bool(), file: t.or(t.str(), t.nul()), status: STATUS, message: t.str(), hook: FILE_RESULT, skills: t.arr(FILE_RESULT) }, ['message', 'hook', 'skills'])),
  launcher: t.obj({ command: t.str(), args: t.arr(t.str()) }),
})

const NODE = process.execPath
const RUN_JS = BIN
const LAUNCH = { command: NODE, args: [RUN_JS, 'mcp'] }
const PORTABLE = { command: 'gitwhy', args: ['mcp'] }
const HOOK_COMMAND = `"${NODE}" "${RUN_JS}" hook claude`

/** Each client's user-level config, holding someone else's server and other keys. */
const USER_FILES: Record<string, string> = {
  '.claude.json': '{\n  "numStartups": 7,\n  "mcpServers": {\n    "other": {\n      "type": "stdio",\n      "command": "npx",\n      "args": ["-y", "other-mcp"],\n      "env": {}\n    }\n  },\n  "projects": {\n    "/some/repo": { "mcpServers": {} }\n  }\n}\n',
  '.claude/settings.json': '{\n  "model": "opus",\n  "hooks": {\n    "PreToolUse": [\n      {\n        "matcher": "Bash",\n        "hooks": [{ "type": "command", "command": "echo checked" }]\n      }\n    ],\n    "Stop": [{ "hooks": [{ "type": "command", "command": "say done" }] }]\n  }\n}\n',
  '.cursor/mcp.json': '{\n  "mcpServers": {\n    "browser": { "command": "npx", "args": ["@browser/mcp"] }\n  }\n}\n',
  '.config/Code/User/mcp.json': '{\n  // servers I use\n  "servers": {\n    "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" }, // remote\n  },\n  "inputs": [],\n}\n',
  '.codex/config.toml': 'model = "o3"\n\n[mcp_servers.context7]\ncommand = "npx"\nargs = ["-y", "@upstash/context7-mcp"]\n\n# fast profile\n[profiles.fast]\nmodel = "gpt-5"\n',
  '.config/opencode/opencode.json': '{\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "opencode",\n  "mcp": {\n    "sentry": { "type": "remote", "url": "https://mcp.sentry.dev/mcp" }\n  }\n}\n',
  '.codeium/windsurf/mcp_config.json': '{\n  "mcpServers": {\n    "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"] }\n  }\n}\n',
  '.gemini/settings.json': '{\n  "theme": "GitHub",\n  "mcpServers": {\n    "git": { "command": "uvx", "args": ["mcp-server-git"] }\n  }\n}\n',
}

/** Where each client's server entry is, per file. */
const SERVER_AT: Record<string, { client: string; path: string[]; entry: unknown }> = {
  '.claude.json': { client: 'claude-code', path: ['mcpServers', 'gitwhy'], entry: { type: 'stdio', ...LAUNCH, env: {} } },
  '.cursor/mcp.json': { client: 'cursor', path: ['mcpServers', 'gitwhy'], entry: LAUNCH },
  '.config/Code/User/mcp.json': { client: 'vscode', path: ['servers', 'gitwhy'], entry: { type: 'stdio', ...LAUNCH } },
  '.config/opencode/opencode.json': { client: 'opencode', path: ['mcp', 'gitwhy'], entry: { type: 'local', command: [NODE, RUN_JS, 'mcp'], enabled: true } },
  '.codeium/windsurf/mcp_config.json': { client: 'windsurf', path: ['mcpServers', 'gitwhy'], entry: LAUNCH },
  '.gemini/settings.json': { client: 'gemini', path: ['mcpServers', 'gitwhy'], entry: LAUNCH },
}

const temps: string[] = []
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true })
})

function fakeHome(files: Record<string, string> = {}, dirs: string[] = []): string {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'gitwhy-setup-home-')))
  temps.push(home)
  for (const d of dirs) mkdirSync(join(home, d), { recursive: true })
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, rel)), { recursive: true })
    writeFileSync(join(home, rel), text)
  }
  return home
}

/** A child environment whose every config location is inside `home`. */
function homeEnv(home: string, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env = { ...base }
  for (const k of ['CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'XDG_CONFIG_HOME', 'APPDATA', 'GITWHY_REPO']) delete env[k]
  return { ...env, HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: join(home, '.config'), APPDATA: join(home, 'AppData', 'Roaming') }
}

function setupEnv(home: string): SetupEnv {
  return { home, platform: process.platform, vars: homeEnv(home) }
}

/** Every file under `dir` with its content. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out[relative(dir, p)] = readFileSync(p, 'utf8')
    }
  }
  walk(dir)
  return out
}

const backupsOf = (home: string, rel: string) => readdirSync(dirname(join(home, rel))).filter((n) => n.startsWith(`${rel.split('/').pop()}.gitwhy-backup-`))
const jsonAt = (file: string, path: Array<string | number>) => {
  const node = nodeAt(parseJsonc(readFileSync(file, 'utf8')).root, path)
  return node ? toValue(node) : undefined
}

describe('gitwhy setup (user level, every client present)', () => {
  test('registers every client, keeps everything else, backs up, is idempotent, and --remove restores the files', async () => {
    const home = fakeHome(USER_FILES)
    const opts: CliOptions = { cwd: home, env: homeEnv(home) }

    // dry run: the document says what would happen, nothing is written
    const before = snapshot(home)
    const dry = (await runJson(['setup', '--dry-run'], opts)).json
    expectShape(dry, SETUP_DOC, 'setup --dry-run --json')
    expect(dry.dry_run).toBe(true)
    expect(dry.clients.map((c: any) => [c.client, c.status])).toEqual(CLIENT_IDS.map((id) => [id, 'added']))
    expect(snapshot(home)).toEqual(before)
    const dryHuman = await runCli(['setup', '--dry-run'], opts)
    expect(dryHuman.code).toBe(0)
    expect(dryHuman.stdout).toContain('Dry run (nothing is written)')
    expect(dryHuman.stdout).toContain('[mcp_servers.gitwhy]\n    command = ' + JSON.stringify(NODE))
    expect(dryHuman.stdout).toContain(`"command": ${JSON.stringify(HOOK_COMMAND)}`)
    expect(snapshot(home)).toEqual(before)

    // register
    const reg = (await runJson(['setup'], opts)).json
    expectShape(reg, SETUP_DOC, 'setup --json')
    expect(reg).toMatchObject({ action: 'register', dry_run: false, scope: 'user', launcher: LAUNCH })
    for (const c of reg.clients) {
      expect(c.found, c.client).toBe(true)
      expect(c.status, c.client).toBe('added')
      expect(c.message, c.client).toMatch(/^backup: .+\.gitwhy-backup-\d{8}T\d{6}Z$/)
    }
    const claude = reg.clients.find((c: any) => c.client === 'claude-code')
    expect(claude.file).toBe(join(home, '.claude.json'))
    expect(claude.hook).toMatchObject({ file: join(home, '.claude/settings.json'), status: 'added' })

    for (const [rel, at] of Object.entries(SERVER_AT)) {
      const file = join(home, rel)
      expect(jsonAt(file, at.path), rel).toEqual(at.entry)
      // everything else is as it was
      const value = toValue(parseJsonc(readFileSync(file, 'utf8')).root!) as any
      const original = toValue(parseJsonc(USER_FILES[rel]).root!) as any
      delete value[at.path[0]][at.path[1]]
      expect(value, rel).toEqual(original)
      expect(readFileSync(file, 'utf8').startsWith(USER_FILES[rel].split(at.path[0])[0]), rel).toBe(true)
    }
    expect(readFileSync(join(home, '.config/Code/User/mcp.json'), 'utf8')).toContain('// servers I use')
    expect(readFileSync(join(home, '.config/Code/User/mcp.json'), 'utf8')).toContain('}, // remote')
    const codex = readFileSync(join(home, '.codex/config.toml'), 'utf8')
    expect(readTable(codex, ['mcp_servers', 'gitwhy'], { command: '', args: [] })).toEqual(LAUNCH)
    expect(codex).toBe(USER_FILES['.codex/config.toml'].replace('context7-mcp"]\n', `context7-mcp"]\n\n[mcp_servers.gitwhy]\ncommand = ${JSON.stringify(NODE)}\nargs = [${JSON.stringify(RUN_JS)}, "mcp"]\n`))
    const hooks = jsonAt(join(home, '.claude/settings.json'), ['hooks']) as any
    expect(hooks.PreToolUse).toEqual([
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo checked' }] },
      { matcher: 'Grep|Glob|Bash', hooks: [{ type: 'command', command: HOOK_COMMAND, timeout: 5 }] },
    ])
    expect(hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: 'say done' }] }])

    // one backup per edited file, holding the original
    for (const rel of Object.keys(USER_FILES)) {
      const backups = backupsOf(home, rel)
      expect(backups, rel).toHaveLength(1)
      expect(readFileSync(join(dirname(join(home, rel)), backups[0]), 'utf8'), rel).toBe(USER_FILES[rel])
    }

    // read back by registrations(): every client registered, current, pointing at existing files
    for (const r of registrations({ env: setupEnv(home) })) {
      expect(r, r.client).toMatchObject({ found: true, registered: true, command: NODE, args: [RUN_JS, 'mcp'], command_exists: true, script_exists: true, current: true, error: null })
      if (r.client === 'claude-code') expect(r.hook).toMatchObject({ registered: true, command: HOOK_COMMAND, command_exists: true, script_exists: true, current: true, error: null })
      else expect(r.hook).toBeNull()
    }

    // second run: nothing changes, no new backups
    const afterFirst = snapshot(home)
    const again = (await runJson(['setup'], opts)).json
    for (const c of again.clients) {
      expect([c.status, c.message], c.client).toEqual(['unchanged', 'already registered'])
      if (c.hook) expect(c.hook.status).toBe('unchanged')
    }
    expect(snapshot(home)).toEqual(afterFirst)
    const human = await runCli(['setup'], opts)
    expect(human.stdout).toMatch(/Cursor\s+unchanged\s+~?\S*\.cursor\/mcp\.json\s+already registered/)

    // remove: exactly the gitwhy entries go, the files are back to what they were
    const dryRemove = (await runJson(['setup', '--remove', '--dry-run'], opts)).json
    expect(dryRemove.clients.map((c: any) => c.status)).toEqual(CLIENT_IDS.map(() => 'removed'))
    expect(snapshot(home)).toEqual(afterFirst)
    const removed = (await runJson(['setup', '--remove'], opts)).json
    expectShape(removed, SETUP_DOC, 'setup --remove --json')
    expect(removed.action).toBe('remove')
    for (const c of removed.clients) expect([c.client, c.status]).toEqual([c.client, 'removed'])
    expect(claude.hook.status).toBe('added')
    expect(removed.clients[0].hook.status).toBe('removed')
    for (const [rel, text] of Object.entries(USER_FILES)) expect(readFileSync(join(home, rel), 'utf8'), rel).toBe(text)
    for (const r of registrations({ env: setupEnv(home) })) expect([r.client, r.registered, r.hook?.registered ?? false]).toEqual([r.client, false, false])

    const removedAgain = (await runJson(['setup', '--remove'], opts)).json
    expect(removedAgain.clients.map((c: any) => [c.status, c.message])).toEqual(CLIENT_IDS.map(() => ['absent', 'no gitwhy entry']))
    expect(removedAgain.clients[0].hook).toEqual({ file: join(home, '.claude/settings.json'), status: 'absent', message: 'no gitwhy hook' })
  })

  test('an old gitwhy entry is updated in place: the launcher fields change, keys the user added stay', async () => {
    const home = fakeHome({
      '.cursor/mcp.json': '{\n  "mcpServers": {\n    "gitwhy": { "command": "/old/node", "args": ["/old/gitwhy/bin/run.js", "mcp"], "env": { "GITWHY_REPO": "/r" } }\n  }\n}\n',
      '.codex/config.toml': '[mcp_servers.gitwhy]\ncommand = "/old/node"\nargs = ["/old/gitwhy/bin/run.js", "mcp"]\nstartup_timeout_sec = 30\n',
      '.claude/settings.json': '{\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Grep", "hooks": [{ "type": "command", "command": "\\"/old/node\\" \\"/old/gitwhy/bin/run.js\\" hook claude" }] }\n    ]\n  }\n}\n',
    })
    const opts: CliOptions = { cwd: home, env: homeEnv(home) }
    const stale = registrations({ env: setupEnv(home) })
    expect(stale.find((r) => r.client === 'cursor')).toMatchObject({ registered: true, command: '/old/node', command_exists: false, script_exists: false, current: false })
    expect(stale.find((r) => r.client === 'claude-code')!.hook).toMatchObject({ registered: true, command_exists: false, current: false })

    const doc = (await runJson(['setup', '--client', 'cursor,codex', '--client', 'claude'], opts)).json
    expect(doc.clients.map((c: any) => [c.client, c.status])).toEqual([
      ['claude-code', 'added'],
      ['cursor', 'updated'],
      ['codex', 'updated'],
    ])
    expect(doc.clients[0].hook.status).toBe('updated')
    expect(jsonAt(join(home, '.cursor/mcp.json'), ['mcpServers', 'gitwhy'])).toEqual({ ...LAUNCH, env: { GITWHY_REPO: '/r' } })
    expect(readFileSync(join(home, '.codex/config.toml'), 'utf8')).toBe(`[mcp_servers.gitwhy]\ncommand = ${JSON.stringify(NODE)}\nargs = [${JSON.stringify(RUN_JS)}, "mcp"]\nstartup_timeout_sec = 30\n`)
    expect(jsonAt(join(home, '.claude/settings.json'), ['hooks', 'PreToolUse'])).toEqual([{ matcher: 'Grep|Glob|Bash', hooks: [{ type: 'command', command: HOOK_COMMAND, timeout: 5 }] }])
    expect(registrations({ env: setupEnv(home) }).filter((r) => r.registered).every((r) => r.current && r.command_exists)).toBe(true)
  })
  test('a config file that is a symlink (dotfiles) stays a symlink; the target keeps its mode', async () => {
    const home = fakeHome({ 'dotfiles/claude.json': USER_FILES['.claude.json'] }, ['.claude'])
    chmodSync(join(home, 'dotfiles/claude.json'), 0o600)
    symlinkSync(join(home, 'dotfiles/claude.json'), join(home, '.claude.json'))
    const doc = (await runJson(['setup', '--client', 'claude-code', '--no-hook'], { cwd: home, env: homeEnv(home) })).json
    expect(doc.clients[0]).toMatchObject({ status: 'added', file: join(home, '.claude.json') })
    expect(lstatSync(join(home, '.claude.json')).isSymbolicLink()).toBe(true)
    expect(jsonAt(join(home, 'dotfiles/claude.json'), ['mcpServers', 'gitwhy'])).toEqual({ type: 'stdio', ...LAUNCH, env: {} })
    expect(statSync(join(home, 'dotfiles/claude.json')).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(home, backupsOf(home, '.claude.json')[0]), 'utf8')).toBe(USER_FILES['.claude.json'])
  })
})

describe('gitwhy setup (clients absent)', () => {
  test('nothing installed: every client is skipped as not installed and nothing is written', async () => {
    const home = fakeHome()
    const doc = (await runJson(['setup'], { cwd: home, env: homeEnv(home) })).json
    expectShape(doc, SETUP_DOC)
    expect(doc.clients.map((c: any) => [c.client, c.found, c.status, c.message])).toEqual(CLIENT_IDS.map((id) => [id, false, 'skipped', 'not installed']))
    expect(snapshot(home)).toEqual({})
    const human = await runCli(['setup'], { cwd: home, env: homeEnv(home) })
    expect(human.stdout).toContain('No client was set up. Name one with --client')
  })

  test('a config directory without a config file: the file is created (no backup needed)', async () => {
    const home = fakeHome({}, ['.cursor', '.gemini', '.codex'])
    const doc = (await runJson(['setup'], { cwd: home, env: homeEnv(home) })).json
    expect(doc.clients.filter((c: any) => c.status !== 'skipped').map((c: any) => [c.client, c.status, c.message])).toEqual([
      ['cursor', 'added', 'created'],
      ['codex', 'added', 'created'],
      ['gemini', 'added', 'created'],
    ])
    expect(readFileSync(join(home, '.cursor/mcp.json'), 'utf8')).toBe(JSON.stringify({ mcpServers: { gitwhy: LAUNCH } }, null, 2) + '\n')
    expect(readFileSync(join(home, '.codex/config.toml'), 'utf8')).toBe(`[mcp_servers.gitwhy]\ncommand = ${JSON.stringify(NODE)}\nargs = [${JSON.stringify(RUN_JS)}, "mcp"]\n`)
    // besides the configs, only Cursor's skills (the one client here that reads skills)
    const written = Object.keys(snapshot(home)).sort()
    expect(written.filter((f) => !f.startsWith('.cursor/skills/'))).toEqual(['.codex/config.toml', '.cursor/mcp.json', '.gemini/settings.json'])
    expect(written.filter((f) => f.startsWith('.cursor/skills/'))).toHaveLength(readdirSync(join(ROOT, 'skills')).length)
  })

  test('--client names a client that is not installed: its config is created; unknown names are refused', async () => {
    const home = fakeHome()
    const opts: CliOptions = { cwd: home, env: homeEnv(home) }
    const doc = (await runJson(['setup', '--client', 'windsurf', '--client', 'vscode'], opts)).json
    expect(doc.clients.map((c: any) => [c.client, c.found, c.status])).toEqual([
      ['vscode', false, 'added'],
      ['windsurf', false, 'added'],
    ])
    expect(jsonAt(join(home, '.codeium/windsurf/mcp_config.json'), ['mcpServers', 'gitwhy'])).toEqual(LAUNCH)
    expect(jsonAt(join(home, '.config/Code/User/mcp.json'), ['servers', 'gitwhy'])).toEqual({ type: 'stdio', ...LAUNCH })
    const err = await expectUserError(['setup', '--client', 'cursr'], 'unknown_client', opts, { plain: true })
    expect(err.message).toContain('did you mean cursor?')
    expect(err.remedy).toContain('claude-code, cursor, vscode, codex, opencode, windsurf, gemini')
  })

  test("OpenCode's opencode.jsonc is edited when it is the file that exists, comments kept", async () => {
    const jsonc = '{\n  // my OpenCode config\n  "theme": "tokyonight",\n}\n'
    const home = fakeHome({ '.config/opencode/opencode.jsonc': jsonc })
    const doc = (await runJson(['setup'], { cwd: home, env: homeEnv(home) })).json
    expect(doc.clients.find((c: any) => c.client === 'opencode')).toMatchObject({ status: 'added', file: join(home, '.config/opencode/opencode.jsonc') })
    expect(existsSync(join(home, '.config/opencode/opencode.json'))).toBe(false)
    const text = readFileSync(join(home, '.config/opencode/opencode.jsonc'), 'utf8')
    expect(text.startsWith('{\n  // my OpenCode config\n  "theme": "tokyonight",\n  "mcp": {')).toBe(true)
    expect(jsonAt(join(home, '.config/opencode/opencode.jsonc'), ['mcp', 'gitwhy'])).toEqual({ type: 'local', command: [NODE, RUN_JS, 'mcp'], enabled: true })
    await runJson(['setup', '--remove'], { cwd: home, env: homeEnv(home) })
    expect(readFileSync(join(home, '.config/opencode/opencode.jsonc'), 'utf8')).toBe('{\n  // my OpenCode config\n  "theme": "tokyonight",\n  "mcp": {},\n}\n')
  })

  test('CODEX_HOME, CLAUDE_CONFIG_DIR and XDG_CONFIG_HOME move the config files, as the clients do', async () => {
    const home = fakeHome({}, ['elsewhere/codex', 'elsewhere/claude', 'xdg/opencode'])
    const env = { ...homeEnv(home), CODEX_HOME: join(home, 'elsewhere/codex'), CLAUDE_CONFIG_DIR: join(home, 'elsewhere/claude'), XDG_CONFIG_HOME: join(home, 'xdg') }
    const doc = (await runJson(['setup', '--no-hook'], { cwd: home, env })).json
    const files = Object.fromEntries(doc.clients.filter((c: any) => c.status === 'added').map((c: any) => [c.client, c.file]))
    expect(files).toEqual({
      'claude-code': join(home, 'elsewhere/claude/.claude.json'),
      codex: join(home, 'elsewhere/codex/config.toml'),
      opencode: join(home, 'xdg/opencode/opencode.json'),
    })
    expect(doc.clients[0].hook).toEqual({ file: join(home, 'elsewhere/claude/settings.json'), status: 'skipped', message: 'hook not requested (--no-hook)' })
    expect(existsSync(join(home, 'elsewhere/claude/settings.json'))).toBe(false)
  })
})

describe('gitwhy setup (a file it cannot parse)', () => {
  test('that client fails with a message and a fix, its file is untouched, the others are set up, exit 1', async () => {
    const files = {
      ...USER_FILES,
      '.cursor/mcp.json': '{\n  "mcpServers": {\n    "browser": { "command": "npx" }\n    "missing comma": {}\n  }\n}\n',
      '.codex/config.toml': 'model = "o3"\n[mcp_servers.context7\ncommand = "npx"\n',
      '.gemini/settings.json': '{ "mcpServers": "not an object" }\n',
    }
    const home = fakeHome(files)
    const opts: CliOptions = { cwd: home, env: homeEnv(home) }
    const r = await runCli(['setup', '--json'], opts)
    expect(r.code, r.stderr).toBe(1)
    const doc = JSON.parse(r.stdout)
    expectShape(doc, SETUP_DOC, 'setup --json with failures')
    const by = Object.fromEntries(doc.clients.map((c: any) => [c.client, c]))
    expect(by.cursor.status).toBe('failed')
    expect(by.cursor.message).toContain(`${join(home, '.cursor/mcp.json')} is not valid JSON`)
    expect(by.cursor.message).toContain('line 4, column 5')
    expect(by.cursor.message).toContain('left untouched')
    expect(by.cursor.message).toContain('fix: correct the file (or move it aside) and run `gitwhy setup` again')
    expect(by.codex.status).toBe('failed')
    expect(by.codex.message).toContain('is not valid TOML')
    expect(by.codex.message).toContain('line 2')
    expect(by.gemini.status).toBe('failed')
    expect(by.gemini.message).toContain('mcpServers is a string, expected an object')
    for (const id of ['claude-code', 'vscode', 'opencode', 'windsurf']) expect(by[id].status, id).toBe('added')
    for (const rel of ['.cursor/mcp.json', '.codex/config.toml', '.gemini/settings.json']) {
      expect(readFileSync(join(home, rel), 'utf8'), rel).toBe(files[rel as keyof typeof files])
      expect(backupsOf(home, rel), rel).toEqual([])
    }
    expect(r.stderr).toMatch(/error: 3 config files could not be updated \(Cursor, Codex, Gemini CLI\)/)
    expect(r.stderr).toContain('fix: ')

    const human = await runCli(['setup'], opts)
    expect(human.code).toBe(1)
    expect(human.stdout).toMatch(/Cursor\s+failed/)
    expect(human.stdout).toContain('fix: correct the file')
    expect(human.stdout).toMatch(/Claude Code\s+unchanged/)

    // remove also leaves an unparseable file alone and reports it
    const rm = await runCli(['setup', '--remove', '--json'], opts)
    expect(rm.code).toBe(1)
    expect(JSON.parse(rm.stdout).clients.find((c: any) => c.client === 'codex').status).toBe('failed')
    for (const rel of ['.cursor/mcp.json', '.codex/config.toml']) expect(readFileSync(join(home, rel), 'utf8')).toBe(files[rel as keyof typeof files])
    const regs = registrations({ env: setupEnv(home) })
    expect(regs.find((x) => x.client === 'cursor')!.error).toContain('is not valid JSON')
    expect(regs.find((x) => x.client === 'codex')!.error).toContain('is not valid TOML')
  })
})

describe('gitwhy setup --project', () => {
  test('writes the project-level files into the repository only, and --remove takes them out again', async () => {
    const home = fakeHome(USER_FILES)
    const repo = createRepo()
    try {
      repo.write('README.md', '# demo\n').write('.vscode/mcp.json', '{\n  "servers": {}\n}\n')
      repo.commit('Initial commit')
      const opts: CliOptions = { cwd: repo.dir, env: homeEnv(home, repo.env()) }
      const homeBefore = snapshot(home)

      const doc = (await runJson(['setup', '--project', '--repo', repo.dir], opts)).json
      expectShape(doc, SETUP_DOC, 'setup --project --json')
      expect(doc.scope).toBe('project')
      const files = Object.fromEntries(doc.clients.map((c: any) => [c.client, [c.status, c.file && relative(repo.dir, c.file)]]))
      expect(files).toEqual({
        'claude-code': ['added', '.mcp.json'],
        cursor: ['added', '.cursor/mcp.json'],
        vscode: ['added', '.vscode/mcp.json'],
        codex: ['added', '.codex/config.toml'],
        opencode: ['added', 'opencode.json'],
        windsurf: ['skipped', null],
        gemini: ['added', '.gemini/settings.json'],
      })
      expect(doc.clients.find((c: any) => c.client === 'windsurf').message).toContain('Windsurf has no project-level MCP config')
      expect(relative(repo.dir, doc.clients[0].hook.file)).toBe('.claude/settings.json')
      expect(snapshot(home)).toEqual(homeBefore)
      // shared files get the portable command, never this machine's node or checkout
      expect(jsonAt(join(repo.dir, '.mcp.json'), ['mcpServers', 'gitwhy'])).toEqual({ type: 'stdio', ...PORTABLE, env: {} })
      expect(jsonAt(join(repo.dir, '.vscode/mcp.json'), ['servers', 'gitwhy'])).toEqual({ type: 'stdio', ...PORTABLE })
      expect(jsonAt(join(repo.dir, '.claude/settings.json'), ['hooks', 'PreToolUse', 0, 'hooks', 0, 'command'])).toBe('gitwhy hook claude')
      expect(readFileSync(join(repo.dir, '.codex/config.toml'), 'utf8')).toContain('command = "gitwhy"\nargs = ["mcp"]')
      for (const f of ['.mcp.json', '.cursor/mcp.json', '.vscode/mcp.json', '.codex/config.toml', 'opencode.json', '.gemini/settings.json', '.claude/settings.json']) {
        const text = readFileSync(join(repo.dir, f), 'utf8')
        expect(text.includes(NODE) || text.includes(RUN_JS), f).toBe(false)
      }
      expect(backupsOf(repo.dir, '.vscode/mcp.json')).toHaveLength(1)
      const status = repo.git('status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).map((l) => l.slice(3)).sort()
      expect(status).toEqual(['.claude/settings.json', '.codex/config.toml', '.cursor/mcp.json', '.gemini/settings.json', '.mcp.json', '.vscode/mcp.json', `.vscode/${backupsOf(repo.dir, '.vscode/mcp.json')[0]}`, 'opencode.json'])

      const regs = registrations({ scope: 'project', repoRoot: repo.dir, env: setupEnv(home) })
      expect(regs.filter((r) => r.registered).map((r) => r.client)).toEqual(['claude-code', 'cursor', 'vscode', 'codex', 'opencode', 'gemini'])
      expect(regs.filter((r) => r.registered).every((r) => r.current && r.command === 'gitwhy')).toBe(true)
      expect(regs.find((r) => r.client === 'claude-code')!.hook).toMatchObject({ registered: true, current: true, command: 'gitwhy hook claude' })
      expect(regs.find((r) => r.client === 'windsurf')).toMatchObject({ file: null, registered: false })

      const removed = (await runJson(['setup', '--project', '--remove', '--repo', repo.dir], opts)).json
      expect(removed.clients.map((c: any) => c.status)).toEqual(['removed', 'removed', 'removed', 'removed', 'removed', 'skipped', 'removed'])
      expect(readFileSync(join(repo.dir, '.vscode/mcp.json'), 'utf8')).toBe('{\n  "servers": {}\n}\n')
      expect(snapshot(home)).toEqual(homeBefore)
    } finally {
      repo.cleanup()
    }
  })

  test('--project outside a git repository is a user error', async () => {
    const home = fakeHome()
    await expectUserError(['setup', '--project'], 'not_a_repo', { cwd: home, env: homeEnv(home) })
  })
})

describe('gitwhy setup: agent skills', () => {
  test("the package's skills go into Claude Code's, Cursor's and OpenCode's skills folders; --dry-run writes none, --remove takes only gitwhy's", async () => {
    const home = fakeHome({ ...USER_FILES, '.claude/skills/mine/SKILL.md': '---\nname: mine\ndescription: the user own skill\n---\n' })
    const opts: CliOptions = { cwd: home, env: homeEnv(home) }
    const shipped = readdirSync(join(ROOT, 'skills')).sort()
    expect(shipped.length).toBeGreaterThanOrEqual(4)
    const folders = { 'claude-code': '.claude/skills', cursor: '.cursor/skills', opencode: '.config/opencode/skills' }
    const before = snapshot(home)

    const dry = (await runJson(['setup', '--dry-run'], opts)).json
    expect(snapshot(home)).toEqual(before)
    for (const [client, folder] of Object.entries(folders)) {
      const c = dry.clients.find((x: any) => x.client === client)
      expect(c.skills.map((s: any) => [relative(home, s.file), s.status])).toEqual(shipped.map((n) => [`${folder}/${n}/SKILL.md`, 'added']))
    }
    expect(dry.clients.find((x: any) => x.client === 'vscode')).not.toHaveProperty('skills')

    await runJson(['setup'], opts)
    for (const folder of Object.values(folders)) {
      for (const name of shipped) {
        const text = readFileSync(join(home, folder, name, 'SKILL.md'), 'utf8')
        expect(text).toBe(readFileSync(join(ROOT, 'skills', name, 'SKILL.md'), 'utf8'))
        // frontmatter: the name is the folder's (clients require it), a description says when to use it
        expect(text).toMatch(new RegExp(`^---\\nname: ${name}\\ndescription: .{40,1024}\\n---\\n`))
        expect(text).toMatch(/`(evidence_for|context|impact|detect_changes)`/)
      }
    }
    const again = (await runJson(['setup'], opts)).json
    expect(again.clients.find((x: any) => x.client === 'cursor').skills.every((s: any) => s.status === 'unchanged')).toBe(true)
    const human = await runCli(['setup', '--dry-run', '--remove'], opts)
    expect(human.stdout).toMatch(/skills {6}4 would remove {2}~\/\.claude\/skills/)

    const removed = (await runJson(['setup', '--remove'], opts)).json
    expect(removed.clients.find((x: any) => x.client === 'claude-code').skills.every((s: any) => s.status === 'removed')).toBe(true)
    for (const folder of Object.values(folders)) for (const name of shipped) expect(existsSync(join(home, folder, name))).toBe(false)
    expect(readFileSync(join(home, '.claude/skills/mine/SKILL.md'), 'utf8')).toContain('name: mine')
  })
})
