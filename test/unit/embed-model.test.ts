import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  BUNDLED_MODEL_DIR,
  BUNDLED_MODEL_ID,
  bundledModelDir,
  MODEL_ENV,
  currentEmbeddingModel,
  embed,
  embeddingModelInfo,
  embeddingText,
  resetEmbeddingModel,
} from '../../src/embed/model.js'
import { UserError } from '../../src/errors.js'

interface TeacherFixture {
  sentences: { text: string; vector: number[] }[]
}
// written by `node scripts/convert-embedding-model.mjs --fixture …` from the TF.js original
const teacher = JSON.parse(readFileSync(new URL('../fixtures/embed/teacher-vectors.json', import.meta.url), 'utf8')) as TeacherFixture

const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}
const norm = (a: ArrayLike<number>): number => Math.sqrt(dot(a, a))
const cosine = (a: ArrayLike<number>, b: ArrayLike<number>): number => dot(a, b) / (norm(a) * norm(b))

/** The student's least cosine to the teacher on the pinned sentences it must keep (it was trained on other texts). */
const STUDENT_COSINE = 0.85

const home = process.env.GITWHY_HOME
afterEach(() => {
  delete process.env[MODEL_ENV]
  process.env.GITWHY_HOME = home
  resetEmbeddingModel()
})

describe('the bundled embedding models', () => {
  it('use-lite (GITWHY_EMBED_MODEL=use-lite) gives the TF.js teacher’s vectors (cosine ≥ 0.999), unit length, 512 wide', async () => {
    process.env[MODEL_ENV] = 'use-lite'
    const vectors = await embed(teacher.sentences.map((s) => s.text))
    expect(vectors).toHaveLength(teacher.sentences.length)
    teacher.sentences.forEach((s, i) => {
      expect(vectors[i]).toHaveLength(512)
      expect(norm(vectors[i])).toBeCloseTo(1, 5)
      expect(cosine(vectors[i], s.vector), s.text).toBeGreaterThanOrEqual(0.999)
    })
    const info = await embeddingModelInfo()
    expect(info).toMatchObject({ id: 'use-lite', dir: bundledModelDir('use-lite'), dimensions: 512 })
  })

  it('the default, the student distilled from it, stays close to the teacher’s vectors, unit length, 512 wide', async () => {
    const vectors = await embed(teacher.sentences.map((s) => s.text))
    teacher.sentences.forEach((s, i) => {
      expect(vectors[i]).toHaveLength(512)
      expect(norm(vectors[i])).toBeCloseTo(1, 5)
      expect(cosine(vectors[i], s.vector), s.text).toBeGreaterThanOrEqual(STUDENT_COSINE)
    })
    // not the teacher: a conversion of it would be at 0.999
    expect(Math.min(...teacher.sentences.map((s, i) => cosine(vectors[i], s.vector)))).toBeLessThan(0.99)
    const info = await embeddingModelInfo()
    expect(info).toMatchObject({ id: BUNDLED_MODEL_ID, dir: BUNDLED_MODEL_DIR, dimensions: 512 })
    expect(info.hash).toMatch(/^[0-9a-f]{64}$/)
  })

  it('returns each text’s own vector whatever the batch around it (texts are reordered by length inside)', async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `change number ${i} ${'in the parser '.repeat(i % 7)}`.trim())
    const together = await embed(texts)
    for (const i of [0, 13, 69]) {
      const [alone] = await embed([texts[i]])
      expect(cosine(together[i], alone)).toBeGreaterThan(0.99999)
    }
    expect(cosine(together[1], together[2])).toBeLessThan(0.99999)
  })

  it('scores a paraphrase above unrelated text', async () => {
    const [query, paraphrase, unrelated, other] = await embed([
      'cache the compiled route patterns so lookups are faster',
      'memoize compiled paths in the router to speed up matching',
      'update the copyright year in the license file',
      'fix a typo in the contributing guide',
    ])
    expect(cosine(query, paraphrase)).toBeGreaterThan(cosine(query, unrelated) + 0.15)
    expect(cosine(query, paraphrase)).toBeGreaterThan(cosine(query, other) + 0.15)
    expect(cosine(unrelated, other)).toBeGreaterThan(cosine(unrelated, query))
  })

  it('embeds an empty batch to nothing and a blank text to zeros, even beside real text', async () => {
    expect(await embed([])).toEqual([])
    const [blank, spaces, real] = await embed(['', ' \n ', 'a longer text beside it'])
    expect([...blank, ...spaces].every((x) => x === 0)).toBe(true)
    expect(norm(real)).toBeCloseTo(1, 5)
  })
})

