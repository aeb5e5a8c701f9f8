/**
 * The embedding model scripts (issue 12): the converter still writes the bundled model byte for
 * byte, and a distilled student's ONNX graph (scripts/convert-embedding-model.mjs
 * buildStudentOnnx, from the weights scripts/distil-embedding-model.py writes) computes what the
 * student is: a seeded random student, run through transformers.js as any model folder is, against
 * its forward pass written out here in plain arithmetic.
 */
import { createHash } from 'node:crypto'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { BUNDLED_MODEL_DIR, BUNDLED_MODEL_ID, MODEL_ENV, bundledModelDir, embed, resetEmbeddingModel } from '../../src/embed/model.js'
import { rng } from '../helpers/scenarios.js'

interface Tensor {
  shape: number[]
  data: Float32Array
}
interface Converter {
  readTeacherWeights(): { weights: unknown }
  buildOnnx(weights: unknown, options: { quantise: boolean; compute?: string }): Promise<Uint8Array>
  buildStudentOnnx(student: { config: StudentConfig; tensor: (name: string) => Tensor }): Promise<Uint8Array>
}
interface StudentConfig {
  d: number
  ff: number
  layers: number
  heads: number
  eps: number
}

const converter = (): Promise<Converter> => import(new URL('../../scripts/convert-embedding-model.mjs', import.meta.url).href) as Promise<Converter>

afterEach(() => {
  delete process.env[MODEL_ENV]
  resetEmbeddingModel()
})

describe('scripts/convert-embedding-model.mjs', () => {
  it('writes the bundled teacher (models/use-lite) byte for byte', async () => {
    const { readTeacherWeights, buildOnnx } = await converter()
    const bytes = await buildOnnx(readTeacherWeights().weights, { quantise: true, compute: 'int8' })
    const teacher = bundledModelDir('use-lite')
    const config = JSON.parse(readFileSync(join(teacher, 'config.json'), 'utf8')) as { gitwhy: { onnx_sha256: string } }
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(config.gitwhy.onnx_sha256)
    expect(createHash('sha256').update(readFileSync(join(teacher, 'onnx', 'model_quantized.onnx'))).digest('hex')).toBe(config.gitwhy.onnx_sha256)
  }, 120_000)

  it('the bundled student (the default) is the graph its config records, a student of the teacher with its tokenizer', () => {
    expect(BUNDLED_MODEL_ID).toBe('use-lite-small')
    const config = JSON.parse(readFileSync(join(BUNDLED_MODEL_DIR, 'config.json'), 'utf8')) as { gitwhy: { id: string; student: StudentConfig; onnx_sha256: string } }
    expect(config.gitwhy).toMatchObject({ id: BUNDLED_MODEL_ID, student: { d: 256, layers: 2, ff: 1024, heads: 4 } })
    expect(createHash('sha256').update(readFileSync(join(BUNDLED_MODEL_DIR, 'onnx', 'model_quantized.onnx'))).digest('hex')).toBe(config.gitwhy.onnx_sha256)
    for (const file of ['tokenizer.json', 'tokenizer_config.json', 'LICENSE']) {
      expect(readFileSync(join(BUNDLED_MODEL_DIR, file)).equals(readFileSync(join(bundledModelDir('use-lite'), file))), file).toBe(true)
    }
  })

  it('a student’s graph computes the student: embedding and timing signal, pre-norm blocks, mean, tanh, unit length', async () => {
    const config: StudentConfig = { d: 32, ff: 64, layers: 2, heads: 4, eps: 1e-6 }
    const random = rng(7)
    const normal = (n: number, scale: number) => Float32Array.from({ length: n }, () => (random() * 2 - 1) * scale)
    const vocab = 8002
    const tensors = new Map<string, Tensor>()
    const put = (name: string, shape: number[], data: Float32Array) => tensors.set(name, { shape, data })
    put('emb.weight', [vocab, config.d], normal(vocab * config.d, 1))
    put('timing', [128, config.d], normal(128 * config.d, 0.5))
    for (let i = 0; i < config.layers; i++) {
      const p = `layers.${i}`
      for (const [name, rows, cols] of [['qkv', config.d, 3 * config.d], ['o', config.d, config.d], ['f1', config.d, config.ff], ['f2', config.ff, config.d]] as const) {
        put(`${p}.${name}.weight`, [rows, cols], normal(rows * cols, (name === 'qkv' ? 4 : 1) / Math.sqrt(rows)))
        put(`${p}.${name}.bias`, [cols], normal(cols, 0.1))
      }
      for (const name of ['ln1', 'ln2']) {
        put(`${p}.${name}.weight`, [config.d], Float32Array.from(normal(config.d, 0.2), (x) => 1 + x))
        put(`${p}.${name}.bias`, [config.d], normal(config.d, 0.1))
      }
    }
    put('proj.weight', [config.d, 512], normal(config.d * 512, 1 / Math.sqrt(config.d)))
    put('proj.bias', [512], normal(512, 0.1))
    const tensor = (name: string): Tensor => {
      const t = tensors.get(name)
      if (!t) throw new Error(`no tensor ${name}`)
      return t
    }

    const { buildStudentOnnx } = await converter()
    const dir = join(mkdtempSync(join(tmpdir(), 'gitwhy-student-')), 'student')
    mkdirSync(join(dir, 'onnx'), { recursive: true })
    writeFileSync(join(dir, 'onnx', 'model_quantized.onnx'), await buildStudentOnnx({ config, tensor }))
    for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(BUNDLED_MODEL_DIR, file), join(dir, file))
    process.env[MODEL_ENV] = dir

    const texts = ['fix the cache of compiled routes', 'a', 'Retry failed HTTP requests with exponential backoff when the server says so']
    const vectors = await embed(texts)
    const { AutoTokenizer } = await import('@huggingface/transformers')
    const tokenizer = await AutoTokenizer.from_pretrained(dir, { local_files_only: true })
    texts.forEach((text, i) => {
      const ids = (tokenizer(text, { padding: false, truncation: true, return_tensor: false }) as { input_ids: number[] }).input_ids
      const expected = forward(config, tensor, ids)
      let dot = 0
      for (let k = 0; k < 512; k++) dot += expected[k] * vectors[i][k]
      // int8 weights and activations: close, not equal (a query scale of width^-0.25 gives 0.975)
      expect(dot, text).toBeGreaterThan(0.995)
    })
    // and not by accident: the texts' vectors differ
    let cross = 0
    for (let k = 0; k < 512; k++) cross += vectors[0][k] * vectors[2][k]
    expect(cross).toBeLessThan(0.99)
  }, 120_000)
})

