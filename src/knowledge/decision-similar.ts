/**
 * SIMILAR_TO between findings: pairs of decisions whose title and statement mean much the same,
 * by the cosine of their embeddings (the index's model, offline). Only for an index built with
 * `--embeddings`, as the other meaning-based answers. The vectors are kept beside the index
 * (`.gitwhy/decision-vectors.json`, by model and text), so the model loads only when a decision's
 * text is new to it.
 */
import { createHash } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { DecisionSimilarRow } from '../graph/types.js'
import type { Decision } from './decision-model.js'

/** At least this cosine makes two decisions similar (the bundled model: a paraphrase 0.84, two rules on one subject 0.70, unrelated ones 0.34-0.50). */
export const SIMILAR_COSINE = 0.8

export const DECISION_VECTORS_FILE = 'decision-vectors.json'

interface VectorFile {
  model: string
  vectors: Record<string, number[]>
}

const textOf = (d: Decision) => `${d.title}. ${d.statement}`
const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32)

/** The similar pairs among `decisions` (from < to), best first. `gitwhyDir`: where the vectors are kept. */
export async function similarDecisions(gitwhyDir: string, decisions: readonly Decision[], model: string): Promise<DecisionSimilarRow[]> {
  const live = decisions.filter((d) => d.status !== 'rejected')
  if (live.length < 2) return []
  const file = path.join(gitwhyDir, DECISION_VECTORS_FILE)
  let kept: VectorFile = { model, vectors: {} }
  try {
    const read = JSON.parse(readFileSync(file, 'utf8')) as VectorFile
    if (read.model === model && read.vectors && typeof read.vectors === 'object') kept = read
  } catch {
    // none yet, or unreadable: made again
  }
  const texts = live.map(textOf)
  const missing = [...new Set(texts.map(hashOf))].filter((h) => !Object.hasOwn(kept.vectors, h))
  if (missing.length > 0) {
    const { embed } = await import('../embed/model.js')
    const byHash = new Map(texts.map((t) => [hashOf(t), t]))
    const vectors = await embed(missing.map((h) => byHash.get(h)!))
    // only the texts of these decisions stay: the file does not grow with every edit
    const next: VectorFile = { model, vectors: {} }
    for (const t of texts) {
      const h = hashOf(t)
      next.vectors[h] = kept.vectors[h] ?? Array.from(vectors[missing.indexOf(h)])
    }
    kept = next
    const tmp = `${file}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(kept))
    renameSync(tmp, file)
  }
  const vec = live.map((d) => kept.vectors[hashOf(textOf(d))])
  const out: DecisionSimilarRow[] = []
  for (let i = 0; i < live.length; i++) {
    for (let j = 0; j < live.length; j++) {
      if (live[i].id >= live[j].id) continue
      const score = cosine(vec[i], vec[j])
      if (score >= SIMILAR_COSINE) out.push({ from: live[i].id, to: live[j].id, score: Math.round(score * 1e4) / 1e4 })
    }
  }
  return out.sort((a, b) => b.score - a.score || a.from.localeCompare(b.from) || a.to.localeCompare(b.to))
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i]
    na += a[i] * a[i]
    nb += b[i] * b[i]
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}
