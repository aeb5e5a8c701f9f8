/**
 * One snapshot: stage what changed in the shadow index, write the tree, and when it differs from
 * the last snapshot's, commit it (`[AUTO-TRJ] …` with trailers) and append its record to the
 * journal: the files and symbols it touched (the diff's hunks through the range algebra of the
 * history mapper), and the earlier snapshots it undid.
 */
import { createHash } from 'node:crypto'
import { DiffStreamParser, type FileDiff } from '../git/diff-parser.js'
import { filterTouched } from '../history/hunk-mapper.js'
import { createSymbolExtractor, installedLanguageRegistry, type ExtractedSymbol, type SymbolExtractor } from '../parse/index.js'
import { printable } from '../render.js'
import { symbolIds } from '../services/index-layout.js'
import { tryLock } from '../services/workspace.js'
import { UserError } from '../errors.js'
import { appendJournal, DEFAULT_IDLE_GAP_MS, readIntent, readJournal, type SnapshotFile, type SnapshotKind, type SnapshotRecord, type SnapshotSymbol } from './journal.js'
import type { ShadowRepo } from './shadow.js'

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'

/** The process's extractor and the languages it has loaded. */
let extractor: { languages: Set<string>; ready: Promise<SymbolExtractor> } | null = null

/**
 * An extractor that has the grammars of these paths' languages: one per process, loaded with the
 * languages seen so far and loaded again when a new one appears. Only what the work tree uses: all
 * 36 grammars cost the recorder ~60 MB of memory; a TypeScript repository needs two or three.
 */
export async function extractorFor(paths: Iterable<string>): Promise<SymbolExtractor> {
  const registry = installedLanguageRegistry()
  const wanted = new Set(extractor?.languages)
  for (const p of paths) {
    const id = registry.languageOf(p)?.id
    if (id) wanted.add(id)
  }
  if (!extractor || wanted.size > extractor.languages.size) {
    const previous = extractor?.ready
    extractor = { languages: wanted, ready: createSymbolExtractor({ registry, languages: [...wanted] }) }
    previous?.then((ex) => ex.close()).catch(() => {})
  }
  return extractor.ready
}

export interface SnapshotOptions {
  kind?: SnapshotKind
  /** The checkpoint's summary (kind consolidate); a checkpoint is committed even when nothing changed. */
  message?: string
  idleGapMs?: number
  now?: Date
}

/** The shadow repository's writers, one at a time: a process-wide queue, and the write lock across processes. */
let queue: Promise<unknown> = Promise.resolve()

export function withWriteLock<T>(shadow: ShadowRepo, fn: () => Promise<T>): Promise<T> {
  const run = queue.then(async () => {
    const deadline = Date.now() + 30_000
    let release = tryLock(shadow.paths.writeLock)
    while (!release) {
      if (Date.now() > deadline) throw new UserError(`the trajectory is being written by another process (${shadow.paths.writeLock})`, 'try again in a moment; if no gitwhy runs, delete that file', 'locked')
      await new Promise((r) => setTimeout(r, 20))
      release = tryLock(shadow.paths.writeLock)
    }
    try {
      return await fn()
    } finally {
      release()
    }
  })
  queue = run.catch(() => {})
  return run
}

/**
 * Record the given paths (relative, forward slashes): one snapshot, or null when the recorded
 * tree did not change. Without a previous snapshot the whole recordable work tree is the
 * baseline. Takes the write lock.
 */
export async function takeSnapshot(shadow: ShadowRepo, paths: string[], options: SnapshotOptions = {}): Promise<SnapshotRecord | null> {
  await shadow.ensure()
  return withWriteLock(shadow, async () => {
    let parent = await shadow.head()
    if (parent === null) {
      await shadow.stage(await shadow.userFiles())
      const tree = await shadow.writeTree()
      const now = options.now ?? new Date()
      const count = (await shadow.indexPaths()).length
      const record: SnapshotRecord = { id: '', kind: 'baseline', time: now.toISOString(), session: sessionId(now), intent: readIntent(shadow.repo)?.text ?? null, summary: `baseline: ${count} files`, files: [], symbols: [], reverts: [], tree_files: count }
      record.id = await shadow.commit(tree, null, commitMessage(record), now)
      appendJournal(shadow.repo, record)
      parent = record.id
      if (options.kind !== 'consolidate') return record
      paths = []
    }
    await shadow.stage(paths)
    const tree = await shadow.writeTree()
    const parentTree = await shadow.treeOf(parent)
    const kind = options.kind ?? 'auto'
    if (tree === parentTree && kind !== 'consolidate') return null
    const now = options.now ?? new Date()
    const journal = readJournal(shadow.repo)
    const last = journal[journal.length - 1]
    const session = last && now.getTime() - Date.parse(last.time) <= (options.idleGapMs ?? DEFAULT_IDLE_GAP_MS) ? last.session : sessionId(now)
    const diffs = tree === parentTree ? [] : await treeDiff(shadow, parentTree, tree)
    const { files, symbols } = await touched(shadow, diffs)
    const record: SnapshotRecord = {
      id: '',
      kind,
      time: now.toISOString(),
      session,
      intent: readIntent(shadow.repo)?.text ?? null,
      summary: kind === 'consolidate' ? cleanLine(options.message ?? 'checkpoint') : summarize(files, symbols),
      files,
      symbols,
      reverts: revertedBy(journal, files, symbols),
    }
    record.id = await shadow.commit(tree, parent, commitMessage(record), now)
    appendJournal(shadow.repo, record)
    return record
  })
}

