/** The registry's fingerprint: what an index records so that changed extraction rules rebuild it. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadLanguageRegistry, PROJECT_ROOT } from '../../src/parse/index.js'

const REGISTRY = join(PROJECT_ROOT, 'grammars', 'registry.json')
let dir: string | null = null
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = null
})

describe('registry fingerprint', () => {
  it('is the same for the same rules and changes with the registry or a query', () => {
    dir = mkdtempSync(join(tmpdir(), 'gitwhy-registry-'))
    const raw = JSON.parse(readFileSync(REGISTRY, 'utf8')) as { languages: Record<string, { query: string; extensions: string[] }> }
    const write = (name: string, value: unknown): string => {
      const file = join(dir!, name)
      writeFileSync(file, JSON.stringify(value))
      return file
    }
    const base = loadLanguageRegistry(write('same.json', raw)).fingerprint
    expect(base).toMatch(/^[0-9a-f]{16}$/)
    expect(loadLanguageRegistry(write('again.json', raw)).fingerprint).toBe(base)

    const moreExtensions = structuredClone(raw)
    moreExtensions.languages.c.extensions.push('.xc')
    expect(loadLanguageRegistry(write('ext.json', moreExtensions)).fingerprint).not.toBe(base)

    const query = join(dir, 'tags.scm')
    writeFileSync(query, readFileSync(join(PROJECT_ROOT, raw.languages.c.query), 'utf8'))
    const ownQuery = structuredClone(raw)
    ownQuery.languages.c.query = relative(PROJECT_ROOT, query)
    const before = loadLanguageRegistry(write('query.json', ownQuery)).fingerprint
    writeFileSync(query, readFileSync(query, 'utf8') + '\n(translation_unit) @definition.module\n')
    expect(loadLanguageRegistry(join(dir, 'query.json')).fingerprint).not.toBe(before)
  })

  it('changes with the built extraction code (a resolver change alone rebuilds the code graph)', () => {
    dir = mkdtempSync(join(tmpdir(), 'gitwhy-registry-code-'))
    for (const d of ['parse', 'codegraph']) mkdirSync(join(dir, d))
    writeFileSync(join(dir, 'codegraph', 'resolve.js'), 'export const x = 1\n')
    const before = loadLanguageRegistry(REGISTRY, dir).fingerprint
    expect(loadLanguageRegistry(REGISTRY, dir).fingerprint).toBe(before)
    writeFileSync(join(dir, 'codegraph', 'resolve.js'), 'export const x = 2\n')
    expect(loadLanguageRegistry(REGISTRY, dir).fingerprint).not.toBe(before)
  })
})
