/**
 * Self-tests of the repository builder, the scenarios and the git oracle (no gitwhy code involved).
 */
import { afterAll, describe, expect } from 'vitest'
import { createRepo, repoTest } from '../helpers/repo.js'
import {
  blameLines, blameSet, blobAtHead, dirsAtHead, filesAtHead, followNames, followSet, indentHeuristicSensitive,
  lineCount, lineLogSet, pathLogSet, restrictBlame, shallowBoundary,
} from '../helpers/oracle.js'
import { SCENARIOS, randomScenario, type Scenario } from '../helpers/scenarios.js'
import { fixtureSymbols } from '../helpers/symbols.js'

const built = new Map<string, Scenario>()
function scenario(name: string): Scenario {
  let s = built.get(name)
  if (!s) {
    s = name === 'random' ? randomScenario() : SCENARIOS[name]()
    built.set(name, s)
  }
  return s
}
afterAll(() => {
  for (const s of built.values()) s.cleanup()
})

describe('repository builder', () => {
  repoTest('pins identity and dates so SHAs are stable', ({ repo }) => {
    repo.write('a.txt', 'one\n')
    const first = repo.commit('first')
    const other = createRepo()
    try {
      other.write('a.txt', 'one\n')
      expect(other.commit('first')).toBe(first)
    } finally {
      other.cleanup()
    }
    expect(repo.git('log', '-1', '--format=%an <%ae> %at %ct')).toBe('Ada Tester <ada@example.test> 1704070800 1704070800\n')
    expect(repo.git('config', 'core.autocrlf').trim()).toBe('false')
  })

  repoTest('merges, conflicts resolution, reverts and moves', ({ repo }) => {
    repo.write('f.txt', 'a\nb\nc\n')
    repo.commit('base')
    repo.branch('side').checkout('side')
    repo.write('f.txt', 'a\nB-side\nc\n')
    repo.commit('side')
    repo.checkout('main')
    repo.write('f.txt', 'a\nB-main\nc\n')
    repo.commit('main')
    const merge = repo.mergeResolving('side', { 'f.txt': 'a\nB-both\nc\n' })
    expect(repo.git('rev-list', '--parents', '-n', '1', merge).trim().split(' ')).toHaveLength(3)
    expect(repo.git('show', 'HEAD:f.txt')).toBe('a\nB-both\nc\n')
    repo.write('g.txt', 'temporary\n')
    const added = repo.commit('add g')
    const r = repo.revert(added)
    expect(repo.subject(r)).toBe('Revert "add g"')
    expect(filesAtHead(repo)).toEqual(['f.txt'])
    repo.move('f.txt', 'd/g.txt')
    repo.commit('move')
    expect(filesAtHead(repo)).toEqual(['d/g.txt'])
    expect(followSet(repo, 'd/g.txt').size).toBeGreaterThan(pathLogSet(repo, 'd/g.txt').size)
  })
})

