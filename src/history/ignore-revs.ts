/**
 * `git blame --ignore-rev` as git does it (blame.c, git 2.23+): after the ignored commit passed
 * its unchanged lines to its parents, each changed line of a diff chunk is matched to a parent
 * line by byte-pair fingerprints (fuzzy_find_matching_lines within the chunk, else the best line
 * of the whole parent file scoring at least 10); a matched line is passed to the parent at that
 * line, an unmatched one stays with the ignored commit. Ported line for line, quirks included:
 * the parent's fingerprints are consumed by matches for the rest of that parent's pass, and
 * bytes ≥ 0x80 hash as C's signed `char` makes them hash.
 *
 * Lines are 0-based here, ranges half-open.
 */

/**
 * A line's fingerprint: its byte-pair hashes, ascending, each with its count (git: a hashmap of
 * hash → count). The lines of one file share two arrays; a line is its range [start, end) of them.
 * Counts drop to 0 rather than leave (git removes the entry: a 0 adds nothing to a similarity).
 */
export interface Fingerprint {
  hashes: Uint32Array
  counts: Int32Array
  start: number
  end: number
}

/**
 * The fingerprints of a file's lines, as git splits it (the last line may lack a newline), each
 * made when first asked for: a pass needs the lines of its chunks, and the whole parent file only
 * for a line no chunk line matches (on rails/rails, making every line of both sides was 2.3 s of
 * the 2.6 s its ignore passes took).
 */
export class LineFingerprints {
  private readonly starts: number[] = []
  private readonly lines: Array<Fingerprint | undefined>
  private readonly hashes: Uint32Array
  private readonly counts: Int32Array

  constructor(private readonly content: Uint8Array) {
    for (let start = 0; start < content.length; ) {
      this.starts.push(start)
      const nl = content.indexOf(10, start)
      start = nl === -1 ? content.length : nl + 1
    }
    this.starts.push(content.length)
    this.lines = new Array<Fingerprint | undefined>(this.length)
    // line i of n bytes (its newline included) has at most n + 1 byte pairs: its room starts at starts[i] + i
    this.hashes = new Uint32Array(content.length + this.length)
    this.counts = new Int32Array(this.hashes.length)
  }

  get length(): number {
    return this.starts.length - 1
  }

  /** Line `line`'s fingerprint; past the end (content that is not the diff's), an empty one. */
  at(line: number): Fingerprint {
    if (line < 0 || line >= this.length) return { hashes: this.hashes, counts: this.counts, start: 0, end: 0 }
    let fp = this.lines[line]
    if (!fp) {
      const from = this.starts[line] + line
      const to = pairHashes(this.content, this.starts[line], this.starts[line + 1], this.hashes, from)
      fp = { hashes: this.hashes, counts: this.counts, start: from, end: sortAndCount(this.hashes, this.counts, from, to) }
      this.lines[line] = fp
    }
    return fp
  }
}

/** The byte-pair hashes of bytes[start, end) written from `at` (the newline is whitespace either way); returns the next free index. */
function pairHashes(bytes: Uint8Array, start: number, end: number, out: Uint32Array, at: number): number {
  let c0 = 0
  for (let p = start; p <= end; p++) {
    let c1: number
    if (p === end) c1 = 0
    else {
      const b = bytes[p]
      // isspace() in the C locale; bytes ≥ 0x80 are negative chars: tolower() keeps them, and the
      // unsigned conversion sign-extends them
      if (b === 32 || (b >= 9 && b <= 13)) c1 = 0
      else if (b >= 0x80) c1 = (b - 256) >>> 0
      else c1 = b >= 65 && b <= 90 ? b + 32 : b
    }
    const hash = (c0 | (c1 << 8)) >>> 0
    c0 = c1
    if (hash !== 0) out[at++] = hash
  }
  return at
}

