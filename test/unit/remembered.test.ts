import { expect, test } from 'vitest'
import { remembered } from '../../src/runtime/remembered.js'

test('remembered works each key out once, false answers too, and forgets everything past its bound', () => {
  const asked: string[] = []
  const even = remembered((k) => (asked.push(k), k.length % 2 === 0), 3)
  expect([even('ab'), even('a'), even('ab'), even('a')]).toEqual([true, false, true, false])
  expect(asked).toEqual(['ab', 'a'])
  even('abc')
  even('abcd') // the fourth key: the three before are forgotten
  even('ab')
  expect(asked).toEqual(['ab', 'a', 'abc', 'abcd', 'ab'])
})
