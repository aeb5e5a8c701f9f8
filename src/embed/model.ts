/**
 * Sentence embeddings, offline (issue 12): the Universal Sentence Encoder lite converted to ONNX by
 * scripts/convert-embedding-model.mjs and committed under models/use-lite, run through
 * transformers.js. `GITWHY_EMBED_MODEL` names another local transformers.js model folder; the same
 * code loads it. Nothing is downloaded. The runtime (onnxruntime, ~0.3 s to import) loads on the
 * first call, never at start-up.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join, relative, resolve } from 'node:path'
import { PART } from '../codegraph/search-text.js'
import { UserError } from '../errors.js'
import { PROJECT_ROOT } from '../parse/registry.js'

export const MODEL_ENV = 'GITWHY_EMBED_MODEL'
export const BUNDLED_MODEL_DIR = join(PROJECT_ROOT, 'models', 'use-lite')
/**
 * Texts per model call, sorted by length first so a batch pads little: on vuejs/core's commit
 * subjects 16 embeds ~400 per CPU-second, 64 ~325 (more padding).
 */
const BATCH = 16

export interface EmbeddingModelInfo {
  /** A short name: config.json's `gitwhy.id`, else the folder's name. */
  id: string
  dir: string
  /** sha256 of every file of the folder (paths and bytes): the index records it and re-embeds when it changes. */
  hash: string
  dimensions: number
}

interface LoadedModel {
  info: EmbeddingModelInfo
  run: (texts: string[]) => Promise<Float32Array[]>
}

let loading: Promise<LoadedModel> | undefined

/** The folder the model loads from: `GITWHY_EMBED_MODEL` (resolved against the working directory) or the bundled one. */
export function embeddingModelDir(env: NodeJS.ProcessEnv = process.env): string {
  const named = env[MODEL_ENV]?.trim()
  const dir = named ? resolve(named) : BUNDLED_MODEL_DIR
  const remedy = named
    ? `point ${MODEL_ENV} at a local transformers.js model folder (config.json, tokenizer.json, onnx/model*.onnx), or unset it to use the bundled model`
    : 'reinstall gitwhy: the bundled model folder models/use-lite is missing'
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new UserError(`embedding model folder ${dir} does not exist`, remedy, 'embed_model_missing')
  }
  for (const file of ['config.json', 'tokenizer.json']) {
    if (!existsSync(join(dir, file))) {
      throw new UserError(`embedding model folder ${dir} has no ${file}`, remedy, 'embed_model_missing')
    }
  }
  if (!existsSync(join(dir, 'onnx')) || !readdirSync(join(dir, 'onnx')).some((f) => f.endsWith('.onnx'))) {
    throw new UserError(`embedding model folder ${dir} has no onnx/*.onnx`, remedy, 'embed_model_missing')
  }
  return dir
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .sort()
}

function modelHash(dir: string): string {
  const hash = createHash('sha256')
  for (const file of filesUnder(dir)) {
    hash.update(relative(dir, file).split('\\').join('/')).update('\0').update(readFileSync(file)).update('\0')
  }
  return hash.digest('hex')
}

function modelId(dir: string): string {
  try {
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { gitwhy?: { id?: unknown } }
    if (typeof config.gitwhy?.id === 'string' && config.gitwhy.id) return config.gitwhy.id
  } catch {
    // an unreadable config fails in the loader with its own message
  }
  return basename(dir)
}

async function load(dir: string): Promise<LoadedModel> {
  const { pipeline, env, LogLevel } = await import('@huggingface/transformers')
  env.allowRemoteModels = false
  env.allowLocalModels = true
  // info and debug messages go to stdout, which is protocol in the MCP server
  env.logLevel = LogLevel.ERROR
  let extract
  try {
    extract = await pipeline('feature-extraction', dir, { local_files_only: true })
  } catch (error) {
    throw new UserError(
      `cannot load the embedding model in ${dir}: ${error instanceof Error ? error.message : String(error)}`,
      `point ${MODEL_ENV} at a transformers.js feature-extraction model folder, or unset it to use the bundled model`,
      'embed_model_invalid',
    )
  }
  const run = async (texts: string[]): Promise<Float32Array[]> => {
    const output = await extract(texts, { pooling: 'mean', normalize: true })
    const [rows, width] = output.dims
    const data = output.data as Float32Array
    return Array.from({ length: rows }, (_, i) => data.slice(i * width, (i + 1) * width))
  }
  const [probe] = await run(['probe'])
  return { info: { id: modelId(dir), dir, hash: modelHash(dir), dimensions: probe.length }, run }
}

