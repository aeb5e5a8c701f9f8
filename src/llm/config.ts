import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'

/**
 * The LLM settings (issue 15): the `llm` object of `.gitwhy/config.json`, then the environment
 * (GITWHY_LLM_PROVIDER, GITWHY_LLM_MODEL, GITWHY_LLM_BASE_URL; the key from GITWHY_LLM_API_KEY,
 * the variable `apiKeyEnv` names, or the provider's usual OPENAI_API_KEY / ANTHROPIC_API_KEY for
 * its own endpoint only). The default provider is `none`: every answer stays extractive.
 *
 *   "llm": {
 *     "provider": "none" | "openai-compatible" | "anthropic" | "ollama",
 *     "model": "gpt-4o-mini",                  (required unless provider is none)
 *     "baseUrl": "https://api.openai.com/v1",  (default per provider)
 *     "apiKeyEnv": "MY_LLM_KEY",               (the variable holding the key; never the key itself)
 *     "maxOutputTokens": 400,
 *     "timeoutMs": 30000,
 *     "temperature": 0,                        (unset: the model's default)
 *     "budget": { "runTokens": 20000, "dayTokens": 200000 },
 *     "price": { "inputPerMTok": 0.15, "outputPerMTok": 0.6 }
 *   }
 */

export const PROVIDERS = ['none', 'openai-compatible', 'anthropic', 'ollama'] as const
export type LlmProvider = (typeof PROVIDERS)[number]

export interface LlmConfig {
  provider: LlmProvider
  model: string | null
  baseUrl: string | null
  /** Never printed or logged; `apiKeySource` says where it came from. */
  apiKey: string | null
  /** The environment variable the key was read from, or null (no key). */
  apiKeySource: string | null
  maxOutputTokens: number
  timeoutMs: number
  temperature: number | null
  budget: { runTokens: number | null; dayTokens: number | null }
  /** Per million tokens, in the currency you price in (the usage log's `cost` is in it); null: not priced. */
  price: { inputPerMTok: number; outputPerMTok: number } | null
  /** Where the provider was chosen: the config file, the environment, or the default (none). */
  from: 'config' | 'env' | 'default'
}

export const DEFAULT_BASE_URL: Record<Exclude<LlmProvider, 'none'>, string> = {
  'openai-compatible': 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  ollama: 'http://127.0.0.1:11434/v1',
}

/** The provider's usual key variable, used only when the base URL is the provider's own API (a key is never sent to another server unasked). */
const USUAL_KEY: Partial<Record<LlmProvider, { env: string; host: string }>> = {
  'openai-compatible': { env: 'OPENAI_API_KEY', host: 'api.openai.com' },
  anthropic: { env: 'ANTHROPIC_API_KEY', host: 'api.anthropic.com' },
}

export const DEFAULT_MAX_OUTPUT_TOKENS = 400
export const DEFAULT_TIMEOUT_MS = 30_000

const KEYS = ['provider', 'model', 'baseUrl', 'apiKeyEnv', 'maxOutputTokens', 'timeoutMs', 'temperature', 'budget', 'price'] as const
const HELP = 'see "Optional LLM synthesis" in the README'

