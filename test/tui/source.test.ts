/** The explorer's answer cache: loads after the keypress, the newest first, errors kept as answers, a bounded memory. */
import { describe, expect, test } from 'vitest'
import { UserError } from '../../src/errors.js'
import type { IndexReader } from '../../src/services/index-reader.js'
import { ExploreSource } from '../../src/tui/source.js'

const source = () => new ExploreSource({} as IndexReader)

describe('ExploreSource', () => {
  test('a request answers loading at once and runs after the caller, the one asked last first', async () => {
    const s = source()
    const order: string[] = []
    expect(s.request('a', () => order.push('a'))).toEqual({ state: 'loading' })
    expect(s.request('b', () => order.push('b'))).toEqual({ state: 'loading' })
    expect(order).toEqual([])
    expect(s.busy()).toBe(true)
    await s.idle()
    expect(order).toEqual(['b', 'a'])
    expect(s.request('a', () => order.push('again'))).toEqual({ state: 'ok', value: 2 }) // push's length: a ran second
    expect(s.busy()).toBe(false)
  })

  test('an error is an answer: a UserError with its remedy, anything else its message', async () => {
    const s = source()
    s.request('user', () => {
      throw new UserError('no such file', 'pick another', 'unknown_path')
    })
    s.request('bug', async () => {
      throw new Error('boom')
    })
    await s.idle()
    expect(s.request('user', () => 0)).toEqual({ state: 'error', message: 'no such file', remedy: 'pick another' })
    expect(s.request('bug', () => 0)).toEqual({ state: 'error', message: 'boom', remedy: null })
  })

  test('forget asks again in the background, showing the kept answer meanwhile, without the spinner', async () => {
    const s = source()
    let n = 0
    s.request('index', () => ++n)
    await s.idle()
    s.forget('index')
    expect(s.request('index', () => ++n)).toEqual({ state: 'ok', value: 1 })
    expect(s.busy()).toBe(false)
    await s.idle()
    expect(s.request('index', () => ++n)).toEqual({ state: 'ok', value: 2 })
  })

  test('the answers used last are kept, the oldest dropped', async () => {
    const s = source()
    s.request('pinned', () => 'p')
    for (let i = 0; i < 600; i++) {
      s.request(`k${i}`, () => i)
      if (i % 50 === 0) {
        await s.idle()
        s.request('pinned', () => 'again') // in use on every screen
      }
    }
    await s.idle()
    expect(s.request('k599', () => -1)).toEqual({ state: 'ok', value: 599 })
    expect(s.request('pinned', () => 'again')).toEqual({ state: 'ok', value: 'p' })
    expect(s.request('k0', () => -1)).toEqual({ state: 'loading' })
  })
})
