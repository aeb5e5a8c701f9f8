import { describe, expect, it } from 'vitest'
import { DocMaker, rawCommitDoc, symbolDocs, type CommitDocInput } from '../../src/embed/doc-maker.js'
import type { SymbolSummaryInput } from '../../src/embed/docs.js'

const commits: CommitDocInput[] = Array.from({ length: 300 }, (_, i) => ({
  sha: i.toString(16).padStart(40, '0'),
  message: i % 7 === 0 ? `chore(deps): bump foo to ${i}\n\n| Package | From | To |\n|---|---|---|\n| foo | ${i - 1} | ${i} |` : `Fix parseConfig for case ${i}\n\nThe cache key ignored AWS_SECRET_ACCESS_KEY=AKIA${'X'.repeat(16)} and "quotes".\n\nSigned-off-by: A <a@example.com>`,
  authorName: i % 7 === 0 ? 'dependabot[bot]' : 'Ada',
  authorEmail: i % 7 === 0 ? '49699333+dependabot[bot]@users.noreply.github.com' : 'ada@example.com',
}))

// more than two of the maker's batches, so that their order counts
const symbols: SymbolSummaryInput[] = Array.from({ length: 12_345 }, (_, i) => ({
  id: `src/m${i % 50}.ts#Klass${i}.handleRequest${i}`,
  qualifiedName: `Klass${i}.handleRequest${i}`,
  kind: i % 3 === 0 ? 'class' : 'method',
  path: i % 11 === 0 ? `test/m${i % 50}.test.ts` : `src/m${i % 50}.ts`,
  startLine: i + 1,
  signature: `handleRequest${i}(req: IncomingMessage, opts = { retries: ${i} })`,
  doc: i % 2 ? `Handles the request; token ghp_${'a'.repeat(36)} is not kept` : '',
  ownerSubjects: [`Subject ${i % 97}`, `Subject ${(i + 1) % 97}`, `Subject ${i % 97}`, `Другой ${i % 5}`],
}))

describe('DocMaker', () => {
  it.each([true, false])('makes the same documents as the functions do, in the order asked (threaded: %s)', async (threaded) => {
    const maker = new DocMaker(threaded)
    try {
      const first = maker.commits(commits.slice(0, 120))
      for (const s of symbols) maker.symbol(s)
      const second = maker.commits(commits.slice(120))
      const made = await maker.symbols()
      expect([...(await first), ...(await second)]).toEqual(commits.map(rawCommitDoc))
      expect(made).toEqual(symbolDocs(symbols))
      expect(made.docs.map((d) => d.ref)).toEqual(symbols.map((s) => s.id))
      // asked again: only what came since
      maker.symbol(symbols[5])
      expect(await maker.symbols()).toEqual(symbolDocs([symbols[5]]))
    } finally {
      await maker.close()
    }
  })

  it('fails what it cannot make with the reason, and goes on making the rest', async () => {
    const maker = new DocMaker()
    try {
      const bad = maker.commits([{ sha: 'x', message: undefined as unknown as string, authorName: 'a', authorEmail: 'a' }])
      await expect(bad).rejects.toThrow()
      expect(await maker.commits(commits.slice(0, 3))).toEqual(commits.slice(0, 3).map(rawCommitDoc))
    } finally {
      await maker.close()
    }
  })

  it('gives nothing for nothing asked', async () => {
    const maker = new DocMaker()
    try {
      expect(await maker.symbols()).toEqual({ docs: [], search: [] })
      expect(await maker.commits([])).toEqual([])
    } finally {
      await maker.close()
    }
  })
})
