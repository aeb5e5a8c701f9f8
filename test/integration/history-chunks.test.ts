/**
 * A history of several chunks (their logs read two at once) comes back as one log pass over the
 * whole range gives it: the commits in `git rev-list --topo-order` order, each with its own
 * parents and its own first-parent diff, and each merge's other-parent diff where it has one.
 */
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { afterAll, expect, test } from 'vitest'
import { DiffStreamParser, type DiffRecord } from '../../src/git/diff-parser.js'
import { chunkSize, logArgs, readHistory } from '../../src/git/history-reader.js'
import { pairRenamesPerPath } from '../../src/history/renames.js'
import { createRepo } from '../helpers/repo.js'

const COMMITS = 2600

/** COMMITS commits on main, a side branch merged every 40, files renamed now and then (fast-import). */
function history() {
  const repo = createRepo()
  const out: string[] = []
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`
  const names = ['a.txt', 'b.txt', 'c.txt', 'd.txt']
  let mark = 0
  let main = 0
  for (let i = 1; i <= COMMITS; i++) {
    const time = 1_700_000_000 + i * 60
    let merge = 0
    if (i % 40 === 0) {
      merge = ++mark
      out.push(`commit refs/heads/side\nmark :${merge}\ncommitter Side <side@example.com> ${time - 30} +0000\n${data(`side ${i}`)}from :${main}\nM 100644 inline ${names[i % 4]}\n${data(`side ${i}\n`.repeat(3) + `shared ${i}\n`)}`)
    }
    const f = i % 4
    let change = `M 100644 inline ${names[f]}\n${data(Array.from({ length: 6 }, (_, l) => `line ${l} of ${names[f]} at ${l === i % 6 ? i : 0}`).join('\n') + '\n')}`
    if (i % 97 === 0) {
      // a rename: the file moves and keeps its content
      const to = `moved-${i}-${names[f]}`
      change = `R ${names[f]} ${to}\n`
      names[f] = to
    }
    const m = ++mark
    out.push(`commit refs/heads/main\nmark :${m}\ncommitter Main <main@example.com> ${time} +0000\n${data(`change ${i}`)}` + (main ? `from :${main}\n` : '') + (merge ? `merge :${merge}\n` : '') + change)
    main = m
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: repo.dir, env: repo.env(), input: out.join('') })
  repo.git('reset', '-q', '--hard', 'main')
  return repo
}

const repo = history()
afterAll(() => repo.cleanup())

test('a history read in chunks, two logs at once, is the one log pass in order', async () => {
  const shas = repo.git('rev-list', '--topo-order', 'HEAD').trim().split('\n')
  expect(Math.ceil(shas.length / chunkSize(shas.length))).toBeGreaterThanOrEqual(4)
  // the oracle: one log pass over every commit, first-parent diffs paired as the reader pairs them
  const whole: Array<{ sha: string; parents: string[]; first: unknown }> = []
  const parser = new DiffStreamParser((rec: DiffRecord) => {
    const [sha, parents] = rec.header.split('\x00')
    whole.push({ sha, parents: parents ? parents.split(' ') : [], first: pairRenamesPerPath(rec.files, rec.oids) })
  }, true)
  parser.push(execFileSync('git', logArgs(), { cwd: repo.dir, env: repo.env(), input: shas.join('\n') + '\n', maxBuffer: 1 << 30 }))
  parser.end()
  expect(whole.map((c) => c.sha)).toEqual(shas)

  const seen: number[] = []
  const commits = await readHistory(repo.dir, { range: ['HEAD'], onProgress: (_, done) => seen.push(done) })
  expect(commits.map((c) => c.sha)).toEqual(shas)
  commits.forEach((c, i) => {
    expect(c.parents).toEqual(whole[i].parents)
    expect(c.diffs[0]).toEqual(whole[i].first)
    // a merge's other parent: the side branch's file, which the first-parent diff names
    if (c.parents.length > 1) expect(c.diffs[1].length).toBeGreaterThan(0)
  })
  expect(commits.filter((c) => c.parents.length > 1).length).toBe(COMMITS / 40)
  expect(commits.some((c) => c.diffs[0].some((d) => d.status === 'R'))).toBe(true)
  // the progress never goes back and ends at the total
  expect(seen.every((n, i) => i === 0 || n >= seen[i - 1])).toBe(true)
  expect(seen.at(-1)).toBe(shas.length)
}, 120_000)

test('a chunk whose log fails fails the read with the user error, whatever the log beside it does', async () => {
  const damaged = history()
  try {
    // the newest chunk names a blob that is gone (its commits' objects are loose; the rest are packed)
    damaged.write('late.txt', 'late\n').commit('late')
    const blob = damaged.git('rev-parse', 'HEAD:late.txt').trim()
    for (let i = 0; i < 3; i++) damaged.write('late.txt', `late ${i}\n`).commit(`later ${i}`)
    rmSync(damaged.path(`.git/objects/${blob.slice(0, 2)}/${blob.slice(2)}`))
    await expect(readHistory(damaged.dir, { range: ['HEAD'] })).rejects.toMatchObject({ code: 'repo_damaged' })
  } finally {
    damaged.cleanup()
  }
}, 120_000)
