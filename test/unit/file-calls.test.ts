/**
 * The file cache keeps each file's calls apart (FILE_CALLS), read for a file when first asked: what
 * an update or a build reads back must be the files that were written, calls and all; an update
 * replaces a changed file's calls (and drops them when it has none now, or is gone); a cache written
 * before the split (calls among `references`) resolves to the same calls.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildCodeGraph } from '../../src/codegraph/resolve.js'
import { installedLanguageRegistry } from '../../src/parse/index.js'
import { writeShards } from '../../src/history/shards.js'
import { writeManifest } from '../../src/services/index-integrity.js'
import { FILE_CALLS, FILES, loadIndexedFiles, updateIndexedFiles, writeIndexedFiles, type IndexedFile } from '../../src/services/index-layout.js'
import type { ExtractedReference, ExtractedSymbol } from '../../src/parse/types.js'

const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))
const tmp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'gitwhy-file-calls-'))
  dirs.push(d)
  return d
}

const fn = (name: string, startLine: number, endLine: number): ExtractedSymbol => ({ name, qualifiedName: name, kind: 'function', startLine, endLine, signature: `function ${name}()`, exported: true, parentIndex: null }) as ExtractedSymbol
const call = (name: string, line: number, from: number, receiver: string | null = null): ExtractedReference => ({ kind: 'call', name, receiver, line, from })

const files: IndexedFile[] = [
  { path: 'a.ts', blob: '1'.repeat(40), lines: 9, language: 'typescript', symbols: [fn('f', 1, 4), fn('h', 5, 9)], calls: [call('g', 2, 0), call('h', 3, 0, 'this'), call('g', 6, -1)] },
  { path: 'b.ts', blob: '2'.repeat(40), lines: 4, language: 'typescript', symbols: [fn('g', 1, 4)], calls: [call('f', 2, 0)] },
  { path: 'c.ts', blob: '3'.repeat(40), lines: 2, language: 'typescript', symbols: [fn('k', 1, 2)] },
  { path: 'd/__proto__.ts', blob: '4'.repeat(40), lines: 3, language: 'typescript', symbols: [fn('m', 1, 3)], calls: [call('k', 2, 0)] },
]

function written(list: IndexedFile[]): string {
  const dir = tmp()
  writeIndexedFiles(dir, list)
  writeManifest(dir)
  return dir
}

const byPath = (list: IndexedFile[]) => Object.fromEntries(list.map((f) => [f.path, { ...f }]))

describe('the file cache with its calls apart', () => {
  it('gives back the files written, each one’s calls read when first asked', () => {
    const loaded = loadIndexedFiles(written(files))
    const a = loaded.find((f) => f.path === 'a.ts')!
    // not read yet: a getter stands in for them
    expect(typeof Object.getOwnPropertyDescriptor(a, 'calls')?.get).toBe('function')
    expect(a.calls).toEqual(files[0].calls)
    expect(Object.getOwnPropertyDescriptor(a, 'calls')?.value).toEqual(files[0].calls)
    expect(byPath(loaded)).toEqual(byPath(files))
    expect(loaded.find((f) => f.path === 'c.ts')!.calls).toBeUndefined()
  })

  it('an update replaces the changed files’ calls, drops those of files without any now and of removed files', () => {
    const before = written(files)
    const dir = tmp()
    const changed: IndexedFile[] = [
      { ...files[0], blob: '5'.repeat(40), calls: undefined },
      { ...files[2], blob: '6'.repeat(40), calls: [call('g', 1, 0)] },
      { path: 'e.ts', blob: '7'.repeat(40), lines: 2, language: 'typescript', symbols: [fn('n', 1, 2)], calls: [call('f', 2, 0, 'x.y')] },
    ]
    updateIndexedFiles(before, dir, changed, ['b.ts'])
    writeManifest(dir)
    const expected = [changed[0], changed[1], files[3], changed[2]].map((f) => ({ ...f }))
    for (const f of expected) if (f.calls === undefined) delete f.calls
    expect(byPath(loadIndexedFiles(dir))).toEqual(byPath(expected))
    // the previous index is as it was
    expect(byPath(loadIndexedFiles(before))).toEqual(byPath(files))
  })

  it('a cache written before the split (calls among the references) resolves to the same calls', () => {
    const legacy = tmp()
    writeShards(legacy, FILES, files.map((f) => {
      const { calls, ...rest } = f
      return [f.path, calls ? { ...rest, references: calls } : rest] as [string, IndexedFile]
    }))
    writeManifest(legacy)
    const registry = installedLanguageRegistry()
    const old = loadIndexedFiles(legacy)
    expect(old.every((f) => !Object.hasOwn(f, 'calls'))).toBe(true)
    const now = buildCodeGraph(loadIndexedFiles(written(files)), registry)
    expect(now.calls.length).toBeGreaterThan(3)
    expect(buildCodeGraph(old, registry)).toEqual(now)
  })

  it('a damaged calls shard is one clear error when the calls are asked for', async () => {
    const dir = written(files)
    const { readdirSync, writeFileSync } = await import('node:fs')
    const shard = readdirSync(path.join(dir, FILE_CALLS))[0]
    writeFileSync(path.join(dir, FILE_CALLS, shard), '{"broken":')
    const loaded = loadIndexedFiles(dir)
    expect(() => loaded.forEach((f) => f.calls)).toThrow(/the index is damaged: file-calls\/.* does not match its checksum/)
  })
})
