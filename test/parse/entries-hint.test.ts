import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSymbolExtractor, loadLanguageRegistry } from '../../src/parse/index.js'
import { LanguageRegistry, queryHint } from '../../src/parse/registry.js'
import type { SymbolExtractor } from '../../src/parse/index.js'
import { FIXTURES } from './golden.js'

/**
 * An entries query's `; hint:` (registry.ts, entriesHint) only skips files the query cannot match:
 * extraction with the hint equals extraction with the query run on every file.
 */
const registry = loadLanguageRegistry()
const unhinted = new LanguageRegistry(new Map([...registry.languages].map(([id, spec]) => [id, { ...spec, entriesHint: null }])), registry.fingerprint)

const SOURCES: Array<[string, string]> = [
  ['app.ts', "import express from 'express'\nconst app = express()\napp.get('/users', auth, listUsers)\nrouter.post(\"/x\", h.create)\napp.put(`/t`, (req, res) => {})\nfunction listUsers() {}\n"],
  ['cli.ts', "program.command('serve').action(runServe)\nprogram\n  .command('build')\n  .action(build)\nfunction runServe() {}\n"],
  ['plain.ts', "import { a } from './a'\nexport function f() { return a.get('x') }\n"],
  ['routes.js', "router.delete('/items/:id', remove)\nmodule.exports = router\n"],
]

function sourcesUnder(dir: string, out: Array<[string, string]>): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) sourcesUnder(p, out)
    else if (registry.languageOf(p)) out.push([p, readFileSync(p, 'utf8')])
  }
}

let hinted: SymbolExtractor
let plain: SymbolExtractor

beforeAll(async () => {
  hinted = await createSymbolExtractor({ registry })
  plain = await createSymbolExtractor({ registry: unhinted })
})
afterAll(() => {
  hinted?.close()
  plain?.close()
})

describe('entries query hint', () => {
  it('is read from the JavaScript/TypeScript entries query', () => {
    expect(registry.get('typescript')?.entriesHint).toBeInstanceOf(RegExp)
    expect(queryHint('; no hint here\n(a) @b')).toBeNull()
  })

  it('skips only files without entries', () => {
    const files: Array<[string, string]> = [...SOURCES]
    sourcesUnder(FIXTURES, files)
    sourcesUnder(join(FIXTURES, '../../../src'), files)
    let withEntries = 0
    for (const [p, source] of files) {
      const a = hinted.extractFile(p, source)
      expect(a, p).toEqual(plain.extractFile(p, source))
      if (a.entries.length > 0) withEntries++
    }
    // the hand-written registrations above all hold entries
    expect(withEntries).toBeGreaterThanOrEqual(4)
  })
})
