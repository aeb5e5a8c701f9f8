import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { DEFAULT_ANALYTICS_CONFIG, type AnalyticsConfig } from './types.js'

/**
 * The analytics settings: the defaults, overridden by the `analytics` object of
 * `.gitwhy/config.json` when there is one. Recorded in meta.json: a change rebuilds the index.
 */
export function readAnalyticsConfig(gitwhyDir: string): AnalyticsConfig {
  const file = path.join(gitwhyDir, 'config.json')
  if (!existsSync(file)) return { ...DEFAULT_ANALYTICS_CONFIG }
  let parsed: { analytics?: Record<string, unknown> }
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as typeof parsed
  } catch (error) {
    throw new UserError(`${file} is not valid JSON (${(error as Error).message})`, 'fix or delete the file; see "Analytics settings" in the README', 'bad_config')
  }
  const config = { ...DEFAULT_ANALYTICS_CONFIG }
  for (const [key, value] of Object.entries(parsed.analytics ?? {})) {
    if (!(key in config)) throw new UserError(`${file}: unknown analytics setting "${key}"`, `use one of: ${Object.keys(config).join(', ')}`, 'bad_config')
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new UserError(`${file}: analytics.${key} must be a number ≥ 0, got ${JSON.stringify(value)}`, 'fix the value', 'bad_config')
    config[key as keyof AnalyticsConfig] = value
  }
  return config
}
