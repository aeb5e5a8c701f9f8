/**
 * Bytes git hands over as they are (file contents, paths, commit text without an `encoding`
 * header) become text by one rule: valid UTF-8 is UTF-8; anything else is Windows-1252, which maps
 * every byte to one character, so a Latin-1 `café` stays `café` instead of turning into U+FFFD.
 * Only the text changes, never the lines: each \n byte stays one \n.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
// Windows-1252's 0x80–0x9F (€, ‘, ’, “…); the five bytes it leaves undefined stay the C1 controls
// (as WHATWG maps them), so no two byte strings decode alike. Node's own 'windows-1252' decoder
// is Latin-1 in some versions, hence the table.
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ'

/** Text of some bytes: UTF-8 when they are valid UTF-8, Windows-1252 otherwise. */
export function decodeBytes(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes)
  } catch {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      .toString('latin1')
      .replace(/[\x80-\x9f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80])
  }
}

/** The same rule for a string read as latin1 (one char per byte, as the stream parsers read). */
export function decodeLatin1(s: string): string {
  // Fast path: pure ASCII needs no re-decoding.
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) return decodeBytes(Buffer.from(s, 'latin1'))
  }
  return s
}

const UTF8_BOM = [0xef, 0xbb, 0xbf]

/**
 * A source file's text for parsing: the bytes decoded by `decodeBytes`, without a UTF-8 byte order
 * mark (which would otherwise be part of the first token). Lines are unchanged, so symbol lines
 * agree with git blame.
 */
export function decodeSource(content: Uint8Array): string {
  const bom = content.length >= 3 && UTF8_BOM.every((b, i) => content[i] === b)
  return decodeBytes(bom ? content.subarray(3) : content)
}
