/**
 * The searchable text of a symbol (issue 11, `gitwhy query`): its names split into words
 * (camelCase, PascalCase, snake_case, kebab-case, digits) beside the names themselves, its
 * signature, its doc comment and its path, for Kuzu's full-text index (BM25, English stemmer).
 */

import { NO_WORDS } from '../graph/schema.js'
import { ftsTerms } from './fts-terms.js'

const IDENT = /[\p{L}\p{N}_$]+/gu
/** One word of an identifier: an acronym, a (capitalised) word, a number, or a run of other letters. */
export const PART = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|\p{Lo}+/gu

/**
 * An identifier that is one PART whole (a word, capitalised or not, an acronym, a number): what
 * most of a commit message's identifiers are, and what splitting gives back unchanged.
 */
export const ONE_PART = /^(?:\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+)$/u

/**
 * In ASCII text, a whole identifier (a maximal run of letters, digits, `_` and `$`) that is not one
 * PART, found by what only such a run holds: `_` or `$`, a lower-case letter before an upper-case
 * one, two upper-case letters before a lower-case one, or a letter beside a digit. A run with none
 * of these is a word, an acronym or a number (ONE_PART), which splitting gives back unchanged.
 * Commit messages are mostly such runs: going through each of them with Unicode classes was most
 * of the time identifierWords and embeddingText took (git/git's 82,000 messages: 1.9 and 3.7 s).
 * A match starts only where a run does (the lookbehind), and stops looking at its first sign:
 * without that a run with none was tried again from each of its letters.
 */
export const ASCII_SPLIT = /(?<![A-Za-z0-9_$])[A-Za-z0-9_$]*?(?:[_$]|[a-z][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z][0-9]|[0-9][A-Za-z])[A-Za-z0-9_$]*/g
export const ASCII = /^[\x00-\x7f]*$/
const ASCII_TOKEN = /[a-z0-9_$]+/g

/** The words of an identifier that is not ONE_PART, lower-cased, and the identifier whole when it splits. */
function splitIdentifier(id: string): string[] {
  const parts = [...id.matchAll(PART)].map((m) => m[0].toLowerCase())
  const whole = id.toLowerCase().replace(/^[_$]+|[_$]+$/g, '')
  return parts.length > 1 && whole ? [...parts, whole] : parts
}

/** Every identifier of the text, and the words each splits into, lower-cased, space-separated. */
export function identifierWords(text: string): string {
  // ASCII: the identifiers that split are replaced by their words, and the rest is read as it is
  if (ASCII.test(text)) return (text.replace(ASCII_SPLIT, (id) => ` ${splitIdentifier(id).join(' ')} `).toLowerCase().match(ASCII_TOKEN) ?? []).join(' ')
  const out: string[] = []
  for (const [id] of text.matchAll(IDENT)) {
    if (ONE_PART.test(id)) out.push(id.toLowerCase())
    else out.push(...splitIdentifier(id))
  }
  return out.join(' ')
}

const LINE_COMMENT = /^(\/\/\/?|#(?![[!]|include|define|if|else|end|pragma|import)|--|;+)\s?/
const DECORATION = /^(@|#\[)/
const MAX_DOC = 600

/**
 * The comment block right above a definition (`/** … *\/`, `///`, `//`, `#`, `--`), skipping
 * decorators and attributes between it and the definition, or a Python docstring right below its
 * head; trimmed of comment markers, at most 600 characters. '' when there is none.
 */
export function docComment(lines: readonly string[], startLine: number, endLine: number): string {
  const above: string[] = []
  let i = startLine - 2
  while (i >= 0 && DECORATION.test(lines[i].trim())) i--
  let inBlock = false
  for (; i >= 0; i--) {
    const t = lines[i].trim()
    if (inBlock || t.endsWith('*/')) {
      above.push(t)
      inBlock = !/^\/\*/.test(t)
      continue
    }
    if (LINE_COMMENT.test(t)) above.push(t)
    else break
  }
  let text = above.reverse().map(strip).join(' ')
  if (!text) {
    // a docstring: the first statement of the body is a string
    for (let j = startLine; j < Math.min(endLine, startLine + 3); j++) {
      const t = lines[j]?.trim() ?? ''
      const q = /^[rRuU]?("""|''')/.exec(t)
      if (!q) continue
      const body: string[] = []
      for (let k = j; k < Math.min(endLine, j + 40); k++) {
        const line = (lines[k] ?? '').trim()
        body.push(line.replace(q[0], '').replace(q[1], ''))
        if (k === j ? line.slice(q[0].length).includes(q[1]) : line.includes(q[1])) break
      }
      text = body.join(' ')
      break
    }
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, MAX_DOC)
}

function strip(line: string): string {
  return line.replace(/^\/\*\*?|\*\/$/g, '').replace(/^\*+\s?/, '').replace(LINE_COMMENT, '').trim()
}

/** The text the full-text index holds for a symbol (NO_WORDS when it keeps none); the names count twice (a match there matters most). */
export function symbolSearchText(s: { qualifiedName: string; signature: string; path: string }, doc: string): string {
  const names = identifierWords(s.qualifiedName)
  return ftsTerms([names, names, identifierWords(s.signature), doc, identifierWords(s.path)].filter(Boolean).join(' ')) || NO_WORDS
}
