/**
 * Plain git as the oracle: what `git blame`, `git log -L`, `git log --follow` and `git log -- PATH`
 * say at HEAD. Every call uses the isolated environment of the test repository.
 */
import { readFileSync } from 'node:fs'
import { isolatedGitEnv, runGit, TestRepo } from './repo.js'

type RepoLike = TestRepo | string

function gitOut(repo: RepoLike, args: string[]): Buffer {
  if (typeof repo === 'string') return runGit(repo, isolatedGitEnv('/nonexistent-gitwhy-home'), args).stdout
  return runGit(repo.dir, repo.env(), args).stdout
}

function text(repo: RepoLike, args: string[]): string {
  return gitOut(repo, args).toString('utf8')
}

const HEADER = /^([0-9a-f]{40}) (\d+) (\d+)(?: (\d+))?$/

/** Per line of the blamed range (in order), the SHA git blame attributes it to. */
export interface BlameLine { line: number; sha: string; boundary: boolean }

/**
 * `git blame --porcelain -L START,END HEAD -- PATH`, one entry per line. `boundary` is what
 * porcelain says (root commits and shallow-boundary commits both carry it).
 */
export function blameLines(repo: RepoLike, path: string, start?: number, end?: number): BlameLine[] {
  const args = ['blame', '--porcelain']
  if (start !== undefined && end !== undefined) args.push('-L', `${start},${end}`)
  args.push('HEAD', '--', path)
  // latin1 keeps every byte as one char; headers are ASCII.
  const out = gitOut(repo, args).toString('latin1')
  const result: BlameLine[] = []
  const boundaryShas = new Set<string>()
  let current: BlameLine | null = null
  for (const raw of out.split('\n')) {
    if (raw.startsWith('\t')) {
      if (current) result.push(current)
      current = null
      continue
    }
    const m = HEADER.exec(raw)
    if (m) {
      current = { line: Number(m[3]), sha: m[1], boundary: false }
      continue
    }
    if (raw === 'boundary' && current) boundaryShas.add(current.sha)
  }
  for (const l of result) l.boundary = boundaryShas.has(l.sha)
  return result
}

/** `git blame -L START,END` at HEAD as SHA → number of lines of the range it owns. */
export function blameSet(repo: RepoLike, path: string, start: number, end: number): Map<string, number> {
  return countLines(blameLines(repo, path, start, end))
}

export function countLines(lines: Iterable<BlameLine>): Map<string, number> {
  const m = new Map<string, number>()
  for (const l of lines) m.set(l.sha, (m.get(l.sha) ?? 0) + 1)
  return m
}

/** Restrict a whole-file blame to [start, end] (1-based, inclusive). */
export function restrictBlame(all: BlameLine[], start: number, end: number): Map<string, number> {
  return countLines(all.filter((l) => l.line >= start && l.line <= end))
}

/** `git log -L START,END:PATH --format=%H -s` at HEAD (newest first). */
export function lineLogList(repo: RepoLike, path: string, start: number, end: number): string[] {
  return lines(text(repo, ['log', '-L', `${start},${end}:${path}`, '--format=%H', '-s', 'HEAD']))
}

export function lineLogSet(repo: RepoLike, path: string, start: number, end: number): Set<string> {
  return new Set(lineLogList(repo, path, start, end))
}

/** `git log --follow --format=%H HEAD -- PATH`. */
export function followSet(repo: RepoLike, path: string): Set<string> {
  return new Set(lines(text(repo, ['log', '--follow', '--format=%H', 'HEAD', '--', path])))
}

/** `git log --format=%H HEAD -- PATH` (file or directory). */
export function pathLogSet(repo: RepoLike, path: string): Set<string> {
  return new Set(lines(text(repo, ['log', '--format=%H', 'HEAD', '--', path])))
}

/**
 * For `git log --follow --name-only -- PATH`: the file's name in each commit that shows a diff
 * (merges show none and are absent from the map).
 */
