import path from 'node:path'
import { gitDirsOf, headFromFiles, type GitDirs } from './git-dir.js'
import { git } from './run.js'

/**
 * The working HEAD read from the repository's files instead of a git process (every CLI call and
 * every MCP answer reports freshness); git answers when the files cannot tell.
 */
export class HeadReader {
  private constructor(
    private readonly repo: string,
    private readonly dirs: GitDirs,
  ) {}

  static async open(repo: string): Promise<HeadReader> {
    const dirs = gitDirsOf(repo)
    if (dirs) return new HeadReader(repo, dirs)
    const [gitDir, commonDir] = (await git(repo, ['rev-parse', '--absolute-git-dir', '--git-common-dir'])).trim().split('\n')
    return new HeadReader(repo, { gitDir, commonDir: path.resolve(repo, commonDir) })
  }

  async read(): Promise<string | null> {
    const head = headFromFiles(this.dirs)
    if (head !== undefined) return head
    return (await git(this.repo, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { okCodes: [1] })).trim() || null
  }
}
