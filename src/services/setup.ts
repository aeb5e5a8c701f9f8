/**
 * `gitwhy setup`: register the gitwhy MCP server (and, for Claude Code, the PreToolUse hook) with
 * the AI coding clients on this machine, each in its own config file and format, or remove
 * exactly those entries again. The clients are data (CLIENTS below); the format editors live in
 * src/setup/ (JSONC and TOML, both editing text in place so everything else in a file stays as it
 * was). `registrations()` reads the same files without writing, for `gitwhy doctor`.
 *
 * Where each client keeps its config, with sources: docs/setup.md.
 */
import { chmodSync, copyFileSync, constants as fsConstants, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { UserError, nearest } from '../errors.js'
import { JsonShapeError, JsoncSyntaxError, appendValue, buildNested, kindName, nodeAt, parseJsonc, removeValue, replaceValue, setValue, toValue, type JsonNode, type JsonValue } from '../setup/jsonc.js'
import { hookCommandLine, isGitwhyHookCommand, launcher, splitHookCommand, type Launcher } from '../setup/launcher.js'
import { PROJECT_ROOT } from '../parse/registry.js'
import { TomlFormError, TomlSyntaxError, contentEnd, findTable, readTable, removeTable, renderTable, setTable } from '../setup/toml-table.js'

export { launcher, hookCommandLine, type Launcher } from '../setup/launcher.js'

export const SERVER_NAME = 'gitwhy'

export type ClientId = 'claude-code' | 'cursor' | 'vscode' | 'codex' | 'opencode' | 'windsurf' | 'gemini'
export type Scope = 'user' | 'project'
export type SetupStatus = 'added' | 'updated' | 'unchanged' | 'removed' | 'absent' | 'skipped' | 'failed'

/** Where the user's files are: the home directory, the platform, the environment variables. */
export interface SetupEnv {
  home: string
  platform: NodeJS.Platform
  vars: NodeJS.ProcessEnv
}

export function currentEnv(): SetupEnv {
  return { home: os.homedir(), platform: process.platform, vars: process.env }
}

// ---------------------------------------------------------------- the clients

interface ClientSpec {
  id: ClientId
  name: string
  /** The client counts as installed when one of these exists. */
  detect(env: SetupEnv): string[]
  userFile(env: SetupEnv): string
  /** null: the client has no project-level config. */
  projectFile: ((repo: string) => string) | null
  format: 'json' | 'toml'
  /** JSON: the object holding the servers; TOML: the table prefix (`[mcp_servers.<name>]`). */
  container: string[]
  /** The entry written for the server. */
  entry(l: Launcher): { [key: string]: JsonValue }
  /** The entry's keys setup keeps in sync; any other key of an existing entry is the user's. */
  owned: string[]
  /** The command an existing entry launches, or null when it is not a launch entry. */
  read(entry: unknown): Launcher | null
  /** Claude Code's PreToolUse hook. */
  hook?: { userFile(env: SetupEnv): string; projectFile(repo: string): string }
  /** Where the client reads the user's agent skills (one `<name>/SKILL.md` per skill). */
  skillsDir?: (env: SetupEnv) => string
}

const xdgConfig = (env: SetupEnv) => (env.vars.XDG_CONFIG_HOME && path.isAbsolute(env.vars.XDG_CONFIG_HOME) ? env.vars.XDG_CONFIG_HOME : path.join(env.home, '.config'))
const claudeDir = (env: SetupEnv) => env.vars.CLAUDE_CONFIG_DIR || path.join(env.home, '.claude')
const claudeJson = (env: SetupEnv) => (env.vars.CLAUDE_CONFIG_DIR ? path.join(env.vars.CLAUDE_CONFIG_DIR, '.claude.json') : path.join(env.home, '.claude.json'))
const codexHome = (env: SetupEnv) => env.vars.CODEX_HOME || path.join(env.home, '.codex')

function vscodeUserDir(env: SetupEnv): string {
  if (env.platform === 'darwin') return path.join(env.home, 'Library', 'Application Support', 'Code', 'User')
  if (env.platform === 'win32') return path.join(env.vars.APPDATA || path.join(env.home, 'AppData', 'Roaming'), 'Code', 'User')
  return path.join(xdgConfig(env), 'Code', 'User')
}

/** The first of `names` in `dir` that exists, else the first. */
function existingOrFirst(dir: string, names: string[]): string {
  return path.join(dir, names.find((n) => existsSync(path.join(dir, n))) ?? names[0])
}

const commandArgs = (l: Launcher) => ({ command: l.command, args: l.args })

function readCommandArgs(entry: unknown): Launcher | null {
  if (!isObject(entry) || typeof entry.command !== 'string') return null
  const args = Array.isArray(entry.args) && entry.args.every((a) => typeof a === 'string') ? (entry.args as string[]) : []
  return { command: entry.command, args }
}

export const CLIENTS: readonly ClientSpec[] = [
  {
    id: 'claude-code',
    name: 'Claude Code',
    detect: (env) => [claudeDir(env), claudeJson(env)],
    userFile: claudeJson,
    projectFile: (repo) => path.join(repo, '.mcp.json'),
    format: 'json',
    container: ['mcpServers'],
    entry: (l) => ({ type: 'stdio', ...commandArgs(l), env: {} }),
    owned: ['type', 'command', 'args'],
    read: readCommandArgs,
    hook: { userFile: (env) => path.join(claudeDir(env), 'settings.json'), projectFile: (repo) => path.join(repo, '.claude', 'settings.json') },
    skillsDir: (env) => path.join(claudeDir(env), 'skills'),
  },
  {
    id: 'cursor',
    name: 'Cursor',
    detect: (env) => [path.join(env.home, '.cursor')],
    userFile: (env) => path.join(env.home, '.cursor', 'mcp.json'),
    projectFile: (repo) => path.join(repo, '.cursor', 'mcp.json'),
    format: 'json',
    container: ['mcpServers'],
    entry: commandArgs,
    owned: ['command', 'args'],
    read: readCommandArgs,
    skillsDir: (env) => path.join(env.home, '.cursor', 'skills'),
  },
  {
    id: 'vscode',
    name: 'VS Code',
    detect: (env) => [vscodeUserDir(env)],
    userFile: (env) => path.join(vscodeUserDir(env), 'mcp.json'),
    projectFile: (repo) => path.join(repo, '.vscode', 'mcp.json'),
    format: 'json',
    container: ['servers'],
    entry: (l) => ({ type: 'stdio', ...commandArgs(l) }),
    owned: ['type', 'command', 'args'],
    read: readCommandArgs,
  },
  {
    id: 'codex',
    name: 'Codex',
    detect: (env) => [codexHome(env)],
    userFile: (env) => path.join(codexHome(env), 'config.toml'),
    projectFile: (repo) => path.join(repo, '.codex', 'config.toml'),
    format: 'toml',
    container: ['mcp_servers'],
    entry: commandArgs,
    owned: ['command', 'args'],
    read: readCommandArgs,
  },
  {
    id: 'opencode',
    name: 'OpenCode',
    detect: (env) => [path.join(xdgConfig(env), 'opencode')],
    userFile: (env) => existingOrFirst(path.join(xdgConfig(env), 'opencode'), ['opencode.json', 'opencode.jsonc']),
    projectFile: (repo) => existingOrFirst(repo, ['opencode.json', 'opencode.jsonc']),
    format: 'json',
    container: ['mcp'],
    entry: (l) => ({ type: 'local', command: [l.command, ...l.args], enabled: true }),
    owned: ['type', 'command', 'enabled'],
    read: (entry) => {
      if (!isObject(entry) || !Array.isArray(entry.command) || entry.command.length === 0 || !entry.command.every((w) => typeof w === 'string')) return null
      const [command, ...args] = entry.command as string[]
      return { command, args }
    },
    skillsDir: (env) => path.join(xdgConfig(env), 'opencode', 'skills'),
  },
  {
    id: 'windsurf',
    name: 'Windsurf',
    detect: (env) => [path.join(env.home, '.codeium', 'windsurf')],
    userFile: (env) => path.join(env.home, '.codeium', 'windsurf', 'mcp_config.json'),
    projectFile: null,
    format: 'json',
    container: ['mcpServers'],
    entry: commandArgs,
    owned: ['command', 'args'],
    read: readCommandArgs,
  },
  {
    id: 'gemini',
    name: 'Gemini CLI',
    detect: (env) => [path.join(env.home, '.gemini')],
    userFile: (env) => path.join(env.home, '.gemini', 'settings.json'),
    projectFile: (repo) => path.join(repo, '.gemini', 'settings.json'),
    format: 'json',
    container: ['mcpServers'],
    entry: commandArgs,
    owned: ['command', 'args'],
    read: readCommandArgs,
  },
]

export const CLIENT_IDS: readonly ClientId[] = CLIENTS.map((c) => c.id)

const ALIASES: Record<string, ClientId> = {
  claude: 'claude-code',
  claudecode: 'claude-code',
  code: 'vscode',
  'vs-code': 'vscode',
  'visual-studio-code': 'vscode',
  gemini: 'gemini',
  'gemini-cli': 'gemini',
  'codex-cli': 'codex',
}

/** Client names as typed (`--client`), resolved to ids; a UserError names the valid ones. */
export function resolveClientNames(names: readonly string[]): ClientId[] {
  const out: ClientId[] = []
  for (const raw of names) {
    const n = raw.trim().toLowerCase()
    const id = (CLIENT_IDS as readonly string[]).includes(n) ? (n as ClientId) : ALIASES[n]
    if (!id) throw new UserError(`unknown client "${raw}"${suggest(n)}`, `use one of: ${CLIENT_IDS.join(', ')}`, 'unknown_client')
    if (!out.includes(id)) out.push(id)
  }
  return out
}

function suggest(n: string): string {
  const [best] = nearest(n, [...CLIENT_IDS, ...Object.keys(ALIASES)], 1)
  return best ? ` (did you mean ${ALIASES[best] ?? best}?)` : ''
}

// ---------------------------------------------------------------- the hook

const HOOK_EVENT = 'PreToolUse'
const HOOK_MATCHER = 'Grep|Glob|Bash'
const HOOK_TIMEOUT_SECONDS = 5

function hookGroup(command: string): JsonValue {
  return { matcher: HOOK_MATCHER, hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }] }
}

