import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { FileDiff } from './diff-parser.js'
import { git } from './run.js'
import { readBlobs } from './tree.js'

/** The conventional file at the repository root that lists formatting sweeps for blame to look through. */
export const IGNORE_REVS_FILE = '.git-blame-ignore-revs'

export interface IgnoreRevsList {
  /** The files read (repository-relative where inside it). */
  files: string[]
  /** Full commit ids, sorted, unique. */
  shas: string[]
  /** Lines git would refuse (not a full object id): skipped, with their file and line number. */
  invalid: string[]
}

/**
 * A list file as git reads it (oidset_parse_file): one full object id per line, `#` starts a
 * comment, blank lines skipped. git stops at a line that is not a full id; gitwhy skips it and
 * says so.
 */
export function parseIgnoreRevs(text: string): { shas: string[]; invalid: number[] } {
  const shas: string[] = []
  const invalid: number[] = []
  text.split('\n').forEach((raw, i) => {
    const hash = raw.indexOf('#')
    const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim()
    if (!line) return
    if (/^[0-9a-fA-F]{40}$|^[0-9a-fA-F]{64}$/.test(line)) shas.push(line.toLowerCase())
    else invalid.push(i + 1)
  })
  return { shas, invalid }
}

/**
 * The revisions `git blame` should look through in `repo`: the file named by `blame.ignoreRevsFile`
 * (git config, relative to the repository root) and the conventional `.git-blame-ignore-revs` at
 * the root, when present.
 */
export async function readIgnoreRevs(repo: string): Promise<IgnoreRevsList> {
  const files: string[] = []
  const configured = (await git(repo, ['config', '--path', '--get-all', 'blame.ignoreRevsFile'], { okCodes: [1] })).split('\n').filter(Boolean)
  for (const f of [...configured, IGNORE_REVS_FILE]) {
    const abs = path.resolve(repo, f)
    if (!files.includes(abs) && existsSync(abs)) files.push(abs)
  }
  const shas = new Set<string>()
  const invalid: string[] = []
  for (const abs of files) {
    const parsed = parseIgnoreRevs(readFileSync(abs, 'utf8'))
    for (const s of parsed.shas) shas.add(s)
    for (const n of parsed.invalid) invalid.push(`${path.relative(repo, abs) || abs}:${n}`)
  }
  return { files: files.map((f) => (f.startsWith(repo + path.sep) ? path.relative(repo, f) : f)), shas: [...shas].sort(), invalid }
}

/**
 * The file contents the ignore passes need: for each ignored commit and parent, both sides of
 * every modified (or renamed) text file. One `git cat-file --batch` reads them all.
 */
export async function readIgnoredContent(
  repo: string,
  graph: { shas: string[]; parents: number[][]; diffs: FileDiff[][][] },
  ignored: Iterable<number>,
): Promise<(commit: number, parent: number, path: string, oldPath: string) => { target: Uint8Array; parent: Uint8Array } | null> {
  const specs = new Set<string>()
  for (const i of ignored) {
    graph.parents[i].forEach((p, k) => {
      if (p < 0) return
      for (const fd of graph.diffs[i][k] ?? []) {
        if (fd.binary || (fd.status !== 'M' && fd.status !== 'R') || fd.hunks.length === 0) continue
        specs.add(`${graph.shas[i]}:${fd.path}`)
        specs.add(`${graph.shas[p]}:${fd.oldPath}`)
      }
    })
  }
  const blobs = new Map<string, Buffer>()
  // a path with a newline cannot be named to cat-file --batch: such a file keeps git's plain blame
  await readBlobs(repo, [...specs].filter((s) => !s.includes('\n')), (spec, content) => blobs.set(spec, content))
  return (commit, k, p, oldPath) => {
    const target = blobs.get(`${graph.shas[commit]}:${p}`)
    const parent = blobs.get(`${graph.shas[graph.parents[commit][k]]}:${oldPath}`)
    return target && parent ? { target, parent } : null
  }
}
