/**
 * src/embed/unigram.ts gives the token ids transformers.js gives, which is the oracle here: on the
 * bundled models' tokenizer over texts of every kind (prose, code, paths, Unicode that NFKC
 * rewrites, surrogate pairs, control characters, the `▁` and unknown characters, texts past the
 * model's 128 tokens), and on a small made-up vocabulary whose pieces tie in score and leave
 * characters unknown, so that Viterbi's tie-breaking and the joining of unknown runs are put to it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AutoTokenizer } from '@huggingface/transformers'
import { afterAll, describe, expect, it } from 'vitest'
import { BUNDLED_MODELS, bundledModelDir } from '../../src/embed/model.js'
import { unigramTokenizer } from '../../src/embed/unigram.js'
import { rng } from '../helpers/scenarios.js'

const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

async function oracle(dir: string): Promise<(text: string) => number[]> {
  const tokenizer = await AutoTokenizer.from_pretrained(dir, { local_files_only: true })
  return (text) => (tokenizer(text, { padding: false, truncation: true, return_tensor: false }) as { input_ids: number[] }).input_ids
}

function fast(dir: string): (text: string) => number[] {
  const config = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>
  const tokenize = unigramTokenizer(JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')), config, Number(config.model_max_length ?? Infinity))
  expect(tokenize).not.toBeNull()
  return tokenize!
}

const SENTENCES = [
  'fix(runtime-core): bail manually rendered compiler slot fragments in all cases (#1234)',
  'render (method) render() packages runtime core tests component slots spec ts',
  'Retry failed HTTP requests with exponential backoff',
  '  leading and trailing spaces  ',
  'double  spaces\tand a tab\nand a newline\r\nand CRLF',
  '▁already a metaspace ▁▁ twice',
  'ﬁnancial ① ｆｕｌｌｗｉｄｔｈ Ⅻ ㎏ ﬀ ℌ ½ ² ™ …',
  'café naïve coöperate résumé Ångström e\u0301 a\u0308',
  '日本語のテキスト 中文 한국어 العربية עברית हिन्दी ไทย',
  'emoji 🎉🚀👍🏽 family 👨‍👩‍👧 flag 🇩🇪 math 𝔸𝔹ℂ 𝟘𝟙',
  'control \u0001\u0007\u001b[31m\u007f chars and \u200b zero width \ufeff bom',
  'replacement \ufffd char and lone surrogates \ud800 x \udc00',
  '~~~ ``` <<< >>> ||| \\\\ /// ### $$$ %%% ^^^ &&& *** ((( ))) [[[ ]]] {{{ }}}',
  'x'.repeat(400),
  'word '.repeat(200),
  'a',
  '▁',
  '\ufffd',
  '\ufffd\ufffd\ufffd',
]

describe('the Unigram tokenizer', () => {
  for (const id of BUNDLED_MODELS) {
    it(`gives transformers.js's ids on the ${id} tokenizer`, async () => {
      const dir = bundledModelDir(id)
      const [want, got] = [await oracle(dir), fast(dir)]
      const rand = rng(7)
      const alphabet = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:!?-_/()[]{}<>#@$%^&*+=|~`\'"'] 
      const exotic = [...'▁ ﬁ①ｆé\u0301日本🎉👨‍👩‍👧\u0007\u200b\ufffd\ud800\t\n\u00a0\u3000ß']
      const texts = [...SENTENCES]
      for (let i = 0; i < 3000; i++) {
        const length = 1 + Math.floor(rand() * (i % 10 === 0 ? 600 : 80))
        let text = ''
        for (let k = 0; k < length; k++) text += rand() < 0.05 ? exotic[Math.floor(rand() * exotic.length)] : alphabet[Math.floor(rand() * alphabet.length)]
        texts.push(text)
      }
      const wrong = texts.filter((t) => JSON.stringify(got(t)) !== JSON.stringify(want(t)))
      expect(wrong.map((t) => ({ text: t, want: want(t), got: got(t) })).slice(0, 3)).toEqual([])
      expect(got('x'.repeat(400))).toHaveLength(128)
    }, 60_000)
  }

  // pieces of equal scores, so that many segmentations score the same; `z` and `q` are in no piece
  // of one character. With positive scores an unknown character (10 below the least) can beat a
  // piece, so a run of unknown tokens next to each other can spell a piece (`zq`, `<unk>z`).
  const VOCABULARIES: Record<string, Array<[string, number]>> = {
    'log-probabilities': [['<unk>', 0], ['▁', -2], ['a', -2], ['b', -2], ['ab', -4], ['ba', -4], ['▁a', -4], ['aba', -6], ['bab', -6], ['c', -3], ['zq', -1], ['<unk>z', -1], ['aa', -4.000000000000001]],
    'positive scores': [['<unk>', 31], ['▁', 40], ['a', 40], ['b', 40], ['ab', 80], ['ba', 80], ['▁a', 80], ['aba', 120], ['bab', 120], ['c', 35], ['zq', 30], ['<unk>z', 30], ['aa', 80.00000000000001]],
  }
  for (const [name, vocab] of Object.entries(VOCABULARIES)) it(`breaks ties and joins unknown characters as transformers.js does, on a vocabulary made to tie (${name})`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gitwhy-unigram-'))
    dirs.push(dir)
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify({
      version: '1.0', truncation: null, padding: null, added_tokens: [],
      normalizer: { type: 'NFKC' },
      pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: false },
      post_processor: null,
      decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: false },
      model: { type: 'Unigram', unk_id: 0, vocab, byte_fallback: false },
    }))
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ tokenizer_class: 'PreTrainedTokenizerFast', model_max_length: 16, unk_token: '<unk>', clean_up_tokenization_spaces: false }))
    const [want, got] = [await oracle(dir), fast(dir)]
    const rand = rng(11)
    const alphabet = [...'abababczq <unk>']
    const texts = ['zq', 'zzqq', 'qz', 'a z q b', '<unk>z', 'zq<unk>zq', 'ababababab', 'aaaa', 'b a b a']
    for (let i = 0; i < 4000; i++) {
      let text = ''
      for (let k = 0, n = 1 + Math.floor(rand() * 24); k < n; k++) text += alphabet[Math.floor(rand() * alphabet.length)]
      texts.push(text)
    }
    const wrong = texts.filter((t) => JSON.stringify(got(t)) !== JSON.stringify(want(t)))
    expect(wrong.map((t) => ({ text: t, want: want(t), got: got(t) })).slice(0, 3)).toEqual([])
  }, 60_000)

  it('reads no tokenizer of another shape (transformers.js tokenizes those)', () => {
    const json = JSON.parse(readFileSync(join(bundledModelDir(BUNDLED_MODELS[0]), 'tokenizer.json'), 'utf8')) as Record<string, unknown>
    expect(unigramTokenizer(json, {}, 128)).not.toBeNull()
    expect(unigramTokenizer({ ...json, normalizer: { type: 'NFC' } }, {}, 128)).toBeNull()
    expect(unigramTokenizer({ ...json, pre_tokenizer: { type: 'Whitespace' } }, {}, 128)).toBeNull()
    expect(unigramTokenizer({ ...json, post_processor: { type: 'TemplateProcessing' } }, {}, 128)).toBeNull()
    expect(unigramTokenizer({ ...json, added_tokens: [{ id: 0, content: '<unk>' }] }, {}, 128)).toBeNull()
    expect(unigramTokenizer({ ...json, model: { type: 'BPE', vocab: {}, merges: [] } }, {}, 128)).toBeNull()
    expect(unigramTokenizer(json, { do_lowercase_and_remove_accent: true }, 128)).toBeNull()
  })
})