interface HookOccurrence {
  group: number
  hook: number
  /** The group holds only this hook. */
  alone: boolean
  command: string
}

/** Every gitwhy hook under hooks.PreToolUse. */
function findHooks(root: JsonNode | null): HookOccurrence[] {
  const pre = nodeAt(root, ['hooks', HOOK_EVENT])
  if (!pre || pre.kind !== 'array') return []
  const out: HookOccurrence[] = []
  pre.elements.forEach((g, gi) => {
    const hooks = nodeAt(g.value, ['hooks'])
    if (!hooks || hooks.kind !== 'array') return
    hooks.elements.forEach((h, hi) => {
      const v = toValue(h.value)
      if (isObject(v) && typeof v.command === 'string' && isGitwhyHookCommand(v.command)) out.push({ group: gi, hook: hi, alone: hooks.elements.length === 1, command: v.command })
    })
  })
  return out
}

// ---------------------------------------------------------------- planning an edit (pure)

interface FilePlan {
  file: string
  status: SetupStatus
  message?: string
  /** The file's text before (null: no file). */
  before: string | null
  /** The text to write (null: nothing to write). */
  after: string | null
  /** What is added, updated or removed, for the dry-run and the human report. */
  snippet?: string
  /** A sentence for the human report: what the change is. */
  change?: string
}

