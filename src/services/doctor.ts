import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { git } from '../git/run.js'
import { llmChecks } from '../llm/doctor.js'
import { isUserError } from '../errors.js'
import { PORTABLE_COMMAND, launcher } from '../setup/launcher.js'
import { commitsBehind } from '../render.js'
import { IndexReader } from './index-reader.js'
import { registrations } from './setup.js'
import { verifyAll } from './index-integrity.js'
import { gitwhyDir, metaDamaged, originRemote, readMeta, resolveRepo } from './workspace.js'
import { githubTarget, readForgeConfig, resolveToken } from '../forge/github.js'

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip'

export interface Check {
  id: string
  status: CheckStatus
  message: string
  /** What to do about a warn or fail. */
  fix: string | null
}

export interface DoctorResult {
  repo: string | null
  ok: boolean
  checks: Check[]
}

/** Tool descriptions shorter than this tell an agent too little to know when to call the tool. */
export const MIN_DESCRIPTION = 80
const MIN_NODE_MAJOR = 20

const check = (id: string, status: CheckStatus, message: string, fix: string | null = null): Check => ({ id, status, message, fix })

/**
 * Everything that must hold for an agent to get answers: Node, the index (present, fresh,
 * readable), the MCP server (its tools, a real stdio handshake with the built CLI), and the client
 * registrations pointing at a command that exists, and when an LLM is configured, its key and
 * server. Each failed check carries its fix.
 */
export async function doctor(options: { repo?: string }): Promise<DoctorResult> {
  const checks: Check[] = []
  const major = Number(process.versions.node.split('.')[0])
  checks.push(
    major >= MIN_NODE_MAJOR
      ? check('node', 'ok', `Node ${process.versions.node}`)
      : check('node', 'fail', `Node ${process.versions.node} is too old`, `install Node ${MIN_NODE_MAJOR} or newer`),
  )

  let repo: string | null = null
  try {
    repo = await resolveRepo(options.repo)
  } catch (error) {
    checks.push(check('repository', 'warn', isUserError(error) ? error.message : String(error), 'run gitwhy doctor inside an indexed repository (or pass --repo) to check its index too'))
  }
  if (repo) checks.push(...(await indexChecks(repo)))
  if (repo) checks.push(await forgeCheck(repo))
  checks.push(...(await serverChecks(repo)))
  checks.push(...registrationChecks(repo))
  checks.push(...(await hookChecks(repo)))
  // the optional LLM (issue 15): checked only when a provider is configured
  checks.push(...(await llmChecks(repo ? gitwhyDir(repo) : null)))
  return { repo, ok: checks.every((c) => c.status !== 'fail'), checks }
}

async function indexChecks(repo: string): Promise<Check[]> {
  const out: Check[] = []
  if (!readMeta(repo) && !metaDamaged(repo)) {
    out.push(check('index', 'fail', `no index in ${repo}`, `run \`gitwhy analyze ${repo}\``))
    return out
  }
  let reader: IndexReader
  try {
    reader = IndexReader.openRoot(repo)
  } catch (error) {
    out.push(check('index', 'fail', (error as Error).message, isUserError(error) ? error.remedy : `run \`gitwhy analyze ${repo} --force\``))
    return out
  }
  try {
    const problems = verifyAll(reader.dir, reader.meta.manifest)
    if (problems.length > 0) {
      out.push(check('index', 'fail', `the index is damaged: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; …' : ''}`, `run \`gitwhy analyze ${repo} --force\``))
      return out
    }
    const info = await reader.indexInfo()
    out.push(
      !info.stale
        ? check('index', 'ok', `index at ${info.head.slice(0, 7)}, fresh`)
        : check(
            'index',
            'warn',
            info.commits_behind === null ? `index at ${info.head.slice(0, 7)} is not an ancestor of HEAD (history rewritten)` : `index is ${commitsBehind(info.commits_behind)}`,
            `run \`gitwhy analyze\` (or \`gitwhy hooks install\` to keep it fresh)`,
          ),
    )
    try {
      const rows = await (await reader.graph()).query<{ n: number }>('MATCH (c:Commit) RETURN count(c) AS n')
      out.push(check('database', 'ok', `database opens read-only (${rows[0]?.n ?? 0} commits)`))
    } catch (error) {
      out.push(check('database', 'fail', `the database does not open: ${(error as Error).message}`, isUserError(error) ? error.remedy : `rebuild it: \`gitwhy analyze ${repo} --force\``))
    }
  } finally {
    await reader.close()
  }
  return out
}