describe('GITWHY_EMBED_MODEL', () => {
  it('loads another local folder through the same code and records its hash', async () => {
    const bundled = await embeddingModelInfo()
    const [bundledVector] = await embed([teacher.sentences[0].text])
    resetEmbeddingModel()

    const copy = join(mkdtempSync(join(tmpdir(), 'gitwhy-model-')), 'my-model')
    cpSync(BUNDLED_MODEL_DIR, copy, { recursive: true })
    const config = JSON.parse(readFileSync(join(copy, 'config.json'), 'utf8'))
    delete config.gitwhy
    writeFileSync(join(copy, 'config.json'), JSON.stringify(config))
    process.env[MODEL_ENV] = copy

    const info = await embeddingModelInfo()
    expect(info.dir).toBe(copy)
    expect(info.id).toBe('my-model')
    expect(info.hash).not.toBe(bundled.hash)
    const [vector] = await embed([teacher.sentences[0].text])
    expect(cosine(vector, bundledVector)).toBeGreaterThan(0.99999)
  })

  it('runs a model that does not pool itself through transformers.js: token_type_ids filled in, last_hidden_state mean-pooled over each text’s tokens', async () => {
    // a stand-in: each token's row of a table is its hidden state; the graph wants token_type_ids too
    const { onnx } = (await import('onnx-proto')).default
    const T = onnx.TensorProto.DataType
    const width = 4
    const vocab = 8002
    const table = Float32Array.from({ length: vocab * width }, (_, i) => Math.sin(i * 12.9898) * 0.5 + ((i % width) === 0 ? 0.3 : 0))
    const info = (name: string, elemType: number, shape: Array<string | number>) =>
      onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType, shape: { dim: shape.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } } })
    const graph = onnx.GraphProto.create({
      name: 'stand_in',
      node: [onnx.NodeProto.create({ opType: 'Gather', input: ['table', 'input_ids'], output: ['last_hidden_state'], name: 'gather' })],
      initializer: [onnx.TensorProto.create({ name: 'table', dims: [vocab, width], dataType: T.FLOAT, rawData: new Uint8Array(table.buffer) })],
      input: ['input_ids', 'attention_mask', 'token_type_ids'].map((n) => info(n, T.INT64, ['batch_size', 'sequence_length'])),
      output: [info('last_hidden_state', T.FLOAT, ['batch_size', 'sequence_length', width])],
    })
    const bytes = onnx.ModelProto.encode(onnx.ModelProto.create({ irVersion: 10, opsetImport: [{ domain: '', version: 21 }], graph })).finish()
    const dir = join(mkdtempSync(join(tmpdir(), 'gitwhy-model-')), 'stand-in')
    cpSync(BUNDLED_MODEL_DIR, dir, { recursive: true })
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))
    delete config.gitwhy
    delete config['transformers.js_config']
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config))
    rmSync(join(dir, 'onnx'), { recursive: true })
    mkdirSync(join(dir, 'onnx'))
    writeFileSync(join(dir, 'onnx', 'model.onnx'), bytes)
    process.env[MODEL_ENV] = dir

    const texts = ['cache compiled routes', 'a much longer text that pads the short one in its batch of texts', 'x']
    const vectors = await embed(texts)
    const { AutoTokenizer } = await import('@huggingface/transformers')
    const tokenizer = await AutoTokenizer.from_pretrained(dir, { local_files_only: true })
    texts.forEach((text, i) => {
      const ids = (tokenizer(text, { padding: false, truncation: true, return_tensor: false }) as { input_ids: number[] }).input_ids
      const mean = Array.from({ length: width }, (_, k) => ids.reduce((sum, id) => sum + table[id * width + k], 0) / ids.length)
      expect(vectors[i]).toHaveLength(width)
      expect(cosine(vectors[i], mean), text).toBeGreaterThan(0.99999)
    })
    expect(await embeddingModelInfo()).toMatchObject({ id: 'stand-in', dimensions: width })
  })

  it('a missing folder is a UserError that names the variable', async () => {
    process.env[MODEL_ENV] = join(tmpdir(), 'gitwhy-no-such-model')
    const error = await embed(['x']).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UserError)
    expect((error as UserError).code).toBe('embed_model_missing')
    expect((error as UserError).message).toContain('gitwhy-no-such-model')
    expect((error as UserError).remedy).toContain(MODEL_ENV)
  })

  it('a folder without a model is a UserError too', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'gitwhy-empty-model-'))
    writeFileSync(join(empty, 'config.json'), '{}')
    process.env[MODEL_ENV] = empty
    const error = await embeddingModelInfo().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UserError)
    expect((error as UserError).message).toContain('tokenizer.json')
  })
})

