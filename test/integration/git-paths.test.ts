/**
 * The shared files analyze reads and writes in the git directory (`info/exclude`, `shallow`) are
 * found from .git's files, without starting git: the same paths `git rev-parse --git-path` gives,
 * in a plain repository and in a linked worktree (whose own git directory is not the common one).
 */
import { realpathSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { commonGitPath } from '../../src/services/workspace.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'

describe('common git paths from the files', () => {
  let repo: TestRepo
  let worktree: string
  beforeAll(() => {
    repo = createRepo()
    repo.write('a.txt', 'a\n').commit('a')
    worktree = path.join(path.dirname(repo.dir), 'linked')
    repo.git('worktree', 'add', '-q', worktree)
  })
  afterAll(() => repo?.cleanup())

  for (const rel of ['info/exclude', 'shallow'] as const) {
    test(`${rel}: where git puts it, in the main work tree and in a linked one`, async () => {
      for (const dir of [repo.dir, worktree]) {
        const fromGit = path.resolve(dir, repo.git('-C', dir, 'rev-parse', '--git-path', rel).trim())
        const found = await commonGitPath(dir, rel)
        expect(realpathSync.native(path.dirname(found))).toBe(realpathSync.native(path.dirname(fromGit)))
        expect(path.basename(found)).toBe(path.basename(fromGit))
      }
      // the linked worktree's own git directory is not where they are
      expect(await commonGitPath(worktree, rel)).toBe(await commonGitPath(repo.dir, rel))
    })
  }
})
