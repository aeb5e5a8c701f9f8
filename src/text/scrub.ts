/**
 * The secret scrubber (issues 12 and 15): every text that goes into the search index and every
 * prompt sent to a model passes through `scrubSecrets` first. It removes
 *   - what is a credential by its shape: private key blocks (PEM, OpenSSH, PGP), AWS access key
 *     ids, GCP API keys, OAuth secrets and access tokens, Azure storage keys, SAS signatures,
 *     connection-string passwords and AD client secrets, GitHub, GitLab, Slack, Stripe, npm,
 *     OpenAI and Anthropic keys and tokens (and a few more vendors'), JWTs, passwords in URLs;
 *   - assignments whose name says secret (`AWS_SECRET_ACCESS_KEY=…`, `"token": "…"`,
 *     `"private_key": "…"`, `password: …`) and whose value looks generated;
 *   - any other long token that looks random (high entropy, a mix of letters and digits that
 *     changes class often, not made of words), but not a commit sha or any other hex
 *     digest, a UUID, an identifier or a path.
 * Ordinary hex commit ids, UUIDs in prose and the word "password" stay.
 */

export const REDACTED = '[redacted]'

/** Credentials recognisable by their shape alone (the families are listed in the README, "Optional LLM synthesis"). */
const SHAPES: readonly RegExp[] = [
  // private keys: PEM (RSA, EC, DSA, OPENSSH, encrypted PKCS#8), PGP, the whole block; an unterminated one to the end
  /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  // PuTTY private keys
  /PuTTY-User-Key-File-\d+:[\s\S]*?Private-MAC: *[0-9a-f]+/g,
  // AWS access key ids
  /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b/g,
  // GCP / Google: API keys, OAuth client secrets, OAuth access and refresh tokens
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\bGOCSPX-[0-9A-Za-z_-]{28}\b/g,
  /\bya29\.[0-9A-Za-z_-]{20,}/g,
  /\b1\/\/0[0-9A-Za-z_-]{40,}/g,
  // GitHub tokens (classic and fine-grained)
  /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g,
  // GitLab tokens, runner registration tokens
  /\bgl(?:pat|dt|ptt|rt|cbt|oas|ft|imt|agent|soat|cicd)-[0-9A-Za-z_-]{20,}\b/g,
  /\bGR1348941[0-9A-Za-z_-]{20,}\b/g,
  // Slack tokens (bot, user, app, config) and webhooks
  /\bxox[abposre]-[0-9A-Za-z-]{10,}\b/g,
  /\bxapp-\d-[0-9A-Za-z-]{10,}\b/g,
  /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+/g,
  // npm, PyPI, Docker Hub, Hugging Face, Shopify, DigitalOcean, SendGrid tokens
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\bpypi-AgE[A-Za-z0-9_-]{50,}/g,
  /\bdckr_pat_[A-Za-z0-9_-]{20,}/g,
  /\bhf_[A-Za-z0-9]{30,}\b/g,
  /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g,
  /\bdo[opr]_v1_[a-f0-9]{64}\b/g,
  /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g,
  // Stripe secret and restricted keys, webhook signing secrets
  /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b/g,
  /\bwhsec_[0-9A-Za-z]{24,}\b/g,
  // OpenAI (sk-, sk-proj-, sk-svcacct-) and Anthropic (sk-ant-api03-, sk-ant-admin01-) keys
  /\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}\b/g,
  // JSON Web Tokens: three base64url parts, the first two JSON objects ("eyJ" = '{"')
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g,
  // Azure: storage account keys, shared access keys (Service Bus, Event Hubs), SAS signatures, AD client secrets
  /\bAccountKey=[A-Za-z0-9+/]{40,}={0,2}/g,
  /\bSharedAccessKey=[A-Za-z0-9+/]{30,}={0,2}/g,
  /\bsig=[A-Za-z0-9%+/]{30,}={0,2}/g,
  /\b[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~-])/g,
]