class PlanError extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message)
  }
}

function readText(file: string): string | null {
  if (!existsSync(file)) return null
  if (statSync(file).isDirectory()) throw new PlanError(`${file} is a directory, not a config file`, `move it aside and run \`gitwhy setup\` again`)
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    throw new PlanError(`cannot read ${file}: ${(error as Error).message}`, 'check its permissions and run `gitwhy setup` again')
  }
}

function parseOrFail(file: string, text: string): ReturnType<typeof parseJsonc> {
  try {
    return parseJsonc(text)
  } catch (error) {
    if (error instanceof JsoncSyntaxError) throw new PlanError(`${file} is not valid JSON (${error.message}); it was left untouched`, `correct the file (or move it aside) and run \`gitwhy setup\` again`)
    throw error
  }
}

function shapeFail(file: string, error: JsonShapeError): PlanError {
  return new PlanError(`in ${file}, ${error.message}; it was left untouched`, `correct that key by hand (or move the file aside) and run \`gitwhy setup\` again`)
}

function tomlFail(file: string, error: unknown): PlanError {
  if (error instanceof TomlSyntaxError) return new PlanError(`${file} is not valid TOML (${error.message}); it was left untouched`, 'correct the file (or move it aside) and run `gitwhy setup` again')
  if (error instanceof TomlFormError) return new PlanError(`in ${file}, ${error.message}; it was left untouched`, `replace it by a [mcp_servers.${SERVER_NAME}] table (or delete it) and run \`gitwhy setup\` again`)
  return error as PlanError
}

