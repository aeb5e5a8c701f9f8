/**
 * Blame with formatting sweeps on the ignore list equals `git blame` with blame.ignoreRevsFile
 * set (the oracle suite, every line of every file), on seeded random walks with renames, merges
 * and back-to-back sweeps; the conventional file alone is honoured as
 * `git blame --ignore-revs-file` honours it; `ignoreRevs: false` gives plain git blame; the sweeps
 * stay in line history, marked.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { augment } from '../../src/services/augment.js'
import { contextForPr } from '../../src/services/context-for-pr.js'
import { createRepo } from '../helpers/repo.js'
import { analyze } from '../../src/services/analyze.js'
import { evidence } from '../../src/services/evidence.js'
import { readMeta } from '../../src/services/workspace.js'
import { renderEvidence } from '../../src/render.js'
import { describeOracle } from '../helpers/oracle-suite.js'
import { filesAtHead } from '../helpers/oracle.js'
import { ignoreRevsScenario, type Scenario } from '../helpers/scenarios.js'

for (const seed of [7, 11, 23]) describeOracle(`ignore-revs seed ${seed}`, () => ignoreRevsScenario(seed))

/** An empty file name clears the list blame.ignoreRevsFile gave: plain git blame. */
const PLAIN = ['--ignore-revs-file', '']

/** Per line of `file`: the commit `git [config] blame [args]` names. */
function gitBlame(s: Scenario, file: string, config: string[], args: string[] = []): string[] {
  const out = s.repo.git(...config, 'blame', ...args, '--porcelain', 'HEAD', '--', file)
  const shas: string[] = []
  for (const line of out.split('\n')) {
    const m = /^([0-9a-f]{40}) \d+ (\d+)/.exec(line)
    if (m) shas[Number(m[2]) - 1] = m[1]
  }
  return shas
}

async function gitwhyBlame(s: Scenario, file: string): Promise<string[]> {
  const n = s.repo.git('show', `HEAD:${file}`).split('\n').length - 1
  const shas: string[] = []
  for (let line = 1; line <= n; line++) {
    const r = await evidence({ repo: s.repo.dir, path: file, lineStart: line, lineEnd: line, limit: 0 })
    shas.push(r.evidence.find((e) => e.source === 'blame')!.commit.sha)
  }
  return shas
}

describe('ignore-revs: the list, the switch and the marks', () => {
  let s: Scenario
  let sweeps: string[]
  let files: string[]
  beforeAll(() => {
    s = ignoreRevsScenario(7)
    sweeps = s.repo.git('show', 'HEAD:.git-blame-ignore-revs').split('\n').map((l) => l.split(' ')[0]).filter((l) => /^[0-9a-f]{40}$/.test(l))
    files = filesAtHead(s.repo).filter((f) => f.endsWith('.js'))
  })
  afterAll(() => s?.cleanup())

  test('the scenario matters: git moves many lines off the sweeps, and keeps some on them', () => {
    let plain = 0
    let ignoring = 0
    for (const f of files) {
      plain += gitBlame(s, f, [], PLAIN).filter((sha) => sweeps.includes(sha)).length
      ignoring += gitBlame(s, f, []).filter((sha) => sweeps.includes(sha)).length
    }
    expect(plain).toBeGreaterThan(60)
    expect(ignoring).toBeGreaterThan(0)
    expect(plain - ignoring).toBeGreaterThan(30)
  })

  test('--no-ignore-revs gives plain git blame, recorded in meta (a change rebuilds)', async () => {
    await analyze({ repo: s.repo.dir, ignoreRevs: false })
    expect(readMeta(s.repo.dir)!.options.ignoreRevs).toBeNull()
    for (const f of files) expect(await gitwhyBlame(s, f), f).toEqual(gitBlame(s, f, [], PLAIN))
    const again = await analyze({ repo: s.repo.dir })
    expect(again.mode).toBe('full')
    expect(readMeta(s.repo.dir)!.options.ignoreRevs).toEqual([...sweeps].sort())
  })

  test('the conventional file is read without any git config, as --ignore-revs-file reads it', async () => {
    s.repo.git('config', '--unset', 'blame.ignoreRevsFile')
    try {
      await analyze({ repo: s.repo.dir, force: true })
      for (const f of files) expect(await gitwhyBlame(s, f), f).toEqual(gitBlame(s, f, [], ['--ignore-revs-file', '.git-blame-ignore-revs']))
    } finally {
      s.repo.git('config', 'blame.ignoreRevsFile', '.git-blame-ignore-revs')
    }
  })

  test('the sweeps still show in line history, marked ignored (JSON) and "(ignored rev)" (text)', async () => {
    await analyze({ repo: s.repo.dir })
    let history = 0
    for (const f of files) {
      const r = await evidence({ repo: s.repo.dir, path: f, limit: 0 })
      for (const e of r.evidence) expect(e.ignored === true, `${f} ${e.commit.short}`).toBe(sweeps.includes(e.commit.sha))
      history += r.evidence.filter((e) => e.ignored && e.source === 'history').length
      expect(renderEvidence(r.evidence, r.total).filter((l) => l.includes('(ignored rev)')).length).toBe(r.evidence.filter((e) => e.ignored).length)
    }
    expect(history).toBeGreaterThan(0)
  })
})

test('augment and context-for-pr never name a listed sweep as the last change, the why or a last PR', async () => {
  const repo = createRepo()
  try {
    repo.write('src/a.ts', 'export function area(w: number, h: number): number {\n  return w*h\n}\n')
    repo.commit('feat: area of a rectangle (#11)')
    repo.write('src/a.ts', 'export function area(w: number, h: number): number {\n  return w * h;\n}\n')
    const sweep = repo.commit('style: format everything (#12)')
    repo.write('.git-blame-ignore-revs', `${sweep}\n`)
    repo.commit('ignore the sweep in blame')
    await analyze({ repo: repo.dir })
    for (const query of [{ pattern: 'src/a.ts', mode: 'glob' as const }, { pattern: 'area', mode: 'regex' as const }]) {
      const r = await augment({ repo: repo.dir, query })
      expect(r.matches.length).toBeGreaterThan(0)
      for (const m of r.matches) {
        expect(m.last_change?.commit.subject, query.pattern).toBe('feat: area of a rectangle (#11)')
        expect(m.last_change?.pull_request?.number).toBe(11)
      }
    }
    const pr = await contextForPr({ repo: repo.dir, files: ['src/a.ts'] })
    expect(pr.files[0].last_prs.map((p) => p.number)).toEqual([11])
  } finally {
    repo.cleanup()
  }
})
