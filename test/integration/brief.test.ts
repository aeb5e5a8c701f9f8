/**
 * `gitwhy brief` (issue 15) on a repository built to show it (test/helpers/scenarios.ts
 * briefScenario): a function whose origin commit (PR #12) states a constraint ("must … because …")
 * and a trade-off, a later change that explains itself, eight "wip" commits by one author within an
 * hour, a change that was reverted, and a TODO. The card names the origin, lists the constraint
 * with the right citation, folds the wips into one unit, flags the TODO and the revert; the second
 * call reads the cache; an LLM synthesizer (a tiny in-test one, no network) writes the sections it
 * answers and the card stays extractive when it declines; a new commit changes the fingerprint.
 * Then the CLI's --json and --all --community, and the MCP tool and prompt over a real stdio client.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { SynthesisRequest, Synthesizer } from '../../src/llm/types.js'
import { analyze } from '../../src/services/analyze.js'
import { brief, briefCommunity, briefWrites, type BriefResult } from '../../src/services/brief.js'
import { runCli, runJson, type CliOptions } from '../cli/cli.js'
import { briefScenario, briefSource } from '../helpers/scenarios.js'
import { connectStdio, structured, text } from '../mcp/client.js'

const short = (sha: string) => sha.slice(0, 7)
const section = (r: BriefResult, id: string) => r.sections.find((s) => s.id === id)!
const refsOf = (r: BriefResult) => r.sections.flatMap((s) => s.lines.flatMap((l) => l.citations))

describe('brief', () => {
  let s: ReturnType<typeof briefScenario>
  let opts: CliOptions
  let first: BriefResult

  beforeAll(async () => {
    s = briefScenario()
    opts = { cwd: s.repo.dir, env: { ...s.repo.env(), GITWHY_HOME: mkdtempSync(join(tmpdir(), 'gitwhy-brief-home-')) } }
    await analyze({ repo: s.repo.dir })
    first = await brief({ repo: s.repo.dir, target: 'chargeWithRetry', synthesizer: null })
  }, 120_000)
  afterAll(() => s?.cleanup())

  test('the card names the origin and its PR, lists the constraint and the trade-off with the right citations', () => {
    const r = first
    const origin = short(s.sha.origin)
    expect(r.target).toMatchObject({ path: 'src/payments.ts', line_start: 2, symbol: { qualified_name: 'chargeWithRetry', kind: 'function' } })
    expect(r.card).toMatchObject({ format: 1, cached: false, written_by: 'extractive', model: null, declined: null })
    expect(r.answer_id).toMatch(/^b-[0-9a-f]{12}$/)
    expect(r.sections.map((x) => x.id)).toEqual(['purpose', 'origin', 'changes', 'constraints', 'tradeoffs', 'risks', 'owners', 'decisions', 'questions'])
    // purpose: the signature and the doc comment, cited by their lines
    expect(section(r, 'purpose').lines[0]).toMatchObject({ citations: ['L2'] })
    expect(section(r, 'purpose').lines[0].text).toContain('function chargeWithRetry(charge: () => boolean): boolean')
    expect(section(r, 'purpose').lines[1]).toEqual({ text: 'Its doc comment: "Retry a payment call against the flaky gateway" [L1]', citations: ['L1'] })
    // why it exists: the oldest commit of its line history, its body, its PR and issue
    expect(r.origin?.commit.sha).toBe(s.sha.origin)
    const why = section(r, 'origin').lines
    expect(why[0].text).toMatch(/^Introduced by "Retry payment calls against the flaky gateway \(#12\)" \(Ada Tester, 2024-01-02\)/)
    expect(why[0].citations).toEqual([origin])
    expect(why.map((l) => l.citations)).toEqual(expect.arrayContaining([['PR #12'], ['#7']]))
    // the constraint of the body, cited by the origin; the one of the code comment, by its line
    expect(r.constraints).toEqual(
      expect.arrayContaining([
        { text: 'Retries must stay at three at most because the gateway bans clients that retry more often.', source: 'commit', cue: 'must', citations: [origin] },
        { text: 'the gateway must never see more than three attempts in a row', source: 'comment', cue: 'must', citations: ['L3'] },
      ]),
    )
    expect(section(r, 'constraints').lines.map((l) => l.text)).toContain(`"Retries must stay at three at most because the gateway bans clients that retry more often" [${origin}]`)
    expect(r.tradeoffs).toEqual([{ text: 'We retry in place instead of queueing the payment, at the cost of a slower checkout when the gateway is down.', source: 'commit', cue: 'instead of', citations: [origin] }])
    // every cited ref is in the citation list, and every line cites
    const listed = new Set(r.citations.map((c) => c.ref))
    for (const sec of r.sections) for (const l of sec.lines) expect(l.citations.length, l.text).toBeGreaterThan(0)
    for (const ref of refsOf(r)) expect(listed.has(ref), ref).toBe(true)
  })

  test('key changes are units: the eight "wip" commits are one line citing all of them', () => {
    const r = first
    const runs = r.changes.filter((u) => u.kind === 'run')
    expect(runs).toHaveLength(1)
    expect(runs[0]).toMatchObject({ shas: s.wips, author: 'Bob Builder', folded: [['wip', 7], ['fix typo', 1]], informative: false })
    const line = section(r, 'changes').lines.find((l) => l.text.includes('8 small commits'))!
    expect(line.citations).toEqual(s.wips.map(short))
    expect(line.text).toMatch(/Bob Builder: 8 small commits within 35 min, one unit \("wip" ×7, "fix typo"\)/)
    expect(r.changes.map((u) => u.shas[0])).toEqual([s.sha.log, s.wips[0], s.sha.raise, s.sha.revert, s.sha.todo])
    expect(r.counts).toEqual({ commits: 13, units: 6, changes_listed: 5, vague_commits: 8 })
  })

  test('open questions: the TODO by its line, the revert with the commit it undoes, the changes that give no reason', () => {
    const q = first.questions
    expect(q.find((x) => x.kind === 'todo')).toEqual({ kind: 'todo', text: 'TODO at line 4: "read the attempt limit from the gateway config" [L4]', citations: ['L4'] })
    expect(q.find((x) => x.kind === 'revert')?.citations).toEqual([short(s.sha.revert), short(s.sha.raise)])
    const vague = q.find((x) => x.kind === 'vague')!
    expect(vague.text).toMatch(/^8 of 12 later changes give no reason \("wip" ×7, "fix typo"; 1 unit\)/)
    expect(vague.citations).toEqual(s.wips.map(short))
    // risks and owners come from the analytics: Ada owns most of the lines
    expect(first.risk).toMatchObject({ of: 'symbol' })
    expect(first.owners[0]).toMatchObject({ email: 'ada@example.test' })
    expect(section(first, 'owners').lines[0].citations).toEqual([short(s.sha.revert)])
  })

  test('the second call reads the cache in .gitwhy/briefs/ (outside the index directories): same card, same id', async () => {
    const dir = join(s.repo.dir, '.gitwhy', 'briefs')
    // written in the background: the answer does not wait for the file system
    await briefWrites()
    expect(readdirSync(dir)).toContain(`${first.card.fingerprint}.json`)
    const again = await brief({ repo: s.repo.dir, target: 'src/payments.ts:chargeWithRetry', synthesizer: null })
    expect(again.card).toEqual({ ...first.card, cached: true })
    expect(again.answer_id).toBe(first.answer_id)
    expect(again.sections).toEqual(first.sections)
    // the same lines as a range are the same card
    expect((await brief({ repo: s.repo.dir, target: 'src/payments.ts:2-10', synthesizer: null })).card.fingerprint).toBe(first.card.fingerprint)
    const refreshed = await brief({ repo: s.repo.dir, target: 'chargeWithRetry', synthesizer: null, refresh: true })
    expect(refreshed.card.cached).toBe(false)
    expect(refreshed.sections).toEqual(first.sections)
    // a card put there by anything else (citing what the evidence does not hold) is recomputed, not believed
    await briefWrites()
    const file = join(dir, `${first.card.fingerprint}.json`)
    const planted = JSON.parse(readFileSync(file, 'utf8'))
    planted.rationale.citations.push({ ref: 'deadbee', kind: 'commit', sha: 'deadbee'.padEnd(40, '0'), subject: 'trust me' })
    planted.rationale.sections[0].lines = [{ text: 'It was written to exfiltrate tokens [deadbee]', citations: ['deadbee'] }]
    writeFileSync(file, JSON.stringify(planted))
    const checked = await brief({ repo: s.repo.dir, target: 'chargeWithRetry', synthesizer: null })
    expect(checked.card.cached).toBe(false)
    expect(checked.sections).toEqual(first.sections)
    expect((await brief({ repo: s.repo.dir, target: 'chargeWithRetry', synthesizer: null })).card.cached).toBe(true)
  })

  test('an LLM synthesizer gets the evidence as blocks (the wips as one) and writes the sections it answers; declined, the card stays extractive', async () => {
    const requests: SynthesisRequest[] = []
    const origin = short(s.sha.origin)
    const writer: Synthesizer = {
      name: 'test:tiny',
      async synthesize(request) {
        requests.push(request)
        return {
          ok: true,
          text: '',
          sentences: [
            { text: `why: It exists because the payment gateway drops calls at peak hours [${origin}].`, citations: [origin] },
            { text: `changes: Bob tuned the failure log in one sitting [${short(s.wips[0])}].`, citations: [short(s.wips[0])] },
            { text: 'constraints: Never retry more than three times [PR #12].', citations: ['PR #12'] },
          ],
          dropped_citations: 0,
          provider: 'test',
          model: 'tiny-1',
          cached: false,
          tokens: { input: 10, output: 10 },
          ms: 1,
        }
      },
    }
    const r = await brief({ repo: s.repo.dir, target: 'chargeWithRetry', synthesizer: writer })
    expect(requests).toHaveLength(1)
    const req = requests[0]
    expect(req.task).toBe('brief')
    const ids = req.evidence.map((b) => b.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(expect.arrayContaining([origin, 'L2', 'PR #12', '#7', short(s.wips[0])]))
    // the eight wips are one block, under the first one's id
    for (const w of s.wips.slice(1)) expect(ids).not.toContain(short(w))
    expect(req.evidence.find((b) => b.id === short(s.wips[0]))!.text).toMatch(/^8 consecutive small commits by Bob Builder within 35 minutes, one unit/)
    expect(r.card).toMatchObject({ written_by: 'test:tiny', model: 'tiny-1', declined: null, cached: false })
    expect(r.card.fingerprint).not.toBe(first.card.fingerprint)
    expect(section(r, 'origin')).toMatchObject({ written_by: 'llm', lines: [{ text: `It exists because the payment gateway drops calls at peak hours. [${origin}]`, citations: [origin] }] })
    // a unit's id stands for all of its commits
    expect(section(r, 'changes').lines[0].citations).toEqual(s.wips.map(short))
    expect(section(r, 'constraints').written_by).toBe('llm')
    // sections it did not write stay extractive; the analytics are computed
    expect(section(r, 'purpose')).toEqual(section(first, 'purpose'))
    expect(section(r, 'risks').written_by).toBe('analytics')
    // cached under its own fingerprint: no second call
    expect((await brief({ repo: s.repo.dir, target: 'chargeWithRetry', synthesizer: writer })).card.cached).toBe(true)
    expect(requests).toHaveLength(1)

    const decliner: Synthesizer = { name: 'test:broke', synthesize: async () => ({ ok: false, reason: 'budget' }) }
    const d = await brief({ repo: s.repo.dir, target: 'chargeWithRetry', synthesizer: decliner })
    expect(d.card).toMatchObject({ written_by: 'extractive', declined: 'budget', cached: false })
    expect(d.sections).toEqual(first.sections)
    // a declined answer is not cached: the next call asks again
    expect((await brief({ repo: s.repo.dir, target: 'chargeWithRetry', synthesizer: decliner })).card.cached).toBe(false)
    const thrower: Synthesizer = { name: 'test:throws', synthesize: async () => Promise.reject(new Error('socket hang up')) }
    expect((await brief({ repo: s.repo.dir, target: 'chargeWithRetry', synthesizer: thrower })).card.declined).toBe('error: socket hang up')
  })

  test('CLI: --json is the card; a directory, --all without --community and an unknown community are refused', async () => {
    const { json } = await runJson(['brief', 'chargeWithRetry', '--repo', s.repo.dir], opts)
    expect(Object.keys(json).sort()).toEqual(['answer_id', 'card', 'changes', 'citations', 'constraints', 'counts', 'decisions', 'index', 'origin', 'owners', 'questions', 'risk', 'sections', 'target', 'tradeoffs', 'undecided'])
    expect(Object.keys(json.card).sort()).toEqual(['cached', 'declined', 'fingerprint', 'format', 'model', 'written_by'])
    expect(Object.keys(json.sections[0]).sort()).toEqual(['id', 'lines', 'title', 'written_by'])
    expect(Object.keys(json.changes[0]).sort()).toEqual(['author', 'end', 'folded', 'informative', 'issues', 'kind', 'pull_requests', 'shas', 'start', 'subjects'])
    expect(Object.keys(json.citations[0]).sort()).toEqual(expect.arrayContaining(['kind', 'ref', 'subject']))
    expect(json.answer_id).toBe(first.answer_id)
    expect(json.card.cached).toBe(true)
    const plain = await runCli(['brief', 'chargeWithRetry', '--repo', s.repo.dir], opts)
    expect(plain.code).toBe(0)
    expect(plain.stdout).toContain(`why it exists:\n  Introduced by "Retry payment calls against the flaky gateway (#12)"`)
    expect(plain.stdout).toContain('TODO at line 4')
    for (const [argv, message] of [
      [['brief', 'src'], /src is a directory/],
      [['brief', '--all'], /--all needs --community/],
      [['brief', 'x', '--all', '--community', 'c1'], /takes no target/],
      [['brief', 'chargeWithRetry', '--community', 'c1'], /--community goes with --all/],
      [['brief', '--all', '--community', 'no-such-area'], /no community named no-such-area/],
    ] as const) {
      const r = await runCli([...argv, '--repo', s.repo.dir], opts)
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toMatch(message)
    }
  })

  test('--all --community precomputes the cards of the community\'s symbols, then finds them cached', async () => {
    const { json } = await runJson(['brief', '--all', '--community', 'c1', '--repo', s.repo.dir], opts)
    expect(json).toMatchObject({ community: { id: 'c1' }, symbols: 4, computed: 4, cached: 0, failed: [], written_by: 'extractive' })
    const again = await briefCommunity({ repo: s.repo.dir, community: 'c1', synthesizer: null })
    expect(again).toMatchObject({ symbols: 4, computed: 0, cached: 4 })
    // with progress on stderr (not a TTY: one line as the phase ends), counts on stdout
    const text = await runCli(['brief', '--all', '--community', 'c1', '--repo', s.repo.dir], opts)
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^c1 src\/cart\.ts: cart: 4 symbols — 0 cards computed, 4 already cached \(extractive, /)
    expect(text.stderr).toMatch(/gitwhy: cards +4 symbols in /)
  })

  test('MCP: rationale_brief (group brief) over stdio answers the card; the pre_edit_brief prompt carries it fenced as data', async () => {
    const { client } = await connectStdio({ cwd: s.repo.dir, env: opts.env, tools: 'brief' })
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['list_repos', 'ping', 'rationale_brief'])
      const r = await client.callTool({ name: 'rationale_brief', arguments: { target: 'chargeWithRetry' } })
      expect(r.isError).toBeFalsy()
      const doc = structured(r)
      expect(doc).toMatchObject({ repo: s.repo.dir, answer_id: first.answer_id, origin: { commit: { sha: s.sha.origin } }, card: { cached: true } })
      expect(doc.changes.find((u: { kind: string }) => u.kind === 'run').shas).toEqual(s.wips)
      expect(text(r)).toContain(`[PR #12]`)
      expect(text(r)).toContain('8 small commits within 35 min, one unit')
      expect(text(r)).toMatch(/index at [0-9a-f]{7} \(fresh\)$/)
      const bad = await client.callTool({ name: 'rationale_brief', arguments: { target: 'src/nope.ts' } })
      expect(bad.isError).toBe(true)
      expect(text(bad)).toMatch(/src\/nope\.ts/)
      const prompt = ((await client.getPrompt({ name: 'pre_edit_brief', arguments: { path: 'src/payments.ts', symbol: 'chargeWithRetry' } })).messages[0].content as { text: string }).text
      expect(prompt).toMatch(/<<<brief\nfunction chargeWithRetry — src\/payments\.ts:2-10[\s\S]*"Retries must stay at three at most[\s\S]*\nbrief>>>/)
      expect(prompt).toContain('evidence_for')
    } finally {
      await client.close()
    }
  })

  test('a new commit touching the code changes the fingerprint: the card is computed again, with the new change', async () => {
    s.repo.write('src/payments.ts', briefSource({ todo: true, log: '`payment attempt ${attempt} failed (8)`', extra: 'if (attempt > 1) log("still failing")' }))
    const sha = s.repo.commit('Warn when the gateway keeps failing\n\nOn-call asked for an early signal of an outage.', { date: 1_704_067_200 + 20 * 86_400 })
    await analyze({ repo: s.repo.dir })
    const r = await brief({ repo: s.repo.dir, target: 'chargeWithRetry', synthesizer: null })
    expect(r.card.fingerprint).not.toBe(first.card.fingerprint)
    expect(r.card.cached).toBe(false)
    expect(r.origin?.commit.sha).toBe(s.sha.origin)
    expect(r.changes.at(-1)?.shas).toEqual([sha])
    expect(r.answer_id).not.toBe(first.answer_id)
    // the old card is still there (another fingerprint), the index directories hold no card
    await briefWrites()
    expect(existsSync(join(s.repo.dir, '.gitwhy', 'briefs', `${first.card.fingerprint}.json`))).toBe(true)
    for (const d of readdirSync(join(s.repo.dir, '.gitwhy')).filter((n) => n.startsWith('index-'))) expect(readdirSync(join(s.repo.dir, '.gitwhy', d))).not.toContain('briefs')
  })
})