const pretty = (v: JsonValue) => JSON.stringify(v, null, 2)

function planServerRegister(spec: ClientSpec, file: string, l: Launcher): FilePlan {
  const before = readText(file)
  const desired = spec.entry(l)
  if (spec.format === 'toml') {
    const key = [...spec.container, SERVER_NAME]
    const values = { command: desired.command as string, args: desired.args as string[] }
    let r: ReturnType<typeof setTable>
    try {
      r = setTable(before ?? '', key, values)
    } catch (error) {
      throw tomlFail(file, error)
    }
    const snippet = renderTable(key, values).trimEnd()
    if (r.status === 'unchanged') return { file, status: 'unchanged', message: 'already registered', before, after: null }
    return { file, status: r.status, before, after: r.text, snippet, change: r.status === 'added' ? `add [${key.join('.')}] to` : `update [${key.join('.')}] in` }
  }
  const doc = parseOrFail(file, before ?? '')
  const entryPath = [...spec.container, SERVER_NAME]
  const label = entryPath.join('.')
  try {
    const existing = nodeAt(doc.root, entryPath)
    if (!existing) {
      const after = setValue(before ?? '', entryPath, desired)
      return { file, status: 'added', before, after, snippet: pretty(buildNested(entryPath, desired)), change: `add ${label} to` }
    }
    if (existing.kind !== 'object') {
      const after = setValue(before ?? '', entryPath, desired)
      return { file, status: 'updated', before, after, snippet: pretty(buildNested(entryPath, desired)), change: `replace ${label} (${kindName(existing)}) in` }
    }
    const current = toValue(existing) as { [k: string]: JsonValue }
    const differing = spec.owned.filter((k) => !deepEqual(current[k], desired[k]))
    if (differing.length === 0) return { file, status: 'unchanged', message: 'already registered', before, after: null }
    let after = before ?? ''
    for (const k of differing) after = setValue(after, [...entryPath, k], desired[k])
    const result = { ...current }
    for (const k of differing) result[k] = desired[k]
    return { file, status: 'updated', before, after, snippet: pretty(buildNested(entryPath, result)), change: `update ${label} (${differing.join(', ')}) in` }
  } catch (error) {
    if (error instanceof JsonShapeError) throw shapeFail(file, error)
    throw error
  }
}

function planServerRemove(spec: ClientSpec, file: string): FilePlan {
  const before = readText(file)
  if (before === null) return { file, status: 'absent', message: 'no config file', before, after: null }
  if (spec.format === 'toml') {
    const key = [...spec.container, SERVER_NAME]
    try {
      const { table, subtables } = findTable(before, key)
      const r = removeTable(before, key)
      if (!r.removed) return { file, status: 'absent', message: 'no gitwhy entry', before, after: null }
      const removed = [table, ...subtables].filter((t) => t !== null).map((t) => before.slice(t!.start, contentEnd(t!)).trimEnd())
      return { file, status: 'removed', before, after: r.text, snippet: removed.join('\n\n'), change: `remove [${key.join('.')}] from` }
    } catch (error) {
      throw tomlFail(file, error)
    }
  }
  const doc = parseOrFail(file, before)
  const entryPath = [...spec.container, SERVER_NAME]
  const existing = nodeAt(doc.root, entryPath)
  if (!existing) return { file, status: 'absent', message: 'no gitwhy entry', before, after: null }
  return { file, status: 'removed', before, after: removeValue(before, entryPath), snippet: pretty(buildNested(entryPath, toValue(existing))), change: `remove ${entryPath.join('.')} from` }
}

