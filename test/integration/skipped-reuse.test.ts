/**
 * Files skipped for their content (binary, vendored, generated) are recorded with their blob
 * (skipped-blobs.json): an update skips the same blob at the same path again without reading it,
 * and reads it again when it changes. The update's skip list and counts equal a full build's.
 */
import { readFileSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { analyze } from '../../src/services/analyze.js'
import { readMeta } from '../../src/services/workspace.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

const repos: TestRepo[] = []
afterAll(() => {
  for (const r of repos) r.cleanup()
})

function indexFile(repo: TestRepo, name: string): string {
  const meta = readMeta(repo.dir)!
  return readFileSync(join(repo.dir, '.gitwhy', meta.indexDir, name), 'utf8')
}

describe('skipped files across updates', () => {
  test('kept unread while their blob stays; read again when it changes; as a full build has them', async () => {
    const repo = createRepo()
    repos.push(repo)
    repo.write('src/app.ts', 'export function app() {\n  return 1\n}\n')
    repo.write('assets/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]))
    repo.write('vendor/lib.js', 'module.exports = 1\n')
    repo.commit('start')
    const built = await analyze({ repo: repo.dir })
    expect(built.skipped).toMatchObject({ binary: 1, vendored: 1 })
    const blobs = JSON.parse(indexFile(repo, 'skipped-blobs.json')) as Record<string, [string, string]>
    expect(blobs['assets/logo.png']).toEqual(['binary', repo.git('rev-parse', 'HEAD:assets/logo.png').trim()])
    expect(blobs['vendor/lib.js']).toEqual(['vendored', repo.git('rev-parse', 'HEAD:vendor/lib.js').trim()])

    // an unrelated change: the skips are taken as they were, the binary unread (its object is
    // taken out of the repository meanwhile: read, it would be missing and not counted)
    repo.write('src/app.ts', 'export function app() {\n  return 2\n}\n')
    repo.commit('change app')
    const logo = blobs['assets/logo.png'][1]
    const object = join(repo.dir, '.git', 'objects', logo.slice(0, 2), logo.slice(2))
    const aside = `${object}.aside`
    renameSync(object, aside)
    let kept
    try {
      kept = await analyze({ repo: repo.dir })
    } finally {
      renameSync(aside, object)
    }
    expect(kept.mode).toBe('incremental')
    expect(kept.skipped).toEqual(built.skipped)
    expect(JSON.parse(indexFile(repo, 'skipped-blobs.json'))).toEqual(blobs)

    // the binary becomes text at the same path: read again, and indexed now
    repo.write('assets/logo.png', 'not an image any more\n')
    repo.commit('replace the logo with text')
    const changed = await analyze({ repo: repo.dir })
    expect(changed.mode).toBe('incremental')
    expect(changed.skipped).toMatchObject({ binary: 0, vendored: 1 })
    const after = { skipped: indexFile(repo, 'skipped.json'), blobs: indexFile(repo, 'skipped-blobs.json') }
    expect(JSON.parse(after.blobs)['assets/logo.png']).toBeUndefined()

    // a full build of the same HEAD records the same
    const full = await analyze({ repo: repo.dir, force: true })
    expect(full.skipped).toEqual(changed.skipped)
    expect({ skipped: indexFile(repo, 'skipped.json'), blobs: indexFile(repo, 'skipped-blobs.json') }).toEqual(after)
  })
})
