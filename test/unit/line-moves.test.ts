/**
 * An update sets the line of a call that only moved (lineMoves) instead of deleting and inserting
 * it: only where a SET matched by source, callee, line, confidence and reason can find no other
 * edge than the one meant, and where the keyed delete (source, callee, line) cannot take it.
 */
import { describe, expect, test } from 'vitest'
import type { CallEdge } from '../../src/codegraph/resolve.js'
import { lineMoves } from '../../src/services/analyze.js'

const call = (from: string, to: string, line: number, reason: CallEdge['reason'] = 'import', confidence = 0.9): CallEdge => ({ from, to, line, reason, confidence })

/** What an update's diff gives for calls (every old edge of a changed source that is not kept is removed). */
function moves(before: CallEdge[], after: CallEdge[]) {
  const key = (e: CallEdge) => `${e.from}\0${e.to}\0${e.line}\0${e.confidence}\0${e.reason}`
  const now = new Set(after.map(key))
  const was = new Set(before.map(key))
  const bySource = new Map<string, CallEdge[]>()
  for (const e of before) bySource.set(e.from, [...(bySource.get(e.from) ?? []), e])
  return lineMoves({ remove: before.filter((e) => !now.has(key(e))), insert: after.filter((e) => !was.has(key(e))) }, bySource)
}

describe('lineMoves', () => {
  test('calls shifted below an edit move; one shifted onto another\'s old line leaves that one in place', () => {
    const before = [call('a', 'x', 10), call('a', 'x', 11), call('a', 'y', 12), call('a', 'y', 30), call('b', 'x', 3)]
    const after = [call('a', 'x', 11), call('a', 'x', 12), call('a', 'y', 13), call('a', 'y', 31), call('b', 'x', 3)]
    const out = moves(before, after)
    expect(out.remove).toEqual([])
    expect(out.insert).toEqual([])
    // x at 11 is kept by the diff: the one at 10 moves to 12
    expect(out.moves.map((m) => [m.from, m.to, m.line, m.to_line])).toEqual([['a', 'x', 10, 12], ['a', 'y', 12, 13], ['a', 'y', 30, 31]])
  })

  test('removed and inserted calls of one key pair in line order', () => {
    // the removed calls are the stored ones themselves (the diff's), as lineMoves tells them apart by identity
    const old = [call('a', 'x', 10), call('a', 'x', 11)]
    const out = lineMoves({ remove: [old[1], old[0]], insert: [call('a', 'x', 12), call('a', 'x', 11)] }, new Map([['a', old]]))
    expect(out.moves.map((m) => [m.line, m.to_line])).toEqual([[10, 11], [11, 12]])
  })

  test('a source keeps deleting and inserting where a SET could match a call it keeps', () => {
    // two calls to x at line 10 with the same reason: one stays, one moves to 20
    const before = [call('a', 'x', 10), call('a', 'x', 10), call('b', 'y', 1)]
    const after = [call('a', 'x', 10), call('a', 'x', 20), call('b', 'y', 2)]
    const key = (e: CallEdge) => `${e.from}\0${e.to}\0${e.line}`
    // the diff by key keeps both of a's line-10 calls (a set of keys): remove nothing of a, insert the line 20 one
    const out = lineMoves({ remove: [before[0], before[2]], insert: [after[1], after[2]] }, new Map([['a', before.slice(0, 2)], ['b', [before[2]]]]))
    expect(out.moves.map(key)).toEqual(['b\0y\x001'])
    expect(out.remove.map(key)).toEqual(['a\0x\x0010'])
    expect(out.insert.map(key)).toEqual(['a\0x\x0020'])
  })

  test('a call deleted at a moving call\'s callee and line keeps its source deleting and inserting', () => {
    // the call to x at line 5 by import moves to 6; the one at line 5 by name goes: the delete (source, callee, line) would take both
    const before = [call('a', 'x', 5, 'import'), call('a', 'x', 5, 'name', 0.4)]
    const after = [call('a', 'x', 6, 'import')]
    const out = moves(before, after)
    expect(out.moves).toEqual([])
    expect(out.remove).toHaveLength(2)
    expect(out.insert).toHaveLength(1)
  })

  test('calls that change more than their line, or whose count changes, are not paired', () => {
    const before = [call('a', 'x', 1), call('a', 'x', 2), call('a', 'y', 3, 'import', 0.9)]
    const after = [call('a', 'x', 2), call('a', 'y', 4, 'import', 0.5)]
    const out = moves(before, after)
    expect(out.moves).toEqual([])
    expect(out.remove.map((e) => e.line)).toEqual([1, 3])
    expect(out.insert.map((e) => e.line)).toEqual([4])
  })
})