function planHookRegister(file: string, command: string): FilePlan {
  const before = readText(file)
  const doc = parseOrFail(file, before ?? '')
  const listPath = ['hooks', HOOK_EVENT]
  const group = hookGroup(command)
  const snippet = pretty({ hooks: { [HOOK_EVENT]: [group] } })
  try {
    const found = findHooks(doc.root)
    if (found.length === 0) {
      return { file, status: 'added', before, after: appendValue(before ?? '', listPath, group), snippet, change: `add the gitwhy hook to hooks.${HOOK_EVENT} in` }
    }
    if (found.length === 1 && found[0].alone) {
      const current = toValue(nodeAt(doc.root, [...listPath, found[0].group])!)
      if (deepEqual(current, group)) return { file, status: 'unchanged', message: 'already registered', before, after: null }
      return { file, status: 'updated', before, after: replaceValue(before ?? '', [...listPath, found[0].group], group), snippet, change: `update the gitwhy hook in hooks.${HOOK_EVENT} in` }
    }
    // several gitwhy hooks, or one sharing a group with other hooks: take them out, add ours once
    const after = appendValue(withoutHooks(before ?? '', found), listPath, group)
    return { file, status: 'updated', before, after, snippet, change: `replace ${found.length} gitwhy hook(s) in hooks.${HOOK_EVENT} in` }
  } catch (error) {
    if (error instanceof JsonShapeError) throw shapeFail(file, error)
    throw error
  }
}

function withoutHooks(text: string, found: HookOccurrence[]): string {
  let out = text
  // from the last to the first, so the earlier indexes stay valid
  for (const h of [...found].sort((a, b) => b.group - a.group || b.hook - a.hook)) {
    out = h.alone ? removeValue(out, ['hooks', HOOK_EVENT, h.group]) : removeValue(out, ['hooks', HOOK_EVENT, h.group, 'hooks', h.hook])
  }
  return out
}

function planHookRemove(file: string): FilePlan {
  const before = readText(file)
  if (before === null) return { file, status: 'absent', message: 'no settings file', before, after: null }
  const doc = parseOrFail(file, before)
  const found = findHooks(doc.root)
  if (found.length === 0) return { file, status: 'absent', message: 'no gitwhy hook', before, after: null }
  const removed = found.map((h) => toValue(nodeAt(doc.root, h.alone ? ['hooks', HOOK_EVENT, h.group] : ['hooks', HOOK_EVENT, h.group, 'hooks', h.hook])!))
  return { file, status: 'removed', before, after: withoutHooks(before, found), snippet: pretty({ hooks: { [HOOK_EVENT]: removed } }), change: `remove the gitwhy hook from hooks.${HOOK_EVENT} in` }
}

function attempt(file: string, plan: () => FilePlan): FilePlan {
  try {
    return plan()
  } catch (error) {
    if (error instanceof PlanError) return { file, status: 'failed', message: `${error.message} — fix: ${error.fix}`, before: null, after: null }
    throw error
  }
}

// ---------------------------------------------------------------- writing

/** `20250131T120000Z`: the suffix of this run's backups. */
function backupStamp(now = new Date()): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')
}

/**
 * Write `after` to `file`: a backup of the current file next to it first, then a temporary file
 * renamed over the real one (through symlinks, keeping the file's mode). If the file changed on
 * disk since it was read (a running client rewrote it), nothing is written.
 */
