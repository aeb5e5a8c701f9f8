#!/usr/bin/env node
// A distilled student (scripts/distil-embedding-model.*; the bundled default, models/use-lite-small,
// when --student is not given) against its teacher, the bundled models/use-lite, issue 12:
//   - retrieval, no labels needed: each commit's subject must find its own body (subject and
//     sign-off trailers removed) among those of --count commits with a body of 12+ words; hit@1,
//     hit@10 and MRR for each model;
//   - fidelity: the student's cosine to the teacher's vector of the same text (subjects and
//     bodies), and how many of the teacher's 10 nearest bodies for a subject the student finds;
//   - the paraphrase of test/integration/search.test.ts: the rank of the commit it means among
//     that fixture's seven (the teacher puts it first);
//   - cost: texts per CPU-second of embed() in this process (one thread), tokenizer included.
//
//   npm run build && node bench/embed-student.mjs [--student DIR] REPO[@SKIP] [REPO[@SKIP] ...] [--count 2000] [--json]
//
// REPO@SKIP starts SKIP commits back (texts the distillation did not read: it took the newest
// 40,000 messages of each repository it was given).
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { ROOT } from './lib.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback)
const repos = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'))
const count = Number(opt('count', 2000))
const json = args.includes('--json')
if (repos.length === 0) {
  process.stderr.write('usage: node bench/embed-student.mjs [--student DIR] REPO[@SKIP] [...] [--count 2000] [--json]\n')
  process.exit(1)
}

const model = await import(join(ROOT, 'dist/embed/model.js'))
// the default model (the bundled student) unless a folder is named
const studentDir = opt('student', model.BUNDLED_MODEL_ID)
const { embeddingInput } = await import(join(ROOT, 'dist/embed/docs.js'))

const pairs = []
for (const spec of repos) {
  const [repo, skip = '0'] = spec.split('@')
  const log = execFileSync('git', ['log', '--no-merges', '--skip', skip, '-n', String(count * 3), '--format=%s%x00%b%x01'], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 28 })
  for (const record of log.split('\x01')) {
    const [subject, rawBody = ''] = record.replace(/^\n/, '').split('\x00')
    const body = rawBody.replace(/^[ \t]*[\w-]+-by:.*$/gim, '').trim()
    if (subject && body.split(/\s+/).length >= 12) pairs.push([embeddingInput(subject), embeddingInput(body.slice(0, 1000))])
  }
}
const texts = pairs.slice(0, count)
const dot = (a, b) => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}

// test/integration/search.test.ts's history (the secret already redacted) and its paraphrase
const FIXTURE = ['Show a friendly message when the disk is full', 'Add the router', 'Update the copyright year in the license', 'Retry failed HTTP requests with exponential backoff', 'Memoize compiled route patterns\nThe router compiled every pattern on each request.', 'Add the deploy script\nUse GITHUB TOKEN=[redacted] and https: deployer:[redacted]@example test hook', 'Fix a typo in the contributing guide']
const PARAPHRASE = 'tell users clearly that no storage space remains'

async function vectorsOf(dir) {
  if (dir) process.env[model.MODEL_ENV] = dir
  else delete process.env[model.MODEL_ENV]
  model.resetEmbeddingModel()
  await model.embed(['warm up'])
  const cpu = process.cpuUsage()
  const subjects = await model.embed(texts.map((p) => p[0]))
  const bodies = await model.embed(texts.map((p) => p[1]))
  const used = process.cpuUsage(cpu)
  const [query, ...fixture] = await model.embed([PARAPHRASE, ...FIXTURE])
  const paraphraseRank = 1 + fixture.filter((v) => dot(query, v) > dot(query, fixture[0])).length
  return { subjects, bodies, paraphraseRank, perCpuSecond: Math.round((2 * texts.length) / ((used.user + used.system) / 1e6)) }
}

function retrieval({ subjects, bodies }) {
  let hit1 = 0
  let hit10 = 0
  let mrr = 0
  for (let i = 0; i < texts.length; i++) {
    const own = dot(subjects[i], bodies[i])
    let rank = 1
    for (let j = 0; j < texts.length; j++) if (j !== i && dot(subjects[i], bodies[j]) > own) rank++
    if (rank === 1) hit1++
    if (rank <= 10) hit10++
    mrr += 1 / rank
  }
  const r = (x) => Number((x / texts.length).toFixed(3))
  return { hit1: r(hit1), hit10: r(hit10), mrr: r(mrr) }
}

const nearest = (query, all) => all.map((v, j) => [dot(query, v), j]).sort((a, b) => b[0] - a[0]).slice(0, 10).map(([, j]) => j)

const teacher = await vectorsOf('use-lite')
const student = await vectorsOf(studentDir)
const cosines = [...texts.keys()].flatMap((i) => [dot(student.subjects[i], teacher.subjects[i]), dot(student.bodies[i], teacher.bodies[i])]).sort((a, b) => a - b)
let overlap = 0
const queries = Math.min(texts.length, 500)
for (let i = 0; i < queries; i++) {
  const wanted = new Set(nearest(teacher.subjects[i], teacher.bodies))
  overlap += nearest(student.subjects[i], student.bodies).filter((j) => wanted.has(j)).length
}
const result = {
  pairs: texts.length,
  teacher: { ...retrieval(teacher), paraphrase_rank: teacher.paraphraseRank, texts_per_cpu_second: teacher.perCpuSecond },
  student: { ...retrieval(student), paraphrase_rank: student.paraphraseRank, texts_per_cpu_second: student.perCpuSecond },
  fidelity: {
    cosine_mean: Number((cosines.reduce((a, b) => a + b, 0) / cosines.length).toFixed(4)),
    cosine_p10: Number(cosines[Math.floor(cosines.length * 0.1)].toFixed(4)),
    nearest10_overlap: Number((overlap / queries / 10).toFixed(3)),
  },
}
if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
else {
  process.stdout.write(`${texts.length} subject → body pairs from ${repos.join(', ')}\n`)
  for (const name of ['teacher', 'student']) {
    const r = result[name]
    process.stdout.write(`  ${name.padEnd(8)} hit@1 ${r.hit1}  hit@10 ${r.hit10}  MRR ${r.mrr}  paraphrase rank ${r.paraphrase_rank} of ${FIXTURE.length}  ${r.texts_per_cpu_second} texts per CPU-second\n`)
  }
  const f = result.fidelity
  process.stdout.write(`  student vs teacher: cosine mean ${f.cosine_mean}, p10 ${f.cosine_p10}; ${Math.round(f.nearest10_overlap * 100)} % of the teacher's 10 nearest bodies\n`)
}
