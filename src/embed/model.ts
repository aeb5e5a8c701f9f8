/**
 * Sentence embeddings, offline (issue 12), run through transformers.js. Two models are bundled:
 * - models/use-lite-small, the default: a student (2 layers, 256 wide) distilled from the other by
 *   scripts/distil-embedding-model.{mjs,py}, ~1.3-1.7x cheaper per text, 512-wide vectors close to the
 *   teacher's (cosine ~0.94 on held-out texts);
 * - models/use-lite, the teacher: the Universal Sentence Encoder lite converted to ONNX by
 *   scripts/convert-embedding-model.mjs (cosine >= 0.999 to the original).
 * `GITWHY_EMBED_MODEL` names a bundled model by its id (`use-lite`) or any local transformers.js
 * model folder; the same code loads each. Nothing is downloaded. The runtime (onnxruntime, ~0.3 s
 * to import) loads on the first call, never at start-up.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { basename, join, relative, resolve } from 'node:path'
import { ASCII, ASCII_SPLIT, ONE_PART, PART } from '../codegraph/search-text.js'
import { UserError } from '../errors.js'
import { unigramTokenizer } from './unigram.js'
import { PROJECT_ROOT } from '../parse/registry.js'
import { gitwhyHome } from '../services/registry.js'

export const MODEL_ENV = 'GITWHY_EMBED_MODEL'
/** The models that ship with gitwhy, by id (config.json's `gitwhy.id`, the folder's name). */
export const BUNDLED_MODELS = ['use-lite-small', 'use-lite'] as const
export type BundledModel = (typeof BUNDLED_MODELS)[number]
/** The default: the distilled student (the README's "The bundled models" has how it compares). */
export const BUNDLED_MODEL_ID: BundledModel = 'use-lite-small'
export const bundledModelDir = (id: BundledModel): string => join(PROJECT_ROOT, 'models', id)
export const BUNDLED_MODEL_DIR = bundledModelDir(BUNDLED_MODEL_ID)
/**
 * Texts per model call, of about the same token count (sorted first), so a batch pads little. With
 * the int8 model, on vuejs/core's documents (bench/embed-speed.mjs, 2026-11-27): 4-8 embed the most
 * (analyze's two workers 2,005-2,084 texts/s), 12 1,901/s, 16 1,700-1,864/s, 32 1,433/s: the
 * activations outgrow the caches. Smaller batches also grow onnxruntime's arena less (a worker
 * after 3,000 commit messages: 228 MB against 247 at 16). A text's vector moves by at most ~1e-4
 * with the batch size (which neighbours pad it).
 */
const BATCH = 8

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
  /** Token ids per text, truncated to the model's length. */
  tokenize: (texts: string[]) => number[][]
  /** One unit vector per tokenised text (one batch, padded to its longest). */
  run: (ids: number[][]) => Promise<Float32Array[]>
}

let loading: Promise<LoadedModel> | undefined

/** What of an onnxruntime session `run` uses (transformers.js keeps its sessions as `model.sessions`). */
interface PoolingSession {
  inputNames: readonly string[]
  outputNames: readonly string[]
  run(feeds: Record<string, unknown>, fetches: string[]): Promise<Record<string, { dims: number[]; data: unknown }>>
}

/**
 * The folder the model loads from: `GITWHY_EMBED_MODEL` (a folder, resolved against the working
 * directory, or the id of a bundled model where no such folder is) or the default bundled one.
 */
