/**
 * `git ls-tree` as analyze lists HEAD (src/git/tree.ts): an ASCII listing's paths are read straight
 * from its bytes, any other through the decoder; both must give git's own paths (`-z`, no quoting).
 */
import { afterEach, describe, expect, test } from 'vitest'
import { listTreeAndLinks } from '../../src/git/tree.js'
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
