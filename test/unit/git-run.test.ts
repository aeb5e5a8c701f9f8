import { describe, expect, it } from 'vitest'
import { missingObjectError } from '../../src/git/run.js'

describe('missingObjectError: git failing on an object the repository lacks is the user\'s to fix', () => {
  const sha = 'c005087fe0cf0c3105c0b6a9276df26fb9f82d10'
  it('recognises what git prints for missing and corrupt objects', () => {
    for (const stderr of [
      `fatal: unable to read ${sha}\n`,
      `error: Could not read ${sha}\nfatal: revision walk setup failed\n`,
      `missing blob ${sha}\n`,
      `error: inflate: data stream error (incorrect header check)\nerror: unable to unpack ${sha} header\n`,
      `fatal: loose object ${sha} (stored in .git/objects/c0/05087f) is corrupt\n`,
    ]) {
      const e = missingObjectError('/r', stderr)
      expect(e?.code, stderr).toBe('repo_damaged')
      expect(e?.message, stderr).toMatch(/damaged or incomplete/)
    }
    expect(missingObjectError('/r', `fatal: unable to read ${sha}\n`)?.message).toContain(sha)
  })

  it('leaves other failures alone (they stay bugs or are handled where they happen)', () => {
    expect(missingObjectError('/r', "fatal: ambiguous argument 'nope': unknown revision or path not in the working tree.\n")).toBeUndefined()
    expect(missingObjectError('/r', `fatal: bad object ${sha}\n`)).toBeUndefined()
  })
})
