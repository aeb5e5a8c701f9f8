import { spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { PROJECT_ROOT } from '../parse/registry.js'
import { isAlive } from '../runtime/alive.js'
import { hashFile, MANIFEST, type Manifest } from './index-integrity.js'

/**
 * A spare copy of the active index's graph, made in the background once analyze has swapped the
 * index in, so that the next update moves it into its own directory instead of copying the graph
 * on its longest path (git/git's 551 MB graph: 0.36–0.7 s of every update). It costs the graph's
 * size on disk, so it is made for graphs of SPARE_MIN_BYTES or more; `GITWHY_SPARE_GRAPH=on` makes
 * one for any graph, `off` none.
 *
 * `.gitwhy/spares/<index dir>.kuzu` is the copy and `<index dir>.json` its record: the size and
 * checksum of the graph it copies, as that index's manifest gives them, which the copy's own
 * CRC-32 matched when it was made. An update takes a spare only when it copies the graph named by
 * the record and the manifest and the spare's size still agree; anything else there is removed
 * by the next copier.
 */
export const SPARE_MIN_BYTES = 32 * 1024 * 1024
const SPARES = 'spares'
const COPIER = path.join(PROJECT_ROOT, 'dist', 'services', 'graph-spare-main.js')

interface SpareRecord {
  size: number
  checksum: string
}

/** The spares' directory of a `.gitwhy` directory. */
export function sparesDir(root: string): string {
  return path.join(root, SPARES)
}

function sparePaths(root: string, indexDir: string): { graph: string; record: string } {
  return { graph: path.join(sparesDir(root), `${indexDir}.kuzu`), record: path.join(sparesDir(root), `${indexDir}.json`) }
}

/** The spare and record of an index directory's graph (`<root>/<index dir>/graph.kuzu`). */
function sparesOf(graph: string): { graph: string; record: string } {
  const indexPath = path.dirname(graph)
  return sparePaths(path.dirname(indexPath), path.basename(indexPath))
}

/** The graph's [size, checksum] in its index's manifest, or null. */
function recordedGraph(graph: string): [number, string] | null {
  try {
    const manifest = JSON.parse(readFileSync(path.join(path.dirname(graph), MANIFEST), 'utf8')) as Manifest
    const entry = manifest.files?.[path.basename(graph)]
    return Array.isArray(entry) && typeof entry[0] === 'number' && typeof entry[1] === 'string' ? entry : null
  } catch {
    return null
  }
}

/**
 * Moves the spare of graph `from` (an index directory's graph.kuzu) to `to`: true when there was
 * one that is a copy of it, false when the caller must copy.
 */
export function takeSpare(from: string, to: string): boolean {
  const spare = sparesOf(from)
  try {
    if (!existsSync(spare.record)) return false
    const record = JSON.parse(readFileSync(spare.record, 'utf8')) as SpareRecord
    const recorded = recordedGraph(from)
    rmSync(spare.record, { force: true })
    if (!recorded || record.size !== recorded[0] || record.checksum !== recorded[1] || statSync(spare.graph).size !== record.size) {
      rmSync(spare.graph, { force: true })
      return false
    }
    renameSync(spare.graph, to)
    return true
  } catch {
    return false
  }
}

/**
 * How long an update waits for a copier that is copying the very graph it starts from. An update
 * that comes right after another (a hook's queued run, two quick commits) found the copier still at
 * it and copied the graph beside it: 1.7–2.1 s of graph open on git/git and rails/rails, against
 * ~0.3 s with the spare; the copier, started earlier, has less left to do than a whole copy.
 */
export const SPARE_WAIT_MS = 5_000

/**
 * takeSpare, once a copier copying `from` under way has made the spare (it waits at most `waitMs`,
 * and not at all when no copier of that graph is alive): false when the caller must copy.
 */
export async function takeSpareWhenMade(from: string, to: string, waitMs = SPARE_WAIT_MS): Promise<boolean> {
  if (takeSpare(from, to)) return true
  const spare = sparesOf(from)
  const until = Date.now() + waitMs
  let copying = false
  while (Date.now() < until && copierAt(spare.graph)) {
    copying = true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  // the copy is renamed before its record is written: a moment for the record
  for (const last = Date.now() + 200; copying && !existsSync(spare.record) && Date.now() < last; ) await new Promise((resolve) => setTimeout(resolve, 10))
  return takeSpare(from, to)
}

/** Whether a live copier is copying to `graph` (makeSpare's `<graph>.<pid>.tmp`). */
function copierAt(graph: string): boolean {
  const prefix = `${path.basename(graph)}.`
  let names: string[]
  try {
    names = readdirSync(path.dirname(graph))
  } catch {
    return false
  }
  return names.some((name) => name.startsWith(prefix) && name.endsWith('.tmp') && isAlive(Number(name.slice(prefix.length, -'.tmp'.length))))
}

/** Whether analyze leaves a spare of a graph this size (GITWHY_SPARE_GRAPH: on, off, or by size). */
export function wantsSpare(graphBytes: number): boolean {
  const setting = (process.env.GITWHY_SPARE_GRAPH ?? '').toLowerCase()
  if (['off', '0', 'false', 'no'].includes(setting)) return false
  if (['on', '1', 'true', 'yes'].includes(setting)) return true
  return graphBytes >= SPARE_MIN_BYTES
}

/**
 * The copier of the active index's graph (detached: analyze does not wait for it), started when
 * the graph is big enough to be worth it; otherwise any spare left is removed. Without the built
 * copier (sources run directly) none.
 *
 * `standby` starts the process at once, waiting on its stdin for the graph to copy: started at the
 * end of an update, when this process holds a few hundred MB, the fork alone took ~45 ms of
 * git/git's update (it copies the page tables); at the start it takes a few. `start` names the
 * graph; `cancel` (or this process ending) closes its stdin, and a copier told nothing exits.
 */
export class SpareCopier {
  private constructor(private child: ChildProcess | null) {}

  /** None waiting: `start` starts one then. */
  static later(): SpareCopier {
    return new SpareCopier(null)
  }

  /**
   * A copier waiting from now, when the graph the build starts from (`previous`, the active
   * index's) is big enough for a spare: the new one nearly always is too. Otherwise none waits
   * (a small repository's analyze starts no process it would not use).
   */
  static standby(previous: string | null): SpareCopier {
    if (!existsSync(COPIER) || previous === null) return SpareCopier.later()
    try {
      if (!wantsSpare(statSync(previous).size)) return SpareCopier.later()
      const child = spawn(process.execPath, [COPIER, STANDBY], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] })
      child.on('error', () => {})
      child.stdin?.on('error', () => {})
      child.unref()
      // the pipe keeps nothing alive either: the copier sees it close when this process ends
      ;(child.stdin as { unref?: () => void } | null)?.unref?.()
      return new SpareCopier(child)
    } catch {
      return SpareCopier.later()
    }
  }

  /** Copies `graph` (an index directory's graph.kuzu) when it is worth it; starts a copier now when none is waiting. */
  start(graph: string): void {
    const child = this.child
    this.child = null
    try {
      if (!wantsSpare(statSync(graph).size) || !existsSync(COPIER)) {
        child?.stdin?.end()
        // none for this graph: an older graph's spare would only take the space
        rmSync(sparesDir(path.dirname(path.dirname(graph))), { recursive: true, force: true })
        return
      }
      if (child?.stdin && !child.stdin.destroyed && child.exitCode === null) return void child.stdin.end(`${graph}\n`)
      const late = spawn(process.execPath, [COPIER, graph], { detached: true, stdio: 'ignore' })
      late.on('error', () => {})
      late.unref()
    } catch {
      // no spare: the next update copies the graph
    }
  }

  /** The waiting copier exits without copying. */
  cancel(): void {
    this.child?.stdin?.end()
    this.child = null
  }
}

