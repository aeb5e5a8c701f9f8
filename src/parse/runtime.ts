import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Language, Parser } from 'web-tree-sitter'

let runtime: Promise<void> | null = null

/**
 * web-tree-sitter's runtime, set up once per process (`Parser.init()` compiles it again at every
 * call, ~50 ms, and replaces the module the grammars loaded before were linked into). Started
 * early, as analyze's files phase begins, that compiling overlaps the reading of the previous
 * index instead of following it.
 */
export function treeSitterRuntime(): Promise<void> {
  // the runtime's .wasm by package path: a bundled entry (dist/bundle, e.g. the MCP server's) is not beside it
  runtime ??= Parser.init({ locateFile: () => createRequire(import.meta.url).resolve('web-tree-sitter/tree-sitter.wasm') })
  return runtime
}

const grammars = new Map<string, Promise<Language>>()
let loading: Promise<unknown> = Promise.resolve()

/**
 * A grammar, loaded once per process (its file read synchronously, so that the read does not
 * queue in libuv's thread pool behind other file work). One load at a time: concurrent loads of
 * grammars with external scanners break the wasm linker.
 */
export function loadGrammar(wasmPath: string): Promise<Language> {
  let language = grammars.get(wasmPath)
  if (!language) {
    language = loading.then(async () => {
      await treeSitterRuntime()
      return Language.load(readFileSync(wasmPath))
    })
    loading = language.catch(() => {})
    grammars.set(wasmPath, language)
  }
  return language
}
