#!/usr/bin/env node
// What `gitwhy enrich` costs against a GitHub that holds 1,000 pull requests (issue 15): a throwaway
// repository of 1,000 commits (half squash commits naming their PR "(#N)", half naming none: those
// are found by the PR's merge_commit_sha), 300 issues (200 named by the commits), 300 review
// comments, served by the fake GitHub REST API of the tests (test/helpers/fake-github.mjs, on
// 127.0.0.1). Prints, for each run of `gitwhy enrich --json` as a process:
//
//   first   requests made against the items fetched, and the wall time (the index update included)
//   again   the same with nothing changed on the forge (every page answers 304)
//   resume  a second repository's first run stopped after --limit K requests, then run again:
//           the pages the second run fetched again (must be 0) and the requests both made
//
//   node bench/enrich.mjs [--prs 1000] [--issues 300] [--comments 300] [--json]
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { issueJson, pullJson, reviewCommentJson, startFakeGitHub } from '../test/helpers/fake-github.mjs'
import { BIN } from './lib.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? Number(args[i + 1]) : fallback
}
const PRS = opt('prs', 1000)
const ISSUES = opt('issues', 300)
const COMMENTS = opt('comments', 300)
const json = args.includes('--json')
const log = (m) => process.stderr.write(`${m}\n`)
const o = { owner: 'bench', repo: 'widget' }
const FILES = 50
const at = (n) => new Date(Date.UTC(2024, 0, 1) + n * 3600_000).toISOString().replace('.000Z', 'Z')

const tmp = mkdtempSync(join(tmpdir(), 'gitwhy-bench-enrich-'))
const env = { ...process.env, HOME: tmp, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GH_TOKEN: '', GITHUB_TOKEN: '' }
const git = (cwd, a, input) => execFileSync('git', a, { cwd, env, input, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['pipe', 'pipe', 'pipe'] })

/** The history, written by git fast-import: commit n appends a line to one of FILES files. */
function makeRepo(dir) {
  git(tmp, ['init', '-q', '-b', 'main', dir])
  git(dir, ['remote', 'add', 'origin', `https://github.com/${o.owner}/${o.repo}.git`])
  const files = Array.from({ length: FILES }, () => [])
  let stream = ''
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`
  for (let n = 1; n <= PRS; n++) {
    const f = n % FILES
    files[f].push(`export const v${n} = ${n} // change ${n}`)
    const refs = n <= ISSUES && n % 3 !== 0 ? `\n\nFixes #${100_000 + n}` : ''
    const message = n % 2 === 1 ? `Change ${n} (#${n})${refs}` : `Change ${n}${refs}`
    const when = 1_704_067_200 + n * 3600
    stream += `commit refs/heads/main\nmark :${n}\nauthor Bench <bench@example.invalid> ${when} +0000\ncommitter Bench <bench@example.invalid> ${when} +0000\n${data(message)}`
    if (n > 1) stream += `from :${n - 1}\n`
    stream += `M 100644 inline src/f${f}.ts\n${data(files[f].join('\n') + '\n')}`
  }
  git(dir, ['fast-import', '--quiet'], stream)
  git(dir, ['checkout', '-q', 'main'])
  return git(dir, ['rev-list', '--reverse', 'main']).trim().split('\n')
}

function forge(shas) {
  const pulls = []
  for (let n = 1; n <= PRS; n++) {
    const body = `<!-- template -->\n## Why\n\nChange ${n} keeps the value table in step with the ${n % 7 === 0 ? 'exporter' : 'importer'}, which read stale values before.\n\n- [x] tests`
    pulls.push(pullJson({ ...o, number: n, title: `Change ${n}: keep the value table in step`, body, merged_at: at(n), merge_commit_sha: shas[n - 1], created_at: at(n - 1), updated_at: at(n), labels: n % 4 === 0 ? ['bug'] : [] }))
  }
  const issues = []
  for (let k = 1; k <= ISSUES; k++) issues.push(issueJson({ ...o, number: 100_000 + k, title: `Values drift ${k}`, body: `The table drifts after import ${k}.`, state: 'closed', created_at: at(k), updated_at: at(k + 1) }))
  const comments = []
  for (let c = 1; c <= COMMENTS; c++) comments.push(reviewCommentJson({ ...o, id: 50_000 + c, pr: c % PRS || PRS, path: `src/f${(c % PRS) % FILES}.ts`, line: 1, body: `Is value ${c} right?`, created_at: at(c), updated_at: at(c) }))
  return { pulls, issues, comments }
}