/** Sorts hashes[from, to) and folds equal ones into (hash, count) pairs from `from`; returns the end of the pairs. */
function sortAndCount(hashes: Uint32Array, counts: Int32Array, from: number, to: number): number {
  if (to - from > 48) hashes.subarray(from, to).sort()
  else {
    for (let i = from + 1; i < to; i++) {
      const h = hashes[i]
      let j = i - 1
      while (j >= from && hashes[j] > h) {
        hashes[j + 1] = hashes[j]
        j--
      }
      hashes[j + 1] = h
    }
  }
  let w = from
  for (let i = from; i < to; i++) {
    if (w > from && hashes[w - 1] === hashes[i]) counts[w - 1]++
    else {
      hashes[w] = hashes[i]
      counts[w++] = 1
    }
  }
  return w
}

/**
 * Σ min(count in a, count in b) over the hashes both hold (git's similarity); with `consume`, also
 * a -= b in place, a count never below 0 (git's fingerprint_subtract).
 */
function overlap(a: Fingerprint, b: Fingerprint, consume: boolean): number {
  const ha = a.hashes
  const hb = b.hashes
  let i = a.start
  let j = b.start
  let n = 0
  while (i < a.end && j < b.end) {
    const x = ha[i]
    const y = hb[j]
    if (x < y) i++
    else if (x > y) j++
    else {
      const ca = a.counts[i]
      const cb = b.counts[j++]
      n += ca < cb ? ca : cb
      if (consume) a.counts[i] = ca <= cb ? 0 : ca - cb
      i++
    }
  }
  return n
}

const similarity = (a: Fingerprint, b: Fingerprint): number => overlap(a, b, false)

const subtract = (a: Fingerprint, b: Fingerprint): void => void overlap(a, b, true)

interface Mapping {
  destStart: number
  destLength: number
  srcStart: number
  srcLength: number
}

function mapLineNumber(line: number, m: Mapping): number {
  return Math.trunc((((line - m.srcStart) * 2 + 1) * m.destLength) / (m.srcLength * 2)) + m.destStart
}

const CERTAIN_NOTHING_MATCHES = -2
const CERTAINTY_NOT_CALCULATED = -1

interface FuzzyState {
  fpA: Fingerprint[]
  fpB: Fingerprint[]
  similarities: Int32Array
  certainties: Int32Array
  secondBest: Int32Array
  result: Int32Array
  maxA: number
  maxB: number
  map: Mapping
}

// Offsets: `b` is the index of the chunk's first B line in the state arrays (git's pointer
// arithmetic on certainties/results/similarities), `fa` the parent line fingerprintsA[0] is.
function simIndex(st: FuzzyState, lineA: number, localB: number, closestA: number): number {
  return lineA - closestA + st.maxA + localB * (st.maxA * 2 + 1)
}

function findBestLineMatches(st: FuzzyState, startA: number, lengthA: number, startB: number, localB: number, offB: number, offFpA: number): void {
  const cb = offB + localB
  if (st.certainties[cb] !== CERTAINTY_NOT_CALCULATED) return
  const closest = mapLineNumber(localB + startB, st.map) - startA
  const searchStart = Math.max(0, closest - st.maxA)
  const searchEnd = Math.min(lengthA, closest + st.maxA + 1)
  let best = 0
  let second = 0
  let bestIdx = 0
  let secondIdx = 0
  for (let i = searchStart; i < searchEnd; i++) {
    const k = simIndex(st, i, localB, closest) + offB * (st.maxA * 2 + 1)
    if (st.similarities[k] === -1) st.similarities[k] = similarity(st.fpB[cb], st.fpA[offFpA + i]) * (1000 - Math.abs(i - closest))
    const s = st.similarities[k]
    if (s > best) {
      second = best
      secondIdx = bestIdx
      best = s
      bestIdx = i
    } else if (s > second) {
      second = s
      secondIdx = i
    }
  }
  if (best === 0) {
    st.certainties[cb] = CERTAIN_NOTHING_MATCHES
    st.result[cb] = -1
  } else {
    st.certainties[cb] = best * 2 - second
    st.result[cb] = startA + bestIdx
    st.secondBest[cb] = startA + secondIdx
  }
}