/** The LLM settings for a repository's `.gitwhy/` directory (null: the environment's only); a bad value is a UserError naming the key and the fix. */
export function readLlmConfig(gitwhyDir: string | null, env: NodeJS.ProcessEnv = process.env): LlmConfig {
  const file = gitwhyDir ? path.join(gitwhyDir, 'config.json') : '.gitwhy/config.json'
  const raw = gitwhyDir ? readSection(file) : {}
  const bad = (key: string, what: string, fix = `fix llm.${key} in ${file}; ${HELP}`) => new UserError(`${file}: llm.${key} ${what}`, fix, 'bad_config')
  for (const key of Object.keys(raw)) {
    if (key === 'apiKey') throw new UserError(`${file}: llm.apiKey holds a key in a file`, 'remove it: put the key in an environment variable (GITWHY_LLM_API_KEY, or one you name with llm.apiKeyEnv)', 'bad_config')
    if (!(KEYS as readonly string[]).includes(key)) throw bad(key, 'is not a setting', `use one of: ${KEYS.join(', ')} (${HELP})`)
  }

  const envProvider = env.GITWHY_LLM_PROVIDER?.trim()
  if (envProvider && !(PROVIDERS as readonly string[]).includes(envProvider)) throw new UserError(`GITWHY_LLM_PROVIDER=${envProvider} is not a provider`, `use one of: ${PROVIDERS.join(', ')}`, 'bad_config')
  if (raw.provider !== undefined && !(PROVIDERS as readonly unknown[]).includes(raw.provider)) throw bad('provider', `must be one of ${PROVIDERS.join(', ')}, got ${JSON.stringify(raw.provider)}`)
  const provider = (envProvider || raw.provider || 'none') as LlmProvider
  const from = envProvider ? 'env' : raw.provider !== undefined ? 'config' : 'default'

  const str = (key: 'model' | 'baseUrl' | 'apiKeyEnv'): string | null => {
    const v = raw[key]
    if (v === undefined || v === null) return null
    if (typeof v !== 'string' || !v.trim()) throw bad(key, `must be a non-empty string, got ${JSON.stringify(v)}`)
    return v.trim()
  }
  const num = (obj: Record<string, unknown>, key: string, where: string, check: (n: number) => boolean, what: string): number | null => {
    const v = obj[key]
    if (v === undefined || v === null) return null
    if (typeof v !== 'number' || !Number.isFinite(v) || !check(v)) throw bad(`${where}${key}`, `must be ${what}, got ${JSON.stringify(v)}`)
    return v
  }
  const object = (key: 'budget' | 'price', keys: readonly string[]): Record<string, unknown> => {
    const v = raw[key]
    if (v === undefined || v === null) return {}
    if (typeof v !== 'object' || Array.isArray(v)) throw bad(key, `must be an object {${keys.join(', ')}}, got ${JSON.stringify(v)}`)
    for (const k of Object.keys(v)) if (!keys.includes(k)) throw bad(`${key}.${k}`, 'is not a setting', `use one of: ${keys.map((x) => `${key}.${x}`).join(', ')} (${HELP})`)
    return v as Record<string, unknown>
  }

  const model = env.GITWHY_LLM_MODEL?.trim() || str('model')
  const baseUrl = env.GITWHY_LLM_BASE_URL?.trim() || str('baseUrl')
  const apiKeyEnv = str('apiKeyEnv')
  if (apiKeyEnv && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv)) throw bad('apiKeyEnv', `must name an environment variable (the key itself never goes in the file), got ${JSON.stringify(apiKeyEnv.slice(0, 12))}…`)
  const positiveInt = (n: number) => Number.isInteger(n) && n > 0
  const maxOutputTokens = num(raw, 'maxOutputTokens', '', (n) => positiveInt(n) && n <= 32_000, 'a whole number from 1 to 32000') ?? DEFAULT_MAX_OUTPUT_TOKENS
  const timeoutMs = num(raw, 'timeoutMs', '', (n) => positiveInt(n) && n <= 600_000, 'a whole number of milliseconds from 1 to 600000') ?? DEFAULT_TIMEOUT_MS
  const temperature = num(raw, 'temperature', '', (n) => n >= 0 && n <= 2, 'a number from 0 to 2')
  const budget = object('budget', ['runTokens', 'dayTokens'])
  const price = object('price', ['inputPerMTok', 'outputPerMTok'])
  const runTokens = num(budget, 'runTokens', 'budget.', positiveInt, 'a whole number of tokens > 0 (or null: no budget)')
  const dayTokens = num(budget, 'dayTokens', 'budget.', positiveInt, 'a whole number of tokens > 0 (or null: no budget)')
  const inputPerMTok = num(price, 'inputPerMTok', 'price.', (n) => n >= 0, 'a number ≥ 0')
  const outputPerMTok = num(price, 'outputPerMTok', 'price.', (n) => n >= 0, 'a number ≥ 0')
  if ((inputPerMTok === null) !== (outputPerMTok === null)) throw bad('price', 'needs both inputPerMTok and outputPerMTok')

  const config: LlmConfig = {
    provider,
    model,
    baseUrl: null,
    apiKey: null,
    apiKeySource: null,
    maxOutputTokens,
    timeoutMs,
    temperature,
    budget: { runTokens, dayTokens },
    price: inputPerMTok === null ? null : { inputPerMTok, outputPerMTok: outputPerMTok! },
    from,
  }
  if (provider === 'none') return config

  if (!model) throw new UserError(`the LLM provider is ${provider} but no model is set`, `set llm.model in ${file} or GITWHY_LLM_MODEL (${HELP})`, 'bad_config')
  const url = (baseUrl ?? DEFAULT_BASE_URL[provider]).replace(/\/+$/, '')
  let host: string
  try {
    const parsed = new URL(url)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http')
    if (parsed.username || parsed.password) throw new UserError(`the LLM base URL holds a user or password`, 'remove it from the URL: put the key in GITWHY_LLM_API_KEY or the variable llm.apiKeyEnv names', 'bad_config')
    host = parsed.hostname
  } catch (error) {
    if (error instanceof UserError) throw error
    throw new UserError(`the LLM base URL ${JSON.stringify(url)} is not an http(s) URL`, `fix llm.baseUrl in ${file} or GITWHY_LLM_BASE_URL (e.g. ${DEFAULT_BASE_URL[provider]})`, 'bad_config')
  }
  config.baseUrl = url

  const usual = USUAL_KEY[provider]
  const candidates = ['GITWHY_LLM_API_KEY', ...(apiKeyEnv ? [apiKeyEnv] : []), ...(usual && host === usual.host ? [usual.env] : [])]
  for (const name of candidates) {
    const v = env[name]?.trim()
    if (v) {
      config.apiKey = v
      config.apiKeySource = name
      break
    }
  }
  return config
}

/** The `llm` object of config.json ({} when the file or the key is absent). */
function readSection(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new UserError(`${file} is not valid JSON (${(error as Error).message})`, `fix or delete the file; ${HELP}`, 'bad_config')
  }
  const llm = (parsed as { llm?: unknown } | null)?.llm
  if (llm === undefined || llm === null) return {}
  if (typeof llm !== 'object' || Array.isArray(llm)) throw new UserError(`${file}: llm must be an object, got ${JSON.stringify(llm)}`, `write "llm": { "provider": "ollama", "model": "llama3.2" } or remove it; ${HELP}`, 'bad_config')
  return llm as Record<string, unknown>
}

/** Whether the provider refuses calls without a key: Anthropic, and OpenAI's own API. */
export function keyRequired(config: LlmConfig): boolean {
  if (config.provider === 'anthropic') return true
  if (config.provider === 'openai-compatible' && config.baseUrl) return new URL(config.baseUrl).hostname === 'api.openai.com'
  return false
}

/** `openai-compatible:gpt-4o-mini`, or null for none. */
export function synthesizerName(config: LlmConfig): string | null {
  return config.provider === 'none' ? null : `${config.provider}:${config.model}`
}
