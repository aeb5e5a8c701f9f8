/**
 * The hook block as text: appending and removing it gives back the original bytes, the shell
 * check, and the sh quoting (run through a real sh).
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import { appendBlock, BLOCK_BEGIN, BLOCK_END, CREATED_HEADER, findBlocks, notShellReason, removeBlocks, renderBlock, shQuote } from '../../src/services/hooks.js'

const CMD = { node: '/usr/bin/node', runJs: '/opt/gitwhy/bin/run.js' }

describe('hook block text', () => {
  const originals = ['', 'x', '#!/bin/sh\necho hi', '#!/bin/sh\necho hi\n', '#!/bin/sh\n\n\n', 'a\r\nb\r\n', '#!/bin/bash\nexit 0\n']
  test.each(originals.map((o) => [JSON.stringify(o), o]))('append then remove restores %s byte for byte', (_, original) => {
    const block = renderBlock('post-commit', false, CMD)
    const installed = appendBlock(original, block)
    const found = findBlocks(installed)
    expect(found.unterminated).toBeNull()
    expect(found.blocks).toHaveLength(1)
    expect(found.blocks[0]).toMatchObject({ text: block, created: false })
    expect(removeBlocks(installed, found.blocks)).toBe(original)
  })

  test('a created file is the shebang plus the block, and is recognised as created', () => {
    const text = appendBlock(CREATED_HEADER, renderBlock('post-merge', true, CMD))
    const { blocks } = findBlocks(text)
    expect(blocks[0].created).toBe(true)
    expect(removeBlocks(text, blocks)).toBe(CREATED_HEADER)
  })

  test('lines the user added after the block survive its removal', () => {
    const text = appendBlock('#!/bin/sh\necho before\n', renderBlock('post-commit', false, CMD)) + 'echo after\n'
    expect(removeBlocks(text, findBlocks(text).blocks)).toBe('#!/bin/sh\necho before\necho after\n')
  })

  test('a block moved above a line of the user\'s is cut out without joining lines', () => {
    const block = renderBlock('post-commit', false, CMD)
    expect(removeBlocks(`#!/bin/sh\necho a\n${block}exit 0\n`, findBlocks(`#!/bin/sh\necho a\n${block}exit 0\n`).blocks)).toBe('#!/bin/sh\necho a\nexit 0\n')
    const spaced = `#!/bin/sh\necho a\n\n${block}exit 0\n`
    expect(removeBlocks(spaced, findBlocks(spaced).blocks)).toBe('#!/bin/sh\necho a\nexit 0\n')
    const noFinalNewline = appendBlock('#!/bin/sh\necho a', block) + 'echo after\n'
    expect(removeBlocks(noFinalNewline, findBlocks(noFinalNewline).blocks)).toBe('#!/bin/sh\necho a\necho after\n')
  })

  test('a begin line without an end line is reported', () => {
    expect(findBlocks(`#!/bin/sh\n${BLOCK_BEGIN}\necho x\n`).unterminated).toBe(10)
    expect(findBlocks(`${BLOCK_END}\n`).blocks).toEqual([])
  })

  test('post-checkout runs only for branch checkouts; the others for every call', () => {
    expect(renderBlock('post-checkout', false, CMD)).toContain('if [ "$3" = 1 ] && ')
    expect(renderBlock('post-commit', false, CMD)).not.toContain('$3')
  })
})

describe('which hooks gitwhy may append to', () => {
  test.each([
    ['#!/bin/sh\n', null],
    ['#!/bin/bash -e\n', null],
    ['#!/usr/bin/env bash\n', null],
    ['#!/usr/bin/env -S zsh -f\n', null],
    ['#! /bin/dash\n', null],
    ['npx lint-staged\n', null],
    ['', null],
    ['#!/usr/bin/env python3\nprint(1)\n', 'is not a shell script (its first line is `#!/usr/bin/env python3`)'],
    ['#!/usr/bin/node\n', 'is not a shell script (its first line is `#!/usr/bin/node`)'],
    ['\x7fELF\x02\x01\x01\x00', 'is a binary file'],
  ])('%j → %s', (content, reason) => {
    expect(notShellReason(Buffer.from(content, 'latin1'))).toBe(reason)
  })
})

describe('sh quoting', () => {
  test.each(["/plain/path", "/with space/and 'quotes'/x", "/dollar $HOME `id` \\ \"q\"", "/o'''k"])('%s survives sh', (value) => {
    expect(execFileSync('sh', ['-c', `printf %s ${shQuote(value)}`]).toString('utf8')).toBe(value)
  })

  test('the block is valid sh and keeps the status of what ran before it', () => {
    const block = renderBlock('post-commit', false, { node: '/nonexistent/node', runJs: '/nonexistent/run.js' })
    for (const [before, status] of [['true', 0], ['false', 1], ['(exit 7)', 7]] as const) {
      let code = 0
      try {
        execFileSync('sh', ['-c', `${before}\n${block}`], { stdio: 'ignore' })
      } catch (e) {
        code = (e as { status: number }).status
      }
      expect(code).toBe(status)
    }
  })
})
