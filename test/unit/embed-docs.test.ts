import { describe, expect, it } from 'vitest'
import { commitDoc, composeVector, composedInput, docInput, embeddingInput, inputHash, pullRequestDoc, symbolDoc, type SymbolSummaryInput } from '../../src/embed/docs.js'
import { embed } from '../../src/embed/model.js'
import { ftsTerms } from '../../src/codegraph/fts-terms.js'
import { identifierWords } from '../../src/codegraph/search-text.js'
import { NO_WORDS } from '../../src/graph/schema.js'
import { DocEmbedder, VectorCache } from '../../src/embed/vectors.js'

/** A document's hash as the embedder works it out. */
const hashOf = (d: Parameters<typeof docInput>[0]): string => docInput(d).hash

const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}

const symbol = (over: Partial<SymbolSummaryInput> = {}): SymbolSummaryInput => ({
  id: 'src/router.ts#Router.compilePaths',
  qualifiedName: 'Router.compilePaths',
  kind: 'method',
  path: 'src/router.ts',
  startLine: 3,
  signature: 'compilePaths(routes: Route[]): Matcher',
  doc: 'Compiles every route once.',
  ownerSubjects: ['Cache compiled paths (#41)', 'Add the router'],
  ...over,
})

describe('what the model reads of a document', () => {
  it('leaves out the first line’s trailing pull request number, nothing else', () => {
    expect(embeddingInput('Cache compiled paths (#41)')).toBe('Cache compiled paths')
    expect(embeddingInput('Cache compiled paths (#41)\nSee (#12) and #13.')).toBe('Cache compiled paths See (#12) and #13.')
    expect(embeddingInput('Revert "x (#3)" (#4)')).toBe('Revert "x (#3)"')
    expect(embeddingInput('Fix #41 in compilePaths')).toBe('Fix #41 in compile paths')
  })

  it('gives a squash merge without a body and its pull request one input, so one vector', () => {
    const commit = commitDoc({ sha: 'a'.repeat(40), subject: 'Cache compiled paths (#41)', body: '' })
    const pr = pullRequestDoc({ number: 41, title: 'Cache compiled paths' })!
    expect(hashOf(commit)).toBe(hashOf(pr))
    expect(hashOf(commitDoc({ sha: 'a'.repeat(40), subject: 'Cache compiled paths (#41)', body: 'Because.' }))).not.toBe(hashOf(pr))
  })

  it('leaves a commit’s sign-off lines out of its document, and keeps its other trailers', () => {
    const body = 'The parent must flush first.\n\nReported-by: Bob Reporter <bob@example.test>\nSigned-off-by: Ada Tester <ada@example.test>\n  signed-off-by: Junio C Hamano <gitster@pobox.com>'
    const doc = commitDoc({ sha: 'a'.repeat(40), subject: 'Wait before retrying', body })
    expect(doc.text).toBe('Wait before retrying\nThe parent must flush first.\n\nReported-by: Bob Reporter <bob@example.test>')
    expect(doc.search).toBe('wait retrying parent flush reported bob reporter bob test')
    // a body of sign-offs alone is no body
    expect(commitDoc({ sha: 'a'.repeat(40), subject: 'Bump', body: 'Signed-off-by: Ada <a@b.c>' }).text).toBe('Bump')
    // mid-line it is prose
    expect(commitDoc({ sha: 'a'.repeat(40), subject: 'Docs', body: 'Explain what Signed-off-by: means.' }).text).toBe('Docs\nExplain what Signed-off-by: means.')
  })

  it('embeds a bot’s commit by its subject alone, and keeps its whole message for the full-text index', () => {
    const body = '| Package | Change |\n|---|---|\n| vite | 5.0.0 -> 5.0.1 |\n\nRelease notes: token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB'
    const bot = commitDoc({ sha: 'b'.repeat(40), subject: 'chore(deps): update vite (#12)', body }, { bot: true })
    expect(bot.text).toContain('vite | 5.0.0')
    expect(bot.search).toContain('release')
    expect(docInput(bot).input).toBe(embeddingInput('chore(deps): update vite (#12)'))
    // its pull request's title is the same input, so one vector
    expect(hashOf(bot)).toBe(hashOf(pullRequestDoc({ number: 12, title: 'chore(deps): update vite' })!))
    // a person's commit with that message is read whole
    const person = commitDoc({ sha: 'b'.repeat(40), subject: 'chore(deps): update vite (#12)', body })
    expect(docInput(person).input).toBe(embeddingInput(person.text))
    expect(hashOf(person)).not.toBe(hashOf(bot))
    // a secret in a bot's subject stays out of the model's input as out of the text
    expect(JSON.stringify(commitDoc({ sha: 'b'.repeat(40), subject: 'set ghp_0123456789abcdefghijklmnopqrstuvwxyzAB', body: 'x' }, { bot: true }))).not.toContain('ghp_0123456789')
  })

  it('leaves a message of fewer than three words out of the model, not out of the text', () => {
    // decided when the model's input is made (docInput): a document built without a model pays nothing
    const read = <T extends Parameters<typeof docInput>[0]>(d: T): T => (docInput(d), d)
    const commit = (subject: string, body = '') => read(commitDoc({ sha: 'c'.repeat(40), subject, body }))
    for (const subject of ['炎', 'v2.7.3', 'release: v3.3.7', 'chore: denoify', 'Fixed example', 'Fix typo (#12)']) {
      expect(commitDoc({ sha: 'c'.repeat(40), subject, body: '' }).unembedded, subject).toBeUndefined()
      expect(commit(subject).unembedded, subject).toBe(true)
      expect(commit(subject).hash, subject).toBe('')
      expect(docInput(commit(subject)).input, subject).toBeNull()
      expect(commit(subject).text, subject).toBe(subject)
    }
    // each Han character is a word; a body counts
    for (const [subject, body] of [['修复路由缓存', ''], ['Update README.md', ''], ['Fixed example', 'The example forgot to await the server.']]) {
      expect(commit(subject, body).unembedded, subject).toBeUndefined()
    }
    // a bot's commit is read by its subject: a short one is not read at all
    expect(read(commitDoc({ sha: 'c'.repeat(40), subject: 'v1.2.3', body: 'A long generated changelog with many words in it' }, { bot: true })).unembedded).toBe(true)
    expect(read(pullRequestDoc({ number: 3, title: 'Fix typo' })!).unembedded).toBe(true)
    expect(read(pullRequestDoc({ number: 3, title: 'Fix a typo in the guide' })!).unembedded).toBeUndefined()
  })

  it('works a document’s hash out once it is asked for (an index without a model holds none)', () => {
    const commit = commitDoc({ sha: 'a'.repeat(40), subject: 'Cache compiled paths (#41)', body: '' })
    expect(commit.hash).toBe('')
    expect(hashOf(commit)).toBe(inputHash('Cache compiled paths'))
    expect(commit.hash).toBe(inputHash('Cache compiled paths'))
  })

  it('summarises a symbol whole, and embeds its own text apart from its owners’ subjects', () => {
    const doc = symbolDoc(symbol())
    expect(doc.text).toBe('Router compile paths (method)\ncompilePaths(routes: Route[]): Matcher\nCompiles every route once.\nsrc/router.ts\nCache compiled paths (#41)\nAdd the router')
    expect(composedInput(doc.compose!)).toEqual({
      own: 'Router compile paths (method) compile paths(routes: Route[]): Matcher Compiles every route once. src router ts',
      parts: ['Cache compiled paths', 'Add the router'],
    })
    // the owners' subject is one input with their documents' (a pull request's title here)
    expect(inputHash(composedInput(doc.compose!).parts[0])).toBe(hashOf(pullRequestDoc({ number: 41, title: 'Cache compiled paths' })!))
    // the hash is the vector's: another owner, another vector; the same owners twice, one part
    expect(hashOf(symbolDoc(symbol({ ownerSubjects: ['Add the router'] })))).not.toBe(hashOf(doc))
    expect(composedInput(symbolDoc(symbol({ ownerSubjects: ['Add the router', 'Add the router', ' '] })).compose!).parts).toEqual(['Add the router'])
    expect(hashOf(symbolDoc(symbol()))).toBe(hashOf(doc))
  })

  it('keeps the words of its whole text, its subjects’ worked out once', () => {
    const secret = ['ghp_', '0123456789abcdefghijklmnopqrstuvwxyzAB'].join('')
    const cases: Array<Partial<SymbolSummaryInput>> = [
      {},
      { ownerSubjects: ['Fix parseHTTPHeader_v2 for snake_case names', 'Fix parseHTTPHeader_v2 for snake_case names', 'the and of'] },
      { doc: '', signature: '', ownerSubjects: [] },
      // a text that is not ASCII, one whose subject is scrubbed, one cut at 2,000 characters
      { ownerSubjects: ['Gérer les en-têtes HTTP (#12)', 'Add the router'] },
      { ownerSubjects: [`set GITHUB_TOKEN=${secret}`, 'Add the router'] },
      { doc: 'compiles'.repeat(300), ownerSubjects: ['Cache compiledPaths in the RouterCache', 'Add the router'] },
      // two lines whose words meet where the line break was
      { path: 'src/router-', ownerSubjects: ['-cache: the first line', '123 numbers only'] },
    ]
    for (const c of cases) {
      const doc = symbolDoc(symbol(c))
      expect(doc.search, JSON.stringify(c)).toBe(ftsTerms(identifierWords(doc.text)) || NO_WORDS)
      expect(doc.text).not.toContain(secret)
    }
  })

  it('leaves a test file’s symbols out of the model, not out of the text', () => {
    for (const path of ['src/__tests__/router.spec.ts', 'tests/test_router.py', 'router_test.go', 'src/router.test.ts']) {
      const doc = symbolDoc(symbol({ path }))
      expect(doc, path).toMatchObject({ unembedded: true, hash: '' })
      expect(doc.compose, path).toBeUndefined()
      expect(doc.text, path).toContain('Cache compiled paths')
    }
    expect(symbolDoc(symbol()).unembedded).toBeUndefined()
  })

  it('keeps secrets out of a symbol’s model inputs as out of its text', () => {
    const doc = symbolDoc(symbol({ doc: 'token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB', ownerSubjects: ['set GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB'] }))
    expect(JSON.stringify(doc)).not.toContain('ghp_0123456789abcdefghijklmnopqrstuvwxyzAB')
  })
})