export function followNames(repo: RepoLike, path: string): Map<string, string> {
  const out = text(repo, ['-c', 'core.quotePath=false', 'log', '--follow', '--name-only', '-z', '--format=%x01%H', 'HEAD', '--', path])
  const names = new Map<string, string>()
  for (const rec of out.split('\x01')) {
    if (!rec) continue
    const [sha, ...rest] = rec.split('\n')
    const name = rest.join('\n').split('\0').map((s) => s.replace(/^\n+/, '')).find((s) => s.length > 0)
    if (name !== undefined) names.set(sha.slice(0, 40), name)
  }
  return names
}

/** Does `SHA:PATH` exist as a blob? */
export function blobExists(repo: RepoLike, sha: string, path: string): boolean {
  try {
    return text(repo, ['cat-file', '-t', `${sha}:${path}`]).trim() === 'blob'
  } catch {
    return false
  }
}

/** Files (blobs, not gitlinks or symlinks) at HEAD. */
export function filesAtHead(repo: RepoLike): string[] {
  const out = text(repo, ['ls-tree', '-r', '-z', '--full-tree', 'HEAD'])
  const files: string[] = []
  for (const entry of out.split('\0')) {
    if (!entry) continue
    const tab = entry.indexOf('\t')
    const [mode, type] = entry.slice(0, tab).split(' ')
    if (type === 'blob' && mode !== '120000') files.push(entry.slice(tab + 1))
  }
  return files.sort()
}

/** Every directory that contains a file at HEAD (not the root). */
export function dirsAtHead(repo: RepoLike): string[] {
  const dirs = new Set<string>()
  for (const f of filesAtHead(repo)) {
    const parts = f.split('/')
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'))
  }
  return [...dirs].sort()
}

/** The file's bytes at HEAD. */
export function blobAtHead(repo: RepoLike, path: string): Buffer {
  return gitOut(repo, ['cat-file', 'blob', `HEAD:${path}`])
}

/** Number of lines as git blame counts them (a last line without newline counts). */
export function lineCount(content: Buffer | string): number {
  const s = typeof content === 'string' ? content : content.toString('latin1')
  if (s.length === 0) return 0
  let n = 0
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++
  return s.endsWith('\n') ? n : n + 1
}

/** SHAs listed in .git/shallow (the shallow boundary); empty for a full repository. */
export function shallowBoundary(repo: RepoLike): Set<string> {
  const isShallow = text(repo, ['rev-parse', '--is-shallow-repository']).trim() === 'true'
  if (!isShallow) return new Set()
  const shallowFile = text(repo, ['rev-parse', '--git-path', 'shallow']).trim()
  const dir = typeof repo === 'string' ? repo : repo.dir
  const abs = shallowFile.startsWith('/') ? shallowFile : `${dir}/${shallowFile}`
  return new Set(readFileSync(abs, 'utf8').split('\n').filter(Boolean))
}

/**
 * True when some commit in the file's history diffs differently with and without the indent
 * heuristic. There `git log -L` (no heuristic) and `git blame` (heuristic) may disagree about hunk
 * boundaries, so a -L comparison is not meaningful for that file.
 */
export function indentHeuristicSensitive(repo: RepoLike, path: string): boolean {
  const base = ['log', '--follow', '-m', '-p', '--format=%H', 'HEAD']
  const withH = text(repo, [...base, '--indent-heuristic', '--', path])
  const without = text(repo, [...base, '--no-indent-heuristic', '--', path])
  return withH !== without
}

/** SHA → subject for every commit reachable from HEAD. */
export function subjects(repo: RepoLike): Map<string, string> {
  const out = text(repo, ['log', '--all', '--format=%H%x00%s'])
  const m = new Map<string, string>()
  for (const l of lines(out)) {
    const [sha, subject] = l.split('\0')
    m.set(sha, subject)
  }
  return m
}

function lines(s: string): string[] {
  return s.split('\n').map((l) => l.trim()).filter((l) => l.length > 0)
}