function writeFile(file: string, before: string | null, after: string, stamp: string): string | null {
  mkdirSync(path.dirname(file), { recursive: true })
  const target = before !== null ? realpathSync(file) : file
  let backup: string | null = null
  if (before !== null) {
    for (let n = 0; backup === null; n++) {
      const candidate = `${file}.gitwhy-backup-${stamp}${n ? `-${n}` : ''}`
      try {
        copyFileSync(target, candidate, fsConstants.COPYFILE_EXCL)
        backup = candidate
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
    }
  }
  const tmp = `${target}.gitwhy-tmp-${process.pid}`
  writeFileSync(tmp, after)
  try {
    if (before !== null) {
      chmodSync(tmp, statSync(target).mode & 0o7777)
      if (readFileSync(target, 'utf8') !== before) {
        throw new PlanError(`${file} changed while gitwhy was editing it; it was left untouched`, 'run `gitwhy setup` again')
      }
    }
    renameSync(tmp, target)
  } finally {
    rmSync(tmp, { force: true })
  }
  return backup
}

// ---------------------------------------------------------------- the service

export interface FileResult {
  /** null: the client has no config file at this scope. */
  file: string | null
  status: SetupStatus
  message?: string
}

export interface ClientResult extends FileResult {
  client: ClientId
  found: boolean
  /** Claude Code's PreToolUse hook (settings.json). */
  hook?: FileResult
  /** gitwhy's agent skills (user scope, the clients that read skills). */
  skills?: FileResult[]
}

/** The `--json` document of `gitwhy setup`. */
export interface SetupResult {
  action: 'register' | 'remove'
  dry_run: boolean
  scope: Scope
  clients: ClientResult[]
  launcher: Launcher
}

/** What the human report shows beyond the JSON: the change and its snippet, per file. */
export interface SetupPreview {
  client: ClientId
  name: string
  kind: 'server' | 'hook'
  file: string
  status: SetupStatus
  change: string
  snippet: string
  backup: string | null
}

export interface SetupOptions {
  action: 'register' | 'remove'
  dryRun: boolean
  scope: Scope
  /** The repository root (project scope). */
  repoRoot?: string
  /** Only these clients (they are set up even when not detected). */
  clients?: ClientId[]
  /** Claude Code's hook (default true). */
  hook?: boolean
  env?: SetupEnv
}

function isInstalled(spec: ClientSpec, env: SetupEnv): boolean {
  return spec.detect(env).some((p) => existsSync(p))
}

export function setup(options: SetupOptions): { result: SetupResult; previews: SetupPreview[] } {
  const env = options.env ?? currentEnv()
  const l = launcher(options.scope)
  const hookCommand = hookCommandLine(env.platform, options.scope)
  const stamp = backupStamp()
  if (options.scope === 'project' && !options.repoRoot) throw new Error('setup: project scope needs repoRoot')
  const named = options.clients ?? null
  const specs = named ? CLIENTS.filter((c) => named.includes(c.id)) : CLIENTS
  const clients: ClientResult[] = []
  const previews: SetupPreview[] = []

  const run = (spec: ClientSpec, kind: 'server' | 'hook', plan: FilePlan): FileResult => {
    const out: FileResult = { file: plan.file, status: plan.status }
    let backup: string | null = null
    if (plan.after !== null && plan.status !== 'failed') {
      if (!options.dryRun) {
        try {
          backup = writeFile(plan.file, plan.before, plan.after, stamp)
        } catch (error) {
          const fix = error instanceof PlanError ? error.fix : 'check the permissions of the file and its directory and run `gitwhy setup` again'
          return { file: plan.file, status: 'failed', message: `${error instanceof PlanError ? error.message : `cannot write ${plan.file}: ${(error as Error).message}`} — fix: ${fix}` }
        }
      }
      if (backup) out.message = `backup: ${backup}`
      else if (plan.before === null && !options.dryRun) out.message = 'created'
      previews.push({ client: spec.id, name: spec.name, kind, file: plan.file, status: plan.status, change: plan.change ?? '', snippet: plan.snippet ?? '', backup })
    } else if (plan.message) {
      out.message = plan.message
    }
    return out
  }

  for (const spec of specs) {
    const project = options.scope === 'project'
    const file = project ? (spec.projectFile ? spec.projectFile(options.repoRoot!) : null) : spec.userFile(env)
    const found = isInstalled(spec, env) || (project && file !== null && existsSync(file))
    if (file === null) {
      clients.push({ client: spec.id, found, file: null, status: 'skipped', message: `${spec.name} has no project-level MCP config; run \`gitwhy setup\` without --project to register it for your user` })
      continue
    }
    if (!found && !named) {
      clients.push({ client: spec.id, found, file, status: 'skipped', message: 'not installed' })
      continue
    }
    const plan = attempt(file, () => (options.action === 'register' ? planServerRegister(spec, file, l) : planServerRemove(spec, file)))
    const result: ClientResult = { client: spec.id, found, ...run(spec, 'server', plan) }
    if (spec.hook) {
      const hookFile = project ? spec.hook.projectFile(options.repoRoot!) : spec.hook.userFile(env)
      if (options.hook === false) {
        result.hook = { file: hookFile, status: 'skipped', message: 'hook not requested (--no-hook)' }
      } else {
        const hookPlan = attempt(hookFile, () => (options.action === 'register' ? planHookRegister(hookFile, hookCommand) : planHookRemove(hookFile)))
        result.hook = run(spec, 'hook', hookPlan)
      }
    }
    if (spec.skillsDir && !project) result.skills = applySkills(spec.skillsDir(env), options.action, options.dryRun)
    clients.push(result)
  }
  return { result: { action: options.action, dry_run: options.dryRun, scope: options.scope, clients, launcher: l }, previews }
}

/** The clients (and hooks) whose edit failed. */
export function failures(result: SetupResult): Array<{ client: ClientId; file: string | null; message: string }> {
  const out: Array<{ client: ClientId; file: string | null; message: string }> = []
  for (const c of result.clients) {
    if (c.status === 'failed') out.push({ client: c.client, file: c.file, message: c.message ?? '' })
    if (c.hook?.status === 'failed') out.push({ client: c.client, file: c.hook.file, message: c.hook.message ?? '' })
  }
  return out
}

export function clientName(id: ClientId): string {
  return CLIENTS.find((c) => c.id === id)!.name
}

// ---------------------------------------------------------------- registrations (read-only)

export interface HookRegistration {
  file: string
  registered: boolean
  /** The command line of the (first) gitwhy hook. */
  command: string | null
  /** Its first word (the node binary) exists; null when not registered. */
  command_exists: boolean | null
  /** Its second word (run.js), when an absolute path, exists; null otherwise. */
  script_exists: boolean | null
  /** Exactly what `gitwhy setup` writes now (setup would report "unchanged"). */
  current: boolean
  error: string | null
}

export interface Registration {
  client: ClientId
  name: string
  scope: Scope
  /** The client is installed (its config directory or file exists). */
  found: boolean
  /** The config file for this scope; null when the client has none (Windsurf, project scope). */
  file: string | null
  /** A gitwhy server entry is present. */
  registered: boolean
  /** What the entry launches. */
  command: string | null
  args: string[] | null
  /** The command exists on disk (an absolute path) or on PATH (a bare name); null when not registered. */
  command_exists: boolean | null
  /** args[0] exists on disk when it is an absolute path (gitwhy's run.js); null otherwise. */
  script_exists: boolean | null
  /** The entry is exactly what `gitwhy setup` writes now. */
  current: boolean
  /** The file could not be read or parsed. */
  error: string | null
  /** Claude Code only. */
  hook: HookRegistration | null
}

/**
 * What each client has registered for gitwhy, read without writing anything: for `gitwhy doctor`
 * ("client registrations point at a working command"). Project scope reads the files in
 * `repoRoot`.
 */
export function registrations(options: { scope?: Scope; repoRoot?: string; env?: SetupEnv } = {}): Registration[] {
  const env = options.env ?? currentEnv()
  const scope = options.scope ?? 'user'
  if (scope === 'project' && !options.repoRoot) throw new Error('registrations: project scope needs repoRoot')
  const l = launcher(scope)
  return CLIENTS.map((spec) => {
    const file = scope === 'project' ? (spec.projectFile ? spec.projectFile(options.repoRoot!) : null) : spec.userFile(env)
    const reg: Registration = {
      client: spec.id,
      name: spec.name,
      scope,
      found: isInstalled(spec, env) || (scope === 'project' && file !== null && existsSync(file)),
      file,
      registered: false,
      command: null,
      args: null,
      command_exists: null,
      script_exists: null,
      current: false,
      error: null,
      hook: null,
    }
    if (file) {
      try {
        readServerEntry(spec, file, l, reg, env)
      } catch (error) {
        reg.error = error instanceof PlanError ? error.message : tomlFail(file, error).message
      }
    }
    if (spec.hook) reg.hook = readHookEntry(scope === 'project' ? spec.hook.projectFile(options.repoRoot!) : spec.hook.userFile(env), env, scope)
    return reg
  })
}

function readServerEntry(spec: ClientSpec, file: string, l: Launcher, reg: Registration, env: SetupEnv): void {
  const text = readText(file)
  if (text === null) return
  const desired = spec.entry(l)
  let entry: unknown
  if (spec.format === 'toml') {
    const t = readTable(text, [...spec.container, SERVER_NAME], { command: '', args: [] })
    if (!t) return
    entry = { command: t.command ?? undefined, args: t.args ?? undefined }
  } else {
    const node = nodeAt(parseOrFail(file, text).root, [...spec.container, SERVER_NAME])
    if (!node) return
    entry = toValue(node)
  }
  reg.registered = true
  const launch = spec.read(entry)
  if (launch) {
    reg.command = launch.command
    reg.args = launch.args
    reg.command_exists = commandExists(launch.command, env)
    reg.script_exists = launch.args[0] && path.isAbsolute(launch.args[0]) ? existsSync(launch.args[0]) : null
  }
  reg.current = isObject(entry) && spec.owned.every((k) => deepEqual((entry as Record<string, unknown>)[k], desired[k]))
}

function readHookEntry(file: string, env: SetupEnv, scope: Scope): HookRegistration {
  const reg: HookRegistration = { file, registered: false, command: null, command_exists: null, script_exists: null, current: false, error: null }
  try {
    const text = readText(file)
    if (text === null) return reg
    const doc = parseOrFail(file, text)
    const found = findHooks(doc.root)
    if (found.length === 0) return reg
    reg.registered = true
    reg.command = found[0].command
    const words = splitHookCommand(found[0].command, env.platform)
    reg.command_exists = words[0] ? commandExists(words[0], env) : false
    reg.script_exists = words[1] && path.isAbsolute(words[1]) ? existsSync(words[1]) : null
    reg.current = found.length === 1 && found[0].alone && deepEqual(toValue(nodeAt(doc.root, ['hooks', HOOK_EVENT, found[0].group])!), hookGroup(hookCommandLine(env.platform, scope)))
  } catch (error) {
    reg.error = (error as Error).message
  }
  return reg
}

/** An absolute path that exists, or a bare name found on PATH. */
function commandExists(command: string, env: SetupEnv): boolean {
  if (path.isAbsolute(command)) return existsSync(command)
  if (command.includes('/') || command.includes('\\')) return false
  const exts = env.platform === 'win32' ? (env.vars.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : ['']
  const sep = env.platform === 'win32' ? ';' : ':'
  return (env.vars.PATH ?? '').split(sep).some((dir) => dir && exts.some((e) => existsSync(path.join(dir, command + e))))
}

// ---------------------------------------------------------------- small helpers

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Structural equality; object key order does not matter. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a)
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]))
  }
  return false
}