/** user:password@ in a URL (`postgres://u:p@`, `mongodb+srv://…`, `redis://:p@`): the password goes, the rest of the URL stays readable. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:)([^\s/?#@]+)(@)/gi

/** `Password=…` in a connection string (ADO.NET, ODBC): a `;` beside it says it is one. */
const CONNECTION_PASSWORD = /((?:^|;)\s*(?:Password|Pwd)\s*=\s*)([^;"'\s]+)/gim

/** `?password=…` / `&pwd=…` in a URL's query (JDBC URLs). */
const QUERY_PASSWORD = /([?&](?:password|passwd|pwd)=)([^&\s#"']+)/gi

/** `NAME=value`, `NAME: value`, `"name": "value"` where the name says it holds a secret. */
const ASSIGNMENT =
  /(["']?)([A-Za-z0-9_.-]*(?:secret|token|passw(?:or)?d|passwd|pwd|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|client[_-]?secret|credentials?|signing[_-]?key|encryption[_-]?key|session[_-]?key|account[_-]?key|sas)[A-Za-z0-9_.-]*)\1(\s*(?:=|:|:=|=>)\s*)(["']?)([^\s"',;]{8,})\4/gi

/**
 * What every ASSIGNMENT match holds (its name's keyword), tested first: a text without one skips
 * the pattern, whose open-ended name makes it try every position of every word (git/git's 82,000
 * commit messages: most of the scrubber's time).
 */
const ASSIGNMENT_KEYWORD = /secret|token|passw|pwd|key|credential|sas/i

/** `Authorization: Bearer …`, `-H "Authorization: Basic …"`. */
const AUTH_HEADER = /\b((?:Bearer|Basic|Token)\s+)([A-Za-z0-9._~+/-]{16,}=*)/g

/**
 * A run of characters a generated token is made of (base64, base64url, base62); `.` and `:` end it.
 * Tried only where a run starts: a try inside a shorter run fails the same way, but trying every
 * position of every word was most of the scrubber's time on commit messages.
 */
const TOKEN = /(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{20,}/g

/** What every QUERY_PASSWORD and CONNECTION_PASSWORD match holds: a text without it skips both. */
const PASSWORD_WORD = /passw|pwd/i

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

const classOf = (c: string) => (c >= 'a' && c <= 'z' ? 1 : c >= 'A' && c <= 'Z' ? 2 : c >= '0' && c <= '9' ? 3 : 0)

/** The share of a token's letters and digits in words of three letters or more with a vowel and no four consonants in a row (`Auto`, `Model`, `Seq`): identifiers are mostly words, random strings are not. */
function wordiness(token: string): number {
  let inWords = 0
  let all = 0
  for (const w of token.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+/g) ?? []) {
    all += w.length
    if (w.length >= 3 && /[aeiouy]/i.test(w) && !/[0-9]/.test(w) && !/[b-df-hj-np-tv-xz]{4}/i.test(w)) inWords += w.length
  }
  return all === 0 ? 1 : inWords / all
}

/**
 * Whether a token (a run of base64 characters, 20 or more) looks generated. Each `/`-separated
 * part is judged alone, so that a path or URL holding a commit sha is not one random string.
 * A part looks generated when it has at least 20 letters and digits, both present, is not hex
 * (commit shas, digests, UUIDs, Go pseudo-versions stay), has a high entropy, changes from lower
 * case to upper case or to or from a digit at least every third character (identifiers change that
 * often only at word starts: `parseJsonToXmlV2` 5 times in 16; random base62 at ~45% of its
 * characters, random lower case and digits at ~40%), and is mostly not made of words.
 */
export function looksRandom(token: string): boolean {
  return token.split('/').some((part) => {
    const core = part.replace(/[+_=-]/g, '')
    if (core.length < 20 || !/[0-9]/.test(core) || !/[A-Za-z]/.test(core)) return false
    if (/^[0-9a-f]+$|^[0-9A-F]+$/.test(core)) return false
    let changes = 0
    for (let i = 1; i < core.length; i++) {
      const a = classOf(core[i - 1])
      const b = classOf(core[i])
      // an upper-case letter followed by lower case is a word start, not randomness
      if (a !== b && !(a === 2 && b === 1)) changes++
    }
    return changes / (core.length - 1) >= 0.3 && entropy(core) >= 3.6 && wordiness(part.replace(/[+_=-]/g, ' ')) < 0.5
  })
}

export function scrubSecrets(text: string): string {
  let out = text
  for (const shape of SHAPES) out = out.replace(shape, REDACTED)
  // each pattern only where the text holds what all its matches hold
  if (out.includes('://')) out = out.replace(URL_PASSWORD, (_, head: string, _password: string, at: string) => `${head}${REDACTED}${at}`)
  if (PASSWORD_WORD.test(out)) {
    out = out.replace(QUERY_PASSWORD, (_, head: string) => `${head}${REDACTED}`)
    out = out.replace(CONNECTION_PASSWORD, (whole: string, head: string, value: string, offset: number, all: string) =>
      value !== REDACTED && (head.startsWith(';') || all[offset + whole.length] === ';') ? `${head}${REDACTED}` : whole,
    )
  }
  if (ASSIGNMENT_KEYWORD.test(out)) out = out.replace(ASSIGNMENT, (whole: string, q: string, name: string, sep: string, vq: string, value: string) =>
    value === REDACTED || !looksSecret(value) ? whole : `${q}${name}${q}${sep}${vq}${REDACTED}${vq}`,
  )
  out = out.replace(AUTH_HEADER, (whole: string, head: string, value: string) => (looksSecret(value) ? `${head}${REDACTED}` : whole))
  out = out.replace(TOKEN, (token: string) => (looksRandom(token) ? REDACTED : token))
  return out
}