function recurse(st: FuzzyState, startA: number, startB: number, lengthA: number, lengthB: number, offFpA: number, offB: number): void {
  let mostB = -1
  let mostCertainty = -1
  for (let i = 0; i < lengthB; i++) {
    findBestLineMatches(st, startA, lengthA, startB, i, offB, offFpA)
    if (st.certainties[offB + i] > mostCertainty) {
      mostCertainty = st.certainties[offB + i]
      mostB = i
    }
  }
  if (mostB === -1) return
  const mostA = st.result[offB + mostB]
  subtract(st.fpA[offFpA + mostA - startA], st.fpB[offB + mostB])
  const invMin = Math.max(0, mostB - st.maxB)
  const invMax = Math.min(lengthB, mostB + st.maxB + 1)
  for (let i = invMin; i < invMax; i++) {
    const closest = mapLineNumber(i + startB, st.map) - startA
    if (Math.abs(mostA - startA - closest) > st.maxA) continue
    st.similarities[simIndex(st, mostA - startA, i, closest) + offB * (st.maxA * 2 + 1)] = -1
  }
  for (let i = mostB - 1; i >= invMin; i--) {
    const c = offB + i
    if (st.certainties[c] >= 0 && (st.result[c] >= mostA || st.secondBest[c] >= mostA)) st.certainties[c] = CERTAINTY_NOT_CALCULATED
  }
  for (let i = mostB + 1; i < invMax; i++) {
    const c = offB + i
    if (st.certainties[c] >= 0 && (st.result[c] <= mostA || st.secondBest[c] <= mostA)) st.certainties[c] = CERTAINTY_NOT_CALCULATED
  }
  if (mostB > 0) recurse(st, startA, startB, mostA + 1 - startA, mostB, offFpA, offB)
  if (mostB + 1 < lengthB) {
    const secondStartA = mostA
    const offsetB = mostB + 1
    recurse(st, secondStartA, startB + offsetB, lengthA + startA - secondStartA, lengthB - offsetB, offFpA + secondStartA - startA, offB + offsetB)
  }
}

/** fuzzy_find_matching_lines: for each target line of the chunk, its parent line or -1. */
export function fuzzyMatch(parent: LineFingerprints, target: LineFingerprints, tlno: number, parentStart: number, same: number, parentLen: number): Int32Array | null {
  const startA = parentStart
  const lengthA = parentLen
  const startB = tlno
  const lengthB = same - tlno
  if (lengthA <= 0) return null
  let maxA = 10
  if (maxA >= lengthA) maxA = lengthA ? lengthA - 1 : 0
  const maxB = Math.trunc(((2 * maxA + 1) * lengthB - 1) / lengthA)
  const st: FuzzyState = {
    fpA: Array.from({ length: lengthA }, (_, k) => parent.at(startA + k)),
    fpB: Array.from({ length: lengthB }, (_, k) => target.at(startB + k)),
    similarities: new Int32Array(lengthB * (maxA * 2 + 1)).fill(-1),
    certainties: new Int32Array(lengthB).fill(CERTAINTY_NOT_CALCULATED),
    secondBest: new Int32Array(lengthB).fill(-1),
    result: new Int32Array(lengthB).fill(-1),
    maxA,
    maxB,
    map: { destStart: startA, destLength: lengthA, srcStart: startB, srcLength: lengthB },
  }
  recurse(st, startA, startB, lengthA, lengthB, 0, 0)
  return st.result
}

const FINGERPRINT_FILE_THRESHOLD = 10

function scanParentRange(parent: LineFingerprints, target: LineFingerprints, t: number): number {
  let bestVal = FINGERPRINT_FILE_THRESHOLD
  let bestIdx = -1
  for (let p = 0; p < parent.length; p++) {
    const sim = similarity(target.at(t), parent.at(p))
    if (sim < bestVal) continue
    if (sim === bestVal && bestIdx !== -1 && Math.abs(bestIdx - t) < Math.abs(p - t)) continue
    bestVal = sim
    bestIdx = p
  }
  return bestIdx
}

