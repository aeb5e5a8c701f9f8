/**
 * `gitwhy repos` / `gitwhy repos prune` and list_repos on a registry holding repositories whose
 * directory or index has gone, and `gitwhy catchup`, the CLI face of the MCP tool (same service,
 * same answer).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { createRepo } from '../helpers/repo.js'
import { connectStdio, structured, text } from '../mcp/client.js'
import { parseSince } from '../../src/services/catchup.js'
import { compactData, type JsonSchema } from '../../src/mcp/compact.js'
import { runCli, runJson } from './cli.js'

const T0 = 1_735_689_600 // 2025-01-01T00:00:00Z
const DAY = 86400

describe('the registry of indexed repositories', () => {
  test('dead entries are listed with the reason by `repos`, hidden by list_repos, removed by `repos prune` and by the next analyze', async () => {
    const home = mkdtempSync(join(tmpdir(), 'gitwhy-repos-home-'))
    const [live, gone, unindexed, later] = [createRepo(), createRepo(), createRepo(), createRepo()]
    try {
      for (const r of [live, gone, unindexed, later]) r.write('a.ts', 'export const a = 1\n').commit('one')
      const env = { ...live.env(), GITWHY_HOME: home }
      for (const r of [live, gone, unindexed]) await runJson(['analyze', '--repo', r.dir], { cwd: r.dir, env })
      const registry = () => (JSON.parse(readFileSync(join(home, 'registry.json'), 'utf8')).repos as Array<{ path: string }>).map((r) => r.path).sort()
      expect(registry()).toEqual([live.dir, gone.dir, unindexed.dir].sort())

      gone.cleanup()
      rmSync(join(unindexed.dir, '.gitwhy'), { recursive: true, force: true })

      const listed = (await runJson(['repos'], { cwd: live.dir, env })).json
      const problems = Object.fromEntries(listed.repos.map((r: any) => [r.path, r.problem]))
      expect(problems).toEqual({ [live.dir]: null, [gone.dir]: 'the directory no longer exists', [unindexed.dir]: 'its index was removed' })
      const plain = await runCli(['repos'], { cwd: live.dir, env })
      expect(plain.stderr).toContain('2 entries can no longer be served: `gitwhy repos prune` removes them')

      const { client } = await connectStdio({ cwd: live.dir, env })
      try {
        const answer = await client.callTool({ name: 'list_repos', arguments: {} })
        expect(structured(answer).repos.map((r: any) => r.path)).toEqual([live.dir])
        expect(structured(answer).unavailable).toBe(2)
        expect(text(answer)).toContain('2 registered repositories have no index any more')
      } finally {
        await client.close()
      }

      const dry = (await runJson(['repos', 'prune', '--dry-run'], { cwd: live.dir, env })).json
      expect(dry.removed.map((r: any) => r.path).sort()).toEqual([gone.dir, unindexed.dir].sort())
      expect(registry()).toHaveLength(3)
      const pruned = (await runJson(['repos', 'prune'], { cwd: live.dir, env })).json
      expect(pruned.removed.map((r: any) => r.reason).sort()).toEqual(['its index was removed', 'the directory no longer exists'])
      expect(registry()).toEqual([live.dir])
      expect((await runCli(['repos', 'prune'], { cwd: live.dir, env })).stdout).toContain('nothing to prune')

      // analyze drops a dead entry on its own
      await runJson(['analyze', '--repo', later.dir], { cwd: later.dir, env })
      rmSync(join(later.dir, '.gitwhy'), { recursive: true, force: true })
      await runJson(['analyze', '--repo', live.dir, '--force'], { cwd: live.dir, env })
      expect(registry()).toEqual([live.dir])
      expect(existsSync(later.dir)).toBe(true)
    } finally {
      for (const r of [live, unindexed, later]) r.cleanup()
    }
  }, 300_000)
})

describe('gitwhy catchup', () => {
  test('months and years ago are counted on the calendar, as git does', () => {
    const now = new Date('2026-11-27T12:00:00Z')
    expect(parseSince('3 months ago', now).toISOString()).toBe('2026-08-27T12:00:00.000Z')
    expect(parseSince('1 year ago', now).toISOString()).toBe('2025-11-27T12:00:00.000Z')
    expect(parseSince('2 weeks ago', now).toISOString()).toBe('2026-11-13T12:00:00.000Z')
  })

  test('the CLI answers what the MCP tool answers, from the same service', async () => {
    const home = mkdtempSync(join(tmpdir(), 'gitwhy-catchup-home-'))
    const repo = createRepo()
    try {
      repo.write('a.ts', 'export const a = 1\n').commit('Initial commit', { date: T0 })
      repo.branch('feature').checkout('feature')
      repo.write('b.ts', 'export const b = 1\n').commit('Add b', { date: T0 + 10 * DAY })
      repo.checkout('main')
      repo.merge('feature', { message: 'Merge pull request #4 from ada/feature\n\nAdd b', date: T0 + 11 * DAY })
      repo.write('a.ts', 'export const a = 2\n').commit('Bump a', { date: T0 + 12 * DAY })
      const env = { ...repo.env(), GITWHY_HOME: home }
      const opts = { cwd: repo.dir, env }
      await runJson(['analyze'], opts)

      const cli = (await runJson(['catchup', '2025-01-05'], opts)).json
      expect(cli.total).toBe(3)
      expect(cli.pull_requests.map((p: any) => p.number)).toEqual([4])
      expect(cli.commits.map((c: any) => c.subject)).toEqual(['Bump a'])
      const { client } = await connectStdio({ cwd: repo.dir, env })
      try {
        const answer = await client.callTool({ name: 'catchup', arguments: { since: '2025-01-05' } })
        const { tools } = await client.listTools()
        expect(structured(answer)).toEqual(compactData({ repo: repo.dir, ...cli }, tools.find((t) => t.name === 'catchup')!.outputSchema as JsonSchema))
        const plain = await runCli(['catchup', '2025-01-05'], opts)
        expect(text(answer).startsWith(plain.stdout.trimEnd())).toBe(true)
      } finally {
        await client.close()
      }
      const limited = (await runJson(['catchup', '2025-01-05', '--limit', '1'], opts)).json
      expect([limited.shown, limited.truncated]).toEqual([1, true])
      // PR #4's commits are all past the limit: counted, not listed as an empty header
      expect([limited.pull_requests, limited.more_pull_requests]).toEqual([[], 1])
      expect((await runCli(['catchup', '2025-01-05', '--limit', '1'], opts)).stdout).toContain('showing 1 commits (1 more PR past the limit)')
      expect((await runCli(['catchup', 'not a date'], opts)).code).toBe(1)
    } finally {
      repo.cleanup()
    }
  })
})
