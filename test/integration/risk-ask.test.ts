/**
 * Who `risk` says to ask: the owners of the lines, each one's lines halved for every year since
 * their last commit (as `context-for-pr` weighs them), not the largest owners alone. Found on
 * spf13/cobra: `risk command.go` named first an owner whose last commit was in 2018.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRepo, type Identity, type TestRepo } from '../helpers/repo.js'
import { runCli, runJson, type CliOptions } from '../cli/cli.js'

const DAY = 86_400
const T0 = 1_735_689_600 // 2025-01-01
const GUS: Identity = { name: 'Gus Gone', email: 'gus@example.test' }
const ADA: Identity = { name: 'Ada Active', email: 'ada@example.test' }
const lines = (tags: string[]) => tags.map((tag, i) => `export const v${i} = '${tag}'`).join('\n') + '\n'

describe('risk: the people to ask', () => {
  let repo: TestRepo
  let opts: CliOptions
  const cli = (...args: string[]) => runJson([...args, '--repo', repo.dir], opts).then((r) => r.json)

  beforeAll(async () => {
    repo = createRepo()
    // Gus writes all ten lines and leaves; three years later Ada rewrites four of them
    repo.write('src/legacy.ts', lines(Array(10).fill('gus')))
    repo.commit('Add legacy', { date: T0, author: GUS })
    repo.write('src/legacy.ts', lines([...Array(6).fill('gus'), ...Array(4).fill('ada')]))
    repo.commit('Ada takes four lines', { date: T0 + 3 * 365 * DAY, author: ADA })
    opts = { cwd: repo.dir, env: repo.env() }
    await runJson(['analyze', '--repo', repo.dir], opts)
  })
  afterAll(() => repo?.cleanup())

  test('the largest owner who left is a contributor, but the one who commits now is asked first', async () => {
    const r = await cli('risk', 'src/legacy.ts')
    expect(r.contributors.map((c: any) => [c.email, c.share])).toEqual([[GUS.email, 0.6], [ADA.email, 0.4]])
    // Gus: 6 lines halved three times (0.75); Ada: 4 lines
    expect(r.ask.map((c: any) => [c.email, c.share])).toEqual([[ADA.email, 0.4], [GUS.email, 0.6]])
    expect(r.ask[0].last_active.slice(0, 10)).toBe('2028-01-01')
    expect(r.ask[1].last_active.slice(0, 10)).toBe('2025-01-01')
    const text = await runCli(['risk', 'src/legacy.ts', '--repo', repo.dir], opts)
    expect(text.stdout).toContain('ask: Ada Active <ada@example.test> (40 %, last commit 2028-01-01), Gus Gone <gus@example.test> (60 %, last commit 2025-01-01)')
    // the same order as context-for-pr's owners to ask and the brief's
    const pr = await cli('context-for-pr', '--files', 'src/legacy.ts')
    expect(pr.owners_to_ask.map((o: any) => o.email)).toEqual(r.ask.map((c: any) => c.email))
    const brief = await cli('brief', 'src/legacy.ts')
    expect(brief.owners).toEqual(r.ask)
  })
})
