import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/**
 * A repository's git directories and HEAD read from its files, without starting git. Only node's
 * fs here: the Claude hook loads this on its 200 ms budget. Callers that can afford git fall back
 * to it when these return null / undefined (src/git/head.ts).
 */

export interface GitDirs {
  gitDir: string
  /** Where refs live; a linked worktree shares its main repository's. */
  commonDir: string
}

/**
 * The git directories of a work tree from its `.git` (a directory, or a file `gitdir: …` in a
 * linked worktree or submodule, whose `commondir` names the shared one). null when git's
 * environment overrides them or the layout is unusual: ask git then.
 */
export function gitDirsOf(workTree: string): GitDirs | null {
  if (process.env.GIT_DIR || process.env.GIT_COMMON_DIR) return null
  const dotGit = path.join(workTree, '.git')
  try {
    let gitDir = dotGit
    if (!statSync(dotGit).isDirectory()) {
      const m = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))
      if (!m) return null
      gitDir = path.resolve(workTree, m[1].trim())
    }
    const common = path.join(gitDir, 'commondir')
    const commonDir = existsSync(common) ? path.resolve(gitDir, readFileSync(common, 'utf8').trim()) : gitDir
    return existsSync(path.join(gitDir, 'HEAD')) ? { gitDir, commonDir } : null
  } catch {
    return null
  }
}

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

/**
 * HEAD's commit from the files: a detached id, or `ref: refs/heads/x` resolved through the loose
 * ref (in the worktree's or the common dir) or packed-refs. null: an unborn branch (no commit
 * yet). undefined: these files cannot tell (reftable, a symbolic ref chain, unreadable files).
 */
export function headFromFiles(dirs: GitDirs): string | null | undefined {
  try {
    const head = readFileSync(path.join(dirs.gitDir, 'HEAD'), 'utf8').trim()
    if (OBJECT_ID.test(head)) return head
    const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1]
    if (!ref) return undefined
    for (const dir of [dirs.gitDir, dirs.commonDir]) {
      const loose = path.join(dir, ref)
      if (existsSync(loose)) {
        const id = readFileSync(loose, 'utf8').trim()
        return OBJECT_ID.test(id) ? id : undefined
      }
    }
    const packed = path.join(dirs.commonDir, 'packed-refs')
    if (existsSync(packed)) {
      for (const line of readFileSync(packed, 'utf8').split('\n')) {
        const space = line.indexOf(' ')
        if (line.slice(space + 1) === ref && OBJECT_ID.test(line.slice(0, space))) return line.slice(0, space)
      }
    }
    return existsSync(path.join(dirs.commonDir, 'reftable')) ? undefined : null
  } catch {
    return undefined
  }
}
