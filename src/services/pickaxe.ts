import { UserError, checkLimit, nearest } from '../errors.js'
import { QUERIES } from '../graph/queries.js'
import { areaHistory } from '../history/area.js'
import { compilePattern } from './augment.js'
import { IndexReader, withReader } from './index-reader.js'
import type { EvidenceItem, IndexInfo } from './types.js'

/**
 * History search from the index, never from git: the commits whose diff changed how often a
 * string occurs (`git log -S`), whose added or removed lines match a regular expression
 * (`git log -G`), or whose message matches (`git log --grep`). Regular expressions run on RE2
 * (linear time), so no pattern can hang an answer.
 *
 * As `git log -S/-G` without `-m`, merges are not searched by diff (their diffs are not shown);
 * `--message` searches every commit, merges too, as `git log --grep` does. With a path, the
 * commits are those `git log -- PATH` shows (history simplification included) and only the
 * diffs of files at or under the path count. Files analyze reads without content (binary,
 * lockfiles and minified files: see the README) are not searched.
 */

export type PickaxeMode = 'string' | 'regex' | 'message'

export interface PickaxeOptions {
  repo?: string
  reader?: IndexReader
  pattern: string
  /** `string` (default): occurrences counted as `git log -S`; `regex`: `git log -G`; `message`: `git log --grep`. */
  mode?: PickaxeMode
  /** Regular expression for `message` (default: a literal string, as `git log -F --grep`). */
  regex?: boolean
  ignoreCase?: boolean
  /** A file or directory the search is limited to. */
  path?: string
  /** Maximum commits; 0 = no cap. Default 50. */
  limit?: number
}

export interface PickaxeItem extends EvidenceItem {
  /** The files whose diff matched (empty for a message match). */
  files: string[]
}

export interface PickaxeResult {
  query: { pattern: string; mode: PickaxeMode; regex: boolean; path: string | null }
  index: IndexInfo
  commits: PickaxeItem[]
  total: number
  /** The history is cut (shallow clone or --max-commits): older commits may be missing. */
  truncated: boolean
}

export async function pickaxe(options: PickaxeOptions): Promise<PickaxeResult> {
  return withReader(options, async (reader) => {
    const limit = options.limit ?? 50
    checkLimit(limit)
    const mode = options.mode ?? 'string'
    const regex = mode === 'regex' || (mode === 'message' && (options.regex ?? false))
    if (options.pattern === '') throw new UserError('the search string is empty', 'pass what to look for, e.g. `gitwhy pickaxe retryDelay`', 'bad_option')
    if (mode === 'string' && options.pattern.includes('\n')) {
      throw new UserError('the search string spans lines', 'search for one line of it (the index keeps diffs line by line), or use --regex', 'bad_option')
    }
    const scope = options.path === undefined ? null : pathScope(reader, options.path)
    const ignoreCase = options.ignoreCase ?? false
    const matched =
      mode === 'message'
        ? await searchMessages(reader, options.pattern, regex, ignoreCase, scope)
        : reader.memo(`pickaxe\0${regex}\0${ignoreCase}\0${scope?.key ?? ''}\0${options.pattern}`, () => searchDiffs(reader, options.pattern, regex, ignoreCase, scope))
    const files = new Map(matched.map((m) => [m.sha, m.files]))
    const items = reader.evidenceItems(matched.map((m) => ({ sha: m.sha, source: 'pickaxe' as const }))).map((e) => ({ ...e, files: files.get(e.commit.sha) ?? [] }))
    return {
      query: { pattern: options.pattern, mode, regex, path: scope ? scope.display : null },
      index: await reader.indexInfo(),
      commits: limit === 0 ? items : items.slice(0, limit),
      total: items.length,
      truncated: reader.meta.shallow || reader.meta.options.maxCommits !== null,
    }
  })
}

interface Scope {
  key: string
  display: string
  directory: boolean
  /** `git log -- PATH`: the commits shown, as graph indices of `graphFor`. */
  shown: (reader: IndexReader) => Set<string>
  contains: (p: string) => boolean
  paths: (reader: IndexReader) => string[]
}

