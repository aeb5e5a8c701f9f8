/**
 * An index built here and untouched since is known intact without hashing it (a no-op or an
 * update of a big index need not read hundreds of MB); any write to any of its files, even one
 * that keeps the size, sends analyze back to hashing everything.
 */
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { writeManifest } from '../../src/services/index-integrity.js'
import { isTrusted, trustIndex, unchangedSinceTrusted } from '../../src/services/index-trust.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

let repo: TestRepo
afterEach(() => repo?.cleanup())

/** An index directory with a few files, its manifest, and a trust record made here. */
function builtIndex(name: string) {
  const dir = join(repo.dir, '.gitwhy', name)
  mkdirSync(join(dir, 'files'), { recursive: true })
  writeFileSync(join(dir, 'graph.kuzu'), 'kuzu'.repeat(100))
  writeFileSync(join(dir, 'diffs.bin'), '[[1,0]]')
  writeFileSync(join(dir, 'dag.json'), '{"shas":["aa"]}')
  writeFileSync(join(dir, 'files', '00.json'), '{}')
  const manifest = writeManifest(dir)
  trustIndex(repo.dir, dir, manifest)
  return { dir, manifest }
}

test('untouched since it was built: intact without hashing', () => {
  repo = createRepo()
  const { dir, manifest } = builtIndex('index-a')
  expect(unchangedSinceTrusted(repo.dir, dir, manifest)).toBe(true)
  expect(unchangedSinceTrusted(repo.dir, dir, undefined)).toBe(false)
  expect(unchangedSinceTrusted(repo.dir, dir, 'f'.repeat(64))).toBe(false)
})

test.each([
  ['a same-size rewrite of a file readers hash', (dir: string) => writeFileSync(join(dir, 'dag.json'), readFileSync(join(dir, 'dag.json'), 'utf8').replace('aa', 'bb'))],
  ['a same-size rewrite of a file readers take on trust', (dir: string) => writeFileSync(join(dir, 'files', '00.json'), '[]')],
  ['the same bytes written again', (dir: string) => writeFileSync(join(dir, 'diffs.bin'), readFileSync(join(dir, 'diffs.bin')))],
  ['only its times changed', (dir: string) => utimesSync(join(dir, 'files', '00.json'), new Date(0), new Date(0))],
])('%s: no longer known intact (analyze hashes everything)', async (_what, touch) => {
  repo = createRepo()
  const { dir, manifest } = builtIndex('index-b')
  // change times have a clock tick's resolution: let one pass
  await new Promise((r) => setTimeout(r, 20))
  touch(dir)
  expect(unchangedSinceTrusted(repo.dir, dir, manifest)).toBe(false)
})

test('a trust record written by an older gitwhy (no per-file record) is not enough', () => {
  repo = createRepo()
  const { dir, manifest } = builtIndex('index-c')
  const file = join(repo.dir, '.git', 'gitwhy-trust')
  const data = JSON.parse(readFileSync(file, 'utf8')) as { indexes: Array<{ all?: unknown }> }
  for (const r of data.indexes) delete r.all
  writeFileSync(file, JSON.stringify(data))
  expect(isTrusted(repo.dir, dir, manifest)).toBe(true)
  expect(unchangedSinceTrusted(repo.dir, dir, manifest)).toBe(false)
})
