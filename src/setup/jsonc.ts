/**
 * JSON with comments (JSONC: `//` and `/* *\/` comments, trailing commas), parsed by `jsonc-parser`
 * (VS Code's) into a tree that remembers where every value and comma sits in the text, and edited
 * by splicing text: setting, appending or removing one value leaves every other byte of the file
 * alone (comments, key order, formatting, line endings). Plain JSON is a subset, so the client
 * configs of every editor go through this one engine.
 *
 * Where a value already exists, `jsonc-parser`'s `modify` finds the range and `applyEdits` splices
 * it. Inserting and removing items is laid out here because `modify` cannot do it without touching
 * the user's text: with formatting options it reformats the neighbouring entry (a one-line
 * `{ "command": "npx", "args": ["x"] }` becomes six lines), without them it writes the new item on
 * the previous item's line before its comment, and removing a last item takes the comment after
 * the previous one. New values are indented like their surroundings (2 spaces when the file gives
 * no hint), and removing an item just added gives the file back byte for byte.
 */
import { applyEdits as applyTextEdits, createScanner, modify, parseTree, printParseErrorCode, type Edit as TextEdit, type Node as ParsedNode, type ParseError, SyntaxKind } from 'jsonc-parser'

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }
export type JsonPath = ReadonlyArray<string | number>

export type JsonNode =
  | { kind: 'object'; start: number; end: number; properties: JsonProperty[] }
  | { kind: 'array'; start: number; end: number; elements: JsonElement[] }
  | { kind: 'string' | 'number' | 'boolean' | 'null'; start: number; end: number; value: string | number | boolean | null }

export interface JsonProperty {
  key: string
  keyStart: number
  value: JsonNode
  /** Offset of the comma that follows the value, or null. */
  comma: number | null
}

export interface JsonElement {
  value: JsonNode
  comma: number | null
}

export interface JsoncDocument {
  text: string
  /** null: the text is empty (only whitespace and comments). */
  root: JsonNode | null
  hasComments: boolean
}

