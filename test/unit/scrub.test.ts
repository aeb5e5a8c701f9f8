import { describe, expect, test } from 'vitest'
import { REDACTED, scrubSecrets } from '../../src/text/scrub.js'

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
  ]
  test.each(keep)('%s', (text) => {
    expect(scrubSecrets(text)).toBe(text)
  })
})