describe('composeVector', () => {
  it('is the unit vector of twice the own vector plus the mean of the parts', () => {
    const v = composeVector(Float32Array.from([1, 0, 0]), [Float32Array.from([0, 1, 0]), Float32Array.from([0, 0, 1])])
    const expected = [2, 0.5, 0.5].map((x) => x / Math.sqrt(4.5))
    expect(Array.from(v).map((x) => x.toFixed(6))).toEqual(expected.map((x) => x.toFixed(6)))
    expect(Array.from(composeVector(Float32Array.from([0.6, 0.8]), []))).toEqual([Math.fround(0.6), Math.fround(0.8)])
  })
})

describe('DocEmbedder', () => {
  it('makes a symbol’s vector from its own text’s and its owners’ subjects’, each input embedded once', async () => {
    const docs = [
      commitDoc({ sha: 'a'.repeat(40), subject: 'Cache compiled paths (#41)', body: '' }),
      pullRequestDoc({ number: 41, title: 'Cache compiled paths' })!,
      symbolDoc(symbol()),
      symbolDoc(symbol({ id: 'src/router.ts#Router', qualifiedName: 'Router', kind: 'class', signature: 'class Router', doc: '' })),
    ]
    const embedder = new DocEmbedder(VectorCache.load(null, null))
    embedder.add(docs)
    const cache = await embedder.finish()
    // four documents (two share a vector); inputs: the subject, 'Add the router', two own texts
    expect(embedder.documents).toBe(3)
    expect(embedder.total).toBe(4)
    const [own, first, second] = await embed([composedInput(docs[2].compose!).own, 'Cache compiled paths', 'Add the router'])
    const expected = composeVector(own, [first, second])
    expect(dot(cache.get(docs[2].hash)!, expected)).toBeGreaterThan(0.99999)
    expect(dot(cache.get(docs[0].hash)!, first)).toBeGreaterThan(0.99999)
    // the whole summary in one input is near, not the same
    const [whole] = await embed([embeddingInput(docs[2].text)])
    expect(dot(cache.get(docs[2].hash)!, whole)).toBeGreaterThan(0.85)
    expect(dot(cache.get(docs[2].hash)!, whole)).toBeLessThan(0.99999)

    // another run that knows these vectors embeds nothing
    const again = new DocEmbedder(cache)
    again.add(docs)
    await again.finish()
    expect([again.documents, again.total]).toEqual([0, 0])

    // a test file's symbol is not embedded, and the vectors of a build leave its row out
    const tested = symbolDoc(symbol({ id: 'src/router.test.ts#routes', path: 'src/router.test.ts' }))
    const other = new DocEmbedder(VectorCache.load(null, null))
    other.add([tested])
    await other.finish()
    expect([other.documents, other.total]).toEqual([0, 0])
    const rows = [...docs, tested].map((d, row) => ({ ...d, row }))
    const flat = cache.flat(rows)
    expect(flat.rows).toEqual([0, 1, 2, 3])
    expect(flat.data.length).toBe(4 * cache.dimensions)
  }, 60_000)
})