/** The text is not JSON(C); `line` and `column` are 1-based. */
export class JsoncSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${reason} at line ${line}, column ${column}`)
    this.name = 'JsoncSyntaxError'
  }
}

/** The JSON is valid but a value on the way to the edited key has the wrong type. */
export class JsonShapeError extends Error {
  constructor(
    readonly path: JsonPath,
    readonly found: string,
    readonly expected: string,
  ) {
    super(`${path.length === 0 ? 'the top level' : formatPath(path)} is ${found}, expected ${expected}`)
    this.name = 'JsonShapeError'
  }
}

export function formatPath(path: JsonPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('')
}

// ---------------------------------------------------------------- parsing

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true }

export function parseJsonc(text: string): JsoncDocument {
  const errors: ParseError[] = []
  // a byte-order mark is whitespace here (same length, so every offset stays true)
  const source = text.replace(/^\uFEFF/, ' ')
  const parsed = parseTree(source, errors, PARSE_OPTIONS)
  const scan = scanTokens(source)
  if (errors.length > 0) {
    const at = errors[0].offset
    const before = text.slice(0, at)
    throw new JsoncSyntaxError(printParseErrorCode(errors[0].error), at, before.split('\n').length, at - (before.lastIndexOf('\n') + 1) + 1)
  }
  return { text, root: parsed && scan.hasValue ? convert(parsed, scan.commaAfter) : null, hasComments: scan.hasComments }
}

/** Comments, whether any value token exists, and for every value end the comma that follows it. */
function scanTokens(text: string): { hasComments: boolean; hasValue: boolean; commaAfter: Map<number, number> } {
  const scanner = createScanner(text, false)
  const commaAfter = new Map<number, number>()
  let hasComments = false
  let hasValue = false
  let lastEnd = -1
  for (let kind = scanner.scan(); kind !== SyntaxKind.EOF; kind = scanner.scan()) {
    if (kind === SyntaxKind.LineCommentTrivia || kind === SyntaxKind.BlockCommentTrivia) hasComments = true
    else if (kind === SyntaxKind.CommaToken) {
      if (lastEnd >= 0) commaAfter.set(lastEnd, scanner.getTokenOffset())
    } else if (kind !== SyntaxKind.Trivia && kind !== SyntaxKind.LineBreakTrivia) {
      hasValue = true
      lastEnd = scanner.getTokenOffset() + scanner.getTokenLength()
    }
  }
  return { hasComments, hasValue, commaAfter }
}

function convert(node: ParsedNode, commaAfter: Map<number, number>): JsonNode {
  const start = node.offset
  const end = node.offset + node.length
  const children = node.children ?? []
  switch (node.type) {
    case 'object':
      return {
        kind: 'object', start, end,
        properties: children.filter((p) => p.children?.length === 2).map((p) => {
          const value = convert(p.children![1], commaAfter)
          return { key: p.children![0].value as string, keyStart: p.offset, value, comma: commaAfter.get(value.end) ?? null }
        }),
      }
    case 'array':
      return {
        kind: 'array', start, end,
        elements: children.map((e) => {
          const value = convert(e, commaAfter)
          return { value, comma: commaAfter.get(value.end) ?? null }
        }),
      }
    case 'property':
      throw new Error('jsonc: a property outside an object')
    default:
      return { kind: node.type, start, end, value: node.value as string | number | boolean | null }
  }
}

/** The plain value a node stands for (duplicate keys: the last one wins, as in JSON.parse). */
export function toValue(node: JsonNode): JsonValue {
  switch (node.kind) {
    case 'object': {
      const out: { [key: string]: JsonValue } = {}
      // defineProperty: a key named "__proto__" is data, not the prototype
      for (const p of node.properties) Object.defineProperty(out, p.key, { value: toValue(p.value), enumerable: true, writable: true, configurable: true })
      return out
    }
    case 'array':
      return node.elements.map((e) => toValue(e.value))
    default:
      return node.value
  }
}

/** The node at `path`, or undefined when some step is missing or of the wrong type. */
export function nodeAt(root: JsonNode | null, path: JsonPath): JsonNode | undefined {
  let node: JsonNode | undefined = root ?? undefined
  for (const step of path) {
    if (!node) return undefined
    if (typeof step === 'string') {
      if (node.kind !== 'object') return undefined
      node = lastProperty(node.properties, step)?.value
    } else {
      if (node.kind !== 'array') return undefined
      node = node.elements[step]?.value
    }
  }
  return node
}

function lastProperty(properties: JsonProperty[], key: string): JsonProperty | undefined {
  for (let i = properties.length - 1; i >= 0; i--) if (properties[i].key === key) return properties[i]
  return undefined
}

export function kindName(node: JsonNode): string {
  return node.kind === 'array' ? 'an array' : node.kind === 'object' ? 'an object' : node.kind === 'null' ? 'null' : `a ${node.kind}`
}

// ---------------------------------------------------------------- editing

interface Edit {
  start: number
  end: number
  text: string
}

function applyEdits(text: string, edits: Edit[]): string {
  // applyEdits puts the later of two insertions at one offset first; ours list the text order
  return applyTextEdits(text, edits.map((e): TextEdit => ({ offset: e.start, length: e.end - e.start, content: e.text })).reverse())
}

/** Replace the existing value at `path` through `modify`, the new value laid out at its place. */
function replaceAt(text: string, path: JsonPath, value: JsonValue, unit: string, eol: string): string {
  const edits = modify(text, [...path], value, {}).map((e) => ({ ...e, content: serialize(value, indentOfLine(text, e.offset), unit, eol) }))
  return applyTextEdits(text, edits)
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1
}

/** Offset of the line break ending the line that contains `offset` (text.length if none). */
function lineEnd(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset)
  return nl < 0 ? text.length : nl
}

function indentOfLine(text: string, offset: number): string {
  const s = lineStart(text, offset)
  return /^[ \t]*/.exec(text.slice(s))![0]
}

/** Only whitespace between the start of its line and `offset`. */
function startsLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStart(text, offset), offset))
}

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n'
}

/** The file's indentation unit: that of the first top-level property on its own line, else 2 spaces. */
function indentUnit(doc: JsoncDocument): string {
  const root = doc.root
  if (root?.kind === 'object' && root.properties.length > 0) {
    const first = root.properties[0]
    if (startsLine(doc.text, first.keyStart)) {
      const ind = indentOfLine(doc.text, first.keyStart).slice(indentOfLine(doc.text, root.start).length)
      if (ind.length > 0) return ind
    }
  }
  return '  '
}

function serialize(value: JsonValue, baseIndent: string, unit: string, eol: string): string {
  return JSON.stringify(value, null, unit).split('\n').join(eol + baseIndent)
}

function isSingleLine(text: string, node: JsonNode): boolean {
  return !text.slice(node.start, node.end).includes('\n')
}

/** Text of a new document whose only content is `value`. */
export function formatNew(value: JsonValue): string {
  return JSON.stringify(value, null, 2) + '\n'
}

/**
 * Set the value at `path` (object keys only), creating the objects on the way. An existing value
 * is replaced in place; a new key goes after the last property of its object.
 */
export function setValue(text: string, path: JsonPath, value: JsonValue): string {
  const doc = parseJsonc(text)
  // no value yet: a blank file is replaced, comments are kept above the new object
  if (!doc.root) return (text.trim() === '' ? '' : text.endsWith('\n') ? text : text + '\n') + formatNew(buildNested(path, value))
  const unit = indentUnit(doc)
  const eol = eolOf(text)
  let node: JsonNode = doc.root
  for (let i = 0; i < path.length; i++) {
    const step = path[i]
    if (typeof step !== 'string') throw new Error('setValue takes object keys only')
    if (node.kind !== 'object') throw new JsonShapeError(path.slice(0, i), kindName(node), 'an object')
    const prop = lastProperty(node.properties, step)
    if (!prop) return applyEdits(text, insertProperty(text, node, step, buildNested(path.slice(i + 1), value), unit, eol))
    if (i === path.length - 1) return replaceAt(text, path, value, unit, eol)
    node = prop.value
  }
  // empty path: replace the whole document value
  return applyEdits(text, [{ start: node.start, end: node.end, text: serialize(value, indentOfLine(text, node.start), unit, eol) }])
}

/** Append `value` to the array at `path`, creating the array (and the objects on the way). */
export function appendValue(text: string, path: JsonPath, value: JsonValue): string {
  const doc = parseJsonc(text)
  const target = nodeAt(doc.root, path)
  if (!target) {
    checkObjectsAlong(doc.root, path)
    return setValue(text, path, [value])
  }
  if (target.kind !== 'array') throw new JsonShapeError(path, kindName(target), 'an array')
  return applyEdits(text, insertElement(text, target, value, indentUnit(doc), eolOf(text)))
}

/** Replace the value at `path`, which must exist (array indexes allowed). */
export function replaceValue(text: string, path: JsonPath, value: JsonValue): string {
  const doc = parseJsonc(text)
  const target = nodeAt(doc.root, path)
  if (!target) throw new Error(`replaceValue: nothing at ${formatPath(path)}`)
  return replaceAt(text, path, value, indentUnit(doc), eolOf(text))
}

/** Remove the value at `path` (object key or array index) with its comma; unchanged text if absent. */
export function removeValue(text: string, path: JsonPath): string {
  if (path.length === 0) throw new Error('removeValue needs a path')
  const doc = parseJsonc(text)
  const parent = nodeAt(doc.root, path.slice(0, -1))
  const last = path[path.length - 1]
  if (!parent) return text
  if (typeof last === 'string') {
    if (parent.kind !== 'object') return text
    const items = parent.properties.map((p) => ({ start: p.keyStart, end: p.value.end, comma: p.comma }))
    let index = -1
    for (let i = parent.properties.length - 1; i >= 0 && index < 0; i--) if (parent.properties[i].key === last) index = i
    if (index < 0) return text
    return applyEdits(text, removeItem(text, parent, items, index))
  }
  if (parent.kind !== 'array' || last < 0 || last >= parent.elements.length) return text
  const items = parent.elements.map((e) => ({ start: e.value.start, end: e.value.end, comma: e.comma }))
  return applyEdits(text, removeItem(text, parent, items, last))
}

function checkObjectsAlong(root: JsonNode | null, path: JsonPath): void {
  let node = root
  for (let i = 0; i < path.length && node; i++) {
    if (node.kind !== 'object') throw new JsonShapeError(path.slice(0, i), kindName(node), 'an object')
    node = lastProperty(node.properties, String(path[i]))?.value ?? null
  }
}

/** `value` under the keys of `path`, as a new JSON value. */
export function buildNested(path: JsonPath, value: JsonValue): JsonValue {
  let v = value
  for (let i = path.length - 1; i >= 0; i--) v = { [String(path[i])]: v }
  return v
}

/** Insert an item (`"key": value` or a bare value) after the last item of an object or array. */
function insertItem(text: string, container: JsonNode & { kind: 'object' | 'array' }, items: Array<{ start: number; end: number; comma: number | null }>, render: (indent: string, compact: boolean) => string, unit: string, eol: string): Edit[] {
  const open = container.start + 1
  const close = container.end - 1
  const parentIndent = indentOfLine(text, container.start)
  if (items.length === 0) {
    const inner = text.slice(open, close)
    if (inner.trim() === '') return [{ start: open, end: close, text: eol + parentIndent + unit + render(parentIndent + unit, false) + eol + parentIndent }]
    // only comments inside: keep them, the new item goes first
    return [{ start: open, end: open, text: eol + parentIndent + unit + render(parentIndent + unit, false) }]
  }
  const last = items[items.length - 1]
  if (isSingleLine(text, container)) {
    if (last.comma === null) return [{ start: last.end, end: last.end, text: ', ' + render('', true) }]
    return [{ start: last.comma + 1, end: last.comma + 1, text: ' ' + render('', true) }]
  }
  const indent = startsLine(text, last.start) ? indentOfLine(text, last.start) : parentIndent + unit
  // after the last non-blank character before the closing bracket (the last value, its comma or a comment)
  let at = close
  while (at > open && /\s/.test(text[at - 1])) at--
  // a file that ends its lists with a trailing comma gets one after the new item too
  const edits: Edit[] = [{ start: at, end: at, text: eol + indent + render(indent, false) + (last.comma === null ? '' : ',') }]
  if (last.comma === null) edits.push({ start: last.end, end: last.end, text: ',' })
  return edits
}

function insertProperty(text: string, obj: JsonNode & { kind: 'object' }, key: string, value: JsonValue, unit: string, eol: string): Edit[] {
  const items = obj.properties.map((p) => ({ start: p.keyStart, end: p.value.end, comma: p.comma }))
  return insertItem(text, obj, items, (indent, compact) => `${JSON.stringify(key)}: ${compact ? JSON.stringify(value) : serialize(value, indent, unit, eol)}`, unit, eol)
}

function insertElement(text: string, arr: JsonNode & { kind: 'array' }, value: JsonValue, unit: string, eol: string): Edit[] {
  const items = arr.elements.map((e) => ({ start: e.value.start, end: e.value.end, comma: e.comma }))
  return insertItem(text, arr, items, (indent, compact) => (compact ? JSON.stringify(value) : serialize(value, indent, unit, eol)), unit, eol)
}

/**
 * Remove item `index` and one comma, so that removing an item just inserted gives back the text
 * from before the insertion: a last item without a trailing comma takes the comma before it
 * (with the line break when only blanks separate them), any other item the comma after it; an
 * item alone on its lines takes those lines; an object or array left empty becomes `{}` / `[]`.
 */
function removeItem(text: string, container: JsonNode & { kind: 'object' | 'array' }, items: Array<{ start: number; end: number; comma: number | null }>, index: number): Edit[] {
  const item = items[index]
  if (items.length === 1) {
    const itemEnd = item.comma !== null ? item.comma + 1 : item.end
    const outside = text.slice(container.start + 1, item.start) + text.slice(itemEnd, container.end - 1)
    if (outside.trim() === '') return [{ start: container.start + 1, end: container.end - 1, text: '' }]
  }
  const isLast = index === items.length - 1
  if (isLast && index > 0 && item.comma === null) {
    const prevComma = items[index - 1].comma!
    if (text.slice(prevComma + 1, item.start).trim() === '') return [{ start: prevComma, end: item.end, text: '' }]
    return [{ start: prevComma, end: prevComma + 1, text: '' }, wholeLines(text, item.start, item.end)]
  }
  if (item.comma !== null) {
    let end = item.comma + 1
    while (text[end] === ' ' || text[end] === '\t') end++
    return [wholeLines(text, item.start, end)]
  }
  return [wholeLines(text, item.start, item.end)]
}

/** The range [start, end), widened to whole lines when nothing else is on them. */
function wholeLines(text: string, start: number, end: number): Edit {
  const after = lineEnd(text, end)
  if (startsLine(text, start) && /^[ \t\r]*$/.test(text.slice(end, after))) {
    return { start: lineStart(text, start), end: Math.min(after + 1, text.length), text: '' }
  }
  return { start, end, text: '' }
}