/**
 * Whether `gitwhy enrich` can ask GitHub: a GitHub `origin`, and a token (GITHUB_TOKEN, GH_TOKEN
 * or `gh auth token`; where it comes from is said, never the token).
 */
async function forgeCheck(repo: string): Promise<Check> {
  try {
    const remote = await originRemote(repo)
    const target = githubTarget(remote, readForgeConfig(gitwhyDir(repo)).apiUrl)
    if (!target) return check('forge', 'skip', remote ? `origin is on ${remote.forge}: \`gitwhy enrich\` reads GitHub only` : 'no GitHub origin remote: `gitwhy enrich` does not apply')
    const token = await resolveToken(target.host)
    if (!token) return check('forge', 'warn', `no GitHub token for ${target.host}: \`gitwhy enrich\` skips (PR and issue titles stay those of the commit messages)`, 'set GITHUB_TOKEN or GH_TOKEN, or log in with `gh auth login`')
    return check('forge', 'ok', `a GitHub token is available (${token.source}) for ${target.owner}/${target.name} at ${target.api}`)
  } catch (error) {
    return check('forge', 'warn', (error as Error).message, isUserError(error) ? error.remedy : null)
  }
}

async function serverChecks(repo: string | null): Promise<Check[]> {
  const out: Check[] = []
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  // the tools as registered, from the server in this process
  try {
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js')
    const { createServer } = await import('../mcp/server.js')
    const { server, pool } = createServer({ startDir: repo ?? process.cwd(), version: 'doctor' })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: 'gitwhy-doctor', version: '1' })
    await client.connect(clientSide)
    const { tools } = await client.listTools()
    await client.close()
    await pool.close()
    const short = tools.filter((t) => (t.description ?? '').length < MIN_DESCRIPTION).map((t) => t.name)
    const size = JSON.stringify({ tools }).length
    out.push(
      short.length
        ? check('tools', 'fail', `tools with too short a description: ${short.join(', ')}`, 'this is a gitwhy bug: please report it')
        : check('tools', 'ok', `${tools.length} tools registered (${tools.map((t) => t.name).join(', ')}), tools/list ${size} characters`),
    )
  } catch (error) {
    out.push(check('tools', 'fail', `the MCP server could not be created: ${(error as Error).message}`, 'reinstall gitwhy (`npm ci && npm run build`)'))
  }
  // the built server over a real stdio pipe, as a client starts it
  const l = launcher()
  try {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
    const started = performance.now()
    const transport = new StdioClientTransport({ ...l, cwd: repo ?? process.cwd(), stderr: 'pipe' })
    const client = new Client({ name: 'gitwhy-doctor', version: '1' })
    await withTimeout(client.connect(transport), 10_000, 'no answer to initialize within 10 s')
    const ms = Math.round(performance.now() - started)
    const answer = repo ? await client.callTool({ name: 'ping', arguments: {} }) : null
    await client.close()
    const failed = answer?.isError ? ` but ping failed: ${(answer.content as Array<{ text?: string }>)[0]?.text ?? ''}` : ''
    out.push(
      failed
        ? check('stdio', 'warn', `\`gitwhy mcp\` answered initialize in ${ms} ms${failed}`, 'see the index check above')
        : check('stdio', 'ok', `\`${[l.command, ...l.args].join(' ')}\` answered initialize in ${ms} ms${answer ? ' and ping' : ''}`),
    )
  } catch (error) {
    out.push(check('stdio', 'fail', `\`gitwhy mcp\` did not complete a stdio handshake: ${(error as Error).message}`, 'run `npm run build` in the gitwhy checkout, then `gitwhy doctor` again'))
  }
  return out
}

