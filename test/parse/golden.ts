/**
 * Golden files for the extraction tests: one fixture per language under fixtures/<lang>/sample.*,
 * its expected output under goldens/. `npm run test:update-goldens` (UPDATE_GOLDENS=1) rewrites
 * them; otherwise a difference fails with a line diff.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'

export const FIXTURES = join(import.meta.dirname, 'fixtures')
const GOLDENS = join(import.meta.dirname, 'goldens')
const UPDATE = process.env.UPDATE_GOLDENS === '1'

/** The path of a language's fixture, `fixtures/<lang>/sample.<ext>`. */
export function fixtureOf(lang: string): string {
  const [fixture] = readdirSync(join(FIXTURES, lang)).filter((f) => f.startsWith('sample.'))
  expect(fixture, `test/parse/fixtures/${lang}/sample.<ext>`).toBeDefined()
  return join(FIXTURES, lang, fixture)
}

function lineDiff(expected: string, actual: string): string {
  const want = expected.split('\n')
  const got = actual.split('\n')
  const out: string[] = []
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    if (want[i] === got[i]) continue
    if (want[i] !== undefined) out.push(`- ${want[i]}`)
    if (got[i] !== undefined) out.push(`+ ${got[i]}`)
  }
  return out.join('\n')
}

/** Compares `actual` with goldens/<name> (or writes it when updating goldens). */
export function expectGolden(name: string, actual: string, what: string): void {
  const goldenPath = join(GOLDENS, name)
  if (UPDATE) {
    writeFileSync(goldenPath, actual)
    return
  }
  let expected = ''
  try {
    expected = readFileSync(goldenPath, 'utf8')
  } catch {
    // A missing golden is reported as a diff against nothing.
  }
  if (actual !== expected) {
    expect.fail(
      `${what} differ from goldens/${name} ` +
        `(if the change is intended, run npm run test:update-goldens and review the diff):\n` +
        lineDiff(expected, actual),
    )
  }
}
