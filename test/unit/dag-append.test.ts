/**
 * An update writes dag.json by splicing the new commits into the stored text (appendedDag): the
 * bytes must be JSON.stringify's of the whole DAG, whatever the lists held, and a text that is not
 * JSON.stringify's layout is written out anew.
 */
import { describe, expect, it } from 'vitest'
import { appendedDag, type Dag } from '../../src/history/path-index.js'

const whole = (a: Dag, b: Dag) => JSON.stringify({ shas: [...a.shas, ...b.shas], parents: [...a.parents, ...b.parents], dates: [...a.dates, ...b.dates], boundary: [...a.boundary, ...b.boundary] })
const none: Dag = { shas: [], parents: [], dates: [], boundary: [] }
const sha = (n: number) => n.toString(16).padStart(40, '0')

describe('appendedDag', () => {
  const stored: Dag = { shas: [sha(1), sha(2), sha(3)], parents: [[], [0], [1, 0]], dates: [100, -5, 2e9], boundary: [1, 0, 0] }
  const added: Dag = { shas: [sha(4), sha(5)], parents: [[2], [3, -1]], dates: [4102444800, 7], boundary: [0, 0] }

  it('gives JSON.stringify of the whole DAG', () => {
    const bytes = Buffer.from(JSON.stringify(stored))
    expect(appendedDag(bytes, stored, added).toString()).toBe(whole(stored, added))
  })

  it('splices into empty lists and after a parentless last commit', () => {
    const empty = Buffer.from(JSON.stringify(none))
    expect(appendedDag(empty, none, added).toString()).toBe(whole(none, added))
    const root: Dag = { shas: [sha(9)], parents: [[]], dates: [0], boundary: [0] }
    expect(appendedDag(Buffer.from(JSON.stringify(root)), root, { ...added, parents: [[], []] }).toString()).toBe(whole(root, { ...added, parents: [[], []] }))
  })

  it('adds nothing when nothing is added', () => {
    const bytes = Buffer.from(JSON.stringify(stored))
    expect(appendedDag(bytes, stored, none).toString()).toBe(JSON.stringify(stored))
  })

  it('writes a text of another layout out anew', () => {
    for (const text of [JSON.stringify(stored, null, 1), JSON.stringify({ parents: stored.parents, shas: stored.shas, dates: stored.dates, boundary: stored.boundary })]) {
      expect(appendedDag(Buffer.from(text), stored, added).toString()).toBe(whole(stored, added))
    }
    expect(appendedDag(null, stored, added).toString()).toBe(whole(stored, added))
  })
})
