/**
 * Decisions over MCP (issue 16), through the SDK's real client: decisions_for (tool group
 * `decisions`) answers the governing decisions with the stale flag and violations, why carries them,
 * the pre_edit_brief prompt's rationale card includes them fenced as data, and a bad target is a tool error that
 * says how to recover.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { runJson, type CliOptions } from '../cli/cli.js'
import { connectStdio, structured, text } from './client.js'

describe('decisions over MCP', () => {
  let repo: TestRepo
  let opts: CliOptions
  let id = ''

  beforeAll(async () => {
    repo = createRepo()
    repo.write('src/http.ts', 'export function get(url: string): string {\n  return url\n}\n')
    repo.write('src/page.ts', 'export function page(): string {\n  return "p"\n}\n')
    repo.commit('Add http and page')
    repo.write('src/page.ts', 'export function page(): string {\n  fetch("/x")\n  return "p"\n}\n')
    repo.commit('Fetch in page')
    opts = { cwd: repo.dir, env: { ...repo.env(), GITWHY_HOME: mkdtempSync(join(tmpdir(), 'gitwhy-dec-home-')) } }
    await runJson(['analyze', '--repo', repo.dir], opts)
    const added = await runJson(['decision', 'add', 'Network calls go through src/http.ts', '--kind', 'constraint', '--applies-to', 'src/', '--forbid', '\\bfetch\\(', '--why', 'retries and auth live there', '--repo', repo.dir], opts)
    id = added.json.decision.id
  })
  afterAll(() => repo?.cleanup())

  test('decisions_for, why and pre_edit_brief carry the governing decision and its violation', async () => {
    const { client } = await connectStdio({ cwd: repo.dir, env: opts.env })
    try {
      const r = await client.callTool({ name: 'decisions_for', arguments: { target: 'src/page.ts' } })
      expect(r.isError).toBeFalsy()
      const doc = structured(r)
      expect(doc.decisions.map((d: { id: string; via: string; status: string }) => [d.id, d.via, d.status])).toEqual([[id, 'directory', 'active']])
      expect(doc.decisions[0].violations).toEqual([{ path: 'src/page.ts', line: 2, text: 'fetch("/x")', commit: expect.stringMatching(/^[0-9a-f]{7,}$/) }])
      expect(text(r)).toContain(`${id} [constraint] Network calls go through src/http.ts`)
      expect(text(r)).toContain('VIOLATION src/page.ts:2')

      const why = structured(await client.callTool({ name: 'why', arguments: { target: 'src/page.ts' } }))
      expect(why.decisions.map((d: { id: string }) => d.id)).toEqual([id])

      const brief = await client.getPrompt({ name: 'pre_edit_brief', arguments: { path: 'src/page.ts' } })
      const prompt = (brief.messages[0].content as { text: string }).text
      // the rationale card carries them (its governing decisions section), fenced as data
      expect(prompt).toMatch(new RegExp(`<<<brief\\n[\\s\\S]*governing decisions:\\n  ${id} \\[constraint\\] Network calls go through src/http.ts[\\s\\S]*VIOLATION src/page.ts:2 fetch\\("/x"\\) \\[L2\\][\\s\\S]*\\nbrief>>>`))

      const bad = await client.callTool({ name: 'decisions_for', arguments: { target: 'src/nope.ts' } })
      expect(bad.isError).toBe(true)
      expect(text(bad)).toMatch(/src\/nope\.ts/)
    } finally {
      await client.close()
    }
  })

  test('the default tool set leaves decisions_for out (why carries the decisions); --tools decisions serves it', async () => {
    const { client: plain } = await connectStdio({ cwd: repo.dir, env: opts.env, tools: null })
    try {
      expect((await plain.listTools()).tools.map((t) => t.name)).not.toContain('decisions_for')
    } finally {
      await plain.close()
    }
    const { client } = await connectStdio({ cwd: repo.dir, env: opts.env, tools: 'decisions' })
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['decisions_for', 'list_repos', 'ping'])
    } finally {
      await client.close()
    }
  })
})
