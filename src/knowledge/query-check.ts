/**
 * A constraint written as a tree-sitter query: every capture in a checked file is a violation
 * (e.g. `(call_expression function: (identifier) @call (#eq? @call "eval"))`). The file's grammar
 * comes from the language registry, like the symbol extractor's.
 */
import { type Language, Parser, Query } from 'web-tree-sitter'
import { installedLanguageRegistry } from '../parse/index.js'
import { loadGrammar } from '../parse/runtime.js'

export interface QueryHit {
  line: number
  text: string
}

export class QueryChecker {
  private readonly languages = new Map<string, { language: Language; parser: Parser; query: Query | Error }>()

  constructor(private readonly source: string) {}

  /** The captures' lines in a file; null when no grammar handles the file. Throws when the query does not compile for its language. */
  async check(path: string, content: string): Promise<QueryHit[] | null> {
    const spec = installedLanguageRegistry().languageOf(path)
    if (!spec) return null
    let lang = this.languages.get(spec.id)
    if (!lang) {
      const language = await loadGrammar(spec.wasmPath)
      const parser = new Parser()
      parser.setLanguage(language)
      let query: Query | Error
      try {
        query = new Query(language, this.source)
      } catch (error) {
        query = error instanceof Error ? error : new Error(String(error))
      }
      lang = { language, parser, query }
      this.languages.set(spec.id, lang)
    }
    if (lang.query instanceof Error) throw new Error(`the check's tree-sitter query does not compile for ${spec.id}: ${lang.query.message}`)
    const tree = lang.parser.parse(content)
    if (!tree) return []
    try {
      const lines = content.split('\n')
      const seen = new Set<number>()
      const hits: QueryHit[] = []
      for (const c of lang.query.captures(tree.rootNode)) {
        const line = c.node.startPosition.row + 1
        if (seen.has(line)) continue
        seen.add(line)
        hits.push({ line, text: (lines[line - 1] ?? '').trim() })
      }
      return hits.sort((a, b) => a.line - b.line)
    } finally {
      tree.delete()
    }
  }

  close(): void {
    for (const l of this.languages.values()) {
      l.parser.delete()
      if (!(l.query instanceof Error)) l.query.delete()
    }
    this.languages.clear()
  }
}
