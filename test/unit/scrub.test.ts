import { describe, expect, test } from 'vitest'
import { REDACTED, looksRandom, scrubSecrets } from '../../src/text/scrub.js'
import { PLANTED } from '../helpers/secrets.js'

// assembled at run time so that the test file itself holds no token-shaped literal
const j = (...parts: string[]) => parts.join('')

describe('scrubSecrets removes credentials', () => {
  const cases: Array<[string, string, string]> = [
    ['a private key block', j('key:\n-----BEGIN RSA ', 'PRIVATE KEY-----\nMIIEow\nIBAAKC\n-----END RSA ', 'PRIVATE KEY-----\ndone'), `key:\n${REDACTED}\ndone`],
    ['an OpenSSH key with no end line', j('-----BEGIN OPENSSH ', 'PRIVATE KEY-----\nb3BlbnNzaC1rZXk'), REDACTED],
    ['an AWS access key id', j('aws key AKIA', 'IOSFODNN7EXAMPLE in config'), `aws key ${REDACTED} in config`],
    ['a Google API key', j('key=AIza', 'SyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI'), `key=${REDACTED}`],
    ['a GitHub token', j('token ghp_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'), `token ${REDACTED}`],
    ['a fine-grained GitHub token', j('github_pat_', '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'), REDACTED],
    ['a GitLab token', j('glpat-', 'xxxxXXXXxxxxXXXXxxxx'), REDACTED],
    ['a Slack bot token', j('xoxb-', '123456789012-1234567890123-abcdefABCDEF'), REDACTED],
    ['an npm token', j('//registry.npmjs.org/:_authToken=npm_', 'abcdefghijklmnopqrstuvwxyz0123456789'), `//registry.npmjs.org/:_authToken=${REDACTED}`],
    ['a JWT', j('Bearer eyJhbGciOiJIUzI1NiJ9', '.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'), `Bearer ${REDACTED}`],
    ['an Azure storage key', j('DefaultEndpointsProtocol=https;AccountName=x;AccountKey=', 'a'.repeat(20), 'B9'.repeat(22), '=='), `DefaultEndpointsProtocol=https;AccountName=x;${REDACTED}`],
    ['a password in a URL', 'clone https://ada:s3cr3t-Pa55@git.example.test/repo.git', `clone https://ada:${REDACTED}@git.example.test/repo.git`],
    ['a password in a database URL', 'postgres://app:hunter2@db:5432/prod', `postgres://app:${REDACTED}@db:5432/prod`],
    ['an env assignment with a random value', 'API_KEY=f8Kq2LmZ9xVb7RtY3', `API_KEY=${REDACTED}`],
    ['a JSON secret', '{"client_secret": "Zx9!kQ2#mW7$pL4r"}', `{"client_secret": "${REDACTED}"}`],
    ['a YAML password', 'db_password: Tr0ub4dor&3xYz', `db_password: ${REDACTED}`],
    ['a PGP private key block', j('-----BEGIN PGP ', 'PRIVATE KEY BLOCK-----\n\nlQOYBF\n-----END PGP ', 'PRIVATE KEY BLOCK-----'), REDACTED],
    ['an AWS secret access key assignment', j('aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYEXAMPLEKEY'), `aws_secret_access_key = ${REDACTED}`],
    ['a GCP service-account private key (JSON-escaped)', j('{"type": "service_account", "private_key": "-----BEGIN ', 'PRIVATE KEY-----\\nMIIEvQIBADANBg\\n-----END ', 'PRIVATE KEY-----\\n"}'), `{"type": "service_account", "private_key": "${REDACTED}\\n"}`],
    ['a Google OAuth access token', j('ya29.', 'a0AfH6SMBx7Yq2kR9vLmN3pQ8wZ'), REDACTED],
    ['an Azure connection-string password', 'Server=tcp:db.example.test;Database=app;User Id=sa;Password=hunter2;', `Server=tcp:db.example.test;Database=app;User Id=sa;Password=${REDACTED};`],
    ['an Azure Service Bus shared access key', j('Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=', 'q9Vw3Lk7Tz1Rb5Nm8Xc2Hs4Pd6Gf0Jy3Ka7Eo1Ui5='), `Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;${REDACTED}`],
    ['an Azure SAS signature', j('?sv=2022-11-02&ss=b&sig=', 'k3Jd9Lw2Pq7Zx5Vb8Nm1Tc4Hy6Rf0Gs2Ea9Ui3Oo%3D'), `?sv=2022-11-02&ss=b&${REDACTED}`],
    ['a Slack webhook', j('https://hooks.slack.com/services/', 'T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX'), REDACTED],
    ['a Stripe live key', j('sk_live_', '4eC39HqLyjWDarjtT1zdp7dc'), REDACTED],
    ['a Stripe webhook secret', j('whsec_', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'), REDACTED],
    ['an OpenAI project key', j('OPENAI_KEY sk-proj-', 'Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE'), `OPENAI_KEY ${REDACTED}`],
    ['an Anthropic key', j('sk-ant-api03-', 'Zx8Yw6Vu4Ts2Rq0Po8Nm6Lk4Ji2Hg0Fe8Dc6Ba4Zx2Yw0Vu8Ts6Rq4Po2Nm0Lk8Ji6Hg4Fe2Dc0Ba-AA'), REDACTED],
    ['a MongoDB SRV URL password', 'mongodb+srv://app:Sup3rS3cret@cluster0.example.test/db', `mongodb+srv://app:${REDACTED}@cluster0.example.test/db`],
    ['a Redis URL with no user', 'redis://:hunter2@cache:6379/0', `redis://:${REDACTED}@cache:6379/0`],
    ['a JDBC URL query password', 'jdbc:mysql://db/app?user=app&password=hunter2', `jdbc:mysql://db/app?user=app&password=${REDACTED}`],
    ['a JSON token', '{"token": "q8Zr4Tn2Vx6Lm9Kp3Wc7"}', `{"token": "${REDACTED}"}`],
    ['an Authorization header', 'curl -H "Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l"', `curl -H "Authorization: Basic ${REDACTED}"`],
    ['a random token with no name', j('the new value is ', 'Q7vX2mK9pL4rT8wZ3nB6yC1d', ' now'), `the new value is ${REDACTED} now`],
    ['a random base64 blob', j('blob ', 'Kq3Zp8Lx2Vm7Tn4Rb9Wc1Yd6Fh0Js5Ga+Ue2Io7/Py4T='), `blob ${REDACTED}`],
  ]
  test.each(cases)('%s', (_, input, expected) => {
    expect(scrubSecrets(input)).toBe(expected)
  })
})

describe('scrubSecrets keeps what is not a secret', () => {
  const keep = [
    'Revert "Use a 250 ms backoff"\n\nThis reverts commit 3f1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a.',
    'Fixes the password reset form: the password field was not cleared',
    'Rename token to accessToken in the lexer',
    'request 123e4567-e89b-12d3-a456-426614174000 failed; see the log',
    'password=changeme',
    'PASSWORD=${DB_PASSWORD}',
    'secret: <your secret here>',
    'token: true',
    'api_key = process.env.API_KEY',
    'see https://example.test/user/repo and git@github.com:user/repo.git',
    'sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    'Merge pull request #12 from ada/backoff',
    'Port AutoModelForSeq2SeqLM and M2M100PreTrainedModel to the new loader',
    'parseJsonToXmlV2Converter handles utf8ToBase64Encoder output',
    'bump golang.org/x/net to v0.0.0-20231012003020-abc123def456',
    'see https://github.com/colinhacks/zod/commit/9340fd51e48576a75adc919bff65dbc4a5d4c99b',
    'src/components/UserProfile2Settings/index.tsx and test_parse_ipv6_address_with_port_8080',
    'MAX_RETRY_COUNT_FOR_UPLOADS_V2 and CONFIG_ENV_PRODUCTION_EU_WEST_1',
    'integrity 1234567890abcdef1234567890abcdef and id 2c9b3f1e-7d4a-4b8e-9f0c-5a6d7e8f9a0b',
    'Update the password hashing to argon2id (was bcrypt with cost 10)',
    'Bearer tokens are now validated by the gateway',
    `already ${REDACTED} twice: API_KEY=${REDACTED} and https://u:${REDACTED}@h`,
  ]
  test.each(keep)('%s', (text) => {
    expect(scrubSecrets(text)).toBe(text)
  })
})

describe('every planted secret family is scrubbed', () => {
  test.each(Object.entries(PLANTED))('%s', (_, { text, secret }) => {
    const out = scrubSecrets(`commit message mentioning ${text} in passing`)
    expect(out).toContain(REDACTED)
    expect(out).not.toContain(secret)
    // nor any long piece of it
    for (const piece of secret.match(/[A-Za-z0-9+/]{8,}/g) ?? []) expect(out).not.toContain(piece)
  })
})

describe('looksRandom: random tokens, not identifiers, hex or paths', () => {
  const rng = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  test('most random base62 tokens of 24 characters are caught', () => {
    const r = rng(7)
    let caught = 0
    for (let i = 0; i < 500; i++) caught += looksRandom(Array.from({ length: 24 }, () => alphabet[Math.floor(r() * 62)]).join('')) ? 1 : 0
    expect(caught / 500).toBeGreaterThan(0.8)
  })
  test.each(['0123456789abcdef0123456789abcdef01234567', 'getUserAccountSettingsForTenant2', 'node_modules/typescript/lib/lib2020', 'AbstractSingletonProxyFactoryBean3'])('%s stays', (t) => {
    expect(looksRandom(t)).toBe(false)
  })
})
