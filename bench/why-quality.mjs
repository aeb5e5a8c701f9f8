#!/usr/bin/env node
// gitwhy why, answer quality and latency on a committed question set (issue 12, "Quality").
//
//   node bench/why-quality.mjs <indexed-repo> <bench/questions/NAME.json> [--modes hybrid,bm25,vector] [--check] [--json]
//
// Each question is written about the code at the set's `head`, answered by a known commit
// (`answer`, a SHA prefix), and paraphrased so that it shares no distinctive word with that
// commit's message. The script first checks that: the question's words (split as the search index
// splits them, stop words out) against the commit's subject and body, a shared stem counted as
// shared ("caching" = "cache"); a word is distinctive when fewer than 5 % of the repository's
// commit messages hold it. `--check` stops there.
//
// Then it starts the built `gitwhy mcp` over stdio (the SDK's real client), asks `why` each
// question once per mode (search hybrid, bm25, vector; the index needs `analyze --embeddings`
// for the last two) and scores the answer's commit citations, in their order: hit@1, hit@5 and
// MRR (1/rank of the answer among them, 0 when absent), and `located`: the share of questions whose
// answer is about the set's `about` code (its file, and its symbol when it names one). Latency: every call after the first of
// each mode (the first loads the embedding model), p50 / p95. `target_given` scores the ranking
// alone: `why` on the code the question is about (the set's `about`), no question, no search.
//
// The plain-git baseline, what someone without gitwhy would run:
//   1. `git log -i -E --grep=W1 --grep=W2 …` with the question's words (ORed, as git does with
//      several --grep), ranked by how many distinct question words the message holds, ties in
//      git's order (newest first);
//   2. `git log --no-patch -L START,END:PATH` on the range bm25 located (the `why --mode bm25`
//      answer's target), or, when it located none, on the whole of the first file the best grep hit
//      touched that exists at HEAD; newest first, as git prints it;
//   the baseline's list is (1) then the commits of (2) not already in it.

import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { benchArgs, mcpClient, percentiles, ROOT } from './lib.mjs'

const { args, opt, repo, json } = benchArgs('node bench/why-quality.mjs <indexed-repo> <questions.json> [--modes hybrid,bm25,vector] [--check] [--json]')
const setPath = args.find((a) => a.endsWith('.json'))
if (!setPath) {
  process.stderr.write('usage: node bench/why-quality.mjs <indexed-repo> <questions.json> [--modes hybrid,bm25,vector] [--check] [--json]\n')
  process.exit(1)
}
const set = JSON.parse(readFileSync(setPath, 'utf8'))
const MODES = String(opt('modes', 'hybrid,bm25,vector')).split(',')
const { identifierWords } = await import(join(ROOT, 'dist/codegraph/search-text.js'))

const git = (...a) => execFileSync('git', a, { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 30 })
const STOP = new Set('a an and are as at be but by can does do for from has have how if in into is it its not of on or so such that the their then there these they this to was were what when where which who why will with would should could we our you your i me my one two'.split(' '))
const words = (text) => [...new Set(identifierWords(text).split(' '))].filter((w) => w.length >= 3 && !STOP.has(w) && !/^\d+$/.test(w))
const stem = (w) => w.replace(/(?:ing|ed|es|s|er|ion|ions|ly)$/, '').replace(/e$/, '')
const same = (a, b) => a === b || (Math.min(a.length, b.length) >= 4 && stem(a) === stem(b))

// --- lexical overlap with the answer's message ------------------------------------------------
const messages = git('log', '--format=%B%x00').split('\0').map((m) => new Set(words(m)))
const df = (w) => messages.filter((m) => [...m].some((x) => same(x, w))).length / messages.length
const DISTINCTIVE = 0.05
const dfMemo = new Map()
const distinctive = (w) => {
  if (!dfMemo.has(w)) dfMemo.set(w, df(w) < DISTINCTIVE)
  return dfMemo.get(w)
}
const questions = set.questions.map((q) => {
  const sha = git('rev-parse', '--verify', `${q.answer}^{commit}`).trim()
  const message = words(git('log', '-1', '--format=%B', sha))
  const shared = words(q.question).filter((w) => message.some((m) => same(m, w)))
  return { ...q, sha, shared, distinctive_shared: shared.filter(distinctive) }
})
const overlapping = questions.filter((q) => q.distinctive_shared.length > 0)
const overlap = {
  questions: questions.length,
  sharing_any_word: questions.filter((q) => q.shared.length > 0).length,
  sharing_distinctive_word: overlapping.length,
  offenders: overlapping.map((q) => ({ id: q.id, words: q.distinctive_shared })),
}
if (args.includes('--check')) {
  console.log(JSON.stringify(overlap, null, 2))
  process.exit(overlapping.length ? 1 : 0)
}

