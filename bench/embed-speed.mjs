// How fast analyze embeds (issue 12: ≥ 2,000 summaries per second on 2 cores): the search
// documents of an indexed repository (its Doc texts: symbol summaries, commit messages, PR and
// issue titles, as analyze builds them), each distinct text once, embedded
//   - by embed() in this process (one model session, one thread): texts per CPU-second, and the
//     share of it the tokenizer takes;
//   - by analyze's DocEmbedder (src/embed/vectors.ts: one worker per core, up to 2): texts per
//     second on the machine, the number the budget is about.
// With --index, also the HNSW build of analyze (src/graph/schema.ts) on these vectors: its time,
// and recall@10 against exact search for queries between two documents.
//
//   npm run build && node bench/embed-speed.mjs REPO [--limit N] [--index] [--bot-bodies] [--test-symbols] [--short-texts] [--json]
//
// REPO must be indexed (`gitwhy analyze`); embeddings need not be on. On a shared machine the
// wall time depends on the neighbours: the load average is printed beside it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { benchArgs, ROOT } from './lib.mjs'

const { opt, repo, json, args } = benchArgs('node bench/embed-speed.mjs REPO [--limit N] [--index] [--bot-bodies] [--test-symbols] [--short-texts] [--json]')
const limit = Number(opt('limit', 0))

const { cypher } = await import(join(ROOT, 'dist/services/cypher.js'))
const model = await import(join(ROOT, 'dist/embed/model.js'))
const { embeddingInput, inputHash, tooShort } = await import(join(ROOT, 'dist/embed/docs.js'))
const { DocEmbedder, VectorCache } = await import(join(ROOT, 'dist/embed/vectors.js'))

const rows = (await cypher({ repo, statement: 'MATCH (d:Doc) RETURN d.kind AS kind, d.ref AS ref, d.path AS path, d.title AS title, d.text AS text ORDER BY d.row', maxRows: 0 })).rows
// a bot's commit is embedded by its subject, a test file's symbol not at all (src/embed/docs.ts);
// messages of fewer than three words not at all; --bot-bodies, --test-symbols, --short-texts: as before 2026-11-28
const { isBot } = await import(join(ROOT, 'dist/history/categorize.js'))
const { isTestPath } = await import(join(ROOT, 'dist/parse/classify.js'))
const testSymbols = args.includes('--test-symbols')
const shortTexts = args.includes('--short-texts')
const authors = (await cypher({ repo, statement: 'MATCH (c:Commit) RETURN c.sha AS sha, c.author_name AS name, c.author_email AS email', maxRows: 0 })).rows
const bots = new Set(args.includes('--bot-bodies') ? [] : authors.filter((a) => isBot(a.name, a.email)).map((a) => a.sha))
// what analyze gives the model (src/embed/docs.ts): a symbol's own text and its owners' subjects
// (its summary's last lines that are commit subjects), every other document's text whole; each
// input once
const subjects = new Set(rows.filter((r) => r.kind === 'commit').map((r) => r.text.split('\n')[0].trim()))
const inputsOf = (d) => {
  if (d.kind === 'symbol' && !testSymbols && isTestPath(d.path)) return []
  if (d.kind !== 'symbol') {
    const input = d.kind === 'commit' && bots.has(d.ref) ? embeddingInput(d.title) : embeddingInput(d.text)
    return !shortTexts && tooShort(input) ? [] : [input]
  }
  const lines = d.text.split('\n')
  let own = lines.length
  while (own > 1 && subjects.has(lines[own - 1].trim())) own--
  return [lines.slice(0, own).join('\n'), ...lines.slice(own)].map(embeddingInput)
}
const seen = new Set()
const docs = rows
  .flatMap((d) => inputsOf(d).map((input) => ({ kind: d.kind, input, hash: inputHash(input) })))
  .filter((d) => !seen.has(d.hash) && seen.add(d.hash))
  .slice(0, limit || undefined)
const inputs = docs.map((d) => d.input)

const cpuMs = () => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1000
}
const time = async (fn) => {
  const t0 = performance.now()
  const c0 = cpuMs()
  const result = await fn()
  return { result, ms: performance.now() - t0, cpuMs: cpuMs() - c0 }
}

await model.embed(['warm up']) // loads the model: not part of the rate
// the tokenizer embed() uses: src/embed/unigram.ts for the bundled models' kind, else transformers.js's
const { AutoTokenizer } = await import('@huggingface/transformers')
const { unigramTokenizer } = await import(join(ROOT, 'dist/embed/unigram.js'))
const modelDir = (await model.embeddingModelInfo()).dir
const tokenizer = await AutoTokenizer.from_pretrained(modelDir, { local_files_only: true })
const readJson = (file) => JSON.parse(readFileSync(join(modelDir, file), 'utf8'))
const unigram = unigramTokenizer(readJson('tokenizer.json'), readJson('tokenizer_config.json'), tokenizer.model_max_length)
const tokenizerName = unigram ? 'unigram.ts' : 'transformers.js'
const tokenized = await time(() => (unigram ? inputs.map(unigram) : tokenizer(inputs, { padding: false, truncation: true, return_tensor: false }).input_ids))
const tokens = tokenized.result.reduce((n, t) => n + t.length, 0)
const single = await time(() => model.embed(inputs))