function sessionId(at: Date): string {
  return `s-${at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}`
}

function cleanLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 500)
}

async function treeDiff(shadow: ShadowRepo, from: string, to: string): Promise<Array<FileDiff & { oids?: [string, string] }>> {
  const { stdout } = await shadow.gitBuffer(['-c', 'core.quotePath=true', 'diff-tree', '-r', '--raw', '-p', '-U0', '--no-renames', '--no-abbrev', '--full-index', '--no-color', '--no-ext-diff', '--no-textconv', from === '' ? EMPTY_TREE : from, to])
  const out: Array<FileDiff & { oids?: [string, string] }> = []
  const parser = new DiffStreamParser((record) => record.files.forEach((f, i) => out.push({ ...f, oids: record.oids[i] })))
  parser.push(Buffer.from('\x01snapshot\x02\n'))
  parser.push(stdout)
  parser.end()
  return out
}

const NULL_OID = /^0+$/

/** The files and symbols a diff touched, with content hashes on both sides. */
async function touched(shadow: ShadowRepo, diffs: Array<FileDiff & { oids?: [string, string] }>): Promise<{ files: SnapshotFile[]; symbols: SnapshotSymbol[] }> {
  const files: SnapshotFile[] = []
  const ex = await extractorFor(diffs.filter((d) => !d.binary).map((d) => d.path))
  const parsed = diffs.filter((d) => !d.binary && ex.languageOf(d.path) !== null)
  const blobs = await shadow.blobs(parsed.flatMap((d) => (d.oids ?? []).filter((o) => !NULL_OID.test(o))))
  const symbols: SnapshotSymbol[] = []
  for (const d of diffs) {
    const [before, after] = (d.oids ?? ['', '']).map((o) => (o === '' || NULL_OID.test(o) ? null : o))
    const ranges: number[] = []
    for (let i = 0; i < d.hunks.length; i += 4) if (d.hunks[i + 3] > d.hunks[i + 2]) ranges.push(d.hunks[i + 2] + 1, d.hunks[i + 3])
    files.push({ path: d.path, status: d.status === 'R' ? 'M' : d.status, added: d.additions, removed: d.deletions, before, after, ranges })
  }
  for (const d of parsed) {
    const [oldOid, newOid] = d.oids ?? ['', '']
    const side = (oid: string) => {
      const blob = oid && !NULL_OID.test(oid) ? blobs.get(oid) : undefined
      if (!blob) return { lines: [] as string[], symbols: [] as ExtractedSymbol[], ids: [] as string[] }
      const text = blob.toString('utf8')
      const found = ex.extract(d.path, text)
      return { lines: text.split('\n'), symbols: found, ids: symbolIds({ path: d.path, symbols: found }) }
    }
    const oldSide = side(oldOid)
    const newSide = side(newOid)
    // the old side as the algebra's target side: [newStart, newEnd, oldStart, oldEnd]
    const reversed: number[] = []
    for (let i = 0; i < d.hunks.length; i += 4) reversed.push(d.hunks[i + 2], d.hunks[i + 3], d.hunks[i], d.hunks[i + 1])
    const bySymbol = new Map<string, SnapshotSymbol>()
    const visit = (s: { symbols: ExtractedSymbol[]; ids: string[]; lines: string[] }, hunks: number[], which: 'added' | 'removed') => {
      s.symbols.forEach((sym, k) => {
        if (sym.kind === 'module') return
        const lo = sym.startLine - 1
        const hi = sym.endLine
        let lines = 0
        for (const t of filterTouched(hunks, [lo, hi])) lines += Math.max(0, Math.min(hi, hunks[t * 4 + 3]) - Math.max(lo, hunks[t * 4 + 2]))
        if (filterTouched(hunks, [lo, hi]).length === 0) return
        const id = s.ids[k]
        let entry = bySymbol.get(id)
        if (!entry) bySymbol.set(id, (entry = { id, path: d.path, qualified_name: sym.qualifiedName, kind: sym.kind, added: 0, removed: 0, before: null, after: null }))
        entry[which] += lines
      })
    }
    visit(newSide, d.hunks, 'added')
    visit(oldSide, reversed, 'removed')
    const hashes = (s: { symbols: ExtractedSymbol[]; ids: string[]; lines: string[] }) => new Map(s.symbols.map((sym, k) => [s.ids[k], symbolHash(s.lines, sym)]))
    const oldHashes = hashes(oldSide)
    const newHashes = hashes(newSide)
    for (const entry of bySymbol.values()) {
      entry.before = oldHashes.get(entry.id) ?? null
      entry.after = newHashes.get(entry.id) ?? null
      if (entry.before !== entry.after) symbols.push(entry)
    }
  }
  return { files, symbols }
}