// --- why through MCP ----------------------------------------------------------------------------
const { client } = await mcpClient(repo, 'history')
const rankOf = (shas, sha) => {
  const i = shas.findIndex((s) => s === sha)
  return i < 0 ? null : i + 1
}
const score = (ranks) => ({
  hit1: +(ranks.filter((r) => r === 1).length / ranks.length).toFixed(3),
  hit5: +(ranks.filter((r) => r !== null && r <= 5).length / ranks.length).toFixed(3),
  mrr: +(ranks.reduce((s, r) => s + (r ? 1 / r : 0), 0) / ranks.length).toFixed(3),
})
const results = {}
const located = new Map()
const perQuestion = questions.map((q) => ({ id: q.id, answer: q.sha.slice(0, 7), ranks: {} }))
// whether `why` located the code the question is about (`about`: PATH, or PATH and a symbol's name)
const isAbout = (target, about) => {
  const [path, symbol] = about.split(' ')
  const name = target?.symbol?.qualified_name ?? ''
  return target?.path === path && (!symbol || name === symbol || name.endsWith(`.${symbol}`))
}
for (const mode of MODES) {
  const ranks = []
  const times = []
  let found = 0
  for (const [i, q] of questions.entries()) {
    const t0 = performance.now()
    const r = await client.callTool({ name: 'why', arguments: { target: q.question, mode, limit: 10 } })
    const ms = performance.now() - t0
    if (r.isError) throw new Error(`why ${JSON.stringify(q.question)} (${mode}): ${r.content?.[0]?.text}`)
    if (i > 0) times.push(ms)
    const d = r.structuredContent
    const rank = rankOf(d.citations.filter((c) => c.kind === 'commit').map((c) => c.sha), q.sha)
    ranks.push(rank)
    perQuestion[i].ranks[mode] = rank
    if (mode === 'bm25' && d.target) located.set(q.id, d.target)
    if (isAbout(d.target, q.about)) found++
  }
  results[mode] = { ...score(ranks), located: +(found / questions.length).toFixed(3), latency: percentiles(times) }
}
// the ranking alone, the location given: `why` on the code the question is about (`about`: PATH or PATH Symbol)
{
  const ranks = []
  for (const [i, q] of questions.entries()) {
    const [path, symbol] = q.about.split(' ')
    const r = await client.callTool({ name: 'why', arguments: { target: symbol ? `${path}:${symbol}` : path, limit: 10 } })
    if (r.isError) throw new Error(`why ${q.about}: ${r.content?.[0]?.text}`)
    const rank = rankOf(r.structuredContent.citations.filter((c) => c.kind === 'commit').map((c) => c.sha), q.sha)
    ranks.push(rank)
    perQuestion[i].ranks.target = rank
  }
  results.target_given = score(ranks)
}
await client.close()

// --- the plain-git baseline ---------------------------------------------------------------------
const escape = (w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const baseline = { grep: [], lineLog: [], combined: [] }
for (const [i, q] of questions.entries()) {
  const ws = words(q.question)
  const hits = ws.length === 0 ? [] : git('log', '-i', '-E', ...ws.map((w) => `--grep=${escape(w)}`), '--format=%H%x00%B%x01').split('\x01').map((s) => s.trim()).filter(Boolean)
  const grep = hits
    .map((h, order) => {
      const [sha, message] = h.split('\0')
      const lower = message.toLowerCase()
      return { sha, order, n: ws.filter((w) => lower.includes(w)).length }
    })
    .sort((a, b) => b.n - a.n || a.order - b.order)
    .map((h) => h.sha)
  let range = located.get(q.id)
  if (!range && grep[0]) {
    const touched = git('show', '--no-renames', '--name-only', '--format=', grep[0]).split('\n').filter(Boolean)
    const atHead = touched.find((p) => git('ls-tree', 'HEAD', '--', p).trim() !== '')
    if (atHead) range = { path: atHead, line_start: 1, line_end: git('show', `HEAD:${atHead}`).split('\n').length - 1 }
  }
  const lineLog = range && range.line_end >= range.line_start ? git('log', '--no-patch', '--format=%H', '-L', `${range.line_start},${range.line_end}:${range.path}`).split('\n').filter(Boolean) : []
  const combined = [...grep, ...lineLog.filter((s) => !grep.includes(s))]
  baseline.grep.push(rankOf(grep, q.sha))
  baseline.lineLog.push(rankOf(lineLog, q.sha))
  baseline.combined.push(rankOf(combined, q.sha))
  perQuestion[i].ranks.git = rankOf(combined, q.sha)
}
results.git_baseline = { ...score(baseline.combined), grep_only: score(baseline.grep), log_L_only: score(baseline.lineLog) }

const out = { repo, set: setPath, head: git('rev-parse', 'HEAD').trim(), expected_head: set.head, questions: questions.length, overlap, results, per_question: perQuestion }
if (json) console.log(JSON.stringify(out, null, 2))
else {
  console.log(`${repo}: ${questions.length} questions (${overlap.sharing_distinctive_word} share a distinctive word with their answer, ${overlap.sharing_any_word} share any word)`)
  for (const [name, r] of Object.entries(results)) {
    console.log(`  ${name.padEnd(13)} hit@1 ${r.hit1.toFixed(2)}  hit@5 ${r.hit5.toFixed(2)}  MRR ${r.mrr.toFixed(2)}${r.located !== undefined ? `  located ${r.located.toFixed(2)}` : ''}${r.latency ? `  warm p50 ${r.latency.p50} ms  p95 ${r.latency.p95} ms` : ''}`)
  }
  const g = results.git_baseline
  console.log(`  (git: grep only hit@5 ${g.grep_only.hit5.toFixed(2)} MRR ${g.grep_only.mrr.toFixed(2)}; log -L only hit@5 ${g.log_L_only.hit5.toFixed(2)} MRR ${g.log_L_only.mrr.toFixed(2)})`)
}