// the analyze path: workers (their CPU time is this process's too), model loads included
const workers = await time(async () => {
  const embedder = new DocEmbedder(VectorCache.load(null, null))
  // each input as it is (a text given to add() would be read again: embeddingInput is not idempotent)
  embedder.add(docs.map((d) => ({ hash: d.hash, text: d.input, compose: { own: d.input, parts: [] } })))
  return embedder.finish()
})

const dot = (a, b) => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}
const agreement = Math.min(...docs.map((d, i) => dot(workers.result.get(d.hash), single.result[i])))

let index = null
if (args.includes('--index')) index = await hnsw(single.result)

const perKind = {}
docs.forEach((d, i) => {
  const k = (perKind[d.kind] ??= { texts: 0, tokens: 0 })
  k.texts++
  k.tokens += tokenized.result[i].length
})
const report = {
  repo,
  texts: docs.length,
  tokens,
  tokens_per_text: Math.round((tokens / docs.length) * 10) / 10,
  per_kind: Object.fromEntries(Object.entries(perKind).map(([k, v]) => [k, { texts: v.texts, tokens_per_text: Math.round((v.tokens / v.texts) * 10) / 10 }])),
  tokenizer: tokenizerName,
  tokenizer_per_cpu_s: Math.round((docs.length / tokenized.cpuMs) * 1000),
  embed_per_s: Math.round((docs.length / single.ms) * 1000),
  embed_per_cpu_s: Math.round((docs.length / single.cpuMs) * 1000),
  workers_per_s: Math.round((docs.length / workers.ms) * 1000),
  workers_per_cpu_s: Math.round((docs.length / workers.cpuMs) * 1000),
  workers_cpu_s: Math.round(workers.cpuMs / 100) / 10,
  workers_min_cosine_to_embed: Math.round(agreement * 1e6) / 1e6,
  load_average: Math.round(loadavg()[0] * 10) / 10,
  index,
}
if (json) process.stdout.write(JSON.stringify(report, null, 2) + '\n')
else {
  console.log(`${report.texts} distinct document texts of ${repo}, ${report.tokens} tokens, ${report.tokens_per_text} each (${Object.entries(report.per_kind).map(([k, v]) => `${k} ${v.texts} × ${v.tokens_per_text}`).join(', ')})`)
  console.log(`embed(), one thread: ${report.embed_per_s}/s, ${report.embed_per_cpu_s} per CPU-second (tokenizer alone, ${report.tokenizer}: ${report.tokenizer_per_cpu_s} per CPU-second)`)
  console.log(`analyze's workers: ${report.workers_per_s}/s, ${report.workers_per_cpu_s} per CPU-second, ${report.workers_cpu_s} CPU-s with the model loads; same vectors as embed() (min cosine ${report.workers_min_cosine_to_embed})`)
  console.log(`load average ${report.load_average}`)
  if (index) console.log(`HNSW build (${index.statement}): ${index.ms} ms wall, ${index.cpu_ms} CPU-ms; recall@10 ${index.recall_at_10} over ${index.queries} queries`)
}

/** The analyze's vector index on these vectors: build time and recall@10 against exact search. */
async function hnsw(vectors) {
  const { createVectorIndexStatement, VECTOR_INDEX } = await import(join(ROOT, 'dist/graph/schema.js'))
  const { CODE_QUERIES } = await import(join(ROOT, 'dist/graph/queries.js'))
  const kuzu = (await import('kuzu')).default
  const dims = vectors[0].length
  const dir = mkdtempSync(join(tmpdir(), 'gitwhy-bench-hnsw-'))
  const db = new kuzu.Database(join(dir, 'db'))
  const conn = new kuzu.Connection(db)
  const run = async (statement, params) => {
    const result = params ? await conn.execute(await conn.prepare(statement), params) : await conn.query(statement)
    const out = await result.getAll()
    result.close()
    return out
  }
  try {
    await run(`CREATE NODE TABLE ${VECTOR_INDEX.table}(row INT64, ${VECTOR_INDEX.column} FLOAT[${dims}], PRIMARY KEY (row))`)
    for (let i = 0; i < vectors.length; i += 500) {
      await run(`UNWIND $rows AS r CREATE (:${VECTOR_INDEX.table} {row: r.row, ${VECTOR_INDEX.column}: r.v})`, { rows: vectors.slice(i, i + 500).map((v, k) => ({ row: i + k, v: Array.from(v) })) })
    }
    const statement = createVectorIndexStatement()
    const built = await time(() => run(statement))
    // queries between two documents (exact neighbours are not the documents themselves)
    const queries = Array.from({ length: 50 }, (_, k) => {
      const [a, b] = [(k * 7919) % vectors.length, (k * 104729 + 17) % vectors.length]
      const q = vectors[a].map((x, j) => x + 0.7 * vectors[b][j])
      const n = Math.sqrt(dot(q, q))
      return q.map((x) => x / n)
    })
    let hits = 0
    for (const q of queries) {
      const exact = new Set(vectors.map((v, i) => [dot(q, v), i]).sort((x, y) => y[0] - x[0]).slice(0, 10).map(([, i]) => i))
      const found = await run(CODE_QUERIES.docNearest, { v: Array.from(q), top: 10 }) // search's own query
      hits += found.filter((r) => exact.has(Number(r.row))).length
    }
    return { statement: statement.replace(/^.*metric/, 'metric').replace(/\)$/, ''), ms: Math.round(built.ms), cpu_ms: Math.round(built.cpuMs), recall_at_10: hits / (queries.length * 10), queries: queries.length }
  } finally {
    await conn.close()
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
