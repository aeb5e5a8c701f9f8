import { readFileSync, writeFileSync } from 'node:fs'
import type { FileDiff, FileStatus } from '../git/diff-parser.js'
import type { RawCommit } from '../git/history-reader.js'

/**
 * The mined history (commits with their per-parent hunks) kept beside the graph: an incremental
 * analyze reads only new commits from git and prepends them; `evidence` on an arbitrary line
 * range walks it. Paths are interned; a diff is [pathId, oldPathId, status, flags, adds, dels, hunks].
 */
type PackedDiff = [number, number, FileStatus, number, number, number, number[]]
type PackedCommit = [string, string[], string, string, string, string, string, PackedDiff[][]]

interface PackedHistory {
  version: 1
  paths: string[]
  commits: PackedCommit[]
}

export function saveHistory(file: string, commits: RawCommit[]): void {
  const ids = new Map<string, number>()
  const paths: string[] = []
  const id = (p: string) => {
    let n = ids.get(p)
    if (n === undefined) {
      n = paths.length
      ids.set(p, n)
      paths.push(p)
    }
    return n
  }
  const packed: PackedCommit[] = commits.map((c) => [
    c.sha,
    c.parents,
    c.authorName,
    c.authorEmail,
    c.authorDate,
    c.committerDate,
    c.message,
    c.diffs.map((d) =>
      d.map((f): PackedDiff => [id(f.path), id(f.oldPath), f.status, (f.binary ? 1 : 0) | (f.whitespaceOnly ? 2 : 0), f.additions, f.deletions, f.hunks]),
    ),
  ])
  const doc: PackedHistory = { version: 1, paths, commits: packed }
  writeFileSync(file, JSON.stringify(doc))
}

export function loadHistory(file: string): RawCommit[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as PackedHistory
  const { paths } = doc
  return doc.commits.map(([sha, parents, authorName, authorEmail, authorDate, committerDate, message, diffs]) => ({
    sha,
    parents,
    authorName,
    authorEmail,
    authorDate,
    committerDate,
    message,
    diffs: diffs.map((d) =>
      d.map(
        ([p, o, status, flags, additions, deletions, hunks]): FileDiff => ({
          path: paths[p],
          oldPath: paths[o],
          status,
          binary: (flags & 1) !== 0,
          whitespaceOnly: (flags & 2) !== 0,
          additions,
          deletions,
          hunks,
        }),
      ),
    ),
  }))
}