describe('the model hash every analyze records', () => {
  it('is read from a stamp while the folder’s files are unchanged, and taken again when one changes', () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'gitwhy-model-')), 'stamped')
    cpSync(BUNDLED_MODEL_DIR, copy, { recursive: true })
    process.env[MODEL_ENV] = copy
    process.env.GITWHY_HOME = mkdtempSync(join(tmpdir(), 'gitwhy-home-'))
    const store = join(process.env.GITWHY_HOME, 'model-hashes.json')
    const first = currentEmbeddingModel().hash
    expect(JSON.parse(readFileSync(store, 'utf8'))[copy].hash).toBe(first)

    // a stored hash that is not the files' own: returned as it is, so the files were not read
    const planted = 'f'.repeat(64)
    const known = JSON.parse(readFileSync(store, 'utf8'))
    known[copy].hash = planted
    writeFileSync(store, JSON.stringify(known))
    resetEmbeddingModel()
    expect(currentEmbeddingModel().hash).toBe(planted)

    // an edited file changes the stamp: hashed again, and the same as a machine that never saw it
    appendFileSync(join(copy, 'NOTICE'), '\nedited\n')
    resetEmbeddingModel()
    const edited = currentEmbeddingModel().hash
    expect(edited).not.toBe(planted)
    expect(edited).not.toBe(first)
    process.env.GITWHY_HOME = mkdtempSync(join(tmpdir(), 'gitwhy-home-'))
    resetEmbeddingModel()
    expect(currentEmbeddingModel().hash).toBe(edited)
  })
})

describe('embeddingText', () => {
  it('splits identifiers and paths into words the general-English vocabulary knows', () => {
    expect(embeddingText('parseHeader')).toBe('parse header')
    expect(embeddingText('snake_case_name')).toBe('snake case name')
    expect(embeddingText('HTTPServer.handleRequest')).toBe('HTTP server handle request')
    expect(embeddingText('src/utils/get-path.ts')).toBe('src utils get path ts')
    expect(embeddingText('Router::compile_paths -> Vec')).toBe('Router compile paths Vec')
    expect(embeddingText('__FEATURE_PROD__ flag')).toBe('FEATURE PROD flag')
  })

  it('leaves prose, numbers and versions alone', () => {
    expect(embeddingText('Fix the cache, see #123 (v3.4)')).toBe('Fix the cache, see #123 (v3.4)')
    expect(embeddingText('  two   spaces\n')).toBe('two spaces')
  })
})