describe('oracle', () => {
  for (const name of ['linear', 'merges', 'renames', 'random']) {
    repoTest(`${name}: restricted whole-file blame equals blame -L; blame ⊆ log -L`, () => {
      const { repo } = scenario(name)
      for (const path of filesAtHead(repo)) {
        const n = lineCount(blobAtHead(repo, path))
        if (n === 0) continue
        const all = blameLines(repo, path)
        expect(all.map((l) => l.line)).toEqual(Array.from({ length: n }, (_, i) => i + 1))
        const ranges: Array<[number, number]> = [[1, n], [1, Math.ceil(n / 2)], [Math.max(1, n - 2), n], [Math.ceil(n / 3), Math.ceil((2 * n) / 3)]]
        for (const [s, e] of ranges) {
          const direct = blameSet(repo, path, s, e)
          expect(direct, `${path}:${s}-${e}`).toEqual(restrictBlame(all, s, e))
          expect([...direct.values()].reduce((a, b) => a + b, 0)).toBe(e - s + 1)
          if (!indentHeuristicSensitive(repo, path)) {
            const log = lineLogSet(repo, path, s, e)
            for (const sha of direct.keys()) expect(log.has(sha), `${path}:${s}-${e} blame ${sha} in log -L`).toBe(true)
          }
        }
      }
    })
  }

  repoTest('renames: --follow reaches before the moves; names per commit', () => {
    const { repo } = scenario('renames')
    const follow = followSet(repo, 'src/core/numbers.ts')
    const plain = pathLogSet(repo, 'src/core/numbers.ts')
    expect(plain.size).toBe(2)
    expect(follow.size).toBe(6)
    const names = [...new Set(followNames(repo, 'src/core/numbers.ts').values())].sort()
    expect(names).toEqual(['lib/util.ts', 'src/core/numbers.ts', 'src/core/util.ts'])
    // --follow switches to the old name globally once it passes the rename commit (in date order),
    // so 'Three decimals on main' (an edit of lib/format.py on main, after the branch renamed it) is
    // not listed, and neither is the merge.
    const subjects = [...followSet(repo, 'src/text/format.py')].map((s) => repo.subject(s))
    expect(subjects).toEqual(['Pad to 6 on the branch', 'Move format into src/text', 'Initial layout'])
    expect(dirsAtHead(repo)).toEqual(['archive', 'archive/old', 'src', 'src/core', 'src/text'])
  })

  repoTest('ambiguous: the indent heuristic changes the diff of slid insertions', () => {
    const { repo } = scenario('ambiguous')
    expect(indentHeuristicSensitive(repo, 'src/slide.txt')).toBe(true)
    const insert = repo.head()
    expect(blameSet(repo, 'src/slide.txt', 1, 1)).toEqual(new Map([[insert, 1]]))
    expect(lineLogSet(repo, 'src/slide.txt', 1, 1).has(insert)).toBe(false)
    expect(indentHeuristicSensitive(scenario('linear').repo, 'src/greeter.ts')).toBe(false)
  })

  repoTest('shallow: boundary commits own the old lines, flagged boundary', () => {
    const { repo } = scenario('shallow')
    const boundary = shallowBoundary(repo)
    expect(boundary.size).toBe(1)
    expect(Number(repo.git('rev-list', '--count', 'HEAD').trim())).toBe(3)
    const lines = blameLines(repo, 'app/main.py')
    const owners = new Set(lines.map((l) => l.sha))
    expect([...owners].some((s) => boundary.has(s))).toBe(true)
    expect(lines.filter((l) => boundary.has(l.sha)).every((l) => l.boundary)).toBe(true)
    expect(shallowBoundary(scenario('linear').repo).size).toBe(0)
  })

  repoTest('submodule: the gitlink is not a file', () => {
    const { repo } = scenario('submodule')
    expect(filesAtHead(repo)).toEqual(['.gitmodules', 'app.ts', 'deps/notes.md'])
    expect(repo.git('ls-tree', 'HEAD', 'deps/lib')).toMatch(/^160000 commit /)
  })

  repoTest('encodings: odd paths and bytes survive', () => {
    const { repo } = scenario('encodings')
    expect(filesAtHead(repo)).toEqual(['dir with space/ñew näme.ts', 'empty.txt', 'legacy/latin1.txt', 'mixed/no-newline.py', 'win/crlf.ts'])
    expect(blobAtHead(repo, 'win/crlf.ts').includes('\r\n')).toBe(true)
    expect(blobAtHead(repo, 'legacy/latin1.txt').includes(0xe9)).toBe(true)
    expect(lineCount(blobAtHead(repo, 'mixed/no-newline.py'))).toBe(3)
    expect(followSet(repo, 'dir with space/ñew näme.ts').size).toBe(3)
    expect(blameSet(repo, 'legacy/latin1.txt', 1, 4).size).toBe(2)
  })

  repoTest('random walk: ~40 commits, 3 merges, one rename', () => {
    const { repo } = scenario('random')
    const count = Number(repo.git('rev-list', '--count', 'HEAD').trim())
    expect(count).toBeGreaterThanOrEqual(38)
    expect(repo.git('rev-list', '--merges', 'HEAD').trim().split('\n')).toHaveLength(3)
    expect(filesAtHead(repo)).toContain('moved/beta_renamed.py')
    expect(followSet(repo, 'moved/beta_renamed.py').size).toBeGreaterThan(pathLogSet(repo, 'moved/beta_renamed.py').size)
  })

  repoTest('fixture symbols are found', () => {
    const { repo } = scenario('linear')
    const names = (p: string): string[] => fixtureSymbols(p, blobAtHead(repo, p).toString('utf8')).map((s) => `${s.qualifiedName}@${s.startLine}-${s.endLine}`)
    expect(names('src/greeter.ts')).toEqual(['Greeter@1-14', 'Greeter.greet@2-5', 'Greeter.wave@6-9', 'Greeter.farewell@10-13'])
    expect(names('src/calc.py')).toEqual(['Calc@1-8', 'Calc.add@2-5', 'Calc.mul@6-8', 'helper@9-12'])
  })
})
