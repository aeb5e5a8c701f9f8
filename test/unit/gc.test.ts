/**
 * collectGarbage() runs before Kuzu's bulk load so that the JavaScript heap's garbage is not
 * resident beside Kuzu's peak. A plain full collection leaves a fragmented heap committed (a few
 * live objects on every page); the load's must compact, so that the heap it leaves is about what
 * is live.
 */
import { expect, test } from 'vitest'
import { collectGarbage } from '../../src/runtime/gc.js'

test('a compacting collection: a fragmented heap shrinks to about what is live', () => {
  let all: Array<{ i: number; s: string }> | null = []
  for (let i = 0; i < 3_000_000; i++) all.push({ i, s: `x${i}` })
  // one object in twenty stays: every page keeps a few
  const kept = all.filter((_, i) => i % 20 === 0)
  all = null
  collectGarbage({ compact: true })
  const { heapTotal, heapUsed } = process.memoryUsage()
  expect(kept.length).toBe(150_000)
  // a plain collection leaves ~15× the live size committed here; a compacting one ~2×
  expect(heapTotal).toBeLessThan(3 * heapUsed + 32 * 1024 * 1024)
}, 60_000)
