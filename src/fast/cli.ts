import { readFileSync } from 'node:fs'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { printable } from '../render.js'
import { reportError } from '../views/report.js'
import type { View, ViewInput } from '../views/view.js'

/**
 * The read commands answered before oclif loads: oclif's start-up (~0.2 s of CPU) is most of
 * such a call. Each view loads on use (its own chunk in dist/bundle). The oclif command runs
 * the same view, so both print the same bytes (test/cli/cli-fast.test.ts).
 */
export const FAST_VIEWS: Record<string, () => Promise<View<ViewInput, unknown>>> = {
  augment: async () => (await import('../views/augment.js')).augmentView as View<ViewInput, unknown>,
  evidence: async () => (await import('../views/evidence.js')).evidenceView as View<ViewInput, unknown>,
  history: async () => (await import('../views/history.js')).historyView as View<ViewInput, unknown>,
  risk: async () => (await import('../views/risk.js')).riskView as View<ViewInput, unknown>,
  status: async () => (await import('../views/status.js')).statusView as View<ViewInput, unknown>,
  why: async () => (await import('../views/why.js')).whyView as View<ViewInput, unknown>,
}

/** A fast command's arguments and flags as its oclif class declares them (written at build by scripts/fast-spec.mjs). */
export interface FlagSpec {
  type: 'boolean' | 'string' | 'integer'
  char?: string
  allowNo?: boolean
  default?: string | number | boolean
  /** the values a string flag takes (another is oclif's to refuse) */
  options?: string[]
  min?: number
  max?: number
}
export interface CommandSpec {
  args: Array<{ name: string; required: boolean }>
  flags: Record<string, FlagSpec>
}

function loadSpec(): Record<string, CommandSpec> | null {
  try {
    return JSON.parse(readFileSync(new URL('../fast/spec.json', import.meta.url), 'utf8')) as Record<string, CommandSpec>
  } catch {
    return null
  }
}

/**
 * Answer `gitwhy <id> ...argv` without oclif, or return false and let bin/run.js hand the same
 * argv to oclif: for any command without a view, any argv the simple parse below is not sure to
 * read as oclif would (--help, an unknown or repeated flag, a missing or extra argument, a bad
 * integer or option value, `--`), and JSON that oclif would colour (a terminal, FORCE_COLOR). GITWHY_FAST_CLI=0
 * turns the fast path off.
 */
export async function cliFast(id: string | undefined, argv: string[]): Promise<boolean> {
  if (id === undefined || process.env.GITWHY_FAST_CLI === '0') return false
  if (id === '--version') return versionFast()
  if (!Object.hasOwn(FAST_VIEWS, id)) return false
  const spec = loadSpec()?.[id]
  const input = spec ? parse(spec, argv) : null
  if (!input) return false
  const json = input.flags.json === true
  if (json && (process.stdout.isTTY || process.env.FORCE_COLOR !== undefined || process.env.GITWHY_CONTENT_TYPE !== undefined)) return false
  const view = await FAST_VIEWS[id]!()
  try {
    const result = await view.answer(input)
    if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
    else {
      const { lines, notes } = view.text(result, input)
      if (lines.length > 0) process.stdout.write(lines.map((l) => `${printable(l)}\n`).join(''))
      for (const note of notes) process.stderr.write(`${printable(note)}\n`)
    }
  } catch (error) {
    process.exitCode = reportError(error, json)
  }
  return true
}

/** `gitwhy --version` as oclif prints it (its user agent); under WSL, whose platform oclif names itself, false. */
function versionFast(): boolean {
  if (process.platform === 'linux') {
    try {
      if (/microsoft/i.test(readFileSync('/proc/version', 'utf8'))) return false
    } catch {
      // no /proc: not WSL
    }
  }
  const { name, version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string }
  process.stdout.write(`${name}/${version} ${process.platform}-${process.arch} node-${process.version}\n`)
  return true
}

/** argv read against the spec as oclif reads it, or null when unsure (oclif then reads it and says what is wrong). */
export function parse(spec: CommandSpec, argv: string[]): ViewInput | null {
  // `--` and empty values: oclif's readings of these are its own
  if (argv.includes('--') || argv.some((a) => a === '' || a.endsWith('='))) return null
  const options: NonNullable<ParseArgsConfig['options']> = {}
  for (const [name, f] of Object.entries(spec.flags)) {
    options[name] = { type: f.type === 'boolean' ? 'boolean' : 'string', ...(f.char ? { short: f.char } : {}) }
    if (f.allowNo) options[`no-${name}`] = { type: 'boolean' }
  }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true, tokens: true })
  } catch {
    return null
  }
  const seen = new Set<string>()
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option') continue
    const name = token.name.startsWith('no-') && spec.flags[token.name.slice(3)]?.allowNo ? token.name.slice(3) : token.name
    if (seen.has(name)) return null
    seen.add(name)
  }
  if (parsed.positionals.length > spec.args.length) return null
  const args: Record<string, string | undefined> = {}
  for (const [i, a] of spec.args.entries()) {
    const value = parsed.positionals[i]
    if (value === undefined && a.required) return null
    if (value !== undefined) args[a.name] = value
  }
  const flags: Record<string, unknown> = {}
  for (const [name, f] of Object.entries(spec.flags)) {
    const raw = parsed.values[`no-${name}`] === true ? false : parsed.values[name]
    if (raw === undefined) {
      if (f.default !== undefined) flags[name] = f.default
      continue
    }
    if (f.options && !f.options.includes(raw as string)) return null
    if (f.type !== 'integer') {
      flags[name] = raw
      continue
    }
    if (typeof raw !== 'string' || !/^-?\d+$/.test(raw)) return null
    const n = Number.parseInt(raw, 10)
    if ((f.min !== undefined && n < f.min) || (f.max !== undefined && n > f.max)) return null
    flags[name] = n
  }
  return { args, flags }
}
