// The bundled conversion of the teacher (models/use-lite; GITWHY_EMBED_MODEL picks another) against the teacher itself (issue 12): cosine of gitwhy's embed() to the
// TF.js Universal Sentence Encoder lite on real commit subjects, token agreement of the two
// tokenizers, throughput of both, and the model's cold start in a fresh process.
//
//   npm run build && node bench/embed-model.mjs [REPO] [--count 500] [--json]
//
// REPO is any git repository (default /work/bench-repos/core); its last --count subjects are
// embedded. Needs the devDependencies (@energetic-ai/*) for the teacher.
import { execFileSync, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { ROOT } from './lib.mjs'
import { teacherEmbed, teacherTokens } from '../scripts/teacher-embeddings.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback)
const repo = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? '/work/bench-repos/core'
const count = Number(opt('count', 500))
const json = args.includes('--json')

const subjects = execFileSync('git', ['-C', repo, 'log', '--format=%s', `-${count}`], { encoding: 'utf8', maxBuffer: 1 << 28 })
  .split('\n')
  .filter((s) => s.trim() !== '')

// the teacher's conversion, models/use-lite (the default model is its distilled student)
process.env.GITWHY_EMBED_MODEL ??= 'use-lite'
const model = await import(join(ROOT, 'dist/embed/model.js'))
const { AutoTokenizer } = await import('@huggingface/transformers')
const info = await model.embeddingModelInfo()

// tokenizers: transformers.js reading tokenizer.json vs the teacher's own SentencePiece code
const tokenizer = await AutoTokenizer.from_pretrained(info.dir, { local_files_only: true })
const differ = []
for (const s of subjects) {
  const want = await teacherTokens(s)
  const got = tokenizer.encode(s, { add_special_tokens: false })
  if (want.join() !== got.join()) differ.push(s)
}

// wall time, and CPU time of the whole process (onnxruntime's threads included): on a shared
// machine the wall time depends on the neighbours, the CPU time much less
const time = async (fn) => {
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  const result = await fn()
  const c = process.cpuUsage(c0)
  return { result, ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 }
}
const teacher = await time(() => teacherEmbed(subjects, 32))
await model.embed(subjects.slice(0, 64)) // warm
const student = await time(() => model.embed(subjects))

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0)
const cosines = subjects.map((_, i) => dot(teacher.result[i], student.result[i]))
const sameTokens = cosines.filter((_, i) => !differ.includes(subjects[i]))
const stats = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return {
    n: xs.length,
    min: sorted[0],
    p1: sorted[Math.floor(sorted.length * 0.01)],
    mean: xs.reduce((a, b) => a + b, 0) / xs.length,
    below_0999: xs.filter((c) => c < 0.999).length,
  }
}
const tokensPerText = subjects.reduce((n, s) => n + tokenizer.encode(s, { add_special_tokens: false }).length, 0) / subjects.length

// cold start: a fresh process imports the module and embeds one text
const cold = spawnSync(process.execPath, ['--input-type=module', '-e', `
  const t0 = performance.now()
  const m = await import(${JSON.stringify(join(ROOT, 'dist/embed/model.js'))})
  const t1 = performance.now()
  await m.embed(['warm up'])
  const t2 = performance.now()
  process.stdout.write(JSON.stringify({ import_ms: t1 - t0, first_embed_ms: t2 - t1 }))
`], { encoding: 'utf8' })
const coldStart = JSON.parse(cold.stdout)

const report = {
  repo,
  model: { id: info.id, dir: info.dir, hash: info.hash.slice(0, 16) },
  texts: subjects.length,
  tokens_per_text: Math.round(tokensPerText * 10) / 10,
  tokenizer_disagreements: differ.length,
  cosine_all: stats(cosines),
  cosine_same_tokens: stats(sameTokens),
  teacher_per_s: Math.round((subjects.length / teacher.ms) * 1000),
  teacher_per_cpu_s: Math.round((subjects.length / teacher.cpuMs) * 1000),
  embed_per_s: Math.round((subjects.length / student.ms) * 1000),
  embed_per_cpu_s: Math.round((subjects.length / student.cpuMs) * 1000),
  load_average: (await import('node:os')).loadavg()[0],
  cold_start: coldStart,
}
if (json) process.stdout.write(JSON.stringify(report, null, 2) + '\n')
else {
  const f = (s) => `min ${s.min.toFixed(5)}  p1 ${s.p1.toFixed(5)}  mean ${s.mean.toFixed(6)}  below 0.999: ${s.below_0999}/${s.n}`
  console.log(`${report.texts} subjects of ${repo}, ${report.tokens_per_text} tokens each on average; model ${info.id} (${report.model.hash})`)
  console.log(`tokenizer disagrees with the teacher on ${differ.length}${differ.length ? `: ${differ.slice(0, 3).map((s) => JSON.stringify(s)).join(', ')}` : ''}`)
  console.log(`cosine to the teacher, all texts:         ${f(report.cosine_all)}`)
  console.log(`cosine to the teacher, same tokenisation: ${f(report.cosine_same_tokens)}`)
  console.log(`throughput: teacher (TF.js wasm, batch 32) ${report.teacher_per_s}/s, embed() ${report.embed_per_s}/s (load average ${report.load_average.toFixed(1)})`)
  console.log(`per CPU-second: teacher ${report.teacher_per_cpu_s}, embed() ${report.embed_per_cpu_s}`)
  console.log(`cold start: import ${coldStart.import_ms.toFixed(0)} ms, first embed (loads the model) ${coldStart.first_embed_ms.toFixed(0)} ms`)
}
