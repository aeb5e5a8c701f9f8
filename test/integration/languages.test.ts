/**
 * The languages added to the registry, end to end: their symbols reach the graph with the
 * qualified names and line ranges that history maps through (checked against `git log -L`), and
 * an index built under other extraction rules (an older gitwhy, before a language or a query
 * changed) is rebuilt rather than kept with the old symbols.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { cypher } from '../../src/services/cypher.js'
import { evidence } from '../../src/services/evidence.js'
import { loadLanguageRegistry } from '../../src/parse/index.js'
import { readMeta } from '../../src/services/workspace.js'
import { lineLogSet } from '../helpers/oracle.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

let repo: TestRepo | null = null
afterEach(() => {
  repo?.cleanup()
  repo = null
})

const CPP_V1 = `namespace geo {
class Circle {
public:
    double area() const;
};

double Circle::area() const {
    return 3.14 * r * r;
}
}
`
const CPP_V2 = CPP_V1.replace('3.14 * r * r', 'kPi * r * r')
const RUBY = `module Billing
  class Invoice
    def total
      42
    end
  end
end
`

describe('languages beyond the first seven', () => {
  test('a C++ out-of-class method and a Ruby method are symbols with qualified names, and their history equals git log -L', async () => {
    repo = createRepo()
    repo.write('src/circle.cpp', CPP_V1).write('lib/invoice.rb', RUBY).commit('first')
    repo.write('src/circle.cpp', CPP_V2).commit('use kPi')
    await analyze({ repo: repo.dir })
    const { rows } = await cypher({ repo: repo.dir, statement: 'MATCH (s:Symbol) RETURN s.qualified_name AS q, s.kind AS kind, s.start_line AS a, s.end_line AS b ORDER BY q' })
    expect(rows).toEqual([
      { q: 'Billing', kind: 'module', a: 1, b: 7 },
      { q: 'Billing.Invoice', kind: 'class', a: 2, b: 6 },
      { q: 'Billing.Invoice.total', kind: 'method', a: 3, b: 5 },
      { q: 'geo.Circle', kind: 'class', a: 2, b: 5 },
      { q: 'geo.Circle.area', kind: 'method', a: 7, b: 9 },
    ])
    const ev = await evidence({ repo: repo.dir, symbol: 'geo.Circle.area', limit: 0 })
    expect(ev.target).toMatchObject({ path: 'src/circle.cpp', line_start: 7, line_end: 9 })
    expect(new Set(ev.evidence.map((e) => e.commit.sha))).toEqual(lineLogSet(repo, 'src/circle.cpp', 7, 9))
    expect(ev.evidence.map((e) => e.commit.subject)).toEqual(['use kPi', 'first'])
  })

  test('an index built under other extraction rules is rebuilt in full, then up to date again', async () => {
    repo = createRepo()
    repo.write('lib/invoice.rb', RUBY).commit('first')
    await analyze({ repo: repo.dir })
    const meta = readMeta(repo.dir)!
    expect(meta.options.extraction).toBe(loadLanguageRegistry().fingerprint)
    // What an older gitwhy (other grammars or queries) leaves behind.
    const metaPath = join(repo.dir, '.gitwhy', 'meta.json')
    const stale = JSON.parse(readFileSync(metaPath, 'utf8')) as { options: Record<string, unknown> }
    delete stale.options.extraction
    writeFileSync(metaPath, JSON.stringify(stale))
    repo.write('lib/invoice.rb', RUBY.replace('42', '43')).commit('second')
    const rebuilt = await analyze({ repo: repo.dir })
    expect(rebuilt.mode).toBe('full')
    expect(readMeta(repo.dir)!.options.extraction).toBe(loadLanguageRegistry().fingerprint)
    expect((await analyze({ repo: repo.dir })).mode).toBe('noop')
  })
})
