#!/usr/bin/env node
// `gitwhy brief` through MCP (issue 15): warm latency of `rationale_brief`, computed and from the
// card cache, and the citation validity of the cards, checked against plain git.
//
//   node bench/brief.mjs <indexed-repo> [--cards N] [--seed S] [--fresh] [--json]
//
// Starts the built `gitwhy mcp --tools brief,explore` over stdio with the SDK's real Client,
// samples N symbols (functions, methods, classes outside tests, owning lines of at least two commits (blame); seeded),
// warms the server with one card of another symbol, then asks every card
// twice: the first call computes it (unless the cache in <repo>/.gitwhy/briefs/ already holds it:
// --fresh removes that directory first, so that every first call computes), the second reads the
// cache. Reports p50 / p95 / max of both.
//
// Citation validity: every citation of every line of the N cards, checked with git alone:
//   - a commit [a1b2c3d] exists and touches the target's file (`git log --follow -- FILE`); it
//     counts as touching the lines too when `git log -L START,END:FILE` lists it;
//   - a PR [PR #12] or issue [#34] is named (#12) by the message of a commit touching the file,
//     or of a merge whose merged side holds one;
//   - lines [L40-52] lie within the target's lines at HEAD, or are its doc comment right above
//     them; a decision id is in .gitwhy-decisions.jsonl.
// validity = valid citations / all citations. Build first; the repository needs `gitwhy analyze`.
// The cards are written to <repo>/.gitwhy/briefs/ as `gitwhy brief` writes them: bench a copy of a
// repository you do not want touched.

import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { benchArgs, mcpClient, percentiles, seededRandom } from './lib.mjs'

const { args, opt, repo, json } = benchArgs('node bench/brief.mjs <indexed-repo> [--cards N] [--seed S] [--fresh] [--json]')
const N = Number(opt('cards', 30))
const random = seededRandom(Number(opt('seed', 1)))
if (args.includes('--fresh')) rmSync(join(repo, '.gitwhy', 'briefs'), { recursive: true, force: true })

