/**
 * The bundled models' tokenizer (NFKC, then SentencePiece's `▁` for spaces, then a Unigram
 * vocabulary) without transformers.js's general machinery: the same token ids, ~5× faster
 * (47–59 µs a text of the distillation corpus, against 297). In transformers.js 4.3 every
 * position of a text allocates lattice nodes, clones them while it searches and builds each piece
 * as a string; on vuejs/core's documents that was ~20 % of what embedding cost with the bundled
 * student. `test/unit/unigram.test.ts` holds the ids equal to
 * transformers.js's on every kind of text it could think of.
 *
 * Only a tokenizer.json of exactly that shape is read here (unigramTokenizer returns null for any
 * other, which transformers.js then tokenizes).
 */

interface TrieNode {
  next: Map<number, TrieNode>
  /** The piece's id when a piece ends here (the last of equal pieces, as transformers.js maps them), else -1. */
  id: number
}

interface TokenizerJson {
  normalizer?: unknown
  pre_tokenizer?: unknown
  post_processor?: unknown
  added_tokens?: unknown[]
  model?: { type?: unknown; vocab?: unknown; unk_id?: unknown; byte_fallback?: unknown }
}

const SPACE = '▁'

/** A text's token ids, cut to `maxLength`; null when the tokenizer is not one this reads. */
export function unigramTokenizer(json: unknown, config: Record<string, unknown>, maxLength: number): ((text: string) => number[]) | null {
  const t = json as TokenizerJson
  const pre = t.pre_tokenizer as Record<string, unknown> | null | undefined
  const model = t.model
  const vocab = model?.vocab
  if (
    (t.normalizer as { type?: unknown } | null)?.type !== 'NFKC' ||
    Object.keys(t.normalizer as object).length !== 1 ||
    pre?.type !== 'Metaspace' ||
    pre.replacement !== SPACE ||
    pre.prepend_scheme !== 'always' ||
    pre.split !== false ||
    (pre.str_rep !== undefined && pre.str_rep !== SPACE) ||
    t.post_processor != null ||
    (t.added_tokens?.length ?? 0) > 0 ||
    model?.type !== 'Unigram' ||
    model.byte_fallback === true ||
    typeof model.unk_id !== 'number' ||
    !Array.isArray(vocab) ||
    vocab.length === 0 ||
    config.remove_space !== undefined ||
    config.do_lowercase_and_remove_accent === true
  ) {
    return null
  }
  const pieces = vocab.map((entry) => String((entry as [string, number])[0]))
  const scores = vocab.map((entry) => Number((entry as [string, number])[1]))
  const unkId = model.unk_id
  // as transformers.js: an unknown character scores 10 below the least piece, and so does the
  // unknown piece itself
  const unkScore = Math.min(...scores) - 10
  scores[unkId] = unkScore
  const ids = new Map(pieces.map((p, i) => [p, i]))
  const root: TrieNode = { next: new Map(), id: -1 }
  for (const piece of pieces) {
    let node = root
    for (const ch of piece) {
      const cp = ch.codePointAt(0)!
      let child = node.next.get(cp)
      if (!child) node.next.set(cp, (child = { next: new Map(), id: -1 }))
      node = child
    }
    node.id = ids.get(piece)!
  }

  // per text, reused: the code points, and for each lattice node its piece, length, best score and the node before it
  let cps: Int32Array = new Int32Array(256)
  let starts: Int32Array = new Int32Array(257)
  let nodeId: Int32Array = new Int32Array(1024)
  let nodeLen: Int32Array = new Int32Array(1024)
  let nodeScore: Float64Array = new Float64Array(1024)
  let nodePrev: Int32Array = new Int32Array(1024)
  // nodes ending at each position, in the order transformers.js lists them: by start, then length
  let endHead: Int32Array = new Int32Array(257)
  let endNext: Int32Array = new Int32Array(1024)
  let endTail: Int32Array = new Int32Array(257)

  return (text: string): number[] => {
    let s = text.normalize('NFKC')
    if (s.length === 0) return []
    s = s.replaceAll(' ', SPACE)
    if (!s.startsWith(SPACE)) s = SPACE + s
    // code points and where each starts in the string
    let n = 0
    for (let i = 0; i < s.length; n++) {
      if (n + 1 >= cps.length) {
        cps = grow(cps, cps.length * 2)
        starts = grow(starts, cps.length + 1)
      }
      const cp = s.codePointAt(i)!
      cps[n] = cp
      starts[n] = i
      i += cp > 0xffff ? 2 : 1
    }
    starts[n] = s.length
    if (endHead.length < n + 1) {
      endHead = new Int32Array(n + 1)
      endTail = new Int32Array(n + 1)
    }
    endHead.fill(-1, 0, n + 1)
    endTail.fill(-1, 0, n + 1)
    // node 0: the beginning, ending at position 0 with score 0
    let count = 0
    const add = (id: number, len: number, score: number, prev: number, end: number) => {
      if (count === nodeId.length) {
        const size = count * 2
        nodeId = grow(nodeId, size)
        nodeLen = grow(nodeLen, size)
        nodeScore = grow(nodeScore, size)
        nodePrev = grow(nodePrev, size)
        endNext = grow(endNext, size)
      }
      nodeId[count] = id
      nodeLen[count] = len
      nodeScore[count] = score
      nodePrev[count] = prev
      endNext[count] = -1
      if (endTail[end] < 0) endHead[end] = count
      else endNext[endTail[end]] = count
      endTail[end] = count
      return count++
    }
    add(-1, 0, 0, -1, 0)
    // Viterbi as transformers.js's TokenLattice runs it: a node's best predecessor is the first
    // (in its listing) of the nodes ending where it starts with the greatest `their score + its
    // own piece score`, summed in that order (so ties and rounding fall the same way)
    const link = (pos: number, id: number, len: number, pieceScore: number) => {
      let best = -1
      let bestScore = 0
      for (let l = endHead[pos]; l >= 0; l = endNext[l]) {
        const score = nodeScore[l] + pieceScore
        if (best < 0 || score > bestScore) {
          best = l
          bestScore = score
        }
      }
      add(id, len, bestScore, best, pos + len)
    }
    for (let pos = 0; pos < n; pos++) {
      let single = false
      let node: TrieNode | undefined = root
      for (let end = pos; end < n; end++) {
        node = node.next.get(cps[end])
        if (!node) break
        if (node.id >= 0) {
          link(pos, node.id, end - pos + 1, scores[node.id])
          if (end === pos) single = true
        }
      }
      if (!single) link(pos, -1, 1, unkScore)
    }
    // the end: the first best of the nodes ending there
    let last = -1
    let lastScore = 0
    for (let l = endHead[n]; l >= 0; l = endNext[l]) {
      if (last < 0 || nodeScore[l] > lastScore) {
        last = l
        lastScore = nodeScore[l]
      }
    }
    const path: number[] = []
    for (let v = last; v > 0; v = nodePrev[v]) path.push(v)
    path.reverse()
    // pieces to ids as transformers.js does: an unknown character has no id, and a run of unknown
    // tokens becomes one (its characters joined onto the first, unless the first is the unknown
    // piece itself); then every token that is not a piece is the unknown id
    const out: number[] = []
    let position = 0
    let i = 0
    while (i < path.length) {
      const v = path[i]
      const start = position
      position += nodeLen[v]
      const known = nodeId[v]
      if (known >= 0 && known !== unkId) {
        out.push(known)
        i++
        continue
      }
      let token = s.slice(starts[start], starts[position])
      for (i++; i < path.length; i++) {
        const w = path[i]
        const wStart = position
        position += nodeLen[w]
        if (nodeId[w] >= 0 && nodeId[w] !== unkId) {
          position = wStart
          break
        }
        if (ids.get(token) !== unkId) token += s.slice(starts[wStart], starts[position])
      }
      out.push(ids.get(token) ?? unkId)
    }
    if (out.length > maxLength) out.length = maxLength
    return out
  }
}

function grow<T extends Int32Array | Float64Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size)
  b.set(a)
  return b
}
