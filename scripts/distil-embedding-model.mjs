#!/usr/bin/env node
// Distils the Universal Sentence Encoder lite conversion (the teacher, models/use-lite, written by
// scripts/convert-embedding-model.mjs) into a smaller student that reads the same tokens and
// answers in the same 512-d space, for analyze's embedding budget. Three steps around the
// training, which runs in PyTorch (scripts/distil-embedding-model.py):
//
//   node scripts/distil-embedding-model.mjs corpus --data DIR REPO...   the model inputs gitwhy makes
//        (commit documents and subjects from each repository's history; symbol texts from its
//        index, when it has one), each once, in a seeded order
//   node scripts/distil-embedding-model.mjs teacher --data DIR [--teacher MODEL]   their token ids
//        and the teacher's vectors, and the teacher weights the student starts from
//   python3 scripts/distil-embedding-model.py --data DIR                trains, writes DIR/student.*
//   node scripts/distil-embedding-model.mjs onnx --data DIR --out MODEL_DIR    the student as a model folder
//
// Needs a build (`npm run build`: the corpus and teacher steps use dist/embed), the devDependencies
// (the teacher's weights) and, for the training, python3 with torch.
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { seededRandom } from '../bench/lib.mjs'
import { buildStudentOnnx, readTeacherWeights, weightBySuffix } from './convert-embedding-model.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    data: { type: 'string' },
    teacher: { type: 'string', default: join(root, 'models', 'use-lite') },
    out: { type: 'string' },
    'max-commits': { type: 'string', default: '40000' },
    seed: { type: 'string', default: '7' },
  },
})
const [step, ...repos] = positionals
if (!values.data || !['corpus', 'teacher', 'onnx'].includes(step) || (step === 'onnx' && !values.out)) {
  process.stderr.write('usage: node scripts/distil-embedding-model.mjs corpus|teacher|onnx --data DIR [REPO...] [--out MODEL_DIR]\n')
  process.exit(1)
}
const data = resolve(values.data)
mkdirSync(data, { recursive: true })
const log = (m) => process.stderr.write(`${m}\n`)

async function corpus() {
  const { commitDoc, docInput, embeddingInput } = await import(join(root, 'dist', 'embed', 'docs.js'))
  const inputs = new Set()
  for (const repo of repos.map((r) => resolve(r))) {
    const out = execFileSync('git', ['log', '-n', values['max-commits'], '--format=%H%x00%s%x00%b%x01'], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 30 })
    for (const record of out.split('\x01')) {
      const [sha, subject = '', body = ''] = record.replace(/^\n/, '').split('\x00')
      if (!sha) continue
      const input = docInput(commitDoc({ sha, subject, body: body.trim() })).input
      if (input) inputs.add(input)
      const own = embeddingInput(subject)
      if (own) inputs.add(own)
    }
    const symbols = await symbolTexts(repo)
    for (const text of symbols) inputs.add(embeddingInput(text))
    // what a search embeds is a question in prose: the documentation's sentences, and the
    // subjects asked about ("why was the cache of compiled paths added?" is not in any history)
    const prose = proseSentences(repo)
    for (const sentence of prose) inputs.add(embeddingInput(sentence))
    log(`${repo}: ${inputs.size} inputs so far (${symbols.length} symbols, ${prose.length} sentences of documentation)`)
  }
  const subjects = [...inputs].filter((s) => !s.includes('\n') && s.split(' ').length >= 3).slice(0, Number(values['max-commits']))
  for (const [i, s] of subjects.entries()) inputs.add(`${QUESTION_STARTS[i % QUESTION_STARTS.length]} ${lowerFirst(s.replace(/^[\w-]+(\([^)]*\))?!?:\s*/, '').replace(/[.\s]+$/, ''))}?`)
  inputs.delete('')
  // a seeded shuffle: the training holds out the last texts
  const random = seededRandom(Number(values.seed))
  const all = [...inputs]
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[all[i], all[j]] = [all[j], all[i]]
  }
  writeFileSync(join(data, 'inputs.json'), JSON.stringify(all))
  log(`wrote ${all.length} inputs`)
}

