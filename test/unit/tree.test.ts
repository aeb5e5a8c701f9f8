/**
 * `git ls-tree` as analyze lists HEAD (src/git/tree.ts): an ASCII listing's paths are read straight
 * from its bytes, any other through the decoder; both must give git's own paths (`-z`, no quoting).
 */
import { afterEach, describe, expect, test } from 'vitest'
import { listTreeAndLinks, readBlobs } from '../../src/git/tree.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const repos: TestRepo[] = []
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup()
})

/** git's paths of HEAD's files (blobs), NUL-separated and decoded as UTF-8. */
function gitPaths(repo: TestRepo): string[] {
  return repo
    .gitBuffer('ls-tree', '-r', '-z', '--full-tree', 'HEAD')
    .toString('utf8')
    .split('\0')
    .filter((rec) => rec.includes(' blob '))
    .map((rec) => rec.slice(rec.indexOf('\t') + 1))
}

describe('listTreeAndLinks', () => {
  const ascii = ['a.ts', 'dir/b c.ts', '"quoted".ts', 'tab\tname.ts', 'back\\slash.ts', 'deep/er/x.py']

  test('an ASCII tree: the paths as git has them, quotes and tabs included', async () => {
    const repo = createRepo()
    repos.push(repo)
    for (const p of ascii) repo.write(p, `// ${p}\n`)
    repo.commit('ascii paths')
    const { files } = await listTreeAndLinks(repo.dir, 'HEAD')
    expect(files.map((f) => f.path)).toEqual(gitPaths(repo))
    expect(files.map((f) => f.path).sort()).toEqual([...ascii].sort())
    expect(files.every((f) => /^[0-9a-f]{40}$/.test(f.blob) && f.size > 0 && f.mode === '100644')).toBe(true)
  })

  test('a tree with non-ASCII paths: decoded, the ASCII ones alike', async () => {
    const repo = createRepo()
    repos.push(repo)
    const paths = [...ascii, 'ü.ts', 'docs/café/naïve.md', '日本.py']
    for (const p of paths) repo.write(p, `// ${p}\n`)
    repo.commit('mixed paths')
    const { files } = await listTreeAndLinks(repo.dir, 'HEAD')
    expect(files.map((f) => f.path)).toEqual(gitPaths(repo))
    expect(files.map((f) => f.path).sort()).toEqual([...paths].sort())
  })
})

describe('readBlobs', () => {
  test('every blob whole, whatever its size against git\'s output chunks; a missing one skipped', async () => {
    const repo = createRepo()
    repos.push(repo)
    // sizes about the 64 KB a pipe hands over at once, an empty file, random bytes with newlines
    let seed = 7
    const byte = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256
    const sizes = [0, 1, 2, 65_535, 65_536, 65_537, 131_071, 300_000, 5, 0, 70_000]
    sizes.forEach((n, i) => repo.write(`f${i}.bin`, Buffer.from(Array.from({ length: n }, byte))))
    repo.commit('blobs')
    const { files } = await listTreeAndLinks(repo.dir, 'HEAD')
    const byPath = new Map(files.map((f) => [f.path, f.blob]))
    const asked = sizes.map((_, i) => byPath.get(`f${i}.bin`)!)
    // a missing object and a path spec among them, as the ignore-revs reader asks
    asked.splice(4, 0, '0'.repeat(40))
    asked.push('HEAD:f7.bin', 'HEAD:no such file', 'HEAD:no such 1 2', 'HEAD:f8.bin')
    const got: Array<[string, Buffer]> = []
    await readBlobs(repo.dir, asked, (blob, content) => got.push([blob, content]))
    const expected = asked.filter((b) => b !== '0'.repeat(40) && !b.startsWith('HEAD:no such'))
    expect(got.map(([b]) => b)).toEqual(expected)
    for (const [blob, content] of got) expect(content.equals(repo.gitBuffer('cat-file', 'blob', blob)), blob).toBe(true)
  })
})