// ---------------------------------------------------------------- agent skills

/** gitwhy's agent skills, shipped in the package's `skills/` folder: one `<name>/SKILL.md` each. */
export function gitwhySkills(): Array<{ name: string; text: string }> {
  const dir = path.join(PROJECT_ROOT, 'skills')
  return readdirSync(dir)
    .filter((name) => existsSync(path.join(dir, name, 'SKILL.md')))
    .sort()
    .map((name) => ({ name, text: readFileSync(path.join(dir, name, 'SKILL.md'), 'utf8') }))
}

/**
 * Install (or remove) the skills under a client's skills folder. A SKILL.md is gitwhy's when its
 * frontmatter names it; anything else there is the user's and left alone.
 */
function applySkills(dir: string, action: 'register' | 'remove', dryRun: boolean): FileResult[] {
  return gitwhySkills().map(({ name, text }) => {
    const file = path.join(dir, name, 'SKILL.md')
    const current = readText(file)
    try {
      if (action === 'remove') {
        if (current === null || !new RegExp(`^---\\r?\\nname: ${name}\\r?\\n`).test(current)) return { file, status: 'absent' }
        if (!dryRun) {
          rmSync(file)
          if (readdirSync(path.dirname(file)).length === 0) rmSync(path.dirname(file), { recursive: true })
        }
        return { file, status: 'removed' }
      }
      if (current === text) return { file, status: 'unchanged' }
      if (!dryRun) {
        mkdirSync(path.dirname(file), { recursive: true })
        writeFileSync(file, text)
      }
      return { file, status: current === null ? 'added' : 'updated' }
    } catch (error) {
      return { file, status: 'failed', message: `cannot write ${file}: ${(error as Error).message} — fix: check the permissions of ${dir}` }
    }
  })
}
