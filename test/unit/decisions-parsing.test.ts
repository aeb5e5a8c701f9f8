/**
 * The pure parts of decisions (issue 16): ADRs in both formats (Nygard, MADR) and a DECISIONS.md
 * log; decision language in commit messages, planted vs plain; package manifests; the decision
 * file's line format (round trip, and a bad line says what is wrong).
 */
import { describe, expect, test } from 'vitest'
import { adrStatus, isAdrPath, parseAdr } from '../../src/knowledge/adr.js'
import { decisionSentences } from '../../src/knowledge/decision-language.js'
import { DecisionFormatError, formatDecision, parseDecision, type Decision } from '../../src/knowledge/decision-model.js'
import { importsDependency, manifestDependencies } from '../../src/knowledge/manifests.js'
import { readmeFeatures } from '../../src/knowledge/readme-features.js'
import { checkDocument, similarity } from '../../src/services/decision-verify.js'
import { decisionGraph } from '../../src/knowledge/decision-rows.js'

const NYGARD = `# 2. Use PostgreSQL for persistence

Date: 2021-03-04

## Status

Accepted

Supersedes [1. Use SQLite](0001-use-sqlite.md)

## Context

SQLite cannot take concurrent writers from the job workers.

## Decision

We will use PostgreSQL 13 as the only database.
All access goes through the repository layer in src/db/repo.ts.

## Consequences

Local development needs a container.
`

const MADR = `---
status: accepted
date: 2022-11-05
deciders: ada, grace
---
# Use zod for runtime validation

## Context and Problem Statement

Request bodies are typed but never checked at runtime.

## Considered Options

* zod
* io-ts
* hand-written guards

## Decision Outcome

Chosen option: "zod", because it infers the TypeScript types from one schema.

### Consequences

* Good, because one schema
`

const MADR2 = `# Record architecture decisions in MADR

* Status: superseded by [ADR-0007](0007-foo.md)
* Deciders: team
* Date: 2019-01-10

## Context and Problem Statement

We want to record decisions.

## Decision Outcome

Chosen option: "MADR 2.1.2"
`

describe('ADR parsing', () => {
  test('Nygard: title without its number, status, the Decision paragraph with its lines, the context as rationale', () => {
    const [r] = parseAdr('doc/adr/0002-use-postgresql.md', NYGARD)
    expect(r).toMatchObject({ format: 'nygard', title: 'Use PostgreSQL for persistence', status: 'accepted', date: '2021-03-04', rationale: 'SQLite cannot take concurrent writers from the job workers.' })
    expect(r.statement).toBe('We will use PostgreSQL 13 as the only database. All access goes through the repository layer in src/db/repo.ts.')
    const lines = NYGARD.split('\n')
    expect(lines.slice(r.start_line - 1, r.end_line).join('\n')).toBe(r.snippet)
    expect(r.snippet.startsWith('We will use PostgreSQL')).toBe(true)
  })

  test('MADR with front matter: the chosen option and its "because" as the rationale', () => {
    const [r] = parseAdr('docs/decisions/0003-zod.md', MADR)
    expect(r).toMatchObject({ format: 'madr', title: 'Use zod for runtime validation', status: 'accepted', date: '2022-11-05', statement: 'Chosen option: zod', rationale: 'it infers the TypeScript types from one schema.' })
    expect(MADR.split('\n')[r.start_line - 1]).toContain('Chosen option')
  })

  test('MADR 2 with a status line: superseded', () => {
    const [r] = parseAdr('docs/adr/0001-madr.md', MADR2)
    expect(r).toMatchObject({ format: 'madr', status: 'superseded', date: '2019-01-10', statement: 'Chosen option: MADR 2.1.2' })
  })

  test('a DECISIONS.md log: one record per ## section; a README or notes file is no ADR', () => {
    const log = '# Decisions\n\n## 2023-01-02 Tabs\n\nWe indent with tabs.\n\n## Lockfile\n\nThe lockfile is committed.\n'
    expect(parseAdr('DECISIONS.md', log).map((r) => [r.title, r.statement, r.start_line])).toEqual([['2023-01-02 Tabs', 'We indent with tabs.', 5], ['Lockfile', 'The lockfile is committed.', 9]])
    expect(parseAdr('docs/notes.md', '# Notes\n\nSome text.\n\n## Setup\n\nRun it.\n')).toEqual([])
    expect(['on hold', 'Superseded by ADR-7', 'Accepted', 'whatever'].map(adrStatus)).toEqual(['proposed', 'superseded', 'accepted', 'unknown'])
    expect(['docs/adr/0001-x.md', 'doc/architecture/decisions/0002-y.md', 'DECISIONS.md', 'adr-004-z.md'].map(isAdrPath)).toEqual([true, true, true, true])
    expect(['docs/adr/README.md', 'docs/adr/template.md', 'src/adr.ts', 'README.md'].map(isAdrPath)).toEqual([false, false, false, false])
  })
})