function loaded(): Promise<LoadedModel> {
  if (!loading) {
    const dir = embeddingModelDir()
    loading = load(dir)
    loading.catch(() => {
      loading = undefined
    })
  }
  return loading
}

const fingerprints = new Map<string, Pick<EmbeddingModelInfo, 'id' | 'dir' | 'hash'>>()

/**
 * Which model would embed (id, folder, hash), without loading it: analyze compares it with the
 * index's record, search checks that the question is embedded by the model that built the index.
 */
export function embeddingModelFingerprint(): Pick<EmbeddingModelInfo, 'id' | 'dir' | 'hash'> {
  const dir = embeddingModelDir()
  let known = fingerprints.get(dir)
  if (!known) {
    known = { id: modelId(dir), dir, hash: modelHash(dir) }
    fingerprints.set(dir, known)
  }
  return known
}

/** The model an index was embedded with (meta.json options.embeddings; null: built without embeddings). */
export interface EmbeddingRecord {
  id: string
  hash: string
}

/** The model analyze would embed with now, as meta.json records it (hashes the model folder; does not load it). */
export function currentEmbeddingModel(): EmbeddingRecord {
  const { id, hash } = embeddingModelFingerprint()
  return { id, hash }
}

/** Which model embeds, for the index to record (loads it). */
export async function embeddingModelInfo(): Promise<EmbeddingModelInfo> {
  return (await loaded()).info
}

/**
 * One L2-normalised vector per text, in order. Loads the model on the first call. A blank text
 * has no tokens and so no meaning: its vector is all zeros (cosine 0 to everything).
 */
export async function embed(texts: readonly string[]): Promise<Float32Array[]> {
  if (texts.length === 0) return []
  const model = await loaded()
  const out: Float32Array[] = texts.map(() => new Float32Array(model.info.dimensions))
  const order = texts
    .map((_, i) => i)
    .filter((i) => texts[i].trim() !== '')
    .sort((a, b) => texts[a].length - texts[b].length)
  for (let start = 0; start < order.length; start += BATCH) {
    const batch = order.slice(start, start + BATCH)
    const vectors = await model.run(batch.map((i) => texts[i]))
    batch.forEach((i, k) => {
      out[i] = vectors[k]
    })
  }
  return out
}

/** Forgets the loaded model (tests switch GITWHY_EMBED_MODEL). */
export function resetEmbeddingModel(): void {
  loading = undefined
  fingerprints.clear()
}

const PATH_SEPARATOR = /[/\\]|::|->|(?<=\p{L})\.(?=\p{L})|(?<=[\p{L}\p{N}])-(?=[\p{L}\p{N}])/gu
const IDENTIFIER = /[\p{L}\p{N}_$]+/gu

/**
 * Text as the model's general-English vocabulary reads it: identifiers split into words
 * (`parseHeader` → `parse header`, `snake_case` → `snake case`, `HTTPServer` → `HTTP server`),
 * path and member separators as spaces (`src/get-path.ts` → `src get path ts`). Acronyms keep
 * their case; prose is left alone.
 */
export function embeddingText(text: string): string {
  return text
    .replace(PATH_SEPARATOR, ' ')
    .replace(IDENTIFIER, (id) => {
      const words = id.split(/[_$]+/).filter(Boolean).flatMap((chunk) => {
        const parts: string[] = []
        for (const [part] of chunk.matchAll(PART)) {
          // digits stay with the word before them: v3, utf8, sha256
          if (/^\p{N}+$/u.test(part) && parts.length > 0) parts[parts.length - 1] += part
          else parts.push(part)
        }
        return parts
      })
      if (words.length <= 1) return words[0] ?? ''
      return words.map((w) => (/^\p{Lu}\p{Ll}/u.test(w) ? w.toLowerCase() : w)).join(' ')
    })
    .replace(/\s+/g, ' ')
    .trim()
}

