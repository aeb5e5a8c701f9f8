/**
 * The trajectory's shadow repository set up from many calls at once, as an MCP server answering
 * 100 `consolidate` calls does: every one succeeds (concurrent `git config` writes failed on git's
 * lock file, "could not lock config file"), and the shadow repository's config says what one
 * setup alone writes.
 */
import { execFileSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { ShadowRepo } from '../../src/trajectory/shadow.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

describe('shadow repository setup', () => {
  const repos: TestRepo[] = []
  afterEach(() => {
    for (const r of repos.splice(0)) r.cleanup()
  })

  test('40 setups at once, fresh and again: none fails', async () => {
    const repo = createRepo()
    repos.push(repo)
    repo.write('a.txt', 'a\n').commit('one')
    // the repository's own excludes file, which the shadow repository's config must name
    execFileSync('git', ['config', 'core.excludesFile', '.my-ignore'], { cwd: repo.dir })
    for (const round of ['fresh', 'again']) {
      const results = await Promise.allSettled(Array.from({ length: 40 }, () => new ShadowRepo(repo.dir).ensure()))
      const failed = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))
      expect(failed, round).toEqual([])
    }
    const shadow = new ShadowRepo(repo.dir)
    expect((await shadow.git(['config', '--local', '--get', 'core.excludesFile'])).trim()).toBe(`${repo.dir}/.my-ignore`)
    // the repository drops it: the next setup unsets it in the shadow repository too
    execFileSync('git', ['config', '--unset', 'core.excludesFile'], { cwd: repo.dir })
    await new ShadowRepo(repo.dir).ensure()
    expect((await shadow.git(['config', '--local', '--get', 'core.excludesFile'], { okCodes: [1] })).trim()).toBe('')
  })

  test("another process holding the shadow repository's config lock: the setup waits for it", async () => {
    const repo = createRepo()
    repos.push(repo)
    repo.write('a.txt', 'a\n').commit('one')
    const shadow = new ShadowRepo(repo.dir)
    await shadow.ensure()
    // the setup has a change to write (the repository's excludes file), while another process holds git's lock for 120 ms
    execFileSync('git', ['config', 'core.excludesFile', '.other-ignore'], { cwd: repo.dir })
    const lock = join(shadow.paths.gitDir, 'config.lock')
    writeFileSync(lock, '')
    const released = new Promise<void>((resolve) => setTimeout(() => (rmSync(lock), resolve()), 120))
    await new ShadowRepo(repo.dir).ensure()
    await released
    expect((await shadow.git(['config', '--local', '--get', 'core.excludesFile'])).trim()).toBe(`${repo.dir}/.other-ignore`)
  })
})