/**
 * One ignore pass of a file over a diff (hunks flat [oldStart, oldEnd, newStart, newEnd, ...]):
 * for every target line inside a hunk, the parent line it is passed to, or -1 when it stays with
 * the ignored commit. `parent` is consumed (git mutates the parent's fingerprints), so pass a
 * fresh array per pass. Every hunk is matched, in order, whether or not its lines are pending,
 * as git does.
 */
export function guessLineBlames(parent: LineFingerprints, target: LineFingerprints, hunks: number[]): Map<number, number> {
  const out = new Map<number, number>()
  for (let h = 0; h < hunks.length; h += 4) {
    const tlno = hunks[h + 2]
    const same = hunks[h + 3]
    if (same - tlno <= 0) continue
    const matches = fuzzyMatch(parent, target, tlno, hunks[h], same, hunks[h + 1] - hunks[h])
    for (let i = 0; i < same - tlno; i++) {
      const m = matches && matches[i] >= 0 ? matches[i] : scanParentRange(parent, target, tlno + i)
      out.set(tlno + i, m)
    }
  }
  return out
}

/**
 * The ignore passes of the ignored commits, stored with the index so every walk (analyze, an
 * update, an evidence query) looks through them alike: sha → per parent → path → flat
 * [target line, parent line, ...] of the changed lines that go to the parent.
 */
export type IgnoreGuesses = Record<string, Array<Record<string, number[]>>>

export interface IgnoreInput {
  shas: string[]
  parents: number[][]
  diffs: Array<Array<Array<{ path: string; oldPath: string; status: string; binary: boolean; hunks: number[] }>>>
}

/** Compute the ignore passes of `commits` (indices into `graph`) from both sides' file contents. */
export function computeIgnoreGuesses(
  graph: IgnoreInput,
  commits: Iterable<number>,
  content: (commit: number, parent: number, path: string, oldPath: string) => { target: Uint8Array; parent: Uint8Array } | null,
): IgnoreGuesses {
  const out: IgnoreGuesses = {}
  for (const i of commits) {
    out[graph.shas[i]] = graph.parents[i].map((p, k) => {
      const files: Record<string, number[]> = {}
      if (p < 0) return files
      for (const fd of graph.diffs[i][k] ?? []) {
        if (fd.binary || (fd.status !== 'M' && fd.status !== 'R') || fd.hunks.length === 0) continue
        const bytes = content(i, k, fd.path, fd.oldPath)
        if (!bytes) continue
        const flat: number[] = []
        for (const [t, m] of guessLineBlames(new LineFingerprints(bytes.parent), new LineFingerprints(bytes.target), fd.hunks)) if (m >= 0) flat.push(t, m)
        files[fd.path] = flat
      }
      return files
    })
  }
  return out
}

/** The stored guesses as the hunk mapper asks for them, for a graph whose commits are `shas`. */
export function ignoredRevsFor(shas: readonly string[], guesses: IgnoreGuesses): { commits: Set<number>; guess: (commit: number, parent: number, fd: { path: string }) => Map<number, number> | undefined } | undefined {
  // the guessed commits are few or none: a lookup of each of git/git's 82,000 shas in the object was ~15 ms of an update
  const named = new Set(Object.keys(guesses).filter((sha) => guesses[sha]))
  if (named.size === 0) return undefined
  const commits = new Set<number>()
  shas.forEach((sha, i) => {
    if (named.has(sha)) commits.add(i)
  })
  if (commits.size === 0) return undefined
  const cache = new Map<string, Map<number, number>>()
  return {
    commits,
    guess: (commit, parent, fd) => {
      const flat = guesses[shas[commit]]?.[parent]?.[fd.path]
      if (!flat) return undefined
      const key = `${commit}\0${parent}\0${fd.path}`
      let m = cache.get(key)
      if (!m) {
        m = new Map()
        for (let j = 0; j < flat.length; j += 2) m.set(flat[j], flat[j + 1])
        cache.set(key, m)
      }
      return m
    },
  }
}
