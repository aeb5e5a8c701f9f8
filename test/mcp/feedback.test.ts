/**
 * Answer feedback across processes (issue 15): a why answer's id is the same from the CLI (the fast
 * path and oclif) and from the MCP server; `gitwhy feedback` and the MCP `feedback` tool record
 * votes that later answers in other processes re-rank by; an unknown id exits 1 (an error result
 * over MCP); several MCP clients voting at once lose no line; `status` counts the votes.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { expectUserError, runCli, runJson, type CliOptions } from '../cli/cli.js'
import { connectStdio, structured, text } from './client.js'

const lines = (prefix: string, n: number, from = 1) => Array.from({ length: n }, (_, i) => `export const ${prefix}${from + i} = ${from + i} // ${prefix} line ${from + i}`)
const file = (xs: string[]) => `${xs.join('\n')}\n`

describe('answer feedback across processes', () => {
  let repo: TestRepo
  let opts: CliOptions
  const sha: Record<string, string> = {}

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/parser.ts', file(lines('p', 10)))
    sha.wip = repo.commit('wip')
    repo.write('src/parser.ts', file([...lines('q', 4), ...lines('p', 6, 5)]))
    sha.empty = repo.commit('Handle empty input in the parser\n\nEmpty strings crashed the tokenizer when a client started with no configuration.')
    opts = { cwd: repo.dir, env: { ...repo.env(), GITWHY_HOME: mkdtempSync(join(tmpdir(), 'gitwhy-feedback-home-')) } }
    await runJson(['analyze'], opts)
  })

  afterAll(() => repo?.cleanup())

  test('the same answer has the same id from the CLI (fast path and oclif) and from the MCP server; its text names it', async () => {
    const [fast, oclif, plain] = await Promise.all([
      runJson(['why', 'src/parser.ts:1-4'], opts),
      runJson(['why', 'src/parser.ts:1-4'], { ...opts, env: { ...opts.env, GITWHY_FAST_CLI: '0' } }),
      runCli(['why', 'src/parser.ts:1-4'], opts),
    ])
    const id = fast.json.answer_id as string
    expect(id).toMatch(/^w-[0-9a-f]{12}$/)
    expect(oclif.json.answer_id).toBe(id)
    expect(plain.stdout).toContain(`answer ${id} (did it help? feedback ${id} up|down)`)
    const { client } = await connectStdio({ cwd: repo.dir, env: opts.env, tools: 'history,feedback' })
    try {
      const r = await client.callTool({ name: 'why', arguments: { target: 'src/parser.ts:1-4' } })
      expect(structured(r).answer_id).toBe(id)
      expect(text(r)).toContain(`answer ${id}`)
    } finally {
      await client.close()
    }
  })

  test('a vote over MCP re-ranks a later CLI answer; a vote from the CLI is counted; status reports them', async () => {
    const before = (await runJson(['why', 'src/parser.ts'], opts)).json
    expect(before.evidence[0].commit.sha).toBe(sha.wip)
    const voted = (await runJson(['why', 'src/parser.ts:1-4'], opts)).json
    const { client } = await connectStdio({ cwd: repo.dir, env: opts.env, tools: 'feedback' })
    try {
      const r = await client.callTool({ name: 'feedback', arguments: { answer_id: voted.answer_id, vote: 'up', note: 'this is the reason' } })
      expect(r.isError, text(r)).toBeFalsy()
      expect(structured(r)).toMatchObject({ answer_id: voted.answer_id, vote: 'up', note: 'this is the reason', votes: { up: 1, down: 0 }, answer: { target: 'src/parser.ts:1-4' } })
      expect(text(r)).toMatch(new RegExp(`^recorded up for ${voted.answer_id} \\(why src/parser.ts:1-4\\): this is the reason`))
    } finally {
      await client.close()
    }
    const after = (await runJson(['why', 'src/parser.ts'], opts)).json
    expect(after.evidence[0].commit.sha).toBe(sha.empty)
    expect(after.evidence[0].reasons).toContain(`up-voted in answer ${voted.answer_id} (an overlapping target)`)
    const cli = await runJson(['feedback', after.answer_id, 'down', '--note', 'too long'], opts)
    expect(cli.json).toMatchObject({ answer_id: after.answer_id, vote: 'down', note: 'too long', votes: { up: 0, down: 1 } })
    const status = await runJson(['status'], opts)
    expect(status.json.feedback).toMatchObject({ up: 1, down: 1, voted_answers: 2 })
    expect(status.json.feedback.recorded_answers).toBeGreaterThanOrEqual(2)
    expect((await runCli(['status'], opts)).stdout).toContain('feedback: 1 up, 1 down on 2 of')
  })

  test('an unknown id exits 1 (an error result over MCP); so do a malformed id and a vote that is neither up nor down', async () => {
    const unknown = await expectUserError(['feedback', 'w-000000000000', 'up'], 'unknown_answer', opts, { plain: true })
    expect(unknown.message).toContain('no answer with id w-000000000000')
    await expectUserError(['feedback', 'whatever', 'up'], 'bad_answer_id', opts)
    const id = (await runJson(['why', 'src/parser.ts:5-6'], opts)).json.answer_id
    await expectUserError(['feedback', id, 'sideways'], 'bad_option', opts)
    const { client } = await connectStdio({ cwd: repo.dir, env: opts.env, tools: 'feedback' })
    try {
      const r = await client.callTool({ name: 'feedback', arguments: { answer_id: 'w-000000000000', vote: 'down' } })
      expect(r.isError).toBe(true)
      expect(text(r)).toMatch(/no answer with id w-000000000000[\s\S]*To fix: pass the answer_id of a why answer/)
    } finally {
      await client.close()
    }
  })

  test('four MCP clients voting at once, 25 votes each: no line lost, every line whole', async () => {
    const id = (await runJson(['why', 'src/parser.ts:7-10'], opts)).json.answer_id
    const feedbackFile = join(repo.dir, '.gitwhy', 'feedback.jsonl')
    const before = readFileSync(feedbackFile, 'utf8').split('\n').filter(Boolean).length
    const clients = await Promise.all(Array.from({ length: 4 }, () => connectStdio({ cwd: repo.dir, env: opts.env, tools: 'feedback' })))
    try {
      const results = await Promise.all(
        clients.flatMap(({ client }, c) => Array.from({ length: 25 }, (_, i) => client.callTool({ name: 'feedback', arguments: { answer_id: id, vote: i % 2 ? 'down' : 'up', note: `client ${c} vote ${i}` } }))),
      )
      expect(results.filter((r) => r.isError).map((r) => text(r))).toEqual([])
    } finally {
      await Promise.all(clients.map(({ client }) => client.close()))
    }
    const all = readFileSync(feedbackFile, 'utf8').split('\n').filter(Boolean)
    expect(all).toHaveLength(before + 100)
    const notes = all.slice(before).map((l) => JSON.parse(l).note as string)
    expect(new Set(notes).size).toBe(100)
    for (let c = 0; c < 4; c++) for (let i = 0; i < 25; i++) expect(notes).toContain(`client ${c} vote ${i}`)
    const status = await runJson(['status'], opts)
    expect(status.json.feedback.up + status.json.feedback.down).toBe(before + 100)
  })
})
