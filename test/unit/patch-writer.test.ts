import { mkdirSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { FileDiff } from '../../src/git/diff-parser.js'
import { PatchWriter } from '../../src/history/path-index.js'
import { tempDir } from '../graph/fixtures.js'

let dir: { path: string; cleanup: () => void }
beforeEach(() => { dir = tempDir() })
afterEach(() => dir.cleanup())

const diff = (path: string, text: string): FileDiff => ({ path, oldPath: path, status: 'M', binary: false, hunks: [0, 1, 0, 1], additions: 1, deletions: 1, whitespaceOnly: false, text: Buffer.from(text) })

/** 3,000 commits over 40 paths, ~40 MB of text: more than one flush (32 MB) before the checkpoint. */
function write(writer: PatchWriter, from: number, to: number): void {
  for (let age = from; age < to; age++) {
    const big = 'x'.repeat(13_000 + (age % 7) * 100)
    writer.add(age, [[diff(`src/f${age % 40}.ts`, `-old ${age}\n+new ${age} ${big}`), diff(`src/g${age % 3}.ts`, `+é€ ${age}`)]])
  }
}

const files = (root: string) => Object.fromEntries(readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => [join(e.parentPath, e.name).slice(root.length), readFileSync(join(e.parentPath, e.name))]))

describe('PatchWriter', () => {
  it('writes the same store on its thread as in this one, checkpoints included', async () => {
    const out: Record<string, unknown> = {}
    for (const threaded of [true, false]) {
      const root = join(dir.path, String(threaded))
      mkdirSync(root)
      const writer = new PatchWriter(root, threaded)
      writer.open(null, null)
      write(writer, 0, 2000)
      const first = await writer.checkpoint()
      write(writer, 2000, 3000)
      const second = await writer.checkpoint()
      await writer.finish()
      expect(second.bytes).toBeGreaterThan(first.bytes)
      out[String(threaded)] = { first, second, files: files(root) }
    }
    expect(out.true).toEqual(out.false)
    expect(Object.keys((out.true as { files: object }).files)).toContain('/patches.bin')
  })

  it('reports a write it could not make at the checkpoint, with the reason', async () => {
    const writer = new PatchWriter(join(dir.path, 'missing'))
    writer.open(null, null)
    write(writer, 0, 10)
    await expect(writer.checkpoint()).rejects.toThrow(/writing the patch store failed: .*ENOENT/)
    // the system error's code comes along, as writeFailure (a full disk, no permission) reads it
    await expect(writer.checkpoint()).rejects.toMatchObject({ code: 'ENOENT' })
    await writer.close()
  })
})
