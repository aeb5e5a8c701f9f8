/**
 * The merges' other-parent diffs that gitwhy reads (restricted to the paths their first-parent
 * diff touches, merge-diffs.ts) are exactly the entries of the full diff (`diff-tree -p -M`, renames
 * paired per path) that name those paths, and its directory marks say exactly which directories
 * above them the full diff touches.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { DiffStreamParser, type DiffRecord, type FileDiff } from '../../src/git/diff-parser.js'
import { readHistory } from '../../src/git/history-reader.js'
import { isDirectoryMark } from '../../src/git/merge-diffs.js'
import { pairRenamesPerPath } from '../../src/history/renames.js'
import { createRepo } from '../helpers/repo.js'
import { mergeHeavyScenario, mergesScenario, octopusScenario, randomScenario, renamesScenario, type Scenario } from '../helpers/scenarios.js'

const FULL = ['diff-tree', '--stdin', '--always', '-p', '--raw', '--no-abbrev', '-U0', '-M', '--no-color', '--no-ext-diff', '--no-textconv', '--full-index', '--format=%x01%H%x02']

function fullDiff(s: Scenario, merge: string, parent: string): FileDiff[] {
  let rec: DiffRecord | null = null
  const parser = new DiffStreamParser((r) => (rec = r))
  parser.push(execFileSync('git', FULL, { cwd: s.repo.dir, env: s.repo.env(), input: `${merge} ${parent}\n` }))
  parser.end()
  const r = rec as DiffRecord | null
  return r ? pairRenamesPerPath(r.files, r.oids) : []
}

const key = (f: FileDiff) => JSON.stringify([f.status, f.oldPath, f.path, f.binary, f.hunks, f.additions, f.deletions, f.whitespaceOnly])
const touches = (f: FileDiff, dir: string) => f.path.startsWith(dir) || (f.status === 'R' && f.oldPath.startsWith(dir))
function dirsAbove(p: string): string[] {
  const out = ['']
  for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) out.push(p.slice(0, i + 1))
  return out
}

/**
 * Names git quotes (a quote, a backslash, a tab, non-ASCII) and a mode change, changed on both
 * sides of a merge: their patches come from the synthetic trees, which must name them as git does.
 */
function unusualNamesScenario(): Scenario {
  const repo = createRepo()
  const names = ['we"ird\\name.txt', 'sp ace/tab\there.txt', 'ümlaut/naïve.txt', 'plain.txt']
  for (const n of names) repo.write(n, 'one\ntwo\nthree\nfour\n')
  repo.write('run.sh', 'echo hi\n')
  repo.write('tool.sh', 'echo tool\n')
  repo.commit('base')
  repo.branch('side').checkout('side')
  for (const n of names) repo.write(n, 'one\nTWO (side)\nthree\nfour\n')
  chmodSync(join(repo.dir, 'run.sh'), 0o755)
  repo.git('add', 'run.sh')
  repo.write('tool.sh', 'echo tool (side)\n')
  repo.commit('side: second lines, run.sh executable, tool.sh changed')
  repo.checkout('main')
  for (const n of names) repo.write(n, 'one\ntwo\nthree\nFOUR (main)\n')
  chmodSync(join(repo.dir, 'tool.sh'), 0o755)
  repo.git('add', 'tool.sh')
  repo.commit('main: fourth lines, tool.sh executable')
  repo.merge('side', { noFF: true })
  return { name: 'unusual names', repo, notes: 'quoted names and a mode change on both sides of a merge', cleanup: () => repo.cleanup() }
}

describe('merge diffs equal the full diff where the walks read them', () => {
  const builders: Array<[string, () => Scenario]> = [
    ['merge-heavy', mergeHeavyScenario],
    ['merges', mergesScenario],
    ['octopus', octopusScenario],
    ['renames', renamesScenario],
    ['random', () => randomScenario(20240601, 60)],
    ['unusual names', unusualNamesScenario],
  ]
  for (const [name, build] of builders) {
    test(name, async () => {
      const s = build()
      try {
        const commits = await readHistory(s.repo.dir, { range: ['HEAD'] })
        let compared = 0
        for (const c of commits) {
          if (c.parents.length < 2) continue
          const names = new Set(c.diffs[0].flatMap((f) => [f.path, f.oldPath]))
          for (let k = 1; k < c.parents.length; k++) {
            const full = fullDiff(s, c.sha, c.parents[k])
            const mine = c.diffs[k]
            const entries = mine.filter((f) => !isDirectoryMark(f.path))
            const wanted = full.filter((f) => names.has(f.path) || names.has(f.oldPath))
            expect(entries.map(key).sort(), `${c.message} against parent ${k + 1}`).toEqual(wanted.map(key).sort())
            for (const dir of new Set([...names].flatMap(dirsAbove))) {
              const marked = mine.some((f) => touches(f, dir))
              expect(marked, `${c.message} against parent ${k + 1}: touches ${dir || '(root)'}`).toBe(full.some((f) => touches(f, dir)))
            }
            compared++
          }
        }
        expect(compared).toBeGreaterThan(0)
      } finally {
        s.cleanup()
      }
    })
  }
})