export function embeddingModelDir(env: NodeJS.ProcessEnv = process.env): string {
  const named = env[MODEL_ENV]?.trim()
  const bundled = named && (BUNDLED_MODELS as readonly string[]).includes(named) && !existsSync(resolve(named)) ? bundledModelDir(named as BundledModel) : null
  const dir = bundled ?? (named ? resolve(named) : BUNDLED_MODEL_DIR)
  const remedy = named && !bundled
    ? `point ${MODEL_ENV} at a local transformers.js model folder (config.json, tokenizer.json, onnx/model*.onnx) or a bundled model (${BUNDLED_MODELS.join(', ')}), or unset it to use the default`
    : `reinstall gitwhy: the bundled model folder models/${basename(dir)} is missing`
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

/** Model folders hashed on this machine: folder → { stamp, hash } (a cache; losing it costs one hash). */
const HASHES_FILE = 'model-hashes.json'
const KEEP_HASHES = 16

interface KnownHash {
  stamp: string
  hash: string
}

/**
 * The folder's files as they are on disk (name, size, modification and change time, inode): a
 * copy, an edit or a rewrite changes it, so while it is the same the files hold what was hashed.
 */
function folderStamp(dir: string, files: readonly string[]): string {
  return files
    .map((file) => {
      const s = statSync(file)
      return `${relative(dir, file)}:${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.ino}`
    })
    .join('\n')
}

function readKnownHashes(file: string): Record<string, KnownHash> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, KnownHash>
  } catch {
    return {}
  }
}

/**
 * sha256 of every file of the folder (paths and bytes). Every analyze asks (meta.json records
 * it), so the hash is kept under $GITWHY_HOME with the folder's stamp and taken again only when
 * the stamp changes: the bundled model's 7 MB are read once, not on each no-op analyze.
 */
function modelHash(dir: string): string {
  const files = filesUnder(dir)
  const stamp = folderStamp(dir, files)
  const store = join(gitwhyHome(), HASHES_FILE)
  const known = readKnownHashes(store)
  if (known[dir]?.stamp === stamp) return known[dir].hash
  const hash = createHash('sha256')
  for (const file of files) {
    hash.update(relative(dir, file).split('\\').join('/')).update('\0').update(readFileSync(file)).update('\0')
  }
  const digest = hash.digest('hex')
  try {
    const kept = Object.entries(readKnownHashes(store)).filter(([d]) => d !== dir).slice(-(KEEP_HASHES - 1))
    mkdirSync(gitwhyHome(), { recursive: true })
    const temporary = `${store}.${process.pid}.tmp`
    writeFileSync(temporary, JSON.stringify(Object.fromEntries([...kept, [dir, { stamp, hash: digest }]])))
    renameSync(temporary, store)
  } catch {
    // a read-only home: the next run hashes again
  }
  return digest
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
  const { AutoModel, AutoTokenizer, env, LogLevel, Tensor, mean_pooling } = await import('@huggingface/transformers')
  env.allowRemoteModels = false
  env.allowLocalModels = true
  // info and debug messages go to stdout, which is protocol in the MCP server
  env.logLevel = LogLevel.ERROR
  let tokenizer, model
  try {
    tokenizer = await AutoTokenizer.from_pretrained(dir, { local_files_only: true })
    // one thread per session: on vuejs/core's documents 1 thread embeds ~1.6x more per CPU-second
    // than 2 (small matrices, thread hand-offs); analyze runs one session per core instead
    model = await AutoModel.from_pretrained(dir, { local_files_only: true, session_options: { intraOpNumThreads: 1, interOpNumThreads: 1 } })
  } catch (error) {
    throw new UserError(
      `cannot load the embedding model in ${dir}: ${error instanceof Error ? error.message : String(error)}`,
      `point ${MODEL_ENV} at a transformers.js feature-extraction model folder, or unset it to use the bundled model`,
      'embed_model_invalid',
    )
  }
  // a model that pools itself from just the token ids and their mask (the bundled ones) is run on
  // its onnxruntime session directly; any other through transformers.js, which fills in what it needs
  const session = (model as unknown as { sessions?: { model?: PoolingSession } }).sessions?.model
  const pooling =
    session && session.outputNames.includes('sentence_embedding') && session.inputNames.every((name) => name === 'input_ids' || name === 'attention_mask') ? session : null
  const run = async (ids: number[][]): Promise<Float32Array[]> => {
    const width = Math.max(...ids.map((t) => t.length))
    const inputIds = new BigInt64Array(ids.length * width)
    const mask = new BigInt64Array(ids.length * width)
    ids.forEach((t, r) => {
      for (let c = 0; c < t.length; c++) {
        inputIds[r * width + c] = BigInt(t[c])
        mask[r * width + c] = 1n
      }
    })
    const attentionMask = new Tensor('int64', mask, [ids.length, width])
    const inputTensor = new Tensor('int64', inputIds, [ids.length, width])
    let pooled: { dims: number[]; data: unknown }
    if (pooling) {
      // its session asked for the one output used: transformers.js would fetch every output
      // (the bundled models' last_hidden_state copies the vector to every token, ~10 % of a call)
      const output = await pooling.run({ input_ids: inputTensor.ort_tensor, attention_mask: attentionMask.ort_tensor }, ['sentence_embedding'])
      pooled = output.sentence_embedding
    } else {
      const output = await model({ input_ids: inputTensor, attention_mask: attentionMask })
      // a model that pools itself (the bundled ones, sentence-transformers exports) says so with a
      // sentence_embedding output; the others are mean-pooled over their tokens
      pooled = output.sentence_embedding ?? mean_pooling(output.last_hidden_state ?? output.token_embeddings, attentionMask)
    }
    const dims = pooled.dims[1]
    const data = pooled.data as Float32Array
    return ids.map((_, i) => unit(data.slice(i * dims, (i + 1) * dims)))
  }
  // truncated to what the model reads, special tokens in: the same ids the model's own pipeline
  // feeds it; the bundled models' tokenizer by unigram.ts (the same ids, ~5x faster)
  const unigram = unigramTokenizer(readJson(join(dir, 'tokenizer.json')), readJson(join(dir, 'tokenizer_config.json')) ?? {}, tokenizer.model_max_length)
  const tokenize = unigram ? (texts: string[]): number[][] => texts.map(unigram) : (texts: string[]): number[][] => {
    const encoded = tokenizer(texts, { padding: false, truncation: true, return_tensor: false }) as { input_ids: number[][] | number[] }
    return texts.length === 1 && !Array.isArray(encoded.input_ids[0]) ? [encoded.input_ids as number[]] : (encoded.input_ids as number[][])
  }
  const [probe] = await run(tokenize(['probe']))
  return { info: { id: modelId(dir), dir, hash: modelHash(dir), dimensions: probe.length }, tokenize, run }
}

