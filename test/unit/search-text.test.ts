import { describe, expect, test } from 'vitest'
import { docComment, identifierWords, ONE_PART, symbolSearchText } from '../../src/codegraph/search-text.js'
import { embeddingText } from '../../src/embed/model.js'
import { NO_WORDS } from '../../src/graph/schema.js'
import { matchedWords, onePerChange, type SearchHit } from '../../src/services/search.js'

describe('search text', () => {
  test('identifiers split at camelCase, PascalCase, acronyms, snake_case, kebab-case and digits, and are kept whole', () => {
    expect(identifierWords('parseURLQuery2')).toBe('parse url query 2 parseurlquery2')
    expect(identifierWords('HTTPServer.handle_request')).toBe('http server httpserver handle request handle_request')
    expect(identifierWords('src/utils/get-path.ts')).toBe('src utils get path ts')
    expect(identifierWords('run')).toBe('run')
    expect(identifierWords('  ')).toBe('')
  })

  // The words that take the short way (ONE_PART) must come out as splitting gives them: a leading
  // underscore sends the same word the long way, and the two must agree (and a word that splits
  // must not take the short way).
  test('a one-part identifier comes out as splitting gives it', () => {
    const words = ['run', 'Fix', 'HTTP', '2024', 'Straße', 'İstanbul', 'ΣΊΣΥΦΟΣ', 'Émile', 'x', 'I', 'parseHeader', 'HTTPServer', 'utf8', 'v3', 'ab12Cd', 'snake_case', 'ǅungla', '中文', 'ⅻ']
    for (const w of words) {
      expect(identifierWords(w)).toBe(identifierWords(`_${w}`))
      expect(embeddingText(w)).toBe(embeddingText(`_${w}`))
    }
    expect(words.filter((w) => ONE_PART.test(w))).toEqual(['run', 'Fix', 'HTTP', '2024', 'Straße', 'İstanbul', 'ΣΊΣΥΦΟΣ', 'Émile', 'x', 'I', 'ⅻ'])
  })

  // identifierWords and embeddingText read ASCII text with ASCII patterns (fast) and the rest with
  // Unicode ones; a trailing no-break space (white space: dropped by both) sends the same text the
  // Unicode way
  test('ASCII text comes out of the fast patterns as it does out of the Unicode ones', () => {
    const alphabet = ['a', 'q', 'Z', 'Q', 'x', 'A', '0', '7', '_', '$', ' ', '/', '\\', '.', '-', ':', '>', '\n', '(', '#']
    let seed = 7
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % n
    }
    const texts = ['parseURLQuery2 in src/get-path.ts', 'HTTPServer::handle_request -> v3.utf8', 'a-b 1-2 a.b 1.2 x->y __init__ $ref', 'ABc aBC AbC abC9 9abc']
    for (let i = 0; i < 5000; i++) texts.push(Array.from({ length: next(20) }, () => alphabet[next(alphabet.length)]).join(''))
    for (const text of texts) {
      expect(embeddingText(text), JSON.stringify(text)).toBe(embeddingText(`${text}\u00a0`))
      expect(identifierWords(text), JSON.stringify(text)).toBe(identifierWords(`${text}\u00a0`))
    }
    expect(identifierWords('a-b 1-2 x->y __init__ $ref ABc aBC')).toBe('a b 1 2 x y init ref a bc abc a bc abc')
    expect(embeddingText('HTTPServer::handle_request -> v3.utf8')).toBe('HTTP server handle request v3.utf8')
  })

  test('doc comments: a JSDoc block, line comments, a Python docstring, decorators skipped; code above is not one', () => {
    const ts = ['const x = 1', '/**', ' * Parses a URL.', ' * @param s the text', ' */', '@memo', 'export function parse(s) {', '}']
    expect(docComment(ts, 7, 8)).toBe('Parses a URL. @param s the text')
    const go = ['package x', '', '// Run starts the', '// command.', 'func Run() {', '}']
    expect(docComment(go, 5, 6)).toBe('Run starts the command.')
    const py = ['def go(self):', '    """Start the job', '    and wait."""', '    return 1']
    expect(docComment(py, 1, 4)).toBe('Start the job and wait.')
    expect(docComment(['x = 1', 'def f():', '    return 2'], 2, 3)).toBe('')
    expect(docComment(['#include <x.h>', 'int main() {', '}'], 2, 3)).toBe('')
  })

  test('the names count twice, then the signature, the doc and the path, as the terms Kuzu keeps', () => {
    // all, n and everything are Kuzu's stop words; the doc's punctuation and capitals go as Kuzu's tokenizer takes them
    expect(symbolSearchText({ qualifiedName: 'Svc.runAll', signature: 'runAll(n)', path: 'src/svc.ts' }, 'Runs everything.')).toBe(
      'svc run runall svc run runall run runall runs src svc ts',
    )
    expect(symbolSearchText({ qualifiedName: 'get', signature: '', path: 'a/b.c' }, '')).toBe(NO_WORDS)
  })
})

describe('matchedWords', () => {
  test('finds the question’s words in a text, alike up to an English ending from 4 letters', () => {
    expect(matchedWords(['cache', 'routes', 'run', 'parsing'], 'Caching compiled route patterns; runs the parser')).toEqual(['cache', 'routes', 'parsing'])
    // short words only as they are: "run" is not "runs"
    expect(matchedWords(['run', 'runs'], 'runs')).toEqual(['runs'])
    expect(matchedWords(['parse', 'url'], 'parseUrl()')).toEqual(['parse', 'url'])
  })
})

describe('onePerChange', () => {
  const hit = (kind: SearchHit['kind'], ref: string, title: string, score: number): SearchHit => ({ kind, ref, title, path: '', line: 0, score, why: { bm25_rank: null, bm25_score: null, vector_rank: null, cosine: null, words: [] } })

  test('a pull request and its commit are one hit, the commit’s, at the better place of the two', () => {
    const ranked = [
      hit('symbol', 'src/etag.ts#stripWeak', 'stripWeak', 0.9),
      hit('pr', '4171', 'fix(etag): return 304 for a weak etag', 0.8),
      hit('pr', '4848', 'fix(compress): convert strong ETag to weak ETag', 0.7),
      hit('commit', 'a'.repeat(40), 'fix(compress): convert strong ETag to weak ETag (#4848)', 0.65),
      hit('commit', 'b'.repeat(40), 'fix(etag): return 304 for a weak etag (#4171)', 0.6),
      // a merge commit's PR: the commit with its title (4 words or more) is its own
      hit('pr', '1470', 'Remove charset from JSON types', 0.5),
      hit('commit', 'c'.repeat(40), 'Remove charset from JSON types', 0.4),
      // short titles name no one change; another number is another PR
      hit('pr', '9', 'Update README', 0.3),
      hit('commit', 'd'.repeat(40), 'Update README', 0.2),
      hit('pr', '10', 'fix(etag): return 304 for a weak etag', 0.1),
    ]
    const out = onePerChange(ranked)
    expect(out.map((h) => `${h.kind} ${h.ref.slice(0, 4)} ${h.score}`)).toEqual([
      'symbol src/ 0.9',
      'commit bbbb 0.8',
      'commit aaaa 0.7',
      'commit cccc 0.5',
      'pr 9 0.3',
      'commit dddd 0.2',
      'pr 10 0.1',
    ])
  })
})