const gitText = (argv) => execFileSync('git', argv, { cwd: repo, maxBuffer: 512 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8')

const { client, timed } = await mcpClient(repo, 'brief,explore')
const rows = (
  await client.callTool({
    name: 'cypher',
    arguments: {
      statement:
        "MATCH (s:Symbol)-[:BLAMED_ON]->(c:Commit) WHERE s.kind IN ['function', 'method', 'class'] AND NOT s.id CONTAINS '~' AND NOT s.path CONTAINS '__tests__' AND NOT s.path CONTAINS '.spec.' AND NOT s.path CONTAINS '.test.' WITH s, count(DISTINCT c) AS owners WHERE owners >= 2 RETURN s.id AS id, s.path AS path ORDER BY id",
      max_rows: 100000,
    },
  })
).structuredContent.rows
const picked = []
const tried = new Set()
while (picked.length < N + 1 && tried.size < rows.length) {
  const row = rows[Math.floor(random() * rows.length)]
  if (tried.has(row.id)) continue
  tried.add(row.id)
  picked.push(row)
}
const [warm, ...targets] = picked
const call = async (target) => {
  const t0 = performance.now()
  const r = await client.callTool({ name: 'rationale_brief', arguments: { target } })
  const ms = performance.now() - t0
  if (r.isError) throw new Error(`rationale_brief ${target}: ${r.content?.[0]?.text}`)
  return { ms, card: r.structuredContent }
}
await timed('ping', {})
await call(warm.id)
const first = []
const second = []
const cards = []
let computed = 0
for (const t of targets) {
  const a = await call(t.id)
  first.push(a.ms)
  if (!a.card.card?.cached) computed++
  cards.push(a.card)
}
for (const t of targets) second.push((await call(t.id)).ms)
await client.close()

// ---------------------------------------------------------------- citation validity, by git
const fileCommits = new Map()
const commitsOf = (path) => {
  if (!fileCommits.has(path)) {
    const shas = new Set()
    const numbers = new Set()
    for (const rec of gitText(['log', '--follow', '--format=%x1e%H%x1f%B', '--', path]).split('\x1e')) {
      const [sha, body] = rec.split('\x1f')
      if (!sha?.trim()) continue
      shas.add(sha.trim())
      for (const m of (body ?? '').matchAll(/#(\d+)/g)) numbers.add(Number(m[1]))
    }
    fileCommits.set(path, { shas, numbers })
  }
  return fileCommits.get(path)
}
const lineCommits = (path, start, end) => new Set(gitText(['log', '-L', `${start},${end}:${path}`, '-s', '--format=%H']).split('\n').filter(Boolean))
const fullSha = new Map()
const resolve = (ref) => {
  if (!fullSha.has(ref)) {
    try {
      fullSha.set(ref, gitText(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).trim())
    } catch {
      fullSha.set(ref, null)
    }
  }
  return fullSha.get(ref)
}
let merges = null
/** PR/issue numbers named by merges whose merged side holds a commit of the file. */
const mergedNumbers = (path) => {
  merges ??= gitText(['log', '--merges', '--format=%x1e%H %P%x1f%B'])
    .split('\x1e')
    .filter((r) => r.trim())
    .map((r) => {
      const [head, body] = r.split('\x1f')
      const [sha, p1, p2] = head.trim().split(' ')
      return { sha, p1, p2, numbers: [...(body ?? '').matchAll(/#(\d+)/g)].map((m) => Number(m[1])) }
    })
  return (n) => {
    const { shas } = commitsOf(path)
    return merges.some((m) => m.numbers.includes(n) && m.p2 && gitText(['rev-list', `${m.p1}..${m.p2}`]).split('\n').some((s) => shas.has(s)))
  }
}
const decisions = existsSync(join(repo, '.gitwhy-decisions.jsonl')) ? readFileSync(join(repo, '.gitwhy-decisions.jsonl'), 'utf8') : ''
const tally = { all: 0, valid: 0, lines_level: 0, commits: 0, by_kind: {} }
const invalid = []
for (const card of cards) {
  const t = card.target
  const fileLines = gitText(['show', `HEAD:${t.path}`]).split('\n').length
  const touching = lineCommits(t.path, t.line_start, t.line_end)
  const { shas, numbers } = commitsOf(t.path)
  const kindOf = new Map((card.citations ?? []).map((c) => [c.ref, c.kind]))
  for (const s of card.sections) {
    for (const l of s.lines ?? []) {
      for (const ref of l.citations ?? []) {
        const kind = kindOf.get(ref) ?? (/^L\d/.test(ref) ? 'lines' : /^PR #/.test(ref) ? 'pr' : /^#\d/.test(ref) ? 'issue' : /^[0-9a-f]{7,40}$/.test(ref) ? 'commit' : 'decision')
        let ok = false
        if (kind === 'commit') {
          const sha = resolve(ref)
          ok = sha !== null && shas.has(sha)
          tally.commits++
          if (sha && touching.has(sha)) tally.lines_level++
        } else if (kind === 'pr' || kind === 'issue') {
          const n = Number(ref.replace(/^PR #|^#/, ''))
          ok = numbers.has(n) || mergedNumbers(t.path)(n)
        } else if (kind === 'lines') {
          const [a, b] = ref.slice(1).split('-').map(Number)
          const end = b ?? a
          // within the target's lines, or its doc comment right above them (decorators between allowed)
          ok = a >= 1 && end >= a && end <= fileLines && ((a >= t.line_start && end <= t.line_end) || (end < t.line_start && end >= t.line_start - 3))
        } else ok = decisions.includes(`"${ref}"`)
        tally.all++
        if (ok) tally.valid++
        else invalid.push(`${t.path}:${t.line_start}-${t.line_end} [${s.id}] ${ref}: ${l.text.slice(0, 120)}`)
        const k = (tally.by_kind[kind] ??= { all: 0, valid: 0 })
        k.all++
        if (ok) k.valid++
      }
    }
  }
}

const out = {
  repo,
  cards: cards.length,
  computed_first: computed,
  warm_first: percentiles(first),
  warm_cached: percentiles(second),
  citations: tally.all,
  valid: tally.valid,
  validity: +(tally.valid / Math.max(1, tally.all)).toFixed(4),
  commit_citations_touching_the_lines: +(tally.lines_level / Math.max(1, tally.commits)).toFixed(4),
  by_kind: tally.by_kind,
  invalid: invalid.slice(0, 20),
}
if (json) console.log(JSON.stringify(out, null, 2))
else {
  console.log(`${repo}: ${cards.length} cards (${computed} computed on the first call), warm, through MCP`)
  console.log(`  first call   p50 ${out.warm_first.p50} ms  p95 ${out.warm_first.p95} ms  max ${out.warm_first.max} ms`)
  console.log(`  cached       p50 ${out.warm_cached.p50} ms  p95 ${out.warm_cached.p95} ms  max ${out.warm_cached.max} ms`)
  console.log(`  citation validity ${(out.validity * 100).toFixed(1)} % (${out.valid}/${out.citations}); commits touching the very lines ${(out.commit_citations_touching_the_lines * 100).toFixed(1)} %`)
  for (const [k, v] of Object.entries(out.by_kind)) console.log(`    ${k.padEnd(9)} ${v.valid}/${v.all}`)
  for (const i of out.invalid) console.log(`  invalid: ${i}`)
}