function pathScope(reader: IndexReader, input: string): Scope {
  let rel = reader.relativePath(input)
  const index = reader.pathIndex()
  let directory = false
  if (!index.has(rel)) {
    const prefix = rel === '' || rel === '.' ? '' : rel.replace(/\/+$/, '') + '/'
    const known = index.paths()
    if (prefix !== '' && !known.some((p) => p.startsWith(prefix))) {
      const suggestions = nearest(rel, known)
      throw new UserError(`${rel} never existed in the indexed history`, suggestions.length ? `did you mean: ${suggestions.join(', ')}?` : 'check the path', 'unknown_path')
    }
    directory = true
    rel = prefix
  }
  const contains = directory ? (p: string) => p.startsWith(rel) : (p: string) => p === rel
  return {
    key: `${directory}\0${rel}`,
    display: directory ? rel.replace(/\/$/, '') || '.' : rel,
    directory,
    contains,
    paths: (r) => (directory ? r.pathIndex().paths().filter(contains) : [rel]),
    shown: (r) => {
      const graph = r.pathIndex().graphFor(rel, { prefix: directory })
      return new Set(areaHistory(graph, 0, rel, { directory, follow: false }).hits.map((h) => graph.shas[h.commit]))
    },
  }
}

interface Match {
  sha: string
  files: string[]
}

/** `git log -S` (count) or `-G` (regex) over the stored first-parent diffs of non-merge commits. */
function searchDiffs(reader: IndexReader, pattern: string, regex: boolean, ignoreCase: boolean, scope: Scope | null): Match[] {
  const index = reader.pathIndex()
  const { shas, parents } = index.dag
  const shown = scope ? scope.shown(reader) : null
  const hit = regex ? lineMatcher(pattern, ignoreCase) : countChanged(pattern, ignoreCase)
  const byAge = new Map<number, string[]>()
  for (const [age, p, text] of index.patches(scope ? scope.paths(reader) : null)) {
    if (parents[age].length > 1) continue
    if (scope && (!scope.contains(p) || !shown!.has(shas[age]))) continue
    if (!hit(text)) continue
    const list = byAge.get(age)
    if (list) list.push(p)
    else byAge.set(age, [p])
  }
  return [...byAge].map(([age, files]) => ({ sha: shas[age], files: files.sort() }))
}

/** -G: some removed or added line matches. */
function lineMatcher(pattern: string, ignoreCase: boolean): (text: string) => boolean {
  const re = compilePattern(pattern, { ignoreCase })
  return (text) => text.split('\n').some((line) => re.find(line.slice(1)) >= 0)
}

/** -S: the string occurs a different number of times in the removed and in the added lines. */
function countChanged(needle: string, ignoreCase: boolean): (text: string) => boolean {
  const want = ignoreCase ? needle.toLowerCase() : needle
  return (text) => {
    let balance = 0
    for (const raw of text.split('\n')) {
      const line = ignoreCase ? raw.toLowerCase() : raw
      let n = 0
      for (let at = line.indexOf(want, 1); at !== -1; at = line.indexOf(want, at + want.length)) n++
      balance += line.charCodeAt(0) === 43 /* + */ ? n : -n
    }
    return balance !== 0
  }
}

/** `git log --grep` (-F unless regex): a line of the message matches. */
async function searchMessages(reader: IndexReader, pattern: string, regex: boolean, ignoreCase: boolean, scope: Scope | null): Promise<Match[]> {
  const g = await reader.graph()
  const rows = await g.query<{ sha: string; subject: string; body: string }>(QUERIES.commitMessages, {})
  const shown = scope ? scope.shown(reader) : null
  const re = compilePattern(pattern, { ignoreCase, fixed: !regex })
  return rows
    .filter((r) => (!shown || shown.has(r.sha)) && `${r.subject}\n${r.body}`.split('\n').some((line) => re.find(line) >= 0))
    .map((r) => ({ sha: r.sha, files: [] }))
}
