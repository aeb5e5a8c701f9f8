import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { git } from './run.js'

/**
 * The working HEAD read from the repository's files instead of a git process, for a long-running
 * reader (the MCP server) that reports freshness on every answer. HEAD is a detached SHA or
 * `ref: refs/heads/x`; the ref is a loose file in the common git dir (worktrees share it) or a
 * line of packed-refs. Anything else (reftable, a symbolic ref chain) falls back to git.
 */
export class HeadReader {
  private constructor(
    private readonly repo: string,
    private readonly gitDir: string,
    private readonly commonDir: string,
  ) {}

  static async open(repo: string): Promise<HeadReader> {
    const dirs = gitDirsOf(repo)
    if (dirs) return new HeadReader(repo, dirs.gitDir, dirs.commonDir)
    const [gitDir, commonDir] = (await git(repo, ['rev-parse', '--absolute-git-dir', '--git-common-dir'])).trim().split('\n')
    return new HeadReader(repo, gitDir, path.resolve(repo, commonDir))
  }

  async read(): Promise<string | null> {
    try {
      const head = readFileSync(path.join(this.gitDir, 'HEAD'), 'utf8').trim()
      if (/^[0-9a-f]{40}$/.test(head)) return head
      const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1]
      if (ref) {
        for (const dir of [this.gitDir, this.commonDir]) {
          const loose = path.join(dir, ref)
          if (existsSync(loose)) {
            const sha = readFileSync(loose, 'utf8').trim()
            if (/^[0-9a-f]{40}$/.test(sha)) return sha
          }
        }
        const packed = path.join(this.commonDir, 'packed-refs')
        if (existsSync(packed)) {
          for (const line of readFileSync(packed, 'utf8').split('\n')) {
            if (line.endsWith(` ${ref}`) && /^[0-9a-f]{40} /.test(line)) return line.slice(0, 40)
          }
        }
        // an unborn branch has neither: no commits yet
        if (!existsSync(path.join(this.commonDir, 'reftable'))) return null
      }
    } catch {
      // unreadable files: ask git below
    }
    return (await git(this.repo, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { okCodes: [1] })).trim() || null
  }
}

/**
 * The git directories of a work tree from its `.git` (a directory, or a file `gitdir: …` in a
 * linked worktree or submodule, whose `commondir` names the shared one), read without git. null
 * when git's environment overrides them or the layout is unusual: ask git then.
 */
export function gitDirsOf(workTree: string): { gitDir: string; commonDir: string } | null {
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