describe('decision language in commit messages', () => {
  const planted: Array<[string, string, string]> = [
    ['Route all SQL through query()', 'We decided to route every query through db/query.ts because it is the one place that parameterises and logs.', 'decision'],
    ['Drop moment', 'moment is deprecated in favour of date-fns, which is tree-shakeable and immutable.', 'convention'],
    ['Keep the cache single-threaded', 'The cache must not be shared between workers, otherwise entries are evicted twice.', 'constraint'],
    ['Work around the Safari bug', 'This is a workaround for a WebKit bug where focus events fire twice, so that the form does not submit twice.', 'decision'],
    ['Use fetch', 'Always use the fetch wrapper in src/http.ts so that retries and auth headers apply everywhere.', 'convention'],
  ]
  const plain: Array<[string, string]> = [
    ['fix typo', ''],
    ['Update dependencies', ''],
    ['chore(deps): bump lodash from 4.17.20 to 4.17.21', 'Bumps lodash from 4.17.20 to 4.17.21.\n\nSigned-off-by: dependabot[bot] <support@github.com>'],
    ['Add tests for the parser', 'Covers empty input and unicode.'],
    ['Merge pull request #12 from x/y', 'Use the new API instead of the old one'],
    ['refactor: rename foo to bar', ''],
    ['fix(router): use the cached matcher instead of compiling', ''],
  ]

  test.each(planted)('planted: %s', (subject, body, kind) => {
    const [s] = decisionSentences(subject, body)
    expect(s, `${subject}: ${body}`).toBeDefined()
    expect(s.kind).toBe(kind)
    expect(s.confidence).toBeGreaterThanOrEqual(0.5)
    expect(body).toContain(s.sentence.slice(0, 20))
  })

  test.each(plain)('plain: %s', (subject, body) => {
    expect(decisionSentences(subject, body)).toEqual([])
  })
})

describe('manifests', () => {
  test('package.json: runtime and dev dependencies with their lines; an import names a package or its subpath', () => {
    const text = '{\n  "name": "x",\n  "dependencies": {\n    "kuzu": "0.11.3",\n    "@oclif/core": "^4"\n  },\n  "devDependencies": {\n    "vitest": "4.1.0"\n  }\n}\n'
    const deps = manifestDependencies('package.json', text)
    expect(deps.map((d) => [d.name, d.line, d.dev])).toEqual([['kuzu', 4, false], ['@oclif/core', 5, false], ['vitest', 8, true]])
    expect(importsDependency(deps[1], '@oclif/core/lib/x')).toBe(true)
    expect(importsDependency(deps[0], 'kuzu-extra')).toBe(false)
  })

  test('go.mod (indirect skipped), requirements.txt, pyproject (PEP 621 and poetry), Cargo.toml', () => {
    expect(manifestDependencies('go.mod', 'module x\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n\tgolang.org/x/sys v0.1.0 // indirect\n)\nrequire github.com/a/b v1.0.0\n').map((d) => [d.name, d.line])).toEqual([['github.com/spf13/cobra', 4], ['github.com/a/b', 7]])
    expect(manifestDependencies('requirements.txt', '# comment\nrequests>=2.31\nPyYAML[cli]==6.0\n-e .\n').map((d) => d.name)).toEqual(['requests', 'PyYAML'])
    const py = '[project]\nname = "x"\ndependencies = [\n  "httpx>=0.27",\n  "rich",\n]\n\n[tool.poetry.dependencies]\npython = "^3.11"\nclick = "^8"\n'
    expect(manifestDependencies('pyproject.toml', py).map((d) => [d.name, d.line]).sort()).toEqual([['click', 10], ['httpx', 4], ['rich', 5]])
    const cargo = '[package]\nname = "x"\n\n[dependencies]\nserde = { version = "1", features = ["derive"] }\ntokio = "1.37"\n\n[dev-dependencies]\ninsta = "1"\n'
    const deps = manifestDependencies('Cargo.toml', cargo)
    expect(deps.map((d) => [d.name, d.version, d.dev])).toEqual([['serde', '1', false], ['tokio', '1.37', false], ['insta', '1', true]])
    expect(importsDependency(deps[0], 'serde::Deserialize')).toBe(true)
    // a py- prefix is often dropped in the module name (PyYAML → yaml, pytest-x is not asked)
    expect(importsDependency({ name: 'PyYAML', version: '', line: 1, dev: false, ecosystem: 'python' }, 'yaml')).toBe(true)
    expect(importsDependency({ name: 'requests', version: '', line: 1, dev: false, ecosystem: 'python' }, 'requests_oauthlib')).toBe(false)
  })
})