/** Every client registration (user level, and the repository's own files) must launch something that exists. */
function registrationChecks(repo: string | null): Check[] {
  const found = [...registrations({ scope: 'user' }), ...(repo ? registrations({ scope: 'project', repoRoot: repo }) : [])]
  const out: Check[] = []
  for (const r of found) {
    const where = `${r.name} (${r.scope}, ${r.file})`
    if (r.error) out.push(check(`client:${r.client}`, 'warn', `${where}: cannot read the config: ${r.error}`, 'fix the file by hand, then run `gitwhy setup`'))
    else if (r.registered && (r.command_exists === false || r.script_exists === false)) {
      const fix = r.command === PORTABLE_COMMAND ? 'put `gitwhy` on your PATH (`npm install -g gitwhy`, or `npm link` in a checkout)' : `run \`gitwhy setup${r.scope === 'project' ? ' --project' : ''}\` to point it at this gitwhy`
      out.push(check(`client:${r.client}`, 'fail', `${where} launches ${[r.command, ...(r.args ?? [])].join(' ')}, which does not exist`, fix))
    } else if (r.registered && !r.current) {
      out.push(check(`client:${r.client}`, 'warn', `${where} launches ${[r.command, ...(r.args ?? [])].join(' ')}, not this gitwhy`, `run \`gitwhy setup${r.scope === 'project' ? ' --project' : ''}\` to update it`))
    } else if (r.registered) out.push(check(`client:${r.client}`, 'ok', `${where} launches this gitwhy`))
    if (r.hook?.registered && (r.hook.command_exists === false || r.hook.script_exists === false)) {
      out.push(check(`hook:${r.client}`, 'fail', `${r.name}'s gitwhy hook (${r.hook.file}) runs a command that does not exist: ${r.hook.command}`, 'run `gitwhy setup` to update it, or `gitwhy setup --remove`'))
    }
  }
  if (!found.some((r) => r.registered)) {
    const installed = found.filter((r) => r.found && r.scope === 'user').map((r) => r.name)
    out.push(check('clients', 'warn', installed.length ? `gitwhy is not registered with ${installed.join(', ')}` : 'no MCP client found on this machine', 'run `gitwhy setup` (add --dry-run to see the changes first)'))
  }
  return out
}

/**
 * Claude Code's hook: installed (when Claude Code is), and answering. Run as Claude Code runs it
 * (the registered command line through the shell, a PreToolUse event on stdin, its real deadline),
 * with a Glob for a file a recent commit changed (one with a name long enough to search for).
 */
async function hookChecks(repo: string | null): Promise<Check[]> {
  const claude = [...registrations({ scope: 'user' }), ...(repo ? registrations({ scope: 'project', repoRoot: repo }) : [])].filter((r) => r.client === 'claude-code')
  const hooks = claude.filter((r) => r.hook?.registered && r.hook.command_exists !== false && r.hook.script_exists !== false)
  if (hooks.length === 0) {
    if (!claude.some((r) => r.found && r.registered)) return []
    return [check('hook', 'warn', "Claude Code's gitwhy hook is not installed: searches get no history beside them", 'run `gitwhy setup --client claude-code` (it adds the hook)')]
  }
  if (!repo || !readMeta(repo) || process.platform === 'win32') return [check('hook', 'skip', `installed (${hooks[0].hook!.file}); run doctor in an indexed repository to see it answer`)]
  const recent = (await git(repo, ['log', '-n', '50', '--format=', '--name-only', 'HEAD']).catch(() => '')).split('\n')
  const file = recent.find((f) => /[A-Za-z0-9_-]{3}/.test(path.basename(f)) && existsSync(path.join(repo, f)))
  if (!file) return [check('hook', 'skip', 'installed; no recently changed file has a name long enough to search for')]
  const event = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Glob', tool_input: { pattern: `**/${path.basename(file)}` }, cwd: repo })
  const command = hooks[0].hook!.command!
  const started = performance.now()
  const run = spawnSync('/bin/sh', ['-c', command], { cwd: repo, input: event, encoding: 'utf8', timeout: 10_000, env: { ...process.env, GITWHY_HOOK_DEBUG: '1' } })
  const ms = Math.round(performance.now() - started)
  if (run.stdout?.includes('"additionalContext"')) return [check('hook', 'ok', `\`${command}\` answered a search for ${path.basename(file)} in ${ms} ms`)]
  const why = (run.stderr ?? '').trim().split('\n').pop() || `exit ${run.status ?? run.signal}`
  return [check('hook', 'warn', `\`${command}\` gave no answer to a search for ${path.basename(file)} (${ms} ms): ${why}`, 'on a loaded machine set GITWHY_HOOK_DEADLINE_MS (e.g. 800) in the environment Claude Code starts hooks with; `GITWHY_HOOK_DEBUG=1` shows why')]
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer))
}