/** `gitwhy enrich --json` as a process (asynchronously: the fake server answers from this one). */
async function enrich(dir, fake, extra = []) {
  const started = process.hrtime.bigint()
  const child = spawn(process.execPath, [BIN, 'enrich', '--json', ...extra], { cwd: dir, env: { ...env, GITHUB_TOKEN: fake.token, GITWHY_GITHUB_API_URL: fake.url }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d))
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d))
  const code = await new Promise((resolveCode) => child.on('close', resolveCode))
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  if (code !== 0) throw new Error(`gitwhy enrich exited ${code}: ${stderr}`)
  const result = JSON.parse(stdout)
  if (result.status === 'skipped') throw new Error(`gitwhy enrich skipped: ${result.notice}`)
  return { result, seconds }
}

const pageKey = (q) => `${q.path}?page=${q.query.page ?? ''}`

try {
  const repo = join(tmp, 'repo')
  log(`building ${PRS} commits…`)
  const shas = makeRepo(repo)
  const t0 = process.hrtime.bigint()
  const analyzed = spawnSync(process.execPath, [BIN, 'analyze', '--quiet'], { cwd: repo, env, encoding: 'utf8' })
  const analyzedSeconds = Number(process.hrtime.bigint() - t0) / 1e9
  if (analyzed.status !== 0) throw new Error(analyzed.stderr)
  // the same repository indexed again, for the interrupted run (its copied index is verified first: not built there)
  const second = join(tmp, 'second')
  cpSync(repo, second, { recursive: true })
  const verified = spawnSync(process.execPath, [BIN, 'analyze', '--quiet'], { cwd: second, env, encoding: 'utf8' })
  if (verified.status !== 0) throw new Error(verified.stderr)
  const fake = await startFakeGitHub({ ...o, ...forge(shas) })

  log(`first run (analyze took ${analyzedSeconds.toFixed(1)} s)…`)
  let from = fake.requests.length
  const first = await enrich(repo, fake)
  const firstRequests = fake.since(from)
  const items = first.result.cache.pull_requests + first.result.cache.issues + first.result.cache.review_comments

  log('again, nothing changed…')
  from = fake.requests.length
  const again = await enrich(repo, fake)
  const againRequests = fake.since(from)

  log('interrupted, then resumed…')
  const pages = firstRequests.filter((q) => q.status === 200).length
  const limit = Math.max(1, Math.floor(pages / 2))
  from = fake.requests.length
  const cut = await enrich(second, fake, ['--limit', String(limit)])
  const cutRequests = fake.since(from)
  from = fake.requests.length
  const resumed = await enrich(second, fake)
  const resumedRequests = fake.since(from)
  const fetchedBefore = new Set(cutRequests.filter((q) => q.status === 200).map(pageKey))
  // a page asked again at all (a 304 included)
  const refetched = resumedRequests.filter((q) => fetchedBefore.has(pageKey(q))).length
  await fake.close()

  const out = {
    prs: PRS,
    issues: ISSUES,
    review_comments: COMMENTS,
    first: { requests: firstRequests.length, items, items_per_request: +(items / firstRequests.length).toFixed(1), seconds: +first.seconds.toFixed(2), fetch_s: first.result.timings.fetch_ms / 1000, index_s: first.result.timings.index_ms / 1000, index: first.result.index?.mode ?? null, cache: first.result.cache },
    again: { requests: againRequests.length, not_modified: againRequests.filter((q) => q.status === 304).length, seconds: +again.seconds.toFixed(2), status: again.result.status },
    resume: {
      limit,
      stopped: { status: cut.result.status, requests: cutRequests.length },
      resumed: { status: resumed.result.status, requests: resumedRequests.length, not_modified: resumedRequests.filter((q) => q.status === 304).length },
      refetched,
      same_cache: JSON.stringify({ ...resumed.result.cache, enriched_at: null }) === JSON.stringify({ ...first.result.cache, enriched_at: null }),
    },
  }
  if (json) process.stdout.write(JSON.stringify(out, null, 2) + '\n')
  else {
    const f = out.first
    console.log(`gitwhy enrich against a fake GitHub: ${PRS} PRs, ${ISSUES} issues, ${COMMENTS} review comments; ${PRS} commits (${PRS / 2} name their PR, ${PRS / 2} only its merge commit)`)
    console.log(`  first   ${f.requests} requests for ${items} items kept (${f.cache.pull_requests} PRs, ${f.cache.issues} issues, ${f.cache.review_comments} review comments; ${f.items_per_request} per request), ${f.seconds} s as a process: fetching ${f.fetch_s} s, the index update (${f.index}) ${f.index_s} s`)
    console.log(`  again   ${out.again.requests} requests, ${out.again.not_modified} answered 304, ${out.again.seconds} s (${out.again.status})`)
    console.log(`  resume  stopped after ${out.resume.stopped.requests} requests (--limit ${limit}, ${out.resume.stopped.status}); the next run made ${out.resume.resumed.requests} and fetched ${refetched} pages again; cache equal to an uninterrupted run's: ${out.resume.same_cache}`)
  }
  if (refetched !== 0) process.exitCode = 1
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
