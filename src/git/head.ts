import { existsSync, readFileSync } from 'node:fs'
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