/** The copier's argument for a standby copier: the graph comes on its stdin. */
export const STANDBY = '--standby'

/**
 * The copier's work: removes the spares of other indexes, copies this index's graph beside them,
 * checks the copy against the manifest, and records it. A failure leaves no spare.
 */
export function makeSpare(from: string): boolean {
  const indexPath = path.dirname(from)
  const root = path.dirname(indexPath)
  const indexDir = path.basename(indexPath)
  const recorded = recordedGraph(from)
  if (!recorded || !existsSync(from)) return false
  const dir = sparesDir(root)
  mkdirSync(dir, { recursive: true })
  const spare = sparePaths(root, indexDir)
  const tmp = `${spare.graph}.${process.pid}.tmp`
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name)
    // another copier's copy in progress is left to it, unless it is old enough to be an abandoned one
    const stat = statSync(file, { throwIfNoEntry: false })
    if (stat && name.endsWith('.tmp') && Date.now() - stat.mtimeMs < 10 * 60_000) continue
    rmSync(file, { force: true })
  }
  try {
    copyFileSync(from, tmp)
    const [size, checksum] = hashFile(tmp)
    if (size !== recorded[0] || checksum !== recorded[1]) return false
    renameSync(tmp, spare.graph)
    writeFileSync(`${spare.record}.tmp`, JSON.stringify({ size, checksum } satisfies SpareRecord))
    renameSync(`${spare.record}.tmp`, spare.record)
    return true
  } finally {
    rmSync(tmp, { force: true })
  }
}
