/**
 * The comments of a source file, line by line, without a parser: `//`, `/* … *\/` (with its `*`
 * continuation lines), `#` in the languages that use it, Python's triple-quoted docstrings. Good
 * enough to read what a comment says (a constraint, a TODO); strings are skipped on the line they
 * open on, so `"http://x"` is not a comment. Pure.
 */

export interface CommentLine {
  /** 1-based. */
  line: number
  /** The comment's text on that line, markers (`//`, `*`, `#`, `/**`) stripped, trimmed. */
  text: string
}

export interface CommentBlock {
  start: number
  end: number
  lines: CommentLine[]
}

const HASH_LANGUAGES = new Set(['python', 'ruby'])
const HASH_FILES = /(?:\.(?:py|pyi|rb|sh|bash|zsh|ya?ml|toml|pl|r|cfg|conf|mk|cmake|tf|nix|ex|exs|jl|cr|ps1)|(?:^|\/)(?:Makefile|Dockerfile|Gemfile|Rakefile|CMakeLists\.txt))$/i
const NO_SLASH_FILES = /\.(?:md|markdown|txt|rst|json|csv|html?|xml|svg)$/i

/** Which comment markers a file uses, from its indexed language or its name. */
export function commentStyle(path: string, language: string | null): { slash: boolean; hash: boolean; docstring: boolean } {
  const hash = (language !== null && HASH_LANGUAGES.has(language)) || HASH_FILES.test(path)
  const docstring = language === 'python' || /\.pyi?$/i.test(path)
  const slash = !hash && !NO_SLASH_FILES.test(path)
  return { slash, hash: hash || language === 'php', docstring }
}

/** Markers left at the edges of a comment line's text. */
function clean(text: string): string {
  return text
    .replace(/^\s*\/\*+!?/, '')
    .replace(/\*+\/\s*$/, '')
    .replace(/^\s*\*+(?!\/)/, '')
    .replace(/^\s*(?:\/\/+[!/]?|#+!?)/, '')
    .trim()
}

/** Every comment line of a file's text (lines as `text.split('\n')`). */
export function commentLines(lines: readonly string[], style: ReturnType<typeof commentStyle>): CommentLine[] {
  const out: CommentLine[] = []
  let block = false
  let docstring: string | null = null
  let quoted: string | null = null
  lines.forEach((raw, i) => {
    const line = i + 1
    let text = ''
    let j = 0
    const s = raw
    while (j < s.length) {
      if (docstring !== null) {
        const close = s.indexOf(docstring, j)
        text += ` ${s.slice(j, close < 0 ? s.length : close)}`
        if (close < 0) break
        j = close + 3
        docstring = null
        continue
      }
      if (block) {
        const close = s.indexOf('*/', j)
        text += ` ${s.slice(j, close < 0 ? s.length : close)}`
        if (close < 0) break
        j = close + 2
        block = false
        continue
      }
      if (quoted !== null) {
        const close = s.indexOf(quoted, j)
        if (close < 0) break
        j = close + 3
        quoted = null
        continue
      }
      const c = s[j]
      if (style.docstring && (s.startsWith('"""', j) || s.startsWith("'''", j))) {
        // a docstring is a triple-quoted string that is a statement of its own; any other is a string
        if (s.slice(0, j).trim() === '') docstring = s.slice(j, j + 3)
        else quoted = s.slice(j, j + 3)
        j += 3
        continue
      }
      if (c === '"' || c === "'" || c === '`') {
        const close = s.indexOf(c, j + 1)
        // an unclosed quote on this line (a template literal, an apostrophe in prose): read on
        j = close < 0 ? j + 1 : close + 1
        continue
      }
      if (style.slash && c === '/' && s[j + 1] === '/') {
        text += ` ${s.slice(j)}`
        break
      }
      if (style.slash && c === '/' && s[j + 1] === '*') {
        block = true
        j += 2
        continue
      }
      if (style.hash && c === '#' && !(j === 0 && s.startsWith('#!'))) {
        text += ` ${s.slice(j)}`
        break
      }
      j++
    }
    const cleaned = clean(text.replace(/\s+/g, ' '))
    if (cleaned) out.push({ line, text: cleaned })
  })
  return out
}

/** Consecutive comment lines (blank lines between them keep them together; code does not) as blocks. */
export function commentBlocks(comments: readonly CommentLine[], text: readonly string[]): CommentBlock[] {
  const out: CommentBlock[] = []
  for (const c of comments) {
    const last = out[out.length - 1]
    const between = last ? text.slice(last.end, c.line - 1) : []
    if (last && c.line > last.end && between.every((l) => l.trim() === '')) {
      last.end = c.line
      last.lines.push(c)
    } else out.push({ start: c.line, end: c.line, lines: [c] })
  }
  return out
}

/** A comment line that starts a thought of its own: a marker, a tag, a bullet, or a capital after a line that ended one. */
const FRESH = /^(?:TODO|FIXME|HACK|XXX|NOTE|@\w+|[-*•]\s)/

/** A block's sentences, each with the lines it spans. */
export function blockSentences(block: CommentBlock): Array<{ text: string; start: number; end: number }> {
  // runs of lines that read on (a wrapped sentence), cut where a line starts a new thought
  const runs: CommentLine[][] = []
  for (const l of block.lines) {
    const run = runs[runs.length - 1]
    const prev = run?.[run.length - 1]
    if (!prev || FRESH.test(l.text) || (/^[A-Z]/.test(l.text) && !/[,(\w-]$/.test(prev.text)) || /^[A-Z][a-z]+\b/.test(l.text) && /[.!?:;]$/.test(prev.text)) runs.push([l])
    else run.push(l)
  }
  const out: Array<{ text: string; start: number; end: number }> = []
  for (const run of runs) {
    let joined = ''
    const offsets: Array<{ at: number; line: number }> = []
    for (const l of run) {
      if (joined) joined += ' '
      offsets.push({ at: joined.length, line: l.line })
      joined += l.text
    }
    const lineAt = (at: number) => {
      let line = offsets[0].line
      for (const o of offsets) if (o.at <= at) line = o.line
      return line
    }
    const re = /(?:[^.!?]|[.!?]+(?=\S))+(?:[.!?]+(?=\s|$)|$)/g
    let m: RegExpExecArray | null
    while ((m = re.exec(joined)) !== null) {
      const raw = m[0]
      const text = raw.trim()
      if (!text) {
        if (m.index === re.lastIndex) re.lastIndex++
        continue
      }
      const at = m.index + raw.indexOf(text)
      out.push({ text, start: lineAt(at), end: lineAt(at + text.length - 1) })
    }
  }
  return out
}