describe('the decision file line', () => {
  const d: Decision = {
    id: 'd-0a1b2c3d', kind: 'constraint', title: 'No eval', statement: 'Never call eval.', rationale: 'security', confidence: 1, status: 'active',
    created: '2026-01-01T00:00:00.000Z', decided_at: '2026-01-01T00:00:00.000Z', source: 'manual',
    applies_to: [{ kind: 'directory', path: 'src/' }, { kind: 'symbol', path: 'src/a.ts', symbol: 'A.run' }],
    evidence: [{ kind: 'commit', sha: 'a'.repeat(40) }, { kind: 'pr', number: 3 }, { kind: 'document', path: 'docs/adr/1.md', start_line: 2, end_line: 3, snippet: 'x\ny' }],
    check: { kind: 'regex', pattern: '\\beval\\(', mode: 'forbid' }, superseded_by: null,
  }

  test('round trip, keys in the model order', () => {
    const line = formatDecision(d)
    expect(parseDecision(JSON.parse(line))).toEqual(d)
    expect(Object.keys(JSON.parse(line))).toEqual(['id', 'kind', 'title', 'statement', 'rationale', 'confidence', 'status', 'created', 'decided_at', 'source', 'applies_to', 'evidence', 'check', 'superseded_by'])
  })

  test.each([
    [{ status: 'stale' }, /status must be one of/],
    [{ id: 'x' }, /not a decision id/],
    [{ evidence: [{ kind: 'commit', sha: 'abc' }] }, /full 40-hex/],
    [{ check: { kind: 'regex', pattern: '(', mode: 'forbid' } }, /not a valid regular expression/],
    [{ confidence: 2 }, /confidence/],
  ])('a bad line: %j', (change, message) => {
    expect(() => parseDecision({ ...JSON.parse(formatDecision(d)), ...change })).toThrow(DecisionFormatError)
    expect(() => parseDecision({ ...JSON.parse(formatDecision(d)), ...change })).toThrow(message)
  })
})

describe('document evidence', () => {
  const e = { kind: 'document' as const, path: 'a.md', start_line: 2, end_line: 2, snippet: 'We will use Kuzu as the graph store.' }
  test('VERIFIED at its lines, PARTIAL when moved or reworded, REJECTED when gone', () => {
    expect(checkDocument('# T\nWe will use Kuzu as the graph store.\n', e).verdict).toBe('VERIFIED')
    expect(checkDocument('# T\n\n\nWe will use Kuzu as the graph store.\n', e)).toMatchObject({ verdict: 'PARTIAL', similarity: 1, note: 'the snippet moved to lines 4-4' })
    expect(checkDocument('# T\nWe will use Kuzu as the main graph store.\n', e).verdict).toBe('PARTIAL')
    expect(checkDocument('# T\nWe use SQLite now.\n', e).verdict).toBe('REJECTED')
    expect(checkDocument(null, e)).toMatchObject({ verdict: 'REJECTED', similarity: 0 })
    expect(similarity('a b c', 'a b d')).toBeCloseTo(2 / 3)
  })
})

describe('README features', () => {
  test('each product section\'s first paragraph; installation, licence and code-only sections are not features', () => {
    const readme = [
      '# tool', '', 'Intro.', '',
      '## Installation', '', 'npm install tool and then run it from anywhere you like.', '',
      '## Offline search', '', '```sh', 'tool search x', '```', '', 'Searches the index without any network access, using BM25 over', 'the stored documents.', '',
      '## Short', '', 'Too short.', '',
      '## License', '', 'MIT, see the LICENSE file in the repository root for details.',
    ].join('\n')
    expect(readmeFeatures(readme)).toEqual([{ title: 'Offline search', statement: 'Searches the index without any network access, using BM25 over the stored documents.', start_line: 15, end_line: 16, snippet: 'Searches the index without any network access, using BM25 over\nthe stored documents.' }])
  })
})

describe('links between findings', () => {
  const base = { kind: 'decision' as const, rationale: '', confidence: 1, status: 'active' as const, created: '2026-01-01T00:00:00.000Z', decided_at: '2026-01-01T00:00:00.000Z', source: 'manual' as const, evidence: [], check: null, superseded_by: null }
  test('RELATES_TO when two govern the same code, DEPENDS_ON when one names the package a "uses X" finding records', () => {
    const g = decisionGraph([
      { ...base, id: 'd-000001', title: 'Kuzu stores the graph', statement: 'We use Kuzu, embedded.', applies_to: [{ kind: 'file', path: 'src/graph/store.ts' }] },
      { ...base, id: 'p-000002', title: 'uses kuzu', statement: 'The project depends on kuzu.', applies_to: [{ kind: 'file', path: 'src/graph/store.ts' }, { kind: 'file', path: 'src/graph/load.ts' }] },
      { ...base, id: 'd-000003', title: 'One writer', statement: 'One process writes the graph.', applies_to: [{ kind: 'directory', path: 'src/graph/' }] },
      { ...base, id: 'd-000004', title: 'Unrelated', statement: 'kuzudb-extra is not kuzu-like.', applies_to: [{ kind: 'file', path: 'README.md' }] },
    ])
    expect(g.relatesTo).toEqual([
      { from: 'd-000001', to: 'p-000002', reason: 'both govern src/graph/store.ts' },
      { from: 'd-000001', to: 'd-000003', reason: 'both govern src/graph/store.ts' },
      { from: 'd-000003', to: 'p-000002', reason: 'both govern src/graph/store.ts' },
    ])
    expect(g.dependsOn).toEqual([{ from: 'd-000001', to: 'p-000002', reason: 'names kuzu' }])
  })
})