/** A symbol's content hash: its lines, trailing whitespace dropped. */
function symbolHash(lines: string[], sym: ExtractedSymbol): string {
  const text = lines.slice(sym.startLine - 1, sym.endLine).map((l) => l.trimEnd()).join('\n')
  return createHash('sha1').update(text).digest('hex').slice(0, 16)
}

/**
 * The earlier snapshots this one undoes: for each symbol (and each file) it changes, the newest
 * earlier snapshot whose state before equals this one's state after — content back to what it was
 * before that change — and every snapshot since that changed the same symbol or file.
 */
export function revertedBy(journal: readonly SnapshotRecord[], files: SnapshotFile[], symbols: SnapshotSymbol[]): string[] {
  const out = new Set<string>()
  const scan = (key: (r: SnapshotRecord) => Array<{ before: string | null; after: string | null }>, after: string | null, before: string | null) => {
    if (after === before) return
    const undone: string[] = []
    for (let i = journal.length - 1; i >= 0; i--) {
      const hits = key(journal[i])
      if (hits.length === 0) continue
      undone.push(journal[i].id)
      if (hits.some((h) => h.before === after)) {
        for (const id of undone) out.add(id)
        return
      }
    }
  }
  for (const s of symbols) scan((r) => r.symbols.filter((x) => x.id === s.id), s.after, s.before)
  // a file counts only when none of its symbols did (a file back to an earlier content)
  for (const f of files) if (!symbols.some((s) => s.path === f.path)) scan((r) => r.files.filter((x) => x.path === f.path), f.after, f.before)
  return [...out]
}

function summarize(files: SnapshotFile[], symbols: SnapshotSymbol[]): string {
  const added = files.reduce((n, f) => n + f.added, 0)
  const removed = files.reduce((n, f) => n + f.removed, 0)
  const names = symbols.slice(0, 3).map((s) => s.qualified_name)
  const more = symbols.length > 3 ? `, +${symbols.length - 3} more` : ''
  const what = files.length === 1 ? files[0].path : `${files.length} files (${files.slice(0, 3).map((f) => f.path).join(', ')}${files.length > 3 ? ', …' : ''})`
  return cleanLine(`${what} (+${added} -${removed})${names.length > 0 ? `: ${names.join(', ')}${more}` : ''}`)
}

const TRAILER_ITEMS = 50

function trailerList(items: string[]): string {
  const shown = items.slice(0, TRAILER_ITEMS).map((s) => printable(s).replace(/,/g, '%2C'))
  return shown.join(', ') + (items.length > TRAILER_ITEMS ? `, … ${items.length - TRAILER_ITEMS} more` : '')
}

/** `[AUTO-TRJ] summary` (a checkpoint: `[CONSOLIDATE] summary`), then the trailers. */
export function commitMessage(r: SnapshotRecord): string {
  const title = `${r.kind === 'consolidate' ? '[CONSOLIDATE]' : '[AUTO-TRJ]'} ${printable(r.summary)}`
  const trailers = [`Trajectory-Session: ${r.session}`, `Trajectory-Kind: ${r.kind}`]
  if (r.intent) trailers.push(`Trajectory-Intent: ${printable(r.intent)}`)
  if (r.files.length > 0) trailers.push(`Trajectory-Files: ${trailerList(r.files.map((f) => f.path))}`)
  if (r.symbols.length > 0) trailers.push(`Trajectory-Symbols: ${trailerList(r.symbols.map((s) => s.id))}`)
  if (r.reverts.length > 0) trailers.push(`Trajectory-Reverts: ${r.reverts.join(', ')}`)
  return `${title}\n\n${trailers.join('\n')}\n`
}