/** `Update x` → `update x`, but `HTTP x` stays. */
const lowerFirst = (s) => (/^\p{Lu}\p{Ll}/u.test(s) ? s[0].toLowerCase() + s.slice(1) : s)

const QUESTION_STARTS = ['why', 'why did we', 'what was the reason to', 'how does the code', 'when did we']

/** Sentences of the repository's documentation (Markdown, AsciiDoc, reStructuredText, text; 5 to 60 words), at most 20,000. */
function proseSentences(repo) {
  const files = execFileSync('git', ['ls-files', '-z', '--', '*.md', '*.adoc', '*.rst', '*.txt'], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 28 }).split('\0').filter(Boolean)
  const out = []
  for (const file of files) {
    let text
    try {
      text = readFileSync(join(repo, file), 'utf8')
    } catch {
      continue
    }
    // paragraphs without markup lines (code fences, tables, headings' underlines), then sentences
    for (const paragraph of text.replace(/```[\s\S]*?```/g, '').split(/\n\s*\n/)) {
      const flat = paragraph.split('\n').filter((l) => !/^\s*([|=~^`-]{3,}|[#>*|]|\.\.|:)/.test(l)).join(' ')
      for (const sentence of flat.split(/(?<=[.?!])\s+(?=[A-Z])/)) {
        const words = sentence.trim().split(/\s+/).length
        if (words >= 5 && words <= 60) out.push(sentence.trim())
        if (out.length >= 20000) return out
      }
    }
  }
  return out
}

/** A symbol's own text as analyze embeds it (docs.ts symbolDoc: the lines up to its path), from the repository's index. */
async function symbolTexts(repo) {
  const metaFile = join(repo, '.gitwhy', 'meta.json')
  if (!existsSync(metaFile)) return []
  const kuzu = (await import('kuzu')).default
  const db = new kuzu.Database(join(repo, '.gitwhy', JSON.parse(readFileSync(metaFile, 'utf8')).indexDir, 'graph.kuzu'), 256 * 1024 * 1024, true, true)
  const conn = new kuzu.Connection(db)
  try {
    const result = await conn.query("MATCH (d:Doc) WHERE d.kind = 'symbol' RETURN d.text AS text, d.path AS path")
    const rows = await result.getAll()
    result.close()
    return rows.map(({ text, path }) => {
      const lines = text.split('\n')
      return lines.slice(0, lines.indexOf(path) + 1 || 1).join('\n')
    })
  } finally {
    await conn.close()
    await db.close()
  }
}

async function teacher() {
  process.env.GITWHY_EMBED_MODEL = resolve(values.teacher)
  const { embed } = await import(join(root, 'dist', 'embed', 'model.js'))
  const { AutoTokenizer } = await import('@huggingface/transformers')
  const inputs = JSON.parse(readFileSync(join(data, 'inputs.json'), 'utf8'))
  const tokenizer = await AutoTokenizer.from_pretrained(resolve(values.teacher), { local_files_only: true })
  const ids = tokenizer(inputs, { padding: false, truncation: true, return_tensor: false }).input_ids
  const vectors = new Float32Array(inputs.length * 512)
  const started = performance.now()
  for (let at = 0; at < inputs.length; at += 2000) {
    const batch = await embed(inputs.slice(at, at + 2000))
    batch.forEach((v, k) => vectors.set(v, (at + k) * 512))
    log(`teacher: ${at + batch.length} of ${inputs.length} (${Math.round(((at + batch.length) / (performance.now() - started)) * 1000)}/s)`)
  }
  writeFileSync(join(data, 'ids.json'), JSON.stringify(ids))
  writeFileSync(join(data, 'teacher.f32'), Buffer.from(vectors.buffer))
  // what the student starts from: the teacher's token table, timing signal, layer 0's q, k, v
  const { weights } = readTeacherWeights()
  const pick = (suffix) => weightBySuffix(weights, suffix)
  const layer0 = 'Encode/Layer_0/TransformerLayer'
  const start = {
    embedding: pick('module/Embeddings_en'),
    inv_timescale: pick('AddTimingSignal/TimingSignal/ExpandDims_1'),
    qkv_kernel: pick(`${layer0}/MultiheadAttention/qkv_transform_single/kernel/part_0`),
    qkv_bias: pick(`${layer0}/MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`),
    ln_scale: pick(`${layer0}/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`),
    ln_bias: pick(`${layer0}/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`),
  }
  writeTensors(join(data, 'teacher-start'), { eps: pick('layer_norm/Cast/x').data[0] }, start)
  log(`wrote ${inputs.length} token lists and vectors`)
}

/** DIR.json ({config, tensors: {name: {shape, offset, length}}}) and DIR.bin (float32 LE): what the .py reads and writes. */
function writeTensors(base, config, tensors) {
  const table = {}
  const parts = []
  let offset = 0
  for (const [name, t] of Object.entries(tensors)) {
    table[name] = { shape: t.shape, offset, length: t.data.length }
    parts.push(Buffer.from(Float32Array.from(t.data).buffer))
    offset += t.data.length
  }
  writeFileSync(`${base}.json`, JSON.stringify({ config, tensors: table }))
  writeFileSync(`${base}.bin`, Buffer.concat(parts))
}

function readTensors(base) {
  const { config, tensors } = JSON.parse(readFileSync(`${base}.json`, 'utf8'))
  const bytes = readFileSync(`${base}.bin`)
  const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
  return {
    config,
    tensor: (name) => {
      const e = tensors[name]
      if (!e) throw new Error(`the student has no tensor ${name}`)
      return { shape: e.shape, data: all.subarray(e.offset, e.offset + e.length) }
    },
  }
}

async function onnx() {
  const student = readTensors(join(data, 'student'))
  const bytes = await buildStudentOnnx(student)
  const out = resolve(values.out)
  const teacherDir = resolve(values.teacher)
  mkdirSync(join(out, 'onnx'), { recursive: true })
  writeFileSync(join(out, 'onnx', 'model_quantized.onnx'), bytes)
  for (const file of ['tokenizer.json', 'tokenizer_config.json', 'LICENSE']) copyFileSync(join(teacherDir, file), join(out, file))
  const teacherConfig = JSON.parse(readFileSync(join(teacherDir, 'config.json'), 'utf8'))
  const { d, layers, ff, heads } = student.config
  writeFileSync(join(out, 'config.json'), JSON.stringify({
    ...teacherConfig,
    architectures: ['UniversalSentenceEncoderLiteStudent'],
    gitwhy: {
      id: 'use-lite-small',
      source: `distilled from ${teacherConfig.gitwhy.id} (${teacherConfig.gitwhy.source}) by scripts/distil-embedding-model.py`,
      student: { d, layers, ff, heads },
      weights: 'int8',
      compute: 'int8',
      onnx_sha256: createHash('sha256').update(bytes).digest('hex'),
    },
  }, null, 2) + '\n')
  writeFileSync(join(out, 'NOTICE'), [
    'A student of the Universal Sentence Encoder lite, distilled for gitwhy.',
    '',
    readFileSync(join(teacherDir, 'NOTICE'), 'utf8').trim(),
    '',
    `The student (${layers} layer${layers === 1 ? '' : 's'}, ${d} wide, FFN ${ff}) starts from the teacher's token table and`,
    "first attention layer and was trained to give the teacher's vectors for the texts gitwhy embeds, by",
    'scripts/distil-embedding-model.mjs and scripts/distil-embedding-model.py in the gitwhy repository;',
    'its weights are quantised to int8 as the teacher\'s are. The Apache License 2.0 text is in LICENSE.',
    '',
  ].join('\n'))
  log(`wrote ${out} (onnx/model_quantized.onnx: ${(bytes.length / 1e6).toFixed(1)} MB)`)
}

if (step === 'corpus') await corpus()
else if (step === 'teacher') await teacher()
else await onnx()
