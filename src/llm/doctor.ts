import { isUserError } from '../errors.js'
import { scrubSecrets } from '../text/scrub.js'
import { keyRequired, readLlmConfig, synthesizerName, type LlmConfig } from './config.js'
import { tokensOnDay } from './usage.js'

/** A doctor check (the shape of src/services/doctor.ts's, kept here so that this module imports nothing of the services). */
export interface LlmCheck {
  id: string
  status: 'ok' | 'warn' | 'fail' | 'skip'
  message: string
  fix: string | null
}

const PROBE_TIMEOUT_MS = 3_000

/**
 * `gitwhy doctor`'s LLM checks (issue 15), only when a provider is configured: the configuration
 * reads, the key is present where the provider needs one (its variable named, the key never
 * shown), and the server answers its model list within 3 s and serves the model. Only a
 * configuration `why` cannot read fails (it fails `why` too); the rest warn, since `why` then
 * answers extractively.
 */
export async function llmChecks(gitwhyDir: string | null, env: NodeJS.ProcessEnv = process.env): Promise<LlmCheck[]> {
  let config: LlmConfig
  try {
    config = readLlmConfig(gitwhyDir, env)
  } catch (error) {
    if (!isUserError(error)) throw error
    return [{ id: 'llm', status: 'fail', message: error.message, fix: error.remedy }]
  }
  if (config.provider === 'none') return []
  const out: LlmCheck[] = []
  const where = config.from === 'env' ? 'GITWHY_LLM_PROVIDER' : '.gitwhy/config.json'
  const budget = [config.budget.runTokens !== null ? `run ${config.budget.runTokens}` : null, config.budget.dayTokens !== null ? `day ${config.budget.dayTokens} (${gitwhyDir ? tokensOnDay(gitwhyDir, new Date()) : 0} used today)` : null].filter(Boolean)
  out.push({ id: 'llm', status: 'ok', message: `${synthesizerName(config)} at ${config.baseUrl} (from ${where}); token budget: ${budget.length ? budget.join(', ') : 'none'}${config.price ? '' : '; no price set'}`, fix: null })

  if (config.apiKey) out.push({ id: 'llm-key', status: 'ok', message: `API key from $${config.apiKeySource} (not shown)`, fix: null })
  else if (keyRequired(config)) out.push({ id: 'llm-key', status: 'warn', message: `${config.provider} needs an API key and none is set`, fix: `export GITWHY_LLM_API_KEY (or ${config.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY'}, or the variable llm.apiKeyEnv names); until then why answers extractively` })
  else out.push({ id: 'llm-key', status: 'ok', message: 'no API key set, none sent (a local server needs none)', fix: null })

  out.push(await probe(config))
  return out
}

/** GET {baseUrl}/models: reachable, the key accepted, the model served. */
async function probe(config: LlmConfig): Promise<LlmCheck> {
  const url = `${config.baseUrl}/models`
  const headers: Record<string, string> =
    config.provider === 'anthropic' ? { 'anthropic-version': '2023-06-01', ...(config.apiKey ? { 'x-api-key': config.apiKey } : {}) } : config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}
  const started = performance.now()
  let res: Response
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
  } catch (error) {
    const e = error as { name?: string; cause?: { code?: string }; message?: string }
    const why = e.name === 'TimeoutError' ? `no answer within ${PROBE_TIMEOUT_MS / 1000} s` : (e.cause?.code ?? e.message ?? String(error))
    return { id: 'llm-server', status: 'warn', message: `cannot reach ${config.baseUrl}: ${scrubSecrets(why)}`, fix: serverFix(config) }
  }
  const ms = Math.round(performance.now() - started)
  if (res.status === 401 || res.status === 403) {
    return { id: 'llm-server', status: 'warn', message: `${config.baseUrl} refused the key (HTTP ${res.status})`, fix: `check the key in $${config.apiKeySource ?? 'GITWHY_LLM_API_KEY'}; until then why answers extractively` }
  }
  if (!res.ok) return { id: 'llm-server', status: 'ok', message: `${config.baseUrl} answered in ${ms} ms (HTTP ${res.status} for its model list: the model is not checked)`, fix: null }
  let served: string[] = []
  try {
    const body = (await res.json()) as { data?: Array<{ id?: string }>; models?: Array<{ name?: string; model?: string }> }
    served = [...(body.data ?? []).map((m) => m.id), ...(body.models ?? []).map((m) => m.name ?? m.model)].filter((x): x is string => typeof x === 'string')
  } catch {
    // not JSON: reachable, the model unchecked
  }
  if (served.length > 0 && !served.includes(config.model!)) {
    const shown = served.slice(0, 5).join(', ') + (served.length > 5 ? ', …' : '')
    return { id: 'llm-server', status: 'warn', message: `${config.baseUrl} answered in ${ms} ms but does not serve ${config.model} (it serves ${shown})`, fix: config.provider === 'ollama' ? `run \`ollama pull ${config.model}\`, or set llm.model to one it serves` : 'set llm.model (or GITWHY_LLM_MODEL) to one it serves' }
  }
  return { id: 'llm-server', status: 'ok', message: `${config.baseUrl} answered in ${ms} ms${served.length ? ` and serves ${config.model}` : ''}`, fix: null }
}

function serverFix(config: LlmConfig): string {
  const start = config.provider === 'ollama' ? 'start Ollama (`ollama serve`)' : 'start the server'
  return `${start} or fix llm.baseUrl (or GITWHY_LLM_BASE_URL); until then why answers extractively, with a warning`
}