/** A JSON file's value; null when it is missing or unreadable (transformers.js then reports what it can). */
function readJson(file: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
  } catch {
    return null
  }
}

function unit(v: Float32Array): Float32Array {
  let sum = 0
  for (const x of v) sum += x * x
  const norm = Math.sqrt(sum)
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] /= norm
  return v
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
  const todo = texts.map((_, i) => i).filter((i) => texts[i].trim() !== '')
  if (todo.length === 0) return out
  // tokenised once; batches of texts of equal token counts pad nothing
  const ids = model.tokenize(todo.map((i) => texts[i]))
  const order = todo.map((_, k) => k).sort((a, b) => ids[a].length - ids[b].length)
  for (let start = 0; start < order.length; start += BATCH) {
    const batch = order.slice(start, start + BATCH)
    const vectors = await model.run(batch.map((k) => ids[k]))
    batch.forEach((k, j) => {
      out[todo[k]] = vectors[j]
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
/** PATH_SEPARATOR for ASCII text (search-text.ts ASCII_SPLIT says why): the same matches, five times faster. */
const ASCII_PATH_SEPARATOR = /[/\\]|::|->|(?<=[A-Za-z])\.(?=[A-Za-z])|(?<=[A-Za-z0-9])-(?=[A-Za-z0-9])/g

/**
 * Text as the model's general-English vocabulary reads it: identifiers split into words
 * (`parseHeader` → `parse header`, `snake_case` → `snake case`, `HTTPServer` → `HTTP server`),
 * path and member separators as spaces (`src/get-path.ts` → `src get path ts`). Acronyms keep
 * their case; prose is left alone.
 */
export function embeddingText(text: string): string {
  const ascii = ASCII.test(text)
  return text
    .replace(ascii ? ASCII_PATH_SEPARATOR : PATH_SEPARATOR, ' ')
    .replace(ascii ? ASCII_SPLIT : IDENTIFIER, (id) => {
      if (ONE_PART.test(id)) return id
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

