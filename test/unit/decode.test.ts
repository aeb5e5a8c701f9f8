import { describe, expect, it } from 'vitest'
import { decodeBytes, decodeLatin1, decodeSource } from '../../src/git/decode.js'
import { gitTimeToIso, parseLogHeader } from '../../src/git/history-reader.js'

const bytes = (s: string) => Buffer.from(s, 'latin1')

describe('decodeBytes: UTF-8 when valid, Windows-1252 otherwise', () => {
  it('keeps valid UTF-8 (including 4-byte sequences)', () => {
    expect(decodeBytes(bytes('caf\xc3\xa9 \xf0\x9f\x98\x80'))).toBe('café 😀')
  })

  it('reads Latin-1 / Windows-1252 bytes one character per byte instead of U+FFFD', () => {
    expect(decodeBytes(bytes('def caf\xe9():'))).toBe('def café():')
    expect(decodeBytes(bytes('\x80 \x93x\x94'))).toBe('€ “x”')
    // bytes Windows-1252 leaves undefined stay distinct (C1 controls), never U+FFFD
    expect(decodeBytes(bytes('\x81\x8d'))).toBe('\u0081\u008d')
  })

  it('one invalid sequence makes the whole text single-byte (no mixed decoding)', () => {
    expect(decodeBytes(bytes('\xc3\xa9 \xe9'))).toBe('Ã© é')
  })

  it('decodeLatin1 applies the same rule to a latin1-read string, ASCII untouched', () => {
    expect(decodeLatin1('caf\xc3\xa9')).toBe('café')
    expect(decodeLatin1('caf\xe9')).toBe('café')
    expect(decodeLatin1('plain')).toBe('plain')
  })

  it('decodeSource drops a UTF-8 byte order mark and keeps every line', () => {
    expect(decodeSource(bytes('\xef\xbb\xbfdef f():\r\n  pass\r\n'))).toBe('def f():\r\n  pass\r\n')
    expect(decodeSource(bytes('\xef\xbb\xbfcaf\xe9\n'))).toBe('café\n')
    const latin = bytes('a\xe9\nb\n\xe8c\n')
    expect(decodeSource(latin).split('\n')).toHaveLength(latin.toString('latin1').split('\n').length)
  })
})

describe('gitTimeToIso: %at / %ct as git prints them', () => {
  it('reads epoch seconds as a UTC instant', () => {
    expect(gitTimeToIso('1300000000')).toBe('2011-03-13T07:06:40.000Z')
    expect(gitTimeToIso('0')).toBe('1970-01-01T00:00:00.000Z')
    expect(gitTimeToIso('253402300799')).toBe('9999-12-31T23:59:59.000Z')
  })

  it('an unreadable date (git prints nothing), or one past year 9999 or past 2^64, is epoch 0', () => {
    for (const raw of ['', '-100', 'garbage', '253402300800', '99999999999999', '18446744073709551617']) {
      expect(gitTimeToIso(raw), raw).toBe('1970-01-01T00:00:00.000Z')
    }
  })
})

describe('parseLogHeader on odd commits (literal `git log --format=%x01%H%x00%P%x00%aN%x00%aE%x00%at%x00%ct%x00%B%x02` output)', () => {
  it('timezone +51800 (psf/requests 5e6ecdad): the instant is kept, the offset plays no part', () => {
    const h = parseLogHeader('84391e1104807477b73051f3b5efe02e0dd154a2\x00\x00X\x00x@y\x001300000000\x001795457569\x00base\n')
    expect(h.authorDate).toBe('2011-03-13T07:06:40.000Z')
    expect(h.committerDate).toBe('2026-11-23T18:12:49.000Z')
  })

  it('a negative or missing date (%at empty) is epoch 0', () => {
    const h = parseLogHeader('dab1417c70ec4d142f2f5ace5c10918bef10b44d\x00\x00X\x00x@y\x00\x001795457569\x00base\n')
    expect(h.authorDate).toBe('1970-01-01T00:00:00.000Z')
  })

  it('an author line git cannot read prints the %aN / %aE placeholders: no name, no email', () => {
    const h = parseLogHeader('6c63c7176c36af876d43d224b81528536ad339ed\x00\x00%aN\x00%aE\x00\x001795457569\x00base\n')
    expect([h.authorName, h.authorEmail, h.authorDate]).toEqual(['', '', '1970-01-01T00:00:00.000Z'])
  })

  it('message and name bytes that are not UTF-8 (no encoding header) are read as Windows-1252', () => {
    const h = parseLogHeader('6c63c7176c36af876d43d224b81528536ad339ed\x00\x00Jos\xe9\x00j@x\x001000000000\x001000000000\x00Caf\xe9 cr\xe8me\n')
    expect([h.authorName, h.message]).toEqual(['José', 'Café crème'])
  })
})
