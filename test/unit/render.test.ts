import { describe, expect, test } from 'vitest'
import { expandTabs, printable } from '../../src/render.js'

describe('expandTabs', () => {
  test('a tab is the spaces up to the next stop of 8 columns, as a terminal shows git log -L', () => {
    expect(expandTabs('-\t// root command')).toBe('-       // root command')
    expect(expandTabs('+\tif x {\n')).toBe('+       if x {\n')
    expect(expandTabs('ab\tc\td')).toBe('ab      c       d')
    expect(expandTabs('\t\t')).toBe(' '.repeat(16))
    expect(expandTabs('no tabs')).toBe('no tabs')
    // what is left for printable() has no tab to escape
    expect(printable(expandTabs('+\tx'))).toBe('+       x')
  })
})
