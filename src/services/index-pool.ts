import { statSync } from 'node:fs'
import path from 'node:path'
import { IndexReader } from './index-reader.js'
import { lookupRepo } from './registry.js'
import { gitwhyDir, resolveRepo } from './workspace.js'

interface Lease {
  reader: IndexReader
  users: number
  retired: boolean
}

interface RepoEntry {
  /** meta.json's identity when the reader was opened: a new analyze replaces the file. */
  stamp: string
  lease: Lease
}

/**
 * Open indexes for a long-running reader (the MCP server), one per repository, kept fresh: every
 * call checks `.gitwhy/meta.json`, and when analyze has swapped in a new index the next call opens
 * that one. The old reader is closed once the calls still using it are done; the index directory
 * it reads is kept by analyze until the swap after, so no call ever sees a half-built or missing
 * index, and no lock is taken (every open is read-only).
 */
export class IndexPool {
  private readonly roots = new Map<string, string>()
  private readonly entries = new Map<string, RepoEntry>()

  /** The work tree root for a tool's `repo` argument (a registered name or a path). */
  async root(repo: string): Promise<string> {
    const known = this.roots.get(repo)
    if (known) return known
    const root = await resolveRepo(lookupRepo(repo))
    this.roots.set(repo, root)
    return root
  }

  /** Run `fn` with the current index of a repository. */
  async use<T>(repo: string, fn: (reader: IndexReader) => Promise<T>): Promise<T> {
    const root = await this.root(repo)
    const lease = await this.acquire(root)
    try {
      return await fn(lease.reader)
    } finally {
      lease.users--
      if (lease.retired && lease.users === 0) await lease.reader.close()
    }
  }

  private async acquire(root: string): Promise<Lease> {
    const stamp = metaStamp(root)
    let entry = this.entries.get(root)
    if (!entry || entry.stamp !== stamp) {
      // opening first: an error (no index, schema mismatch) leaves the current entry in place
      const reader = IndexReader.openRoot(root)
      reader.pathsFromRoot = true
      const previous = entry?.lease
      entry = { stamp, lease: { reader, users: 0, retired: false } }
      this.entries.set(root, entry)
      if (previous) {
        previous.retired = true
        if (previous.users === 0) await previous.reader.close()
      }
    }
    entry.lease.users++
    return entry.lease
  }

  async close(): Promise<void> {
    for (const entry of this.entries.values()) {
      entry.lease.retired = true
      if (entry.lease.users === 0) await entry.lease.reader.close()
    }
    this.entries.clear()
  }
}

function metaStamp(root: string): string {
  try {
    const s = statSync(path.join(gitwhyDir(root), 'meta.json'))
    return `${s.ino}:${s.mtimeMs}:${s.size}`
  } catch {
    return 'none'
  }
}