/** The student in plain arithmetic (scripts/distil-embedding-model.py's Student.forward). */
function forward(c: StudentConfig, t: (name: string) => Tensor, ids: number[]): Float64Array {
  const n = ids.length
  const d = c.d
  let x = ids.map((id, pos) => Float64Array.from({ length: d }, (_, k) => t('emb.weight').data[id * d + k] + t('timing').data[pos * d + k]))
  const dense = (rows: Float64Array[], name: string) => {
    const w = t(`${name}.weight`)
    const [inputs, outputs] = w.shape
    return rows.map((r) => {
      const out = Float64Array.from(t(`${name}.bias`).data)
      for (let i = 0; i < inputs; i++) for (let j = 0; j < outputs; j++) out[j] += r[i] * w.data[i * outputs + j]
      return out
    })
  }
  const norm = (rows: Float64Array[], name: string) =>
    rows.map((r) => {
      const mean = r.reduce((a, b) => a + b, 0) / r.length
      const variance = r.reduce((a, b) => a + (b - mean) ** 2, 0) / r.length
      return r.map((v, k) => ((v - mean) / Math.sqrt(variance + c.eps)) * t(`${name}.weight`).data[k] + t(`${name}.bias`).data[k])
    })
  const add = (a: Float64Array[], b: Float64Array[]) => a.map((r, i) => r.map((v, k) => v + b[i][k]))
  const width = d / c.heads
  for (let layer = 0; layer < c.layers; layer++) {
    const p = `layers.${layer}`
    const qkv = dense(norm(x, `${p}.ln1`), `${p}.qkv`)
    const context = x.map(() => new Float64Array(d))
    for (let h = 0; h < c.heads; h++) {
      for (let i = 0; i < n; i++) {
        const logits = qkv.map((row) => {
          let s = 0
          for (let k = 0; k < width; k++) s += qkv[i][h * width + k] * row[d + h * width + k]
          return s / Math.sqrt(width)
        })
        const top = Math.max(...logits)
        const weights = logits.map((l) => Math.exp(l - top))
        const sum = weights.reduce((a, b) => a + b, 0)
        for (let j = 0; j < n; j++) for (let k = 0; k < width; k++) context[i][h * width + k] += (weights[j] / sum) * qkv[j][2 * d + h * width + k]
      }
    }
    x = add(x, dense(context, `${p}.o`))
    x = add(x, dense(dense(norm(x, `${p}.ln2`), `${p}.f1`).map((r) => r.map((v) => Math.max(0, v))), `${p}.f2`))
  }
  const pooled = new Float64Array(d)
  for (const r of x) for (let k = 0; k < d; k++) pooled[k] += r[k] / n
  const out = dense([pooled], 'proj')[0].map(Math.tanh)
  const length = Math.sqrt(out.reduce((a, b) => a + b * b, 0))
  return out.map((v) => v / length)
}
