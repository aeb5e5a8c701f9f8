/**
 * The secret scrubber (issue 12): every text that goes into the search index (and later anything
 * sent to a model) passes through `scrubSecrets` first. It removes what is a credential by its
 * shape (private key blocks, cloud and forge tokens, JWTs, passwords in URLs) and assignments whose
 * name says secret and whose value looks random; ordinary hex commit ids, UUIDs in prose and the
 * word "password" stay.
 */

export const REDACTED = '[redacted]'

/** Credentials recognisable by their shape alone. */
const SHAPES: readonly RegExp[] = [
  // PEM private keys (RSA, EC, DSA, OPENSSH, PGP, encrypted PKCS#8), the whole block; an unterminated one to the end
  /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  // AWS access key ids
  /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b/g,
  // Google API keys and OAuth client secrets
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\bGOCSPX-[0-9A-Za-z_-]{28}\b/g,
  // GitHub tokens (classic and fine-grained)
  /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g,
  // GitLab tokens
  /\bgl(?:pat|dt|ptt|rt|cbt|oas|ft|imt|agent|soat)-[0-9A-Za-z_-]{20,}\b/g,
  // Slack tokens and webhooks
  /\bxox[abposr]-[0-9A-Za-z-]{10,}\b/g,
  /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g,
  // npm tokens
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  // Stripe, OpenAI, Anthropic style secret keys
  /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b/g,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{32,}\b/g,
  // JSON Web Tokens: three base64url parts, the first two JSON objects ("eyJ" = '{"')
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g,
  // Azure storage account keys and SAS signatures
  /\bAccountKey=[A-Za-z0-9+/]{40,}={0,2}/g,
  /\bsig=[A-Za-z0-9%+/]{30,}={0,2}/g,
]

/** user:password@ in a URL: the password goes, the rest of the URL stays readable. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]+:)([^\s/?#@]+)(@)/gi

/** `NAME=value`, `NAME: value`, `"name": "value"` where the name says it holds a secret. */
const ASSIGNMENT =
  /(["']?)([A-Za-z0-9_.-]*(?:secret|token|passw(?:or)?d|passwd|pwd|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|client[_-]?secret|credentials?)[A-Za-z0-9_.-]*)\1(\s*(?:=|:|:=|=>)\s*)(["']?)([^\s"',;]{8,})\4/gi

/**
 * Shannon entropy in bits per character: random tokens are above ~3.5, words and names below.
 * Used with a mix test so that `password=changeme-later` stays and `password=f8Kq...` goes.
 */
export function entropy(text: string): number {
  const counts = new Map<string, number>()
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) {
    const p = n / text.length
    bits -= p * Math.log2(p)
  }
  return bits
}

/** Whether an assigned value looks like a generated secret rather than a word, a placeholder or a reference. */
function looksSecret(value: string): boolean {
  if (/^\$\{?[A-Za-z_]|^%[A-Za-z_]|^<.*>$|^\{\{.*\}\}$/.test(value)) return false // ${ENV}, %VAR%, <placeholder>, {{template}}
  if (/^(?:true|false|null|none|undefined|required|optional|string|number)$/i.test(value)) return false
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(.*)?$/.test(value)) return false // process.env.API_KEY, config.get(...)
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(value)).length
  return value.length >= 12 && classes >= 2 && entropy(value) >= 3.5
}

export function scrubSecrets(text: string): string {
  let out = text
  for (const shape of SHAPES) out = out.replace(shape, REDACTED)
  out = out.replace(URL_PASSWORD, (_, head: string, _password: string, at: string) => `${head}${REDACTED}${at}`)
  out = out.replace(ASSIGNMENT, (whole: string, q: string, name: string, sep: string, vq: string, value: string) =>
    value === REDACTED || !looksSecret(value) ? whole : `${q}${name}${q}${sep}${vq}${REDACTED}${vq}`,
  )
  return out
}
